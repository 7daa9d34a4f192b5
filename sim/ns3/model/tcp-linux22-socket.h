/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A TcpSocketBase with Linux 2.2.16's 100 Hz timers and retransmission timeout, written here
 * from the 2.2.16 source (tag 2.2.16, commit 980c3cbb, github.com/schwabe/davej-history).
 * docs/fidelity.md, "Linux 2.2 in ns-3", says what it does and what is left.
 */

#ifndef EMUSIM_TCP_LINUX22_SOCKET_H
#define EMUSIM_TCP_LINUX22_SOCKET_H

#include "tcp-linux22.h"

#include "ns3/random-variable-stream.h"
#include "ns3/tcp-socket-base.h"

#include <map>

namespace ns3
{

class Node;

/**
 * @ingroup tcp
 *
 * @brief TCP socket with 2.2's timers, retransmission timeout and fast-retransmit trigger.
 *
 * What it changes in TcpSocketBase (everything else is ns-3's):
 *
 * - **100 Hz clock.** The host's jiffies tick every 10 ms at a phase (TickPhase, drawn once per
 *   socket from a seeded random variable; a forked socket keeps its listener's: same host).
 * - **RTO in ticks.** 2.2's estimator (Linux22RttEstimator) fed with RTT samples in ticks,
 *   taken when an ACK acknowledges new data (tcp_ack_saw_tstamp, tcp_input.c:729-755): the
 *   jiffies now minus the jiffies at which the echoed segment was sent.
 * - **Timer armed in jiffies, firing on a tick.** When an ACK acknowledges data, the timer is set
 *   to expire rto ticks after the jiffy at which the oldest unacknowledged segment was (last)
 *   sent (tcp_ack_packets_out, tcp_input.c:759-777), at least one tick ahead; while
 *   retransmitting after a timeout, rto ticks from now (:763-765). At the start of fast
 *   retransmit, rto from now (:518); when data goes out and no timer is set, rto from now
 *   (tcp_write_xmit, tcp_output.c:363-364). It fires on the tick: 190-200 ms after the send for
 *   the 200 ms floor.
 * - **Timeout** (tcp_retransmit_timer, tcp_timer.c:416-502): the SACK scoreboard is cleared
 *   (:441-452) and fackets_out zeroed (:456); on the first timeout of a series only, ssthresh is
 *   recomputed and cwnd = 1 (:457-471); the head is retransmitted (:480); backoff grows and
 *   rto = min(2 rto, 120 s) (:498-499). The connection is given up when the series exceeds
 *   DataRetries (tcp_write_timeout, tcp_timer.c:162).
 * - **No new data until everything outstanding at the timeout is acknowledged**: tcp_snd_test
 *   refuses new data while retransmits != 0 (include/net/tcp.h:824-828), and retransmits is
 *   cleared only when packets_out reaches 0 (tcp_input.c:739-745).
 * - **Backoff kept until then**: every RTT sample meanwhile sets rto = (tcp_set_rto) << backoff,
 *   bounded to 120 s (tcp_input.c:746-754), so timeouts that repeat before everything is
 *   acknowledged keep doubling.
 * - **Fast retransmit on fackets_out > 3** as well as on the third duplicate ACK
 *   (tcp_input.c:510): fackets_out is the number of segments from snd_una to the forward-most
 *   SACKed one (tcp_sacktag_write_queue, tcp_input.c:307-348).
 * - **FACK** (FackRetransmit, off by default; off, RFC 6675's pipe and loss rule): in every
 *   state the pipe is packets_out - fackets_out + retrans_out (tcp_packets_in_flight,
 *   include/net/tcp.h:775-778; AvailableWindow); during fast retransmit and after a timeout
 *   every segment below the forward-most SACK that is neither SACKed nor retransmitted is lost
 *   (ns-3's scoreboard with a loss threshold of one SACKed segment), and the first such hole is
 *   retransmitted even with the pipe full (tcp_fack_retransmit, tcp_output.c:689-716).
 * - **Delayed ACK on the tick**: a delayed ACK is sent at the next tick (ato = 1 tick at
 *   100 Mb/s, tcp_delack_estimator, tcp_input.c:98-124; tcp_send_delayed_ack,
 *   tcp_output.c:1008-1030), 0-10 ms after the segment, instead of DelAckTimeout later.
 *
 * The congestion control and recovery are the node's (TcpLinux22, TcpLinux22Recovery for the
 * linux-2.2 profile); when the congestion control is TcpLinux22 the socket tells it the peer's
 * window for tcp_recalc_ssthresh.
 */
class TcpLinux22Socket : public TcpSocketBase
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * @brief This object's TypeId (so that its own attributes are applied).
     * @return the TypeId
     */
    TypeId GetInstanceTypeId() const override;

