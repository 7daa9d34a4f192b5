/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TcpLinuxSocket's loss detection and timers as Linux 6.1 has them: RACK (tcp_recovery.c), tail
 * loss probes, F-RTO, D-SACK and the undos (tcp_input.c, tcp_output.c);
 * tcp-linux-socket.h states each rule with its source.
 */

#include "tcp-linux-socket-detail.h"
#include "tcp-linux-socket.h"
#include "tcp-tx-buffer-marks.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/tcp-tx-buffer.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpLinuxSocketLoss");

namespace
{

using tcp_linux::Before;

/// tcp_skb_sent_after (include/net/tcp.h:1205-1208): sent later, or in the same microsecond
/// after it (Linux: with a higher end sequence; here: later in the socket's order, class comment)
bool
SentAfter(uint64_t t1Us, uint64_t t2Us, uint64_t order1, uint64_t order2)
{
    return t1Us > t2Us || (t1Us == t2Us && order1 > order2);
}

/// sysctl_tcp_reordering's default, segments (TCP_FASTRETRANS_THRESH, include/net/tcp.h)
constexpr uint32_t REORDERING = 3;
/// TCP_TIMEOUT_MIN_US, µs (include/net/tcp.h:147)
constexpr uint32_t TIMEOUT_MIN_US = 2000;

} // namespace

// ---- RACK (tcp_recovery.c) ----

uint32_t
TcpLinuxSocket::GetRackMarkedLost() const
{
    return m_rackMarkedLost;
}

uint32_t
TcpLinuxSocket::GetRackReoTimeouts() const
{
    return m_rackReoTimeouts;
}

uint32_t
TcpLinuxSocket::GetRecoveryEntriesRedirected() const
{
    return m_recoveryRedirected;
}

uint32_t
TcpLinuxSocket::GetRackLostRetransmits() const
{
    return m_rackLostRetransmits;
}

std::map<uint32_t, TcpLinuxSocket::Segment>::const_iterator
TcpLinuxSocket::SegmentAt(uint32_t seq) const
{
    auto it = m_segments.upper_bound(seq);
    if (it == m_segments.begin())
    {
        return m_segments.end();
    }
    --it;
    return Before(seq, it->second.end) ? it : m_segments.end();
}

void
TcpLinuxSocket::RackAdvance(const Segment& seg, uint64_t nowUs)
{
    // tcp_rack_advance, tcp_recovery.c:118-144; tcp_min_rtt is ~0U before any sample
    const uint32_t rttUs = static_cast<uint32_t>(nowUs - seg.sentUs);
    const uint32_t minRttUs = m_minRttUs == 0 ? UINT32_MAX : m_minRttUs;
    if (rttUs < minRttUs && seg.retransmitted)
    {
        return; // the original or the retransmission: ambiguous (:124-136)
    }
    m_rackAdvanced = true;
    m_rackRttUs = rttUs;
    if (SentAfter(seg.sentUs, m_rackMstampUs, seg.sendOrder, m_rackSendOrder))
    {
        m_rackMstampUs = seg.sentUs;
        m_rackSendOrder = seg.sendOrder;
    }
}

uint32_t
TcpLinuxSocket::RackReoWindowUs() const
{
    // tcp_rack_reo_wnd, tcp_recovery.c:5-30, with reord_seen 0 (no reordering on these paths)
    if (m_tcb->m_congState >= TcpSocketState::CA_RECOVERY || m_sackedOut >= REORDERING)
    {
        return 0;
    }
    return std::min((m_minRttUs >> 2) * m_rackReoWndSteps, m_linuxRtt->GetSrttUsX8() >> 3);
}

uint32_t
TcpLinuxSocket::RackDetectLoss(bool& lostRetransmit)
{
    // tcp_rack_detect_loss, tcp_recovery.c:58-93. Linux walks its list in send-time order and
    // stops at the first segment not sent before RACK's latest; this walks in sequence order
    // and skips such segments, which decides the same for each.
    const uint64_t now = NowUs();
    const uint32_t reoWndUs = RackReoWindowUs();
    uint32_t waitUs = 0;
    for (const TcpTxSegmentMarks& marks : GetSentMarks(*m_txBuffer))
    {
        if (marks.sacked || (marks.lost && !marks.retrans))
        {
            continue; // off Linux's send-time list (tcp_input.c:1755-1756; :71-74)
        }
        auto seg = SegmentAt(marks.start);
        if (seg == m_segments.end() ||
            !SentAfter(m_rackMstampUs, seg->second.sentUs, m_rackSendOrder, seg->second.sendOrder))
        {
            continue;
        }
        const int64_t remainingUs = static_cast<int64_t>(m_rackRttUs) + reoWndUs -
                                    static_cast<int64_t>(now - seg->second.sentUs);
        if (remainingUs > 0)
        {
            waitUs = std::max(waitUs, static_cast<uint32_t>(remainingUs));
            continue;
        }
        const TcpTxLossMark mark = MarkSegmentLost(*m_txBuffer, marks.start);
        if (mark != TcpTxLossMark::NONE)
        {
            ++m_rackMarkedLost;
            ++m_lostCount; // tcp_notify_skb_loss_event, tcp_input.c:1100-1103
            if (mark == TcpTxLossMark::LOST_RETRANSMIT)
            {
                ++m_rackLostRetransmits;
                lostRetransmit = true;
            }
            NS_LOG_DEBUG("RACK: " << marks.start << " lost"
                                  << (mark == TcpTxLossMark::LOST_RETRANSMIT ? " again" : ""));
        }
    }
    return waitUs;
}

bool
TcpLinuxSocket::RackMarkLost(bool& lostRetransmit)
{
    // tcp_rack_mark_lost, tcp_recovery.c:95-112
    if (!m_rackAdvanced)
    {
        return false;
    }
    m_rackAdvanced = false;
    const uint32_t waitUs = RackDetectLoss(lostRetransmit);
    if (waitUs == 0)
    {
        return false;
    }
    // usecs_to_jiffies rounds up; the timer runs on its wheel bucket's tick
    const uint64_t jiffies =
        (uint64_t{waitUs} + TIMEOUT_MIN_US + TcpLinuxRttEstimator::JIFFY_US - 1) /
        TcpLinuxRttEstimator::JIFFY_US;
    m_reoEvent.Cancel();
    m_reoEvent = Simulator::Schedule(DelayToTick(jiffies), &TcpLinuxSocket::RackReoTimeout, this);
    m_ptoEvent.Cancel(); // the reordering timer takes the probe's slot
    return true;
}

