/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FAST TCP (Jin, Wei, Low, INFOCOM 2004; Wei, Jin, Low, Hegde, IEEE/ACM ToN 14(6), 2006) as an
 * ns-3 congestion control. Sources, semantics and departures from the papers: docs/fast-tcp.md.
 */

#ifndef EMUSIM_TCP_FAST_H
#define EMUSIM_TCP_FAST_H

#include "ns3/sequence-number.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class TcpSocketState;

/**
 * @ingroup congestionOps
 *
 * @brief FAST TCP: a delay-based congestion control that keeps Alpha packets queued.
 *
 * FAST estimates how many of its packets wait in queues along the path,
 *
 *              q = w (1 - baseRTT / avgRTT)                                   (1)
 *
 * (w the window in segments), and once per RTT moves the window towards the window that
 * would hold exactly Alpha of them queued:
 *
 *              w <- min{ 2w, (1 - g) w + g (baseRTT / avgRTT * w + Alpha) }    (2)
 *
 * with g the UpdateWeight (the papers' gamma, in (0, 1]). The fixed point of (2) is q = Alpha:
 * a single flow holds Alpha packets in the bottleneck queue, n flows n Alpha between them
 * (Jin, Wei, Low, "FAST TCP: motivation, architecture, algorithms, performance", INFOCOM 2004,
 * Section 4; Wei, Jin, Low, Hegde, same title, IEEE/ACM ToN 14(6):1246-1259, 2006).
 *
 * Estimation, per ACK (PktsAcked):
 *  - baseRTT is the minimum RTT observed (the papers' estimate of the propagation delay).
 *  - avgRTT <- (1 - eta) avgRTT + eta RTT with eta = min{3 / w, 1/4}: the window-dependent
 *    weight of INFOCOM 2004, Section 4 ("Estimation"), which averages over about the last
 *    third of a window of samples. The first sample initialises it. (The FAST TCP ns-2 module
 *    has the same factor 3/w in fast_est_update_avgrtt, capped at 1/256 instead of 1/4.)
 *  - RTT is the socket's own sample of the packet just acknowledged (TcpSocketState::m_lastRtt):
 *    ns-3 3.44 passes its RFC 6298 smoothed RTT (m_srtt) as PktsAcked's rtt argument
 *    (tcp-socket-base.cc, ReceivedAck/ProcessAck), which would filter the samples twice and
 *    make baseRTT the minimum of a smoothed value. The argument is used only while the socket
 *    has no sample of its own (m_lastRtt zero), as in unit tests that drive the class directly.
 *
 * Window control (IncreaseWindow):
 *  - Slow start (cWnd < ssThresh): Reno's, one segment per ACK (at most doubling per RTT, the
 *    bound of (2)); left on the first ACK whose estimate (1) exceeds Gamma.
 *    On leaving, ssThresh is set to the window and the rule below is applied at once.
 *  - Otherwise, once per RTT (when the ACK of the first segment sent after the previous update
 *    arrives, as ns-3's TcpVegas delimits its cycles), the window is set by (2), whatever q is:
 *    (2) is w <- w + g (Alpha - q) below the 2w cap, so it grows while q < Alpha, shrinks while
 *    q > Alpha and is still only at q = Alpha. There is no band in which the window is held:
 *    a band [alpha, beta] of queued packets is TCP Vegas's rule (Brakmo, Peterson, IEEE JSAC
 *    13(8), 1995; Linux 6.1 net/ipv4/tcp_vegas.c, alpha 2, beta 4), under which flows that
 *    share a queue can settle anywhere in the band, at rates up to beta/alpha apart. The FAST
 *    TCP ns-2 module (Cui, Andrew, v1.1.3, tcp-fast.cc fast_calc_cwnd) carries such a band
 *    (alpha_, beta_); the papers' update (2) has none. The window is never set below two
 *    segments (the same module's floor) and, between updates, is not changed.
 *  - ssThresh is kept at or below the window after each update, so that a decrease of (2)
 *    never turns into slow start.
 *
 * With the same baseRTT, n flows through one bottleneck reach the same fixed point q = Alpha
 * each; their windows differ by a factor (1 - g (avgRTT - baseRTT) / avgRTT) less after each
 * update (subtract (2) of one flow from the other's), so they converge to equal rates.
 *
 * Loss (GetSsThresh): FAST halves its window like Reno (INFOCOM 2004, Section 4; the ns-2
 * module's dupack_action does slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)):
 * ssThresh = max(cWnd / 2, 2 segments). Recovery, retransmission timeout and the
 * window after them are the socket's (TcpSocketBase), as for every ns-3 congestion control.
 *
 * Defaults Alpha 100 and Gamma 100 packets are issue 9's buffer-size experiment's;
 * UpdateWeight 0.5 is the papers' (and the ns-2 module's gamma_). Which of these statements
 * could be checked against which source: docs/fast-tcp.md, "Sources".
 */