    TcpLinux22Socket();

    /**
     * @brief Copy constructor (for Fork).
     * @param sock the socket to copy
     */
    TcpLinux22Socket(const TcpLinux22Socket& sock);

    ~TcpLinux22Socket() override;

    /**
     * @brief The host clock of this socket (draws the tick phase on first use).
     * @return the clock
     */
    const Linux22Clock& GetClock();

    /**
     * @brief The current RTO in ticks, backoff included.
     * @return rto
     */
    int64_t GetRtoTicks() const;

    /**
     * @brief The number of timeouts in the current series (2.2's retransmits).
     * @return retransmits
     */
    uint32_t GetRetransmits() const;

    /**
     * @brief Whether an ACK is a duplicate for 2.2 (tcp_input.c:886-891): it acknowledges
     * nothing new while data is outstanding, and carries no data. Its SACK blocks do not
     * matter (RFC 6675's definition, which ns-3 uses, counts any ACK with new SACK
     * information, one that advances snd_una included).
     * @param ack the ACK's acknowledgment number
     * @param una snd_una before the ACK
     * @param highTxMark the highest sequence sent
     * @param carriesData whether the segment carries data
     * @return whether the ACK is a duplicate
     */
    static bool IsDuplicateAck(SequenceNumber32 ack,
                               SequenceNumber32 una,
                               SequenceNumber32 highTxMark,
                               bool carriesData);

  protected:
    Ptr<TcpSocketBase> Fork() override;
    void ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader) override;
    void ReceivedData(Ptr<Packet> packet, const TcpHeader& tcpHeader) override;
    uint32_t SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck) override;
    void ReTxTimeout() override;
    void ProcessAck(const SequenceNumber32& ackNumber,
                    bool scoreboardUpdated,
                    uint32_t currentDelivered,
                    const SequenceNumber32& oldHeadSequence,
                    bool receivedData) override;
    uint32_t AvailableWindow() const override;

  private:
    /// Whether the connection is synchronised (the data-transfer rules apply).
    bool Synchronised() const;
    /// Whether data is outstanding (sent and not acknowledged).
    bool Outstanding() const;
    /// The jiffies now.
    int64_t NowJiffies();
    /// Schedule the retransmission event at the tick of m_expiry (or leave ns-3's, no data).
    void ArmTimer();
    /// Tell a TcpLinux22 congestion control the peer's window.
    void TellPeerWindow();
    /// FACK's loss rule and pipe during a loss episode (FackRetransmit), RFC 6675's otherwise.
    void UseFackScoreboard(bool lossEpisode);

    Ptr<RandomVariableStream> m_tickPhase; //!< source of the tick phase, seconds
    Linux22Clock m_clock;                  //!< the host's clock
    bool m_clockSet{false};                //!< whether the phase was drawn
    bool m_fackTrigger{true};              //!< fast retransmit on fackets_out > 3
    bool m_fackRetransmit{false};          //!< FACK's loss rule and pipe in a loss episode
    bool m_tickDelAck{true};               //!< delayed ACKs on the next tick

    Linux22RttEstimator m_estimator;                         //!< srtt, mdev in ticks
    int64_t m_rtoTicks{Linux22RttEstimator::RTO_INIT_TICKS}; //!< rto, backoff included
    uint32_t m_backoff{0};                                   //!< backoff
    uint32_t m_retransmits{0};                               //!< timeouts in this series
    SequenceNumber32 m_retransmitMark{0};                    //!< snd_nxt at the last timeout
    int64_t m_expiry{0};                                     //!< jiffy at which the timer fires
    bool m_timerSet{false};                                  //!< whether the 2.2 timer is set
    std::map<SequenceNumber32, int64_t> m_sendJiffy; //!< segment start -> jiffy of last send
    uint32_t m_dupAcks22{0};                         //!< 2.2's dup_acks
    uint32_t m_retransmitted{0};                     //!< retransmissions sent so far
    SequenceNumber32 m_highSack{0};                  //!< end of the forward-most SACK block
};

/**
 * @brief Create a TCP socket of class `socketType` (TcpSocketBase or a subclass) on `node`,
 * with the congestion control, recovery and RTT estimator the node's TcpL4Protocol would give
 * it, registered with that protocol (as ns-3's own TCP tests create their sockets).
 * @param node the node
 * @param socketType ns3::TcpSocketBase or a subclass
 * @return the socket
 */
Ptr<Socket> CreateTcpSocketOfType(Ptr<Node> node, TypeId socketType);

} // namespace ns3

#endif // EMUSIM_TCP_LINUX22_SOCKET_H