void
TcpLinuxSocket::EnterLinuxRecovery(uint32_t currentDelivered)
{
    if (m_tcb->m_congState == TcpSocketState::CA_CWR)
    {
        // tcp_enter_recovery within a reduction (tcp_input.c:2894-2899): no new one (the
        // threshold, high_seq and PRR's counts stay); the state Recovery, with undo set up
        // (CongStateChanged); the reduction for this ACK follows as tcp_cong_control's
        // (:3583-3585), and SendPendingData sends what the window allows (tcp_xmit_recovery)
        m_recoverActive = true;
        SetCaState(TcpSocketState::CA_RECOVERY);
        DynamicCast<TcpLinuxPrrRecovery>(m_recoveryOps)->CwndReduction(m_tcb, currentDelivered);
        return;
    }
    // tcp_enter_recovery then tcp_xmit_recovery (tcp_input.c:2876-2900, 3851-3866): under RACK
    // no segment is marked for entering (tcp_fastretrans_alert skips tcp_update_scoreboard,
    // :3144-3145); TcpSocketBase::EnterRecovery's send is taken in SendDataPacket
    m_headLostBeforeRecovery = m_txBuffer->IsLost(m_txBuffer->HeadSequence());
    m_enteringRecovery = true;
    EnterRecovery(currentDelivered);
    m_enteringRecovery = false;
}

SequenceNumber32
TcpLinuxSocket::RecoveryFirstSend(SequenceNumber32 head)
{
    const bool headMarkedHere =
        !m_headLostBeforeRecovery && UnmarkSegmentLost(*m_txBuffer, head.GetValue());
    // tcp_xmit_retransmit_queue (tcp_output.c:3367-3439): the first segment marked lost that
    // is neither SACKed nor already retransmitted
    for (const TcpTxSegmentMarks& marks : GetSentMarks(*m_txBuffer))
    {
        if (marks.lost && !marks.retrans && !marks.sacked)
        {
            return SequenceNumber32(marks.start);
        }
    }
    // none: tcp_cwnd_reduction forces one segment out on entry (sndcnt at least 1 while
    // prr_out is 0, tcp_input.c:2704-2705), new data if the peer's window has room
    const SequenceNumber32 high = m_tcb->m_highTxMark;
    const uint32_t size = std::min(m_tcb->m_segmentSize, m_txBuffer->SizeFromSequence(high));
    if (size > 0 && high + size <= m_txBuffer->HeadSequence() + m_rWnd.Get())
    {
        return high;
    }
    // nothing new either (the transfer's end): ns-3's retransmission of the head, as marked
    if (headMarkedHere)
    {
        MarkSegmentLost(*m_txBuffer, head.GetValue());
    }
    return head;
}

void
TcpLinuxSocket::RackReoTimeout()
{
    // tcp_rack_reo_timeout, tcp_recovery.c:149-167
    ++m_rackReoTimeouts;
    const uint32_t priorInFlight = PacketsInFlight();
    const uint32_t lostBeforeBytes = m_txBuffer->GetLost();
    bool lostRetransmit = false;
    RackDetectLoss(lostRetransmit);
    if (priorInFlight != PacketsInFlight())
    {
        if (m_tcb->m_congState != TcpSocketState::CA_RECOVERY)
        {
            // tcp_cwnd_reduction(sk, 1, tp->lost - lost, 0): the timer counts one segment
            // delivered, the losses it marked, and snd_una not advanced, whatever the last
            // ACK did (PRR's prr_delivered starts at 1, not at that ACK's deliveries)
            m_ackDelivered = 1;
            m_ackAdvanced = false;
            m_lostBeforeAckBytes = lostBeforeBytes;
            EnterLinuxRecovery(0);
        }
        SendPendingData(m_connected); // tcp_xmit_retransmit_queue
    }
    // tcp_rearm_rto with the reordering timer pending: what is left of the RTO from the
    // head's send, on the wheel's tick
    if (m_retxEvent.IsExpired())
    {
        RearmRto(false);
    }
}

// ---- CWR (tcp_input.c) ----

bool
TcpLinuxSocket::AckTakenInCwr() const
{
    return m_ackInCwr;
}

void
TcpLinuxSocket::EnterLinuxCwr(uint32_t priorCwnd)
{
    // tcp_enter_cwr, tcp_input.c:2726-2736: congestion is proven, so undo will not restore the
    // threshold, whatever the state; a reduction under way (CWR, Recovery, Loss) goes on
    m_priorSsthresh = 0;
    if (m_tcb->m_congState.Get() >= TcpSocketState::CA_CWR)
    {
        return;
    }
    auto prr = DynamicCast<TcpLinuxPrrRecovery>(m_recoveryOps);
    NS_ABORT_MSG_IF(!prr,
                    "TcpLinuxSocket: Linux's " << GetLinuxAlgorithm()
                                               << " enters CWR, whose window reduction is "
                                                  "ns3::TcpLinuxPrrRecovery's; RecoveryType is "
                                               << m_recoveryOps->GetName());
    m_undoMarker = false;
    // tcp_init_cwnd_reduction, :2669-2681 (the module's side ran in its hook: ssthresh,
    // prior_cwnd, snd_cwnd_cnt, set_state): high_seq = snd_nxt, no probe episode, PRR from zero,
    // and with ECN the CWR flag queued for the next new data (tcp_ecn_queue_cwr, :325-329, 2680)
    m_recover = m_tcb->m_highTxMark;
    m_tlpHighSeq = 0;
    prr->InitReduction(priorCwnd);
    m_queueCwr = m_tcb->m_ecnState != TcpSocketState::ECN_DISABLED;
    m_tcb->m_congState = TcpSocketState::CA_CWR;
    m_tcb->m_cWndInfl = m_tcb->m_cWnd.Get();
    NS_LOG_DEBUG("CWR: cwnd " << m_tcb->m_cWnd << " ssthresh " << m_tcb->m_ssThresh << " high_seq "
                              << m_recover);
}

void
TcpLinuxSocket::CwrReductionOnAck()
{
    // tcp_cong_control on the ACK that entered CWR (tcp_input.c:3583-3585)
    DynamicCast<TcpLinuxPrrRecovery>(m_recoveryOps)->CwndReduction(m_tcb, m_ackDeliveredBytes);
}

bool
TcpLinuxSocket::LastAckEce() const
{
    return m_ackEce;
}

void
TcpLinuxSocket::AckNow()
{
    m_ackNow = true;
}

bool
TcpLinuxSocket::DelayedAckPending() const
{
    return m_delAckCount > 0 && m_delAckEvent.IsPending();
}

void
TcpLinuxSocket::EndCwr()
{
    // tcp_end_cwnd_reduction, tcp_input.c:2709-2723: the window to the threshold, the module
    // told; then tcp_set_ca_state(Open), :3068
    if (m_tcb->m_ssThresh.Get() != std::numeric_limits<uint32_t>::max())
    {
        m_tcb->m_cWnd = m_tcb->m_ssThresh.Get();
        m_tcb->m_cWndInfl = m_tcb->m_cWnd.Get();
    }
    m_congestionControl->CwndEvent(m_tcb, TcpSocketState::CA_EVENT_COMPLETE_CWR);
    SetCaState(TcpSocketState::CA_OPEN);
    NS_LOG_DEBUG("CWR ends: cwnd " << m_tcb->m_cWnd);
}

