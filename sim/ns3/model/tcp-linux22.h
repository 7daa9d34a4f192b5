/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Linux 2.2.16's window and loss recovery, written here from the 2.2.16 source (tag 2.2.16,
 * commit 980c3cbb, of github.com/schwabe/davej-history; file:line below), never fitted to
 * results. docs/fidelity.md, "Linux 2.2 in ns-3", says what these classes do and what is left.
 */

#ifndef EMUSIM_TCP_LINUX22_H
#define EMUSIM_TCP_LINUX22_H

#include "ns3/nstime.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-recovery-ops.h"

#include <cstdint>

namespace ns3
{

class TcpSocketState;

/**
 * @brief 2.2's 100 Hz clock: jiffies, and the time of a given tick.
 *
 * HZ = 100 (include/asm-i386/param.h:5): jiffies advance every 10 ms, and the TCP timestamp
 * clock is jiffies itself (tcp_time_stamp, include/net/tcp.h:720). The host's ticks fall at an
 * unknown phase relative to the run's start: tick j happens at j x 10 ms - phase, phase in
 * [0, 10 ms).
 */
class Linux22Clock
{
  public:
    /// Length of one tick (1 / HZ).
    static constexpr int64_t TICK_NS = 10'000'000;

    /**
     * @brief A clock whose ticks fall at multiples of 10 ms minus `phase`.
     * @param phase the tick phase, reduced modulo 10 ms
     */
    explicit Linux22Clock(Time phase = Time(0));

    /**
     * @brief The value of jiffies at time `t`.
     * @param t simulation time
     * @return floor((t + phase) / 10 ms)
     */
    int64_t Jiffies(Time t) const;

    /**
     * @brief The time at which jiffies becomes `jiffy`.
     * @param jiffy a tick number
     * @return jiffy x 10 ms - phase
     */
    Time TickTime(int64_t jiffy) const;

    /**
     * @brief The tick phase.
     * @return the phase in [0, 10 ms)
     */
    Time GetPhase() const;

  private:
    int64_t m_phaseNs; //!< the phase in ns, in [0, TICK_NS)
};

/**
 * @brief 2.2's RTT estimator and RTO, in ticks (tcp_input.c:155-211).
 *
 * Sample(m): m = 0 counts as 1 (:168); first sample srtt = 8m, mdev = 4m (:179-180); then
 * srtt += m - srtt/8, mdev += |m - srtt/8| - mdev/4 (:170-176) (srtt and mdev are scaled by 8
 * and 4). Rto(cwnd): rto = srtt/8 + mdev; rto += rto/4 + rto >> (cwnd - 1) (tcp_set_rto,
 * :188-192), then clamped to [HZ/5, 120 HZ] (tcp_bound_rto, :205-211).
 */
class Linux22RttEstimator
{
  public:
    /// Lower bound of the RTO in ticks (HZ/5).
    static constexpr int64_t RTO_MIN_TICKS = 20;
    /// Upper bound of the RTO in ticks (120*HZ).
    static constexpr int64_t RTO_MAX_TICKS = 12000;
    /// Initial RTO in ticks (TCP_TIMEOUT_INIT = 3*HZ, include/net/tcp.h:258).
    static constexpr int64_t RTO_INIT_TICKS = 300;

    /**
     * @brief Feed one RTT sample.
     * @param ticks the sample in ticks (0 counts as 1)
     */
    void Sample(int64_t ticks);

    /**
     * @brief tcp_set_rto without the bound.
     * @param cwndSegments the congestion window in segments (at least 1)
     * @return the RTO in ticks, unbounded
     */
    int64_t RawRto(uint32_t cwndSegments) const;

    /**
     * @brief Clamp to [HZ/5, 120 HZ] (tcp_bound_rto).
     * @param rto an RTO in ticks
     * @return the bounded RTO
     */
    static int64_t Bound(int64_t rto);

    /**
     * @brief Whether a sample was taken.
     * @return true after the first Sample
     */
    bool HasSample() const;

    int64_t m_srtt{0}; //!< smoothed RTT, ticks x 8
    int64_t m_mdev{0}; //!< mean deviation, ticks x 4
};

/**
 * @ingroup congestionOps
 *
 * @brief 2.2's window growth and slow-start threshold.
 *
 * IncreaseWindow is called once per ACK that acknowledges new data, whatever the number of
 * segments it acknowledges (tcp_ack calls tcp_cong_avoid once, tcp_input.c:847-848):
 * cwnd <= ssthresh: cwnd += 1 segment; otherwise a counter counts ACKs, and when it has
 * reached cwnd, cwnd += 1 and the counter restarts (tcp_cong_avoid, tcp_input.c:599-614:
 * one segment per cwnd + 1 ACKs). The window grows with every such ACK, limited by the
 * receiver's window or not (2.2 has no congestion-window validation).
 *
 * GetSsThresh: max(min(snd_wnd / mss, cwnd) / 2, 2) segments (tcp_recalc_ssthresh,
 * include/net/tcp.h:707-712), snd_wnd the peer's advertised window: TcpLinux22Socket tells
 * it (SetPeerWindow); on any other socket it is taken as unlimited.
 */
class TcpLinux22 : public TcpCongestionOps
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    TcpLinux22();