class TcpFast : public TcpNewReno
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /// Create a FAST congestion control with the attributes' defaults.
    TcpFast();

    /**
     * @brief Copy constructor.
     * @param sock the object to copy
     */
    TcpFast(const TcpFast& sock);

    ~TcpFast() override;

    /**
     * @brief Get the name of the congestion control algorithm.
     * @return "TcpFast"
     */
    std::string GetName() const override;

    /**
     * @brief Update baseRTT and avgRTT from the RTT sample of this ACK.
     *
     * baseRTT = min of the samples; avgRTT = (1 - eta) avgRTT + eta sample, eta = min{3/w, 1/4}.
     * A zero sample (none taken) is ignored.
     *
     * @param tcb internal congestion state
     * @param segmentsAcked count of segments acknowledged
     * @param rtt ns-3's smoothed RTT; used only when tcb->m_lastRtt holds no sample
     */
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;

    /**
     * @brief Start a new update cycle when the connection returns to the open state.
     *
     * @param tcb internal congestion state
     * @param newState new congestion state to which the TCP is going to switch
     */
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;

    /**
     * @brief Slow start until Gamma packets are queued, then the FAST update once per RTT.
     *
     * @param tcb internal congestion state
     * @param segmentsAcked count of segments acknowledged
     */
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;

    /**
     * @brief FAST's loss response: half the congestion window, at least two segments.
     *
     * @param tcb internal congestion state
     * @param bytesInFlight bytes in flight (not used: the window is halved, as in the papers)
     * @return the slow start threshold
     */
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;

    /**
     * @brief Copy this congestion control.
     * @return a copy of this object
     */
    Ptr<TcpCongestionOps> Fork() override;

    /**
     * @brief The minimum RTT observed so far.
     * @return baseRTT, Time::Max() before the first sample
     */
    Time GetBaseRtt() const;

    /**
     * @brief The average RTT of the estimator.
     * @return avgRTT, zero before the first sample
     */
    Time GetAvgRtt() const;

    /**
     * @brief The packets this flow has queued in the path by (1), for a window of w segments.
     * @param segments the window w, in segments
     * @return w (1 - baseRTT / avgRTT), or 0 before the first sample
     */
    double QueuedPackets(double segments) const;

    /**
     * TracedCallback signature of the Update trace source: one once-per-RTT decision of the
     * window rule (and the one at the end of slow start).
     *
     * @param [in] baseRtt the minimum RTT observed
     * @param [in] avgRtt the estimator's average RTT
     * @param [in] queued the flow's queued packets by (1), for the window before the update
     * @param [in] cwndBefore the congestion window before, bytes
     * @param [in] cwndAfter the congestion window after, bytes
     */
    typedef void (*UpdateTracedCallback)(Time baseRtt,
                                         Time avgRtt,
                                         double queued,
                                         uint32_t cwndBefore,
                                         uint32_t cwndAfter);

    /// Upper bound of the estimator's weight eta (INFOCOM 2004, Section 4.1).
    static constexpr double RTT_WEIGHT_MAX = 0.25;
    /// eta = RTT_WEIGHT_WINDOW / w below that bound: about a third of a window of samples.
    static constexpr double RTT_WEIGHT_WINDOW = 3.0;

  private:
    /**
     * @brief Apply rule (2) to the window.
     * @param tcb internal congestion state
     */
    void UpdateWindow(Ptr<TcpSocketState> tcb);

    uint32_t m_alpha;             //!< packets the flow keeps queued at equilibrium
    uint32_t m_gamma;             //!< slow start ends above this many queued packets
    double m_updateWeight;        //!< the papers' gamma: weight of the target window in (2)
    Time m_baseRtt;               //!< minimum RTT observed (Time::Max() before any)
    double m_avgRtt;              //!< the estimator's average RTT, s (a double: a Time's ns
                                  //!< would stall the average short of its samples)
    SequenceNumber32 m_begSndNxt; //!< next sequence to send when the current cycle began
    /// each once-per-RTT decision: baseRTT, avgRTT, q by (1), window before and after
    TracedCallback<Time, Time, double, uint32_t, uint32_t> m_updateTrace;
};

} // namespace ns3

#endif /* EMUSIM_TCP_FAST_H */