void
TcpLinuxSocket::CwrAck(bool advanced, uint32_t currentDelivered)
{
    // tcp_fastretrans_alert in CWR (tcp_input.c:3061-3070): the episode ends at an ACK beyond
    // high_seq, which the peer sends once it has seen the CWR flag. A probe's episode
    // (ProcessTlpAck) may have ended it already.
    if (m_tcb->m_congState != TcpSocketState::CA_CWR)
    {
        return;
    }
    if (Before(m_recover.GetValue(), m_txBuffer->HeadSequence().GetValue()))
    {
        EndCwr();
    }
    // then what is marked lost starts recovery (tcp_time_to_recover, :3122-3140), else
    // tcp_try_to_open (:3123-3125)
    if (m_txBuffer->GetLost() > 0 && !m_segments.empty())
    {
        EnterLinuxRecovery(currentDelivered);
        return;
    }
    KeepOpen();
    // tcp_cong_control, :3573-3591: in CWR the reduction, out of it growth on an ACK of data
    if (m_tcb->m_congState == TcpSocketState::CA_CWR)
    {
        DynamicCast<TcpLinuxPrrRecovery>(m_recoveryOps)->CwndReduction(m_tcb, currentDelivered);
    }
    else if (advanced)
    {
        m_congestionControl->IncreaseWindow(m_tcb, m_ackDelivered);
    }
}

void
TcpLinuxSocket::ProcessAck(const SequenceNumber32& ackNumber,
                           bool scoreboardUpdated,
                           uint32_t currentDelivered,
                           const SequenceNumber32& oldHeadSequence,
                           bool receivedData)
{
    ProcessLinuxAck(ackNumber, scoreboardUpdated, currentDelivered, oldHeadSequence, receivedData);
    // tcp_ack: the rate sample once the ACK's losses are marked, before cong_control and what
    // tcp_xmit_recovery sends (tcp_input.c:4030-4035); TcpSocketBase calls CongControl next
    RateGen();
}

void
TcpLinuxSocket::BaseProcessAck(const SequenceNumber32& ackNumber,
                               bool scoreboardUpdated,
                               uint32_t currentDelivered,
                               const SequenceNumber32& oldHeadSequence,
                               bool receivedData)
{
    const auto priorState = m_tcb->m_congState.Get();
    const uint32_t cwnd = m_tcb->m_cWnd;
    TcpSocketBase::ProcessAck(ackNumber,
                              scoreboardUpdated,
                              currentDelivered,
                              oldHeadSequence,
                              receivedData);
    // TcpSocketBase sets cwnd = ssthresh when a recovery ends; tcp_end_cwnd_reduction does
    // nothing for a module with cong_control (tcp_input.c:2709-2714), whose window is its own
    if (priorState == TcpSocketState::CA_RECOVERY &&
        m_tcb->m_congState != TcpSocketState::CA_RECOVERY && m_congestionControl->HasCongControl())
    {
        m_tcb->m_cWnd = cwnd;
    }
}