    /**
     * @brief Copy constructor.
     * @param other the object to copy
     */
    TcpLinux22(const TcpLinux22& other);

    ~TcpLinux22() override;

    /**
     * @brief The algorithm's name.
     * @return "TcpLinux22"
     */
    std::string GetName() const override;

    /**
     * @brief One step of tcp_cong_avoid for this ACK (segmentsAcked is not used).
     * @param tcb internal congestion state
     * @param segmentsAcked segments acknowledged (ignored: 2.2 counts ACKs)
     */
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;

    /**
     * @brief tcp_recalc_ssthresh.
     * @param tcb internal congestion state
     * @param bytesInFlight not used
     * @return the threshold in bytes
     */
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;

    /**
     * @brief Restart the avoidance counter at a timeout (tcp_timer.c:471, snd_cwnd_cnt = 0).
     * @param tcb internal congestion state
     * @param event the event
     */
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;

    /**
     * @brief The peer's advertised window, for GetSsThresh.
     * @param bytes the window in bytes
     */
    void SetPeerWindow(uint32_t bytes);

    /**
     * @brief Copy this congestion control.
     * @return a copy
     */
    Ptr<TcpCongestionOps> Fork() override;

  private:
    uint32_t m_cwndCnt{0};             //!< snd_cwnd_cnt: ACKs counted in avoidance
    uint32_t m_peerWindow{UINT32_MAX}; //!< snd_wnd in bytes
};

/**
 * @ingroup recoveryOps
 *
 * @brief 2.2's fast retransmit and recovery with SACK (FACK, no window inflation).
 *
 * - EnterRecovery: cwnd = ssthresh + 3 segments (tcp_input.c:511-512).
 * - DoRecovery, duplicate ACK: no inflation while SACK information is used ("We do not use
 *   duplicate ACKs to artificially inflate the congestion window when doing FACK",
 *   tcp_input.c:521-543); the duplicate ACK is counted (dup_acks, :508, :522).
 * - DoRecovery, partial ACK (new data acknowledged below high_seq): one step of tcp_cong_avoid,
 *   since should_advance_cwnd advances during FACK recovery (fackets_out != 0,
 *   tcp_input.c:697-718, called at :847-848): cwnd > ssthresh there, so one segment per
 *   cwnd + 1 such ACKs.
 * - ExitRecovery: cwnd = ssthresh only if more than three duplicate ACKs were counted
 *   (clear_fast_retransmit, tcp_input.c:476-482); after exactly three it stays where the
 *   recovery left it (ssthresh + 3 plus any growth).
 *
 * With SackEnabled false (not the testbed's setting) duplicate ACKs inflate cwnd by one
 * segment each after the third, as Reno (tcp_input.c:530-531).
 */
class TcpLinux22Recovery : public TcpRecoveryOps
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    TcpLinux22Recovery();

    /**
     * @brief Copy constructor.
     * @param other the object to copy
     */
    TcpLinux22Recovery(const TcpLinux22Recovery& other);

    ~TcpLinux22Recovery() override;

    /**
     * @brief The algorithm's name.
     * @return "TcpLinux22Recovery"
     */
    std::string GetName() const override;

    /**
     * @brief cwnd = ssthresh + 3 segments.
     * @param tcb internal congestion state
     * @param dupAckCount duplicate ACKs counted so far
     * @param unAckDataCount not used
     * @param deliveredBytes not used
     */
    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t dupAckCount,
                       uint32_t unAckDataCount,
                       uint32_t deliveredBytes) override;

    /**
     * @brief Count a duplicate ACK, or grow the window on a partial ACK.
     * @param tcb internal congestion state
     * @param deliveredBytes not used
     * @param isDupAck whether the ACK was a duplicate
     */
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override;

    /**
     * @brief cwnd = ssthresh after more than three duplicate ACKs, else as it is.
     * @param tcb internal congestion state (ns-3 has set cwnd to ssthresh before the call)
     */
    void ExitRecovery(Ptr<TcpSocketState> tcb) override;

    /**
     * @brief Set the duplicate-ACK count 2.2 would have (the socket knows it better when the
     * recovery was started by fackets_out > 3 rather than by the third duplicate ACK).
     * @param dupAcks 2.2's dup_acks
     */
    void SetDupAcks(uint32_t dupAcks);

    /**
     * @brief 2.2's duplicate-ACK count of this recovery.
     * @return dup_acks
     */
    uint32_t GetDupAcks() const;

    /**
     * @brief Copy this recovery algorithm.
     * @return a copy
     */
    Ptr<TcpRecoveryOps> Fork() override;

  private:
    uint32_t m_dupAcks{0}; //!< dup_acks of the current recovery
    uint32_t m_cwndCnt{0}; //!< snd_cwnd_cnt during recovery
    uint32_t m_cwnd{0};    //!< cwnd as the recovery leaves it, bytes
    bool m_sack{true};     //!< whether SACK information is used (FACK)
};

} // namespace ns3

#endif // EMUSIM_TCP_LINUX22_H
