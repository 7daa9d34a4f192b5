/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Linux 6.1's proportional rate reduction (tcp_cwnd_reduction, net/ipv4/tcp_input.c:2683-2707
 * of Debian's linux-source-6.1, 6.1.192), written here as an ns-3 TcpRecoveryOps.
 * docs/linux-cc.md, "Recovery".
 */

#ifndef EMUSIM_TCP_LINUX_RECOVERY_H
#define EMUSIM_TCP_LINUX_RECOVERY_H

#include "ns3/tcp-recovery-ops.h"

namespace ns3
{

/**
 * @brief What a socket knows of the ACK being processed that Linux's cwnd reduction reads; a
 * TcpLinuxSocket provides it (tcp-linux-socket.h).
 */
class TcpLinuxAckFacts
{
  public:
    virtual ~TcpLinuxAckFacts() = default;

    /**
     * @brief The ACK as tcp_ack hands it to tcp_cong_control.
     * @param newlyAckedSacked segments it delivered (tp->delivered - prior_delivered)
     * @param newlyLost segments it had marked lost (rs->losses)
     * @param sndUnaAdvanced whether it advanced snd_una (FLAG_SND_UNA_ADVANCED)
     * @param packetsInFlight tcp_packets_in_flight after it, segments
     */
    virtual void LastAckForRecovery(uint32_t& newlyAckedSacked,
                                    uint32_t& newlyLost,
                                    bool& sndUnaAdvanced,
                                    uint32_t& packetsInFlight) const = 0;

    /**
     * @brief Whether the ACK being processed came in CWR, where the socket reduces the window
     * itself after Linux's checks for the episode's end and for losses (tcp_fastretrans_alert
     * before tcp_cong_control, tcp_input.c:4019-4034): TcpSocketBase's own call of DoRecovery
     * in CWR is then not the reduction.
     * @return true if the socket reduces the window for this ACK
     */
    virtual bool AckTakenInCwr() const = 0;
};

/**
 * @ingroup recoveryOps
 *
 * @brief Linux 6.1's cwnd reduction in Recovery and CWR (tcp_cwnd_reduction), in segments:
 *
 * - entering (tcp_init_cwnd_reduction, :2669-2679): prior_cwnd = cwnd, prr_delivered =
 *   prr_out = 0;
 * - per ACK that delivered something (newly_acked_sacked > 0): prr_delivered +=
 *   newly_acked_sacked; delta = ssthresh - in flight; if delta < 0, sndcnt =
 *   ceil(ssthresh x prr_delivered / prior_cwnd) - prr_out; else sndcnt =
 *   min(delta, max(prr_delivered - prr_out, newly_acked_sacked) + 1 if the ACK advanced snd_una
 *   and marked nothing newly lost); sndcnt is at least 1 until something was sent (the fast
 *   retransmit); cwnd = in flight + sndcnt;
 * - prr_out counts the segments sent meanwhile.
 *
 * A reduction that starts in CWR (tcp_enter_cwr: InitReduction, no reduction on that ACK) and
 * goes on into Recovery keeps its counts (tcp_enter_recovery, :2893-2897); the socket calls
 * CwndReduction on the ACKs it takes in CWR (TcpLinuxAckFacts::AckTakenInCwr).
 *
 * ns-3 3.44's TcpPrrRecovery is RFC 6937's with RecoverFS = the pipe at entry rather than
 * prior_cwnd, SSRB only when retransmitted data is acknowledged, and one segment added to
 * DeliveredData for every duplicate ACK even with SACK, which counts SACKed data twice (ns-3
 * issue #1350, fixed after 3.44).
 *
 * With a socket that provides TcpLinuxAckFacts the counts are Linux's; without, they are
 * derived from ns-3's bytes (delivered / MSS, in flight from TcpSocketState, no new losses).
 */
class TcpLinuxPrrRecovery : public TcpRecoveryOps
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    TcpLinuxPrrRecovery();

    /**
     * @brief Copy constructor.
     * @param other the object to copy
     */
    TcpLinuxPrrRecovery(const TcpLinuxPrrRecovery& other);

    ~TcpLinuxPrrRecovery() override;

    std::string GetName() const override;
    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t dupAckCount,
                       uint32_t unAckDataCount,
                       uint32_t deliveredBytes) override;
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override;
    void ExitRecovery(Ptr<TcpSocketState> tcb) override;
    void UpdateBytesSent(uint32_t bytesSent) override;
    Ptr<TcpRecoveryOps> Fork() override;

    /**
     * @brief tcp_init_cwnd_reduction's counts (tcp_input.c:2669-2681): the window before the
     * reduction, and prr_delivered = prr_out = 0.
     * @param priorCwnd the window, segments
     */
    void InitReduction(uint32_t priorCwnd);

    /**
     * @brief tcp_cwnd_reduction for the ACK in hand (tcp_input.c:2683-2707): the window from
     * the socket's facts, or from ns-3's counts without them.
     * @param tcb the connection
     * @param deliveredBytes bytes the ACK delivered, as ns-3 counts them
     */
    void CwndReduction(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes);

    /**
     * @brief Take the ACK's facts from a socket that keeps them.
     * @param facts the socket, or nullptr
     */
    void SetFacts(const TcpLinuxAckFacts* facts);

    /**
     * @brief tcp_cwnd_reduction's arithmetic, in segments (public for its TestSuite).
     * @param ssthresh snd_ssthresh
     * @param priorCwnd cwnd when the reduction began
     * @param inFlight tcp_packets_in_flight
     * @param newlyAckedSacked segments this ACK delivered
     * @param newlyLost segments this ACK marked lost
     * @param sndUnaAdvanced whether this ACK advanced snd_una
     * @param prrDelivered prr_delivered, updated
     * @param prrOut prr_out
     * @return the new cwnd, segments; 0 when the ACK delivered nothing (cwnd unchanged)
     */
    static uint32_t Reduce(uint32_t ssthresh,
                           uint32_t priorCwnd,
                           uint32_t inFlight,
                           uint32_t newlyAckedSacked,
                           uint32_t newlyLost,
                           bool sndUnaAdvanced,
                           uint32_t& prrDelivered,
                           uint32_t prrOut);

  private:
    const TcpLinuxAckFacts* m_facts{nullptr}; //!< the socket's facts, if it keeps them
    uint32_t m_priorCwnd{0};                  //!< prior_cwnd, segments
    uint32_t m_prrDelivered{0};               //!< prr_delivered, segments
    uint32_t m_prrOutBytes{0};                //!< prr_out, in bytes sent
};

} // namespace ns3

#endif /* EMUSIM_TCP_LINUX_RECOVERY_H */