void
TcpLinuxSocket::ProcessLinuxAck(const SequenceNumber32& ackNumber,
                                bool scoreboardUpdated,
                                uint32_t currentDelivered,
                                const SequenceNumber32& oldHeadSequence,
                                bool receivedData)
{
    m_ackDeliveredBytes = currentDelivered;
    // an ACK that came in CWR: m_recover is high_seq again (ReceivedAck), and PRR waits for
    // CwrAck (AckTakenInCwr)
    const bool cwrAck = m_cwrAckHeld;
    if (cwrAck)
    {
        m_recover = m_cwrHighSeq;
        m_cwrAckHeld = false;
    }
    const bool advanced = oldHeadSequence < ackNumber;
    if (!m_rack && !m_tlp && !m_undo && !m_frtoEnabled && !m_dsack)
    {
        m_ackInCwr = cwrAck;
        BaseProcessAck(ackNumber,
                       scoreboardUpdated,
                       currentDelivered,
                       oldHeadSequence,
                       receivedData);
        m_ackInCwr = false;
        if (cwrAck)
        {
            CwrAck(advanced, currentDelivered);
        }
        return;
    }
    // tcp_ack: the probe's episode first, then tcp_fastretrans_alert (which identifies losses)
    // on a dubious ACK only (tcp_ack_is_dubious: a duplicate, SACK information, or a state
    // other than Open), then the timers (tcp_input.c:4008-4025)
    if (m_tlp && m_tlpHighSeq != 0)
    {
        ProcessTlpAck(ackNumber.GetValue(), !advanced && !scoreboardUpdated && !receivedData);
    }
    const auto priorState = m_tcb->m_congState.Get();
    if (m_undo && priorState == TcpSocketState::CA_RECOVERY &&
        !Before(ackNumber.GetValue(), m_recover.GetValue()) && MayUndo())
    {
        // tcp_try_undo_recovery at the recovery's end (tcp_input.c:2589-2617): TcpSocketBase
        // then takes the ACK in Open, as tcp_cong_control does after the undo. The reduction
        // ends after it as after any recovery (tcp_fastretrans_alert, :3075-3077); with the
        // undo marker cleared tcp_end_cwnd_reduction leaves the window and only tells the
        // module (:2709-2723: cdg's and westwood's cwnd_event take COMPLETE_CWR)
        UndoCwndReduction(false);
        ++m_fullUndos;
        SetCaState(TcpSocketState::CA_OPEN);
        m_congestionControl->CwndEvent(m_tcb, TcpSocketState::CA_EVENT_COMPLETE_CWR);
    }
    else if (m_ackDsack && priorState != TcpSocketState::CA_LOSS &&
             priorState != TcpSocketState::CA_CWR && TryUndoDsack() &&
             priorState == TcpSocketState::CA_RECOVERY)
    {
        KeepOpen(); // tcp_fastretrans_alert, :3091-3092 (Open and Disorder stay: :3120)
    }
    if (m_tcb->m_congState == TcpSocketState::CA_RECOVERY && ackNumber == oldHeadSequence &&
        !Before(ackNumber.GetValue(), m_recover.GetValue()))
    {
        // a recovery begun within a CWR episode whose high_seq snd_una had reached (the segment
        // lost is the first beyond it): Linux ends it on the next ACK, whatever that ACK
        // acknowledges (tcp_fastretrans_alert, tcp_input.c:3061, 3072-3078: Open in
        // tcp_try_undo_recovery, :2614, then tcp_end_cwnd_reduction, :2709-2723), and
        // starts the next if a loss is still marked (below); TcpSocketBase ends a recovery only
        // on an ACK that advances snd_una
        SetCaState(TcpSocketState::CA_OPEN);
        m_tcb->m_cWnd = m_tcb->m_ssThresh.Get();
        m_tcb->m_cWndInfl = m_tcb->m_cWnd.Get();
        m_congestionControl->CwndEvent(m_tcb, TcpSocketState::CA_EVENT_COMPLETE_CWR);
    }
    bool rexmitNew = false;
    if (m_tcb->m_congState == TcpSocketState::CA_LOSS)
    {
        // tcp_process_loss: the timestamp's undo first, then F-RTO
        const bool undone = m_undo && advanced && TryUndoLoss(false);
        if (!undone && m_frto)
        {
            rexmitNew = ProcessFrto(advanced, !advanced && !receivedData);
        }
    }
    bool lostRetransmit = false;
    bool armed = false;
    if (m_rack)
    {
        const bool dubious = scoreboardUpdated || ackNumber == oldHeadSequence ||
                             m_tcb->m_congState != TcpSocketState::CA_OPEN;
        armed = dubious && RackMarkLost(lostRetransmit);
        if (!armed && advanced)
        {
            m_reoEvent.Cancel(); // the RTO or probe takes Linux's timer slot back
        }
    }
    // tcp_fastretrans_alert ends the recovery when snd_una reaches high_seq (tcp_input.c:
    // 3056-3080) and, in Open, starts the next at once if anything is still marked lost
    // (tcp_time_to_recover, :3118-3140, as below); tcp_cong_control then runs in Recovery
    // (:3573-3588). ns-3's ProcessAck ends the recovery and grows the window on this ACK
    // before the new one starts below.
    m_ackRestartsRecovery = m_rack && priorState == TcpSocketState::CA_RECOVERY &&
                            m_tcb->m_congState == TcpSocketState::CA_RECOVERY &&
                            !Before(ackNumber.GetValue(), m_recover.GetValue()) &&
                            m_txBuffer->GetLost() > 0;
    m_ackInCwr = cwrAck;
    BaseProcessAck(ackNumber, scoreboardUpdated, currentDelivered, oldHeadSequence, receivedData);
    m_ackInCwr = false;
    m_ackRestartsRecovery = false;
    if (cwrAck)
    {
        CwrAck(advanced, currentDelivered);
    }
    if (rexmitNew)
    {
        // tcp_xmit_recovery's REXMIT_NEW: new data within the window, no retransmission
        const uint32_t mss = m_tcb->m_segmentSize;
        bool sent = false;
        while (m_txBuffer->SizeFromSequence(m_tcb->m_highTxMark) > 0 && AvailableWindow() >= mss)
        {
            const SequenceNumber32 high = m_tcb->m_highTxMark;
            const uint32_t size = std::min(mss, m_txBuffer->SizeFromSequence(high));
            if (high + size > m_txBuffer->HeadSequence() + m_rWnd.Get())
            {
                break;
            }
            const uint32_t n = SendDataPacket(high, size, true);
            if (n == 0)
            {
                break;
            }
            m_tcb->m_nextTxSequence = std::max(m_tcb->m_nextTxSequence.Get(), high + n);
            sent = true;
        }
        if (!sent)
        {
            m_frto = false;
        }
    }
    auto state = m_tcb->m_congState.Get();
    if (state != TcpSocketState::CA_LOSS)
    {
        m_frto = false;
    }
    if (m_undo)
    {
        // the undo marker stays after a recovery ends without an undo: a late D-SACK may
        // still undo it (tcp_try_undo_dsack in Open); the next episode sets it again
        if ((state == TcpSocketState::CA_OPEN || state == TcpSocketState::CA_DISORDER) &&
            m_txBuffer->GetRetransmitsCount() == 0 &&
            (m_segments.empty() || !m_segments.begin()->second.retransmitted))
        {
            m_retransStampMs = 0; // tcp_try_to_open: nothing retransmitted is out
        }
    }
    // tcp_time_to_recover: the loss is proven (tcp_input.c:2342-2355); from Loss when a
    // retransmission was lost again (:3100-3106)
    if (!cwrAck && m_rack && m_txBuffer->GetLost() > 0 && !m_segments.empty() &&
        (state == TcpSocketState::CA_OPEN || state == TcpSocketState::CA_DISORDER ||
         (state == TcpSocketState::CA_LOSS && lostRetransmit)))
    {
        EnterLinuxRecovery(currentDelivered);
        state = m_tcb->m_congState.Get();
    }
    // tcp_cong_control grows the window on every ACK that acknowledges data outside a window
    // reduction (tcp_may_raise_cwnd, FLAG_DATA_ACKED: tcp_input.c:3553-3589), Disorder
    // included. ns-3 3.44's ProcessAck grows it in Open only: an ACK that advances snd_una and
    // brings news of a hole goes through DupAck to Disorder, and one taken in Disorder that
    // leaves it there grows nothing ("segments acked in CA_DISORDER").
    if (advanced && state == TcpSocketState::CA_DISORDER &&
        (priorState == TcpSocketState::CA_OPEN || priorState == TcpSocketState::CA_DISORDER))
    {
        m_congestionControl->IncreaseWindow(m_tcb, m_ackDelivered);
    }
    if (!m_tlp)
    {
        return;
    }
    if (state == TcpSocketState::CA_RECOVERY || state == TcpSocketState::CA_LOSS)
    {
        // tcp_init_cwnd_reduction ends a probe's episode; the retransmissions re-arm the RTO
        m_tlpHighSeq = 0;
        if (m_ptoEvent.IsPending())
        {
            m_ptoEvent.Cancel();
            RearmRto(false);
        }
    }
    else if (advanced && !armed && !SchedulePto(true))
    {
        m_ptoEvent.Cancel(); // tcp_set_xmit_timer: the RTO, as ns-3 re-armed it
    }
    if (m_segments.empty())
    {
        m_ptoEvent.Cancel();
    }
}

uint32_t
TcpLinuxSocket::GetRtoExpiries() const
{
    return m_rtoExpiries;
}

void
TcpLinuxSocket::ReTxTimeout()
{
    if (m_segments.empty())
    {
        // nothing outstanding: Linux has no timer armed (tcp_rearm_rto), TcpSocketBase returns
        TcpSocketBase::ReTxTimeout();
        return;
    }
    ++m_rtoExpiries; // LINUX_MIB_TCPTIMEOUTS, tcp_timer.c:546, on every expiry
    m_reoEvent.Cancel();
    m_ptoEvent.Cancel();
    // tcp_enter_loss sets up undo once per loss episode (tcp_input.c:2164-2172): from Open or
    // Disorder, once the last recovery's high_seq is acknowledged, or on Loss's first timeout.
    // With D-SACK modelled this is Linux's condition; before, ns-3's own (it recomputes ssthresh
    // unless the head was retransmitted in Loss), which the results without it were made with.
    const auto state = m_tcb->m_congState.Get();
    const bool reducing = state == TcpSocketState::CA_CWR || state == TcpSocketState::CA_RECOVERY;
    const bool headRetransmitted = m_txBuffer->IsHeadRetransmitted();
    const bool newEpisode =
        m_dsack ? !reducing && state != TcpSocketState::CA_LOSS ||
                      !Before(m_txBuffer->HeadSequence().GetValue(), m_recover.GetValue()) ||
                      (state == TcpSocketState::CA_LOSS && !headRetransmitted)
                : state != TcpSocketState::CA_LOSS || !headRetransmitted;
    const uint32_t currentSsthresh = CurrentSsthresh(state);
    m_tlpHighSeq = 0; // tcp_enter_loss, :2191 (after tcp_init_undo has counted the probe)
    if ((m_undo || m_frtoEnabled) && newEpisode)
    {
        m_priorSsthresh = currentSsthresh;
        InitUndo(); // before the head's retransmission, which undo_retrans then counts
    }
    // tcp_timeout_mark_lost marks every segment not SACKed, each counted in tp->lost unless it
    // was marked before and not retransmitted since (tcp_mark_skb_lost, tcp_input.c:1105-1128)
    for (const TcpTxSegmentMarks& marks : GetSentMarks(*m_txBuffer))
    {
        if (!marks.sacked && (!marks.lost || marks.retrans))
        {
            ++m_lostCount;
        }
    }
    // tcp_retransmit_timer sends the head with tcp_retransmit_skb, which the pacing clock does
    // not hold (tcp_timer.c:571-574)
    m_rtoSending = true;
    TcpSocketBase::ReTxTimeout();
    m_rtoSending = false;
    // the backed-off RTO (tcp_retransmit_timer, out_reset_timer, tcp_timer.c:601-623) runs on
    // the wheel like any timer: at 2 x 204 ms it is 102 jiffies ahead, on level 1, so it runs
    // on the next multiple of 8 jiffies after its expiry (412-440 ms in the emulated kernel's
    // traces), not at 408 ms as TcpSocketBase armed it
    RtoOntoWheel();
    if (m_tcb->m_congState != TcpSocketState::CA_LOSS)
    {
        return;
    }
    // F-RTO for a timeout outside fast recovery, or one repeating in Loss (new_recovery ||
    // icsk_retransmits), with high_seq at snd_nxt (tcp_enter_loss, tcp_input.c:2185-2195)
    m_frto = m_frtoEnabled && state != TcpSocketState::CA_RECOVERY;
    m_highSeq = m_tcb->m_highTxMark.Get().GetValue();
}

uint32_t
TcpLinuxSocket::GetSpuriousRtos() const
{
    return m_spuriousRtos;
}

bool
TcpLinuxSocket::ProcessFrto(bool advanced, bool duplicate)
{
    // tcp_process_loss, tcp_input.c:2905-2940
    const uint32_t ack = m_txBuffer->HeadSequence().GetValue();
    const bool recovered = !Before(ack, m_highSeq);
    // step 3.b: never-retransmitted data below high_seq (s)acked: the timeout was spurious
    if (m_ackOrigSackAcked && TryUndoLoss(true))
    {
        return false;
    }
    const uint32_t sndNxt = m_tcb->m_highTxMark.Get().GetValue();
    if (Before(m_highSeq, sndNxt))
    {
        if (m_ackDataSacked || duplicate)
        {
            m_frto = false; // step 3.a: the loss was real
        }
        return false;
    }
    if (advanced && !recovered)
    {
        m_highSeq = sndNxt; // step 2.b: new data, if any goes, instead of retransmissions
        if (m_txBuffer->SizeFromSequence(m_tcb->m_highTxMark) > 0 &&
            m_tcb->m_highTxMark.Get() < m_txBuffer->HeadSequence() + m_rWnd.Get())
        {
            return true;
        }
        m_frto = false;
    }
    return false;
}

uint32_t
TcpLinuxSocket::GetLossUndos() const
{
    return m_lossUndos;
}

bool
TcpLinuxSocket::PacketDelayed() const
{
    // tcp_packet_delayed, tcp_input.c:2424-2429 (retrans_stamp 0: nothing retransmitted yet),
    // with tcp_tsopt_ecr_before, :2421-2425
    if (m_retransStampMs == 0)
    {
        return true;
    }
    const uint32_t echo = m_tcb->m_rcvTimestampEchoReply;
    return m_timestampEnabled && echo != 0 && Before(echo, m_retransStampMs);
}

bool
TcpLinuxSocket::TryUndoLoss(bool frto)
{
    // tcp_try_undo_loss, tcp_input.c:2636-2660: F-RTO's proof, or tcp_may_undo
    if (!frto && !MayUndo())
    {
        return false;
    }
    if (frto)
    {
        ++m_spuriousRtos; // LINUX_MIB_TCPSPURIOUSRTOS
    }
    UndoCwndReduction(true);
    ++m_lossUndos;
    SetCaState(TcpSocketState::CA_OPEN);
    NS_LOG_DEBUG("undo: the timeout was spurious; cwnd " << m_tcb->m_cWnd << " ssthresh "
                                                         << m_tcb->m_ssThresh);
    return true;
}

uint32_t
TcpLinuxSocket::CurrentSsthresh(TcpSocketState::TcpCongState_t state) const
{
    // tcp_current_ssthresh, include/net/tcp.h:1280-1289
    const uint32_t cwnd = m_tcb->m_cWnd.Get();
    const uint32_t ssthresh = m_tcb->m_ssThresh.Get();
    if (state == TcpSocketState::CA_CWR || state == TcpSocketState::CA_RECOVERY)
    {
        return ssthresh;
    }
    return std::max(ssthresh, (cwnd >> 1) + (cwnd >> 2));
}

void
TcpLinuxSocket::SetCaState(TcpSocketState::TcpCongState_t state)
{
    m_congestionControl->CongestionStateSet(m_tcb, state);
    m_tcb->m_congState = state;
    if (state == TcpSocketState::CA_OPEN)
    {
        // TcpSocketBase counts duplicate ACKs outside Recovery and Loss (DupAck: in CWR too)
        // and takes Open to have none (it asserts so on the next), as where it ends a recovery
        // itself; Linux counts none with SACK
        m_dupAckCount = 0;
    }
}

void
TcpLinuxSocket::CongStateChanged(TcpSocketState::TcpCongState_t previous,
                                 TcpSocketState::TcpCongState_t now)
{
    // tcp_enter_recovery, tcp_input.c:2876-2900, whoever starts the recovery (RACK here, or
    // TcpSocketBase when RACK marked the head lost): the retransmission stamp restarts unless a
    // retransmission is out (tcp_retrans_stamp_cleanup), undo is set up, and prior_ssthresh kept
    // unless the window was already being reduced. TcpSocketBase::EnterRecovery changes the
    // state before it reduces the window and retransmits the head.
    if (now == TcpSocketState::CA_RECOVERY && previous != TcpSocketState::CA_RECOVERY)
    {
        m_recoveryEntrySend = true; // RecoveryEntryCongControl, at that retransmission
    }
    if (m_rack && now == TcpSocketState::CA_RECOVERY && !m_enteringRecovery &&
        (previous == TcpSocketState::CA_OPEN || previous == TcpSocketState::CA_DISORDER))
    {
        // TcpSocketBase starts it itself (DupAck: RACK marked the head lost) and then
        // retransmits the head whatever its marks; Linux sends what tcp_xmit_retransmit_queue
        // finds (RecoveryFirstSend): the head, unless that is a retransmission still in flight
        // (after a recovery undone with the head's lost mark kept, tcp_undo_cwnd_reduction)
        m_headLostBeforeRecovery = true;
        m_enteringRecovery = true;
    }
    if (!m_undo || now != TcpSocketState::CA_RECOVERY || previous == TcpSocketState::CA_RECOVERY)
    {
        return;
    }
    if (m_txBuffer->GetRetransmitsCount() == 0)
    {
        m_retransStampMs = 0;
    }
    m_priorSsthresh = previous == TcpSocketState::CA_CWR ? 0 : CurrentSsthresh(previous);
    InitUndo();
}

void
TcpLinuxSocket::InitUndo()
{
    // tcp_init_undo, tcp_input.c:2101-2113: retransmissions still out, a retransmitted probe's
    // too, may yet be D-SACKed; 0 would mean "undo now", so none is -1
    m_undoMarker = true;
    m_undoMarkerSeq = m_txBuffer->HeadSequence().GetValue();
    m_undoRetrans = static_cast<int32_t>(m_txBuffer->GetRetransmitsCount() / m_tcb->m_segmentSize);
    if (m_tlpHighSeq != 0 && m_tlpRetrans)
    {
        ++m_undoRetrans;
    }
    if (m_undoRetrans == 0)
    {
        m_undoRetrans = -1;
    }
}

bool
TcpLinuxSocket::MayUndo() const
{
    // tcp_may_undo, tcp_input.c:2570-2573
    return m_undoMarker && (m_undoRetrans == 0 || PacketDelayed());
}

void
TcpLinuxSocket::UndoCwndReduction(bool unmarkLoss)
{
    // tcp_undo_cwnd_reduction, tcp_input.c:2541-2568
    if (unmarkLoss)
    {
        UnmarkAllLost(*m_txBuffer);
    }
    auto cc = DynamicCast<TcpLinuxCongestion>(m_congestionControl);
    if (m_priorSsthresh != 0)
    {
        if (cc)
        {
            m_tcb->m_cWnd = cc->UndoCwnd(m_tcb);
            m_tcb->m_cWndInfl = m_tcb->m_cWnd.Get();
        }
        if (m_priorSsthresh > m_tcb->m_ssThresh)
        {
            m_tcb->m_ssThresh = m_priorSsthresh;
        }
    }
    m_undoMarker = false;
    m_rackAdvanced = true; // RACK re-examines the losses
}

void
TcpLinuxSocket::KeepOpen()
{
    // tcp_try_to_open and tcp_try_keep_open, tcp_input.c:2753-2768, 2739-2751
    if (m_txBuffer->GetRetransmitsCount() == 0)
    {
        m_retransStampMs = 0;
    }
    if (m_tcb->m_congState == TcpSocketState::CA_CWR)
    {
        return;
    }
    const bool leftOut =
        m_sackedOut > 0 || m_txBuffer->GetLost() > 0 || m_txBuffer->GetRetransmitsCount() > 0;
    const auto state = leftOut ? TcpSocketState::CA_DISORDER : TcpSocketState::CA_OPEN;
    if (m_tcb->m_congState != state)
    {
        SetCaState(state);
    }
}

bool
TcpLinuxSocket::TryUndoDsack()
{
    // tcp_try_undo_dsack, tcp_input.c:2620-2633 (reo_wnd_persist: RACK's reordering, not here)
    if (!m_undoMarker || m_undoRetrans != 0)
    {
        return false;
    }
    UndoCwndReduction(false);
    ++m_dsackUndos;
    NS_LOG_DEBUG("undo: D-SACKs covered every retransmission; cwnd " << m_tcb->m_cWnd);
    return true;
}

uint32_t
TcpLinuxSocket::GetDsacksReceived() const
{
    return m_dsacksReceived;
}

uint32_t
TcpLinuxSocket::GetDsackUndos() const
{
    return m_dsackUndos;
}

uint32_t
TcpLinuxSocket::GetFullUndos() const
{
    return m_fullUndos;
}

bool
TcpLinuxSocket::IsDsack(const TcpOptionSack::SackList& blocks, uint32_t ack)
{
    // tcp_check_dsack, tcp_input.c:1260-1280: the first block is a D-SACK if it starts below
    // the ACK, or lies inside the second block
    if (blocks.empty())
    {
        return false;
    }
    const uint32_t start = blocks.front().first.GetValue();
    const uint32_t end = blocks.front().second.GetValue();
    if (Before(start, ack))
    {
        return true;
    }
    if (blocks.size() < 2)
    {
        return false;
    }
    const uint32_t start1 = std::next(blocks.begin())->first.GetValue();
    const uint32_t end1 = std::next(blocks.begin())->second.GetValue();
    return !Before(end1, end) && !Before(start, start1);
}

void
TcpLinuxSocket::ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader)
{
    // In CWR Linux ends the episode in tcp_fastretrans_alert, after tcp_clean_rtx_queue handed
    // the module its pkts_acked, and then tells the module set_state(Open) (tcp_ack,
    // tcp_input.c:4001-4019; :3061-3070); TcpSocketBase::ReceivedAck ends it on an ACK above
    // m_recover before it calls PktsAcked, without set_state. m_recover (high_seq) is held at
    // the ACK's own number while TcpSocketBase reads it; ProcessAck puts it back and ends the
    // episode (CwrAck).
    const bool inCwr = m_tcb->m_congState == TcpSocketState::CA_CWR;
    if (inCwr)
    {
        m_cwrHighSeq = m_recover;
        m_recover = tcpHeader.GetAckNumber();
        m_cwrAckHeld = true;
    }
    // An ECN echo (m_ackEce, EstimateRtt) is Linux's to take: TcpSocketBase would enter its
    // own CWR on it before the module's in_ack_event (dctcp's alpha) has run, from Recovery
    // and Loss too, and only on an ACK that advances snd_una. Linux enters CWR in
    // tcp_try_to_open from Open or Disorder (tcp_input.c:2753-2763, 2726-2736), which the
    // bridge does before tcp_cong_control (TcpLinuxCongestion::EnterCwrOnEcnEcho).
    TcpHeader header = tcpHeader;
    if (m_ackEce)
    {
        header.SetFlags(tcpHeader.GetFlags() & ~TcpHeader::ECE);
    }
    ReceivedAckWithoutDsack(packet, header);
    m_ackEce = false;
    if (m_cwrAckHeld)
    {
        m_recover = m_cwrHighSeq; // an old ACK, which ProcessAck did not take
        m_cwrAckHeld = false;
    }
    // tcp_ack is over: its rate sample, taken or not, is no other's
    m_rateGenPending = false;
    m_rateSampleReady = false;
}

void
TcpLinuxSocket::ReceivedAckWithoutDsack(Ptr<Packet> packet, const TcpHeader& tcpHeader)
{
    // ns-3's scoreboard takes every SACK block as new SACK information: a D-SACK block below
    // the ACK would mark the head SACKed before the ACK takes it (TcpTxBuffer::Update asserts it
    // is not). Linux's tcp_sacktag_write_queue sets D-SACK blocks aside (:1842-1875); so does
    // this, once EstimateRtt has counted them (CheckDsack). The blocks after it stay.
    if (!m_dsack || !tcpHeader.HasOption(TcpOption::SACK))
    {
        TcpSocketBase::ReceivedAck(packet, tcpHeader);
        return;
    }
    auto sack = DynamicCast<const TcpOptionSack>(tcpHeader.GetOption(TcpOption::SACK));
    TcpOptionSack::SackList blocks = sack->GetSackList();
    if (!IsDsack(blocks, tcpHeader.GetAckNumber().GetValue()))
    {
        TcpSocketBase::ReceivedAck(packet, tcpHeader);
        return;
    }
    blocks.pop_front();
    TcpHeader header;
    header.SetSourcePort(tcpHeader.GetSourcePort());
    header.SetDestinationPort(tcpHeader.GetDestinationPort());
    header.SetSequenceNumber(tcpHeader.GetSequenceNumber());
    header.SetAckNumber(tcpHeader.GetAckNumber());
    header.SetFlags(tcpHeader.GetFlags());
    header.SetWindowSize(tcpHeader.GetWindowSize());
    header.SetUrgentPointer(tcpHeader.GetUrgentPointer());
    for (const Ptr<const TcpOption>& option : tcpHeader.GetOptionList())
    {
        if (option->GetKind() != TcpOption::SACK)
        {
            header.AppendOption(option);
        }
    }
    if (!blocks.empty())
    {
        auto rest = CreateObject<TcpOptionSack>();
        for (const auto& block : blocks)
        {
            rest->AddSackBlock(block);
        }
        header.AppendOption(rest);
    }
    TcpSocketBase::ReceivedAck(packet, header);
}

void
TcpLinuxSocket::CheckDsack(const TcpOptionSack::SackList& blocks, uint32_t ack)
{
    // tcp_check_dsack, tcp_input.c:1260-1297
    if (!m_dsack || !IsDsack(blocks, ack))
    {
        return;
    }
    const uint32_t start = blocks.front().first.GetValue();
    const uint32_t end = blocks.front().second.GetValue();
    // tcp_dsack_seen, :1009-1045: dubious when longer than any window offered, or when more
    // segments were D-SACKed than were ever retransmitted
    if (!Before(start, end) || end - start > m_maxWindow)
    {
        return;
    }
    const uint32_t mss = m_tcb->m_segmentSize;
    uint32_t dupSegs = 1;
    if (end - start > mss)
    {
        dupSegs = (end - start + mss - 1) / mss;
    }
    else if (m_tlpHighSeq != 0 && m_tlpHighSeq == end)
    {
        m_ackDsackTlp = true; // FLAG_DSACK_TLP: the probe and the original both arrived
    }
    m_dsackDups += dupSegs;
    if (m_dsackDups > m_totalRetrans)
    {
        return;
    }
    m_ackDsack = true;
    ++m_dsacksReceived;
    m_delivered += dupSegs; // sack_delivered: a spurious retransmission is delivered (:1043)
    if (!m_undoMarker || m_undoRetrans <= 0)
    {
        return;
    }
    const uint32_t priorSndUna = m_txBuffer->HeadSequence().GetValue();
    if (!Before(priorSndUna, end))
    {
        // data already forgotten: counted as whole segments (:1290-1294)
        if (Before(m_undoMarkerSeq, end))
        {
            m_undoRetrans = std::max<int32_t>(0, m_undoRetrans - static_cast<int32_t>(dupSegs));
        }
        return;
    }
    // retransmitted segments still held that the block covers (tcp_sacktag_one, :1365-1369)
    for (auto it = m_segments.lower_bound(start);
         it != m_segments.end() && !Before(end, it->second.end) && m_undoRetrans > 0;
         ++it)
    {
        if (it->second.retransmitted && Before(m_undoMarkerSeq, it->second.end))
        {
            --m_undoRetrans;
        }
    }
}

// ---- Tail loss probes (tcp_output.c, tcp_input.c) ----

uint32_t
TcpLinuxSocket::GetTlpProbes() const
{
    return m_tlpProbes;
}

uint32_t
TcpLinuxSocket::GetTlpRecoveries() const
{
    return m_tlpRecoveries;
}

namespace
{
/// LVL_CLK_SHIFT, LVL_BITS and LVL_DEPTH at HZ > 100 (kernel/time/timer.c:153-176)
constexpr unsigned WHEEL_LVL_CLK_SHIFT = 3;
constexpr unsigned WHEEL_LVL_BITS = 6;
constexpr unsigned WHEEL_LVL_DEPTH = 9;

/// LVL_START(n): the first delta, jiffies, that level n holds (kernel/time/timer.c:164)
constexpr uint64_t
WheelLevelStart(unsigned n)
{
    return ((uint64_t{1} << WHEEL_LVL_BITS) - 1) << ((n - 1) * WHEEL_LVL_CLK_SHIFT);
}
} // namespace

uint64_t
TcpLinuxSocket::WheelBucketJiffy(uint64_t clk, uint64_t jiffies)
{
    // calc_wheel_index and calc_index, kernel/time/timer.c:516-569: the wheel never runs a
    // timer early, so it rounds the expiry up to its level's granularity, plus one: a timer
    // less than 63 jiffies ahead runs one tick after its expiry, one less than 504 ahead on the
    // next multiple of 8 jiffies after it, and so on (__run_timers runs a bucket when jiffies
    // reach its expiry, kernel/time/timer.c:1996-2027)
    unsigned level = 0;
    while (level + 1 < WHEEL_LVL_DEPTH && jiffies >= WheelLevelStart(level + 1))
    {
        ++level;
    }
    const unsigned shift = level * WHEEL_LVL_CLK_SHIFT;
    return (((clk + jiffies) >> shift) + 1) << shift;
}

Time
TcpLinuxSocket::DelayToTick(uint64_t jiffies)
{
    // the tick of the timer's bucket; the wheel's clock is jiffies when a timer is armed
    // (forward_timer_base, kernel/time/timer.c:945-968)
    const int64_t jiffyNs = int64_t{TcpLinuxRttEstimator::JIFFY_US} * 1000;
    const int64_t nowNs = Simulator::Now().GetNanoSeconds();
    const auto clk = static_cast<uint64_t>(nowNs / jiffyNs);
    return NanoSeconds(static_cast<int64_t>(WheelBucketJiffy(clk, jiffies)) * jiffyNs - nowNs);
}

namespace
{
/// usecs_to_jiffies at HZ 250: rounded up
uint64_t
UsToJiffies(uint64_t us)
{
    return (us + TcpLinuxRttEstimator::JIFFY_US - 1) / TcpLinuxRttEstimator::JIFFY_US;
}

/// TCP_TIMEOUT_INIT, jiffies: one second (include/net/tcp.h:149)
constexpr uint64_t TIMEOUT_INIT_JIFFIES = 1000000 / TcpLinuxRttEstimator::JIFFY_US;
} // namespace

void
TcpLinuxSocket::RearmRto(bool fromNow)
{
    // tcp_rearm_rto, tcp_input.c:3237-3265: from now, or, with the probe's slot still held,
    // what is left of the RTO counted from the head's last send (at least a microsecond)
    m_retxEvent.Cancel();
    if (m_segments.empty())
    {
        return;
    }
    const int64_t rtoUs = m_rto.Get().GetMicroSeconds();
    int64_t us = rtoUs;
    if (!fromNow)
    {
        const uint64_t headSentUs = m_segments.begin()->second.sentUs;
        us = std::max<int64_t>(static_cast<int64_t>(headSentUs) + rtoUs -
                                   static_cast<int64_t>(NowUs()),
                               1);
    }
    m_retxEvent = Simulator::Schedule(DelayToTick(UsToJiffies(static_cast<uint64_t>(us))),
                                      &TcpLinuxSocket::ReTxTimeout,
                                      this);
    m_wheelRtoUid = m_retxEvent.GetUid();
}

void
TcpLinuxSocket::RtoOntoWheel()
{
    // Linux arms the RTO on an ACK (tcp_rearm_rto, tcp_input.c:3237-3265) and on a send into
    // an empty pipe (tcp_event_new_data_sent) through the timer wheel; TcpSocketBase schedules
    // m_rto to the nanosecond (NewAck, SendDataPacket). With nothing of ours outstanding (a
    // FIN alone) TcpSocketBase's timer stays: it retransmits what this class does not track.
    if (!m_segments.empty() && m_retxEvent.IsPending() && m_retxEvent.GetUid() != m_wheelRtoUid)
    {
        RearmRto(true);
    }
}

void
TcpLinuxSocket::NewAck(const SequenceNumber32& seq, bool resetRTO)
{
    TcpSocketBase::NewAck(seq, resetRTO);
    RtoOntoWheel();
}

bool
TcpLinuxSocket::SchedulePto(bool advancingRto)
{
    // tcp_schedule_loss_probe, tcp_output.c:2759-2811
    const auto state = m_tcb->m_congState.Get();
    if (!m_tlp || m_segments.empty() || !m_sackEnabled ||
        (state != TcpSocketState::CA_OPEN && state != TcpSocketState::CA_CWR))
    {
        return false;
    }
    uint64_t jiffies = TIMEOUT_INIT_JIFFIES;
    const uint32_t srttUsX8 = m_linuxRtt->GetSrttUsX8();
    if (srttUsX8 != 0)
    {
        // 2 srtt, and room for a delayed ACK when one segment is out
        const uint64_t us =
            (srttUsX8 >> 2) +
            (m_segments.size() == 1 ? TcpLinuxRttEstimator::RTO_MIN_US : TIMEOUT_MIN_US);
        jiffies = UsToJiffies(us);
    }
    // the RTO's own expiry if sooner: from now on an ACK, from the head's send otherwise
    const int64_t rtoUs = m_rto.Get().GetMicroSeconds();
    const int64_t rtoDeltaUs = advancingRto
                                   ? rtoUs
                                   : static_cast<int64_t>(m_segments.begin()->second.sentUs) +
                                         rtoUs - static_cast<int64_t>(NowUs());
    if (rtoDeltaUs > 0)
    {
        jiffies = std::min(jiffies, UsToJiffies(static_cast<uint64_t>(rtoDeltaUs)));
    }
    m_ptoEvent.Cancel();
    m_ptoEvent = Simulator::Schedule(DelayToTick(jiffies), &TcpLinuxSocket::SendLossProbe, this);
    m_retxEvent.Cancel(); // the probe holds Linux's one timer slot
    m_reoEvent.Cancel();
    return true;
}

void
TcpLinuxSocket::SendLossProbe()
{
    // tcp_send_loss_probe, tcp_output.c:2830-2888
    m_probeTimerTrace(m_txBuffer->HeadSequence(), m_linuxRtt->GetSrttUsX8() / 8e6);
    if (m_tlpHighSeq != 0 || m_segments.empty())
    {
        RearmRto(false); // at most one probe outstanding
        return;
    }
    m_tlpRetrans = false;
    uint32_t sent = 0;
    const uint32_t mss = m_tcb->m_segmentSize;
    const SequenceNumber32 high = m_tcb->m_highTxMark;
    const uint32_t unsent = m_txBuffer->SizeFromSequence(high);
    m_inProbe = true;
    if (unsent > 0)
    {
        // a new segment, whatever cwnd, if the peer's window has room for it (tcp_snd_wnd_test);
        // it goes through tcp_write_xmit, so the pacing clock and TCP small queues may hold it
        // back: then no probe
        const uint32_t size = std::min(mss, unsent);
        if (high + size <= m_txBuffer->HeadSequence() + m_rWnd.Get() && !PacingHolds() &&
            !TsqHeld())
        {
            sent = SendDataPacket(high, size, true);
            if (m_tcb->m_nextTxSequence < high + sent)
            {
                m_tcb->m_nextTxSequence = high + sent; // as SendPendingData advances it
            }
        }
    }
    else
    {
        // the last segment again
        const auto& [start, last] = *m_segments.rbegin();
        if (SendDataPacket(SequenceNumber32(start), last.end - start, true) > 0)
        {
            sent = 1;
            m_tlpRetrans = true;
        }
    }
    m_inProbe = false;
    if (sent == 0)
    {
        RearmRto(false);
        return;
    }
    ++m_tlpProbes;
    m_tlpHighSeq = m_tcb->m_highTxMark.Get().GetValue();
    NS_LOG_DEBUG("TLP: probe " << (m_tlpRetrans ? "retransmitted" : "new") << ", tlp_high_seq "
                               << m_tlpHighSeq);
    RearmRto(true);
}

void
TcpLinuxSocket::ProcessTlpAck(uint32_t ack, bool pureDuplicate)
{
    // tcp_process_tlp_ack, tcp_input.c:3798-3826
    if (Before(ack, m_tlpHighSeq))
    {
        return;
    }
    if (!m_tlpRetrans || m_ackDsackTlp)
    {
        // a probe of new data acknowledged, or the probe D-SACKed: the original and the probe
        // both arrived, no loss
        m_tlpHighSeq = 0;
        return;
    }
    if (Before(m_tlpHighSeq, ack))
    {
        // the probe repaired a loss: reduce once, as in CWR (tcp_init_cwnd_reduction,
        // tcp_end_cwnd_reduction), then tcp_try_keep_open
        m_tlpHighSeq = 0;
        ++m_tlpRecoveries;
        const bool inCwr = m_tcb->m_congState == TcpSocketState::CA_CWR;
        m_tcb->m_ssThresh = m_congestionControl->GetSsThresh(m_tcb, BytesInFlight());
        m_congestionControl->CongestionStateSet(m_tcb, TcpSocketState::CA_CWR);
        m_tcb->m_congState = TcpSocketState::CA_CWR;
        // tcp_end_cwnd_reduction leaves a module with cong_control alone (tcp_input.c:2713-2714)
        if (!m_congestionControl->HasCongControl())
        {
            m_tcb->m_cWnd = m_tcb->m_ssThresh.Get();
            m_tcb->m_cWndInfl = m_tcb->m_cWnd.Get();
            m_congestionControl->CwndEvent(m_tcb, TcpSocketState::CA_EVENT_COMPLETE_CWR);
        }
        const bool leftOut =
            m_sackedOut > 0 || m_txBuffer->GetLost() > 0 || m_txBuffer->GetRetransmitsCount() > 0;
        const auto open = leftOut ? TcpSocketState::CA_DISORDER : TcpSocketState::CA_OPEN;
        m_congestionControl->CongestionStateSet(m_tcb, open);
        m_tcb->m_congState = open;
        if (inCwr || open == TcpSocketState::CA_OPEN)
        {
            m_dupAckCount = 0; // as SetCaState, and none counted in CWR's episode (cdg's)
        }
        return;
    }
    if (pureDuplicate)
    {
        m_tlpHighSeq = 0; // the original and the probe both arrived
    }
}

} // namespace ns3
