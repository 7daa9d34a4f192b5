/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TcpSocketBase with Linux 6.1's RTT measurement, RTO and congestion-control facts;
 * tcp-linux-socket.h states each rule with its source.
 */

#include "tcp-linux-socket.h"

#include "tcp-linux-socket-detail.h"
#include "tcp-rx-buffer-dsack.h"
#include "tcp-tx-buffer-marks.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-option-ts.h"
#include "ns3/tcp-rx-buffer.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpLinuxSocket");
NS_OBJECT_ENSURE_REGISTERED(TcpLinuxRttEstimator);
NS_OBJECT_ENSURE_REGISTERED(TcpLinuxSocket);

namespace
{

/// sysctl_tcp_min_rtt_wlen, seconds (net/ipv4/tcp_ipv4.c: 300)
constexpr uint32_t MIN_RTT_WINDOW_S = 300;
/// TCP_MAX_QUICKACKS, include/net/tcp.h
constexpr uint32_t MAX_QUICKACKS = 16;
/// U16_MAX: the largest window a SYN can offer, tcp_select_initial_window's cap on the
/// initial receive window (net/ipv4/tcp_output.c:229-232)
constexpr uint32_t MAX_INITIAL_WINDOW = 65535;
/// tcp_event_data_recv grows the window only for segments of this many bytes or more
/// (tcp_input.c:835-836)
constexpr uint32_t GROW_WINDOW_MIN_LEN = 128;

using tcp_linux::Before;

} // namespace

// ---- TcpLinuxRttEstimator ----

TypeId
TcpLinuxRttEstimator::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpLinuxRttEstimator")
                            .SetParent<RttEstimator>()
                            .SetGroupName("Internet")
                            .AddConstructor<TcpLinuxRttEstimator>();
    return tid;
}

TcpLinuxRttEstimator::TcpLinuxRttEstimator()
    : RttEstimator()
{
}

TcpLinuxRttEstimator::TcpLinuxRttEstimator(const TcpLinuxRttEstimator& other) = default;

Ptr<RttEstimator>
TcpLinuxRttEstimator::Copy() const
{
    return CopyObject<TcpLinuxRttEstimator>(this);
}

void
TcpLinuxRttEstimator::Reset()
{
    RttEstimator::Reset();
    m_srttUs = m_mdevUs = m_mdevMaxUs = m_rttvarUs = m_rttSeq = 0;
}

void
TcpLinuxRttEstimator::Measurement(Time t)
{
    // without sequence numbers the window test below never renews mdev_max
    Sample(t.GetMicroSeconds(), m_rttSeq, m_rttSeq);
}

void
TcpLinuxRttEstimator::Sample(int64_t rttUs, uint32_t sndUna, uint32_t sndNxt)
{
    // tcp_rtt_estimator, tcp_input.c:848-905: srtt and mdev scaled by 8 and 4
    int64_t m = rttUs;
    uint32_t srtt = m_srttUs;
    if (srtt != 0)
    {
        m -= (srtt >> 3); // the error of the estimate
        srtt += m;        // srtt = 7/8 srtt + 1/8 sample
        if (m < 0)
        {
            m = -m;
            m -= (m_mdevUs >> 2);
            if (m > 0)
            {
                m >>= 3; // a smaller gain when the RTT falls (:877-886)
            }
        }
        else
        {
            m -= (m_mdevUs >> 2);
        }
        m_mdevUs += m; // mdev = 3/4 mdev + 1/4 |error|
        if (m_mdevUs > m_mdevMaxUs)
        {
            m_mdevMaxUs = m_mdevUs;
            m_rttvarUs = std::max(m_rttvarUs, m_mdevMaxUs);
        }
        if (Before(m_rttSeq, sndUna))
        {
            // once per window: rttvar decays toward the window's largest mdev (:891-898)
            if (m_mdevMaxUs < m_rttvarUs)
            {
                m_rttvarUs -= (m_rttvarUs - m_mdevMaxUs) >> 2;
            }
            m_rttSeq = sndNxt;
            m_mdevMaxUs = RTO_MIN_US;
        }
    }
    else
    {
        // the first sample (:899-904)
        srtt = static_cast<uint32_t>(m << 3);
        m_mdevUs = static_cast<uint32_t>(m << 1); // half the sample
        m_rttvarUs = std::max(m_mdevUs, RTO_MIN_US);
        m_mdevMaxUs = m_rttvarUs;
        m_rttSeq = sndNxt;
    }
    m_srttUs = std::max(1U, srtt);
    Publish();
}

uint32_t
TcpLinuxRttEstimator::GetSrttUsX8() const
{
    return m_srttUs;
}

uint64_t
TcpLinuxRttEstimator::GetRtoUs() const
{
    // __tcp_set_rto, include/net/tcp.h:725-728: srtt + rttvar, rounded up to whole jiffies
    const uint64_t us = (m_srttUs >> 3) + uint64_t{m_rttvarUs};
    return (us + JIFFY_US - 1) / JIFFY_US * JIFFY_US;
}

void
TcpLinuxRttEstimator::Publish()
{
    const uint64_t srttUs = m_srttUs >> 3;
    m_estimatedRtt = MicroSeconds(srttUs);
    // ns-3's RTO is estimate + 4 x variation (class comment): (RTO - srtt) is whole µs, so
    // a quarter of it in ns is exact
    m_estimatedVariation = NanoSeconds((GetRtoUs() - srttUs) * 1000 / 4);
    m_nSamples++;
}

// ---- TcpLinuxSocket ----

TypeId
TcpLinuxSocket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpLinuxSocket")
            .SetParent<TcpSocketBase>()
            .SetGroupName("Internet")
            .AddConstructor<TcpLinuxSocket>()
            .AddAttribute("PeerPushesEverySegment",
                          "Take every full data segment as pushed (PSH): the receiver then "
                          "acknowledges each once the application has read it "
                          "(__tcp_cleanup_rbuf). ns-3 sets no PSH; a Linux bulk sender marks "
                          "it at the end of a write only, so this is off",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpLinuxSocket::m_peerPushes),
                          MakeBooleanChecker())
            .AddAttribute("WindowGrowthLimit",
                          "Bytes: the receiver's rcv_ssthresh grows with each in-order segment "
                          "while it is at most this (__tcp_grow_window, tcp_input.c:484-499: "
                          "tcp_win_from_space(tcp_rmem[2]) / 2 for a segment whose truesize is "
                          "2 to 4 times its payload, halved for each further doubling); "
                          "0: no limit but the buffer",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TcpLinuxSocket::m_windowGrowthLimit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Rack",
                          "Detect losses by RACK, as Linux 6.1 does by default (tcp_recovery "
                          "= 1; tcp_recovery.c), instead of ns-3's duplicate-ACK and RFC 6675 "
                          "rules, which are then off",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpLinuxSocket::m_rack),
                          MakeBooleanChecker())
            .AddAttribute("Tlp",
                          "Send tail loss probes, as Linux 6.1 does by default (tcp_early_retrans "
                          "= 3; tcp_schedule_loss_probe, tcp_send_loss_probe)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpLinuxSocket::m_tlp),
                          MakeBooleanChecker())
            .AddAttribute("Undo",
                          "Undo a timeout that an ACK's timestamp proves spurious, as Linux "
                          "6.1 always does (tcp_try_undo_loss)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpLinuxSocket::m_undo),
                          MakeBooleanChecker())
            .AddAttribute("Dsack",
                          "Send D-SACK blocks for duplicate data as a receiver, and take them as "
                          "a sender: undo a reduction whose every retransmission was D-SACKed, "
                          "as Linux 6.1 does by default (tcp_dsack = 1; tcp_dsack_set, "
                          "tcp_check_dsack, tcp_try_undo_dsack)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpLinuxSocket::m_dsack),
                          MakeBooleanChecker())
            .AddAttribute("Frto",
                          "Detect spurious timeouts by F-RTO, as Linux 6.1 does by default "
                          "(tcp_frto = 2; tcp_process_loss)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpLinuxSocket::m_frtoEnabled),
                          MakeBooleanChecker())
            .AddAttribute("SmallQueues",
                          "Hold the socket's packets waiting in its host to "
                          "tcp_small_queue_check's limit, as Linux does since 3.6 (TCP small "
                          "queues; tcp_output.c:2528-2571)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpLinuxSocket::m_smallQueues),
                          MakeBooleanChecker())
            .AddAttribute("GsoPush",
                          "Send new data in GSO packets as tcp_write_xmit cuts them, set PSH "
                          "on the last segment of each packet of two or more, as Linux does "
                          "(__tcp_transmit_skb, tcp_output.c:1287-1296), and defer a packet "
                          "smaller than worth sending as tcp_tso_should_defer does",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpLinuxSocket::m_gsoPush),
                          MakeBooleanChecker())
            .AddTraceSource("ProbeTimer",
                            "The tail loss probe's timer expired (tcp_send_loss_probe runs), "
                            "whether or not a probe then goes out",
                            MakeTraceSourceAccessor(&TcpLinuxSocket::m_probeTimerTrace),
                            "ns3::TcpLinuxSocket::ProbeTimerCallback");
    return tid;
}

TypeId
TcpLinuxSocket::GetInstanceTypeId() const
{
    return TcpLinuxSocket::GetTypeId();
}

TcpLinuxSocket::TcpLinuxSocket()
    : TcpSocketBase(),
      m_linuxRtt(CreateObject<TcpLinuxRttEstimator>())
{
    emusim_rtt_min_reset(&m_rttMin, Simulator::Now().GetNanoSeconds());
    TcpSocketBase::SetRtt(m_linuxRtt);
    m_tcb->TraceConnectWithoutContext("CongState",
                                      MakeCallback(&TcpLinuxSocket::CongStateChanged, this));
}

TcpLinuxSocket::TcpLinuxSocket(const TcpLinuxSocket& sock)
    : TcpSocketBase(sock),
      m_segments(sock.m_segments),
      m_sackedOut(sock.m_sackedOut),
      m_linuxRtt(DynamicCast<TcpLinuxRttEstimator>(sock.m_linuxRtt->Copy())),
      m_synSent(sock.m_synSent),
      m_synSentUs(sock.m_synSentUs),
      m_synRetransmitted(sock.m_synRetransmitted),
      m_delivered(sock.m_delivered),
      m_maxPacketsOut(sock.m_maxPacketsOut),
      m_isCwndLimited(sock.m_isCwndLimited),
      m_cwndUsageSeq(sock.m_cwndUsageSeq),
      m_lsndtimeJiffies(sock.m_lsndtimeJiffies),
      m_minRttUs(sock.m_minRttUs),
      m_rttMin(sock.m_rttMin),
      m_peerPushes(sock.m_peerPushes),
      m_rcvSsthresh(sock.m_rcvSsthresh),
      m_windowGrowthLimit(sock.m_windowGrowthLimit),
      m_rack(sock.m_rack),
      m_tlp(sock.m_tlp),
      m_undo(sock.m_undo),
      m_frtoEnabled(sock.m_frtoEnabled),
      m_dsack(sock.m_dsack),
      m_smallQueues(sock.m_smallQueues),
      m_gsoPush(sock.m_gsoPush)
{
    TcpSocketBase::SetRtt(m_linuxRtt);
    m_tcb->TraceConnectWithoutContext("CongState",
                                      MakeCallback(&TcpLinuxSocket::CongStateChanged, this));
}

TcpLinuxSocket::~TcpLinuxSocket()
{
    TcpLostOnlyRetransmission::Set(PeekPointer(m_txBuffer), false);
    ShareFacts(false);
    TsqUnfollowHost();
    m_reoEvent.Cancel();
    m_ptoEvent.Cancel();
    m_paceEvent.Cancel();
}

void
TcpLinuxSocket::SetRtt(Ptr<RttEstimator> /* rtt */)
{
    // the estimator is Linux's, whatever TcpL4Protocol's RttEstimatorType says
    TcpSocketBase::SetRtt(m_linuxRtt);
}

Ptr<TcpSocketBase>
TcpLinuxSocket::Fork()
{
    return CopyObject<TcpLinuxSocket>(this);
}

void
TcpLinuxSocket::ShareFacts(bool share)
{
    auto cc = DynamicCast<TcpLinuxCongestion>(m_congestionControl);
    if (cc)
    {
        cc->SetFacts(share ? this : nullptr);
        cc->SetCwr(share ? this : nullptr);
    }
    auto recovery = DynamicCast<TcpLinuxPrrRecovery>(m_recoveryOps);
    if (recovery)
    {
        recovery->SetFacts(share ? this : nullptr);
    }
}

uint64_t
TcpLinuxSocket::NowUs()
{
    return static_cast<uint64_t>(Simulator::Now().GetMicroSeconds());
}

std::string
TcpLinuxSocket::GetLinuxAlgorithm() const
{
    auto cc = DynamicCast<TcpLinuxCongestion>(m_congestionControl);
    return cc ? cc->GetAlgorithm() : "";
}

uint32_t
TcpLinuxSocket::GetDelivered() const
{
    return m_delivered;
}

uint32_t
TcpLinuxSocket::GetSrttUsX8() const
{
    return m_linuxRtt->GetSrttUsX8();
}

uint32_t
TcpLinuxSocket::PacketsInFlight() const
{
    // tcp_packets_in_flight, include/net/tcp.h:1227-1249
    const uint32_t mss = m_tcb->m_segmentSize;
    const uint32_t out = static_cast<uint32_t>(m_segments.size());
    const uint32_t leftOut = m_sackedOut + m_txBuffer->GetLost() / mss;
    // GetRetransmitsCount is in bytes (TcpTxBuffer::m_retrans)
    return (out > leftOut ? out - leftOut : 0) + m_txBuffer->GetRetransmitsCount() / mss;
}

void
TcpLinuxSocket::ValidateCwnd()
{
    // tcp_cwnd_validate, tcp_output.c:1878-1897, with is_cwnd_limited as tcp_write_xmit
    // computes it after sending (:2743)
    const uint32_t cwnd = std::max<uint32_t>(1, m_tcb->m_cWnd / m_tcb->m_segmentSize);
    // a TSO deferral for the window counts as limited (tcp_write_xmit, :2743-2745)
    const bool limited = PacketsInFlight() >= cwnd || m_deferCwndLimited;
    m_deferCwndLimited = false;
    const uint32_t packetsOut = static_cast<uint32_t>(m_segments.size());
    const uint32_t sndUna = m_txBuffer->HeadSequence().GetValue();
    if (!Before(sndUna, m_cwndUsageSeq) || limited ||
        (!m_isCwndLimited && packetsOut > m_maxPacketsOut))
    {
        m_isCwndLimited = limited;
        m_maxPacketsOut = packetsOut;
        m_cwndUsageSeq = m_tcb->m_highTxMark.Get().GetValue();
    }
}

uint32_t
TcpLinuxSocket::SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck)
{
    if (m_recoveryEntrySend)
    {
        m_recoveryEntrySend = false;
        RecoveryEntryCongControl();
    }
    bool entryNewData = false;
    if (m_enteringRecovery)
    {
        // TcpSocketBase::EnterRecovery's retransmission of the head (EnterLinuxRecovery)
        m_enteringRecovery = false;
        const SequenceNumber32 first = RecoveryFirstSend(seq);
        if (first != seq)
        {
            ++m_recoveryRedirected;
            entryNewData = first >= m_tcb->m_highTxMark;
            seq = first;
        }
    }
    ShareFacts(true);
    // the connection is established: Linux has initialised its congestion control
    // (tcp_init_transfer) before the first data segment
    auto cc = DynamicCast<TcpLinuxCongestion>(m_congestionControl);
    if (cc)
    {
        cc->StartConnection(m_tcb);
    }
    if (m_rack && GetRetxThresh() != tcp_linux::NO_DUPACK_THRESHOLD)
    {
        // RACK instead (class comment); set here because TcpSocketBase's own ReTxThreshold
        // attribute is applied after this class's at construction. Only what RACK marks lost
        // is retransmitted (tcp-tx-buffer-marks.h).
        SetRetxThresh(tcp_linux::NO_DUPACK_THRESHOLD);
        TcpLostOnlyRetransmission::Set(PeekPointer(m_txBuffer), true);
    }
    TsqFollowHost();
    GsoBeforeSend(seq);
    // the packet's departure time is its timestamp (skb_mstamp_ns, __tcp_transmit_skb,
    // tcp_output.c:1257-1259): now, or later if a send the clock does not hold goes ahead of it
    if (m_packetStarts)
    {
        m_packetStampNs =
            m_pacing.PacketStarts(static_cast<uint64_t>(Simulator::Now().GetNanoSeconds()));
    }
    const uint64_t sentUs = m_packetStampNs / 1000; // tcp_skb_timestamp_us
    const bool rtoWasPending = m_retxEvent.IsPending();
    // TCP_ECN_QUEUE_CWR: the first new data segment after a reduction carries CWR
    // (tcp_ecn_send, tcp_output.c:369-378); TcpSocketBase sets it in ECN_ECE_RCVD on a sequence
    // number beyond the last CWR's
    const bool queueCwr = m_queueCwr && seq >= m_tcb->m_highTxMark;
    if (queueCwr)
    {
        m_tcb->m_ecnState = TcpSocketState::ECN_ECE_RCVD;
        if (m_ecnEchoSeq.Get() <= m_ecnCWRSeq.Get())
        {
            m_ecnEchoSeq = m_ecnCWRSeq.Get() + 1;
        }
    }
    const uint32_t sent = TcpSocketBase::SendDataPacket(seq, maxSize, withAck);
    if (queueCwr && sent > 0)
    {
        m_queueCwr = false;
    }
    if (entryNewData)
    {
        // SendPendingData's bookkeeping for new data, which EnterRecovery does not do
        m_tcb->m_nextTxSequence = std::max(m_tcb->m_nextTxSequence.Get(), seq + sent);
    }
    m_pushNext = false;
    if (sent > 0)
    {
        // data_segs_out, then tcp_update_skb_after_send (tcp_output.c:1383-1384, 1416)
        ++m_dataSegsOut;
        m_pacing.SegmentSent(sent, Paces(), PacingRateBps(), m_dataSegsOut);
    }
    m_lastSendNs = static_cast<int64_t>(m_pacing.GetWstampNs());
    if (sent == 0)
    {
        m_gsoLeft = 0;
        return sent;
    }
    const uint32_t start = seq.GetValue();
    auto it = m_segments.find(start);
    if (it == m_segments.end())
    {
        // tcp_rate_skb_sent with packets_out before this segment counts
        Segment seg{start + sent, sentUs, m_delivered, ++m_sendCount};
        m_rate.SkbSent(seg.rate, sentUs, static_cast<uint32_t>(m_segments.size()), m_delivered);
        m_segments.emplace(start, seg);
        // tcp_write_xmit after new data (not for the probe itself): a probe timer, or whatever
        // holds Linux's timer slot stays (ns-3 armed its RTO only if none was pending)
        if (m_tlp && !m_inProbe && !SchedulePto(false) && m_ptoEvent.IsPending() && !rtoWasPending)
        {
            m_retxEvent.Cancel();
        }
    }
    else
    {
        // a retransmission: its time and delivered count are renewed (tcp_rate_skb_sent)
        it->second.retransmitted = true;
        it->second.sentUs = sentUs;
        it->second.deliveredAtSend = m_delivered;
        m_rate.SkbSent(it->second.rate,
                       sentUs,
                       static_cast<uint32_t>(m_segments.size()),
                       m_delivered);
        it->second.sendOrder = ++m_sendCount;
        ++m_totalRetrans; // __tcp_retransmit_skb, a probe's too
        if (!m_inProbe)
        {
            // tcp_retransmit_skb keeps the first retransmission's timestamp and counts it for
            // undo (tcp_output.c:3352-3358); a probe is sent by __tcp_retransmit_skb, which
            // does neither
            if (m_retransStampMs == 0)
            {
                m_retransStampMs = static_cast<uint32_t>(Simulator::Now().GetMilliSeconds());
            }
            m_undoRetrans = std::max(m_undoRetrans, 0) + 1;
        }
    }
    // tcp_event_data_sent: lsndtime in jiffies (tcp_output.c)
    m_lsndtimeJiffies = emusim_jiffies32(Simulator::Now().GetNanoSeconds());
    ValidateCwnd();
    RtoOntoWheel(); // TcpSocketBase arms its RTO on a send when none is pending
    return sent;
}

void
TcpLinuxSocket::SendEmptyPacket(uint8_t flags)
{
    ShareFacts(true);
    if (flags & TcpHeader::SYN)
    {
        // the SYN, or the listener's SYN-ACK: its round trip is the first RTT sample
        m_synRetransmitted = m_synSent;
        m_synSent = true;
        m_synSentUs = NowUs();
    }
    else if ((flags & TcpHeader::ACK) && m_quickAcks > 0)
    {
        --m_quickAcks; // tcp_event_ack_sent -> tcp_dec_quickack_mode
    }
    if ((flags & TcpHeader::ACK) && m_dsackPending)
    {
        // the D-SACK block goes first, once (tcp_options_write, tcp_output.c:659-676)
        m_dsackPending = false;
        ++m_dsacksSent;
        const TcpOptionSack::SackBlock block{SequenceNumber32(m_dsackStart),
                                             SequenceNumber32(m_dsackEnd)};
        WithDuplicateSack(*m_tcb->m_rxBuffer, block, [this, flags]() {
            TcpSocketBase::SendEmptyPacket(flags);
        });
        return;
    }
    TcpSocketBase::SendEmptyPacket(flags);
}

uint32_t
TcpLinuxSocket::GetDsacksSent() const
{
    return m_dsacksSent;
}

void
TcpLinuxSocket::NoteDuplicate(uint32_t seq, uint32_t end)
{
    // tcp_data_queue forgets a D-SACK not yet sent when data comes (tcp_input.c:5169)
    m_dsackPending = false;
    const uint32_t rcvNxt = m_tcb->m_rxBuffer->NextRxSequence().GetValue();
    if (!Before(seq, rcvNxt))
    {
        if (!m_dsack || !m_sackEnabled)
        {
            return;
        }
        // out of order: the part already held, which a SACK block covers
        // (tcp_data_queue_ofo, :4995-5010)
        for (const auto& [left, right] : m_tcb->m_rxBuffer->GetSackList())
        {
            if (!Before(seq, left.GetValue()) && Before(seq, right.GetValue()))
            {
                m_dsackPending = true;
                m_dsackStart = seq;
                m_dsackEnd = Before(right.GetValue(), end) ? right.GetValue() : end;
                return;
            }
        }
        return;
    }
    if (!Before(rcvNxt, end))
    {
        // old data, all of it: a retransmission the ACK path made necessary; quick ACKs
        // follow (tcp_data_queue, :5220-5233: tcp_enter_quickack_mode, TCP_MAX_QUICKACKS)
        IncreaseQuickAcks(ReceiveWindow());
    }
    if (m_dsack && m_sackEnabled)
    {
        // the old part: all of it (:5226), or the head below rcv_nxt (:5243-5245)
        m_dsackPending = true;
        m_dsackStart = seq;
        m_dsackEnd = Before(rcvNxt, end) ? rcvNxt : end;
    }
}

void
TcpLinuxSocket::EstimateRtt(const TcpHeader& tcpHeader)
{
    ShareFacts(true);
    const uint64_t now = NowUs();
    const uint32_t ack = tcpHeader.GetAckNumber().GetValue();
    const uint32_t priorDelivered = m_delivered;
    // FLAG_ECE: ECE on an ACK of a connection that negotiated ECN, not on a SYN
    // (tcp_ecn_rcv_ecn_echo, tcp_input.c:400-405); ReceivedAck keeps it from TcpSocketBase
    m_ackEce = (tcpHeader.GetFlags() & TcpHeader::ECE) != 0 &&
               (tcpHeader.GetFlags() & TcpHeader::SYN) == 0 &&
               m_tcb->m_ecnState != TcpSocketState::ECN_DISABLED;
    int64_t seqRtt = -1;
    int64_t caRtt = -1;
    bool acked = false;        // FLAG_ACKED: something cumulatively acknowledged
    bool retransAcked = false; // FLAG_RETRANS_DATA_ACKED
    bool haveAckt = false;     // a newly acked segment was never retransmitted
    uint64_t firstAckt = 0;    // send time of the lowest newly acked, never retransmitted
    uint64_t lastAckt = 0;     // ... and of the highest
    bool synAcked = false;     // FLAG_SYN_ACKED
    bool haveSackt = false;    // likewise for newly SACKed segments
    uint64_t firstSackt = 0;
    uint64_t lastSackt = 0;
    // the rate sample (tcp_rate.c) starts with what was out before the ACK (tcp_ack,
    // tcp_input.c:3895, 3943); cong_control runs only if something was (:3997-3998)
    const uint32_t priorSackedOut = m_sackedOut;
    m_rate.StartAck(PacketsInFlight());
    m_rateGenPending = !m_segments.empty();
    m_rateSampleReady = false;
    m_lostAtAckStart = m_lostCount;
    uint32_t ackedSegments = 0;
    // cumulatively acknowledged segments newly delivered, for tcp_rate_skb_delivered after the
    // SACKed ones, in Linux's order (tcp_sacktag_write_queue runs before tcp_clean_rtx_queue)
    std::vector<Segment> rateAcked;

    auto delivered = [&](const Segment&) {
        ++m_delivered; // tcp_count_delivered
    };

    // the handshake: the SYN's round trip, unless it was retransmitted (Karn)
    if (((m_state == SYN_SENT && (tcpHeader.GetFlags() & TcpHeader::SYN)) || m_state == SYN_RCVD) &&
        m_synSent)
    {
        acked = true; // FLAG_SYN_ACKED: without a sample (Karn) the timestamp echo gives one
        synAcked = true;
        if (!m_synRetransmitted)
        {
            haveAckt = true;
            firstAckt = lastAckt = m_synSentUs;
        }
        // the SYN counts as delivered: tcp_clean_rtx_queue's tcp_count_delivered for the SYN's
        // skb on the client, tcp_rcv_state_process on the listener (tcp_input.c:3372-3375, 6689)
        ++m_delivered;
    }

    // RACK advances with the segments delivered now (tcp_rack_advance), SACKed ones first as
    // Linux tags them before it cleans the queue. A cumulatively acknowledged retransmission
    // whose timestamp echo is older than its last send was delivered by an earlier send
    // (tcp_skb_spurious_retrans, tcp_input.c:2421-2435; timestamps in ms, TCP_TS_HZ)
    std::vector<Segment> rackSacked;
    std::vector<Segment> rackAcked;
    bool origSackAcked = false; // FLAG_ORIG_SACK_ACKED
    bool dataSacked = false;    // FLAG_DATA_SACKED
    const bool sawEcho = m_timestampEnabled && tcpHeader.HasOption(TcpOption::TS) &&
                         m_tcb->m_rcvTimestampEchoReply != 0;
    auto spuriousRetransmission = [&](const Segment& seg) {
        return seg.retransmitted && sawEcho &&
               Before(m_tcb->m_rcvTimestampEchoReply, static_cast<uint32_t>(seg.sentUs / 1000));
    };

    // D-SACK first: tcp_sacktag_write_queue runs before tcp_clean_rtx_queue (tcp_ack)
    m_ackDsack = false;
    m_ackDsackTlp = false;
    m_maxWindow = std::max(m_maxWindow, m_rWnd.Get());
    if (tcpHeader.HasOption(TcpOption::SACK))
    {
        auto sack = DynamicCast<const TcpOptionSack>(tcpHeader.GetOption(TcpOption::SACK));
        CheckDsack(sack->GetSackList(), ack);
    }

    // cumulatively acknowledged segments (tcp_clean_rtx_queue, tcp_input.c:3336-3396); the
    // scoreboard's lost count before the ACK, less what it acknowledges, for rs->losses
    const uint32_t headBefore = m_txBuffer->HeadSequence().GetValue();
    const uint32_t lostBefore = m_txBuffer->GetLost();
    uint32_t lostAcked = 0;
    for (auto it = m_segments.begin(); it != m_segments.end() && !Before(ack, it->second.end);)
    {
        const Segment& seg = it->second;
        // IsLost walks the whole sent list: asked only when something is marked lost
        if (lostBefore > 0 && m_txBuffer->IsLost(SequenceNumber32(it->first)))
        {
            lostAcked += seg.end - it->first;
        }
        if (seg.retransmitted)
        {
            retransAcked = true;
        }
        else if (!seg.sacked)
        {
            firstAckt = haveAckt ? firstAckt : seg.sentUs;
            lastAckt = seg.sentUs;
            haveAckt = true;
            origSackAcked |= !Before(m_highSeq, seg.end); // tcp_input.c:3368-3369
        }
        if (seg.sacked)
        {
            --m_sackedOut;
        }
        else
        {
            delivered(seg);
            rateAcked.push_back(seg);
            if (m_rack && !spuriousRetransmission(seg))
            {
                rackAcked.push_back(seg);
            }
        }
        acked = true;
        ++ackedSegments;
        it = m_segments.erase(it);
    }

    // newly SACKed segments, blocks in sequence order (tcp_sacktag_write_queue, tcp_sacktag_one)
    if (tcpHeader.HasOption(TcpOption::SACK))
    {
        auto sack = DynamicCast<const TcpOptionSack>(tcpHeader.GetOption(TcpOption::SACK));
        std::vector<std::pair<uint32_t, uint32_t>> blocks;
        for (const auto& [left, right] : sack->GetSackList())
        {
            blocks.emplace_back(left.GetValue(), right.GetValue());
        }
        std::sort(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) {
            return Before(a.first, b.first);
        });
        for (const auto& [left, right] : blocks)
        {
            for (auto it = m_segments.lower_bound(left);
                 it != m_segments.end() && !Before(right, it->second.end);
                 ++it)
            {
                Segment& seg = it->second;
                if (seg.sacked)
                {
                    continue;
                }
                seg.sacked = true;
                ++m_sackedOut;
                dataSacked = true;
                origSackAcked |= !seg.retransmitted && !Before(m_highSeq, seg.end); // :1401-1402
                if (m_rack)
                {
                    rackSacked.push_back(seg);
                }
                if (!seg.retransmitted)
                {
                    firstSackt = haveSackt ? firstSackt : seg.sentUs;
                    lastSackt = seg.sentUs;
                    haveSackt = true;
                }
                delivered(seg);
                m_rate.SkbDelivered(seg.rate, seg.sentUs, seg.end, seg.retransmitted, true);
            }
        }
    }
    for (Segment& seg : rateAcked)
    {
        m_rate.SkbDelivered(seg.rate, seg.sentUs, seg.end, seg.retransmitted, false);
    }

    // min_rtt as it was before this ACK (Linux advances RACK before tcp_ack_update_rtt)
    for (const Segment& seg : rackSacked)
    {
        RackAdvance(seg, now);
    }
    for (const Segment& seg : rackAcked)
    {
        RackAdvance(seg, now);
    }

    if (haveAckt && !retransAcked)
    {
        seqRtt = static_cast<int64_t>(now - firstAckt);
        caRtt = static_cast<int64_t>(now - lastAckt);
    }
    int64_t sackRtt = -1;
    if (haveSackt)
    {
        sackRtt = static_cast<int64_t>(now - firstSackt);
        caRtt = static_cast<int64_t>(now - lastSackt);
    }

    // tcp_ack_update_rtt, tcp_input.c:3165-3210
    if (seqRtt < 0)
    {
        seqRtt = sackRtt;
    }
    // Linux tests rcv_tsecr != 0 (a peer that echoes nothing); ns-3's timestamps are its clock
    // in ms from 0 with no random offset, so a segment sent at time 0 is echoed as 0 and the
    // option's presence is the test (a SYN-ACK resent after a lost one echoes the first SYN's)
    if (seqRtt < 0 && acked && m_timestampEnabled && tcpHeader.HasOption(TcpOption::TS))
    {
        // the timestamp echo, in whole milliseconds (TCP_TS_HZ), at least one
        const int64_t ms =
            TcpOptionTS::ElapsedTimeFromTsValue(m_tcb->m_rcvTimestampEchoReply).GetMilliSeconds();
        seqRtt = caRtt = std::max<int64_t>(ms, 1) * 1000;
    }
    m_ackDelivered = m_delivered - priorDelivered;
    if (m_ackEce)
    {
        // tcp_count_delivered: what an ACK with ECE delivers, SACKed or cumulatively
        // acknowledged, counts as delivered with CE (tcp_input.c:413-419, 3375, 3978-3979):
        // dctcp's alpha is the fraction delivered_ce / delivered of a window
        // (dctcp_update_alpha, tcp_dctcp.c:124-153)
        m_deliveredCe += m_ackDelivered;
    }
    m_ackOrigSackAcked = origSackAcked;
    m_ackDataSacked = dataSacked;
    m_ackAdvanced = Before(headBefore, ack);
    m_lostBeforeAckBytes = lostBefore > lostAcked ? lostBefore - lostAcked : 0;
    NS_LOG_DEBUG("ACK " << ack << ": seq_rtt " << seqRtt << " ca_rtt " << caRtt << " sack_rtt "
                        << sackRtt << " acked " << acked << " delivered " << m_delivered);
    m_ackRttUs = caRtt >= 0 ? static_cast<int32_t>(caRtt) : -1;
    // what tcp_ack hands the rate sample: the RTT of the last (S)ACKed segment
    // (tcp_ack_update_rtt, :3196), and whether the ACK may be a delayed one: one whole segment
    // of less than an MSS acknowledged alone, never retransmitted, nothing SACKed before or by
    // it (tcp_clean_rtx_queue, :3427-3441)
    emusim_rate_sample& rs = m_rate.Sample();
    rs.rtt_us = m_ackRttUs;
    rs.is_ack_delayed = haveAckt && !retransAcked && ackedSegments == 1 && priorSackedOut == 0 &&
                        Before(ack, headBefore + m_tcb->m_segmentSize) &&
                        rs.prior_delivered + 1 == m_delivered && !dataSacked && !m_ackDsack &&
                        !synAcked;
    // pkts_acked's in_flight: mss x (delivered - the rate sample's prior_delivered)
    // (tcp_clean_rtx_queue, :3487-3493)
    m_ackInFlightBytes = m_tcb->m_segmentSize * (m_delivered - rs.prior_delivered);

    if (seqRtt < 0)
    {
        return;
    }
    m_minRttUs = emusim_rtt_min_update(&m_rttMin,
                                       Simulator::Now().GetNanoSeconds(),
                                       MIN_RTT_WINDOW_S,
                                       static_cast<uint32_t>(caRtt));
    // snd_una is the ACK's by now in tcp_ack; snd_nxt the highest sequence sent
    const uint32_t sndUna = Before(m_txBuffer->HeadSequence().GetValue(), ack)
                                ? ack
                                : m_txBuffer->HeadSequence().GetValue();
    m_linuxRtt->Sample(seqRtt, sndUna, m_tcb->m_highTxMark.Get().GetValue());
    m_tcb->m_srtt = m_linuxRtt->GetEstimate();
    m_tcb->m_minRtt = MicroSeconds(m_minRttUs);
    if (caRtt >= 0)
    {
        m_tcb->m_lastRtt = MicroSeconds(caRtt);
    }
    // the RTO from the new estimate (tcp_set_rto); TcpSocketBase recomputes the same value
    // when the ACK acknowledges new data (NewAck)
    m_rto =
        Max(m_rtt->GetEstimate() + Max(m_clockGranularity, m_rtt->GetVariation() * 4), m_minRto);
}

void
TcpLinuxSocket::IncreaseQuickAcks(uint32_t receiveWindowBytes)
{
    // tcp_incr_quickack, tcp_input.c:291-301
    uint32_t quickAcks = receiveWindowBytes / (2 * m_rcvMss);
    quickAcks = std::min(quickAcks == 0 ? 2 : quickAcks, MAX_QUICKACKS);
    m_quickAcks = std::max(m_quickAcks, quickAcks);
}

uint32_t
TcpLinuxSocket::ReceiveWindow() const
{
    // __tcp_select_window: the free space, at most rcv_ssthresh (tcp_output.c:3082-3083);
    // ns-3's free space is MaxRxSequence - NextRxSequence, as TcpSocketBase computes it
    const uint32_t freeBytes = static_cast<uint32_t>(m_tcb->m_rxBuffer->MaxRxSequence() -
                                                     m_tcb->m_rxBuffer->NextRxSequence());
    return m_rcvSsthresh == 0 ? freeBytes : std::min(freeBytes, m_rcvSsthresh);
}

void
TcpLinuxSocket::GrowWindow(uint32_t length)
{
    // room = min(window_clamp, tcp_space) - rcv_ssthresh (tcp_input.c:526): ns-3's buffer is
    // the window Linux's buffer offers (the profile's RcvBufSize), less what it holds
    const uint32_t clamp = m_tcb->m_rxBuffer->MaxBufferSize();
    const uint32_t space = clamp - m_tcb->m_rxBuffer->Size();
    const uint32_t limit = std::min(clamp, space);
    if (limit <= m_rcvSsthresh)
    {
        return;
    }
    // __tcp_grow_window gives 2 rcv_mss while rcv_ssthresh is at most its window
    // (tcp_input.c:484-499), here WindowGrowthLimit; the increase is at least 2 len (:546)
    if (m_windowGrowthLimit != 0 && m_rcvSsthresh > m_windowGrowthLimit)
    {
        return;
    }
    const uint32_t increase = std::max(2 * m_rcvMss, 2 * length);
    m_rcvSsthresh += std::min(limit - m_rcvSsthresh, increase);
    m_quickAcks |= 1; // icsk_ack.quick |= 1 (:548): this segment is acknowledged at once
}

uint16_t
TcpLinuxSocket::AdvertisedWindowSize(bool scale) const
{
    if (m_rcvSsthresh == 0 || m_tcb->m_rxBuffer->GotFin())
    {
        return TcpSocketBase::AdvertisedWindowSize(scale);
    }
    uint32_t window = ReceiveWindow();
    if (window != m_advWnd)
    {
        const_cast<TcpLinuxSocket*>(this)->m_advWnd = window; // traced, as TcpSocketBase does
    }
    if (scale)
    {
        window >>= m_rcvWindShift;
    }
    return static_cast<uint16_t>(std::min<uint32_t>(window, m_maxWinSize));
}

void
TcpLinuxSocket::ReceivedData(Ptr<Packet> packet, const TcpHeader& tcpHeader)
{
    const uint32_t length = packet->GetSize();
    const bool inOrder =
        length > 0 && tcpHeader.GetSequenceNumber() == m_tcb->m_rxBuffer->NextRxSequence();
    bool pushed = false;
    if (inOrder)
    {
        // tcp_measure_rcv_mss: a segment at least as long as rcv_mss sets it; with PSH it
        // marks the ACK pushed (tcp_input.c:246-258)
        if (length >= m_rcvMss)
        {
            m_rcvMss = std::min(length, m_tcb->m_segmentSize);
            pushed = m_peerPushes || (tcpHeader.GetFlags() & TcpHeader::PSH) != 0;
        }
        // tcp_event_data_recv: quick ACKs for the first data and after a long gap
        const uint32_t now = emusim_jiffies32(Simulator::Now().GetNanoSeconds());
        if (!m_delackStarted)
        {
            // the window the connection offered first (tcp_select_initial_window,
            // tcp_output.c:217-232; rcv_ssthresh = rcv_wnd, tcp_minisocks.c:522): the
            // buffer's window rounded down to whole segments, at most 65535
            const uint32_t mss = m_tcb->m_segmentSize;
            const uint32_t space = m_tcb->m_rxBuffer->MaxBufferSize();
            m_rcvSsthresh = std::min(space > mss ? space / mss * mss : space, MAX_INITIAL_WINDOW);
            IncreaseQuickAcks(ReceiveWindow());
            m_delackStarted = true;
        }
        else
        {
            const uint64_t rtoJiffies =
                (m_rto.Get().GetMicroSeconds() + TcpLinuxRttEstimator::JIFFY_US - 1) /
                TcpLinuxRttEstimator::JIFFY_US;
            if (static_cast<int32_t>(now - m_lrcvtimeJiffies) > static_cast<int64_t>(rtoJiffies))
            {
                IncreaseQuickAcks(ReceiveWindow());
            }
        }
        m_lrcvtimeJiffies = now;
        if (length >= GROW_WINDOW_MIN_LEN)
        {
            GrowWindow(length);
        }
    }
    // a data segment with CWR is acknowledged at once: the sender's window may be small
    // (tcp_ecn_accept_cwr, tcp_input.c:331-343)
    if ((tcpHeader.GetFlags() & TcpHeader::CWR) != 0 && length > 0)
    {
        m_ackNow = true;
    }
    // in quick-ACK mode every segment is acknowledged at once (tcp_in_quickack_mode), and so
    // is one the congestion control asked for (ICSK_ACK_NOW, __tcp_ack_snd_check,
    // tcp_input.c:5662)
    const uint32_t delAckMaxCount = m_delAckMaxCount;
    if (m_quickAcks > 0 || m_ackNow)
    {
        m_delAckMaxCount = 1;
    }
    m_ackNow = false;
    TcpSocketBase::ReceivedData(packet, tcpHeader);
    m_delAckMaxCount = delAckMaxCount;
    // __tcp_cleanup_rbuf: the application has read everything (ns-3's read as the data
    // arrived); a pushed ACK still pending goes out now
    if (pushed && m_delAckCount > 0 && m_tcb->m_rxBuffer->Available() == 0)
    {
        m_delAckEvent.Cancel();
        m_delAckCount = 0;
        SendEmptyPacket(TcpHeader::ACK);
    }
}

void
TcpLinuxSocket::CompleteFork(Ptr<Packet> p,
                             const TcpHeader& tcpHeader,
                             const Address& fromAddress,
                             const Address& toAddress)
{
    TcpSocketBase::CompleteFork(p, tcpHeader, fromAddress, toAddress);
    // the accepting socket (every program's receiver) sees each segment before TcpSocketBase's
    // ForwardUp, which answers old data ending below rcv_nxt itself (IsValidTcpSegment)
    if (m_endPoint != nullptr)
    {
        m_endPoint->SetRxCallback(
            MakeCallback(&TcpLinuxSocket::ForwardUpSegment, Ptr<TcpLinuxSocket>(this)));
    }
}

void
TcpLinuxSocket::ForwardUpSegment(Ptr<Packet> packet,
                                 Ipv4Header header,
                                 uint16_t port,
                                 Ptr<Ipv4Interface> incomingInterface)
{
    if (m_state == ESTABLISHED || m_state == FIN_WAIT_1 || m_state == FIN_WAIT_2 ||
        m_state == CLOSE_WAIT)
    {
        TcpHeader tcpHeader;
        const uint32_t headerSize = packet->PeekHeader(tcpHeader);
        if (packet->GetSize() > headerSize)
        {
            const uint32_t seq = tcpHeader.GetSequenceNumber().GetValue();
            NoteDuplicate(seq, seq + packet->GetSize() - headerSize);
        }
    }
    TcpSocketBase::ForwardUp(packet, header, port, incomingInterface);
}

void
TcpLinuxSocket::UpdateRttHistory(const SequenceNumber32& /* seq */,
                                 uint32_t /* sz */,
                                 bool /* isRetransmission */)
{
}

void
TcpLinuxSocket::LastAckForRecovery(uint32_t& newlyAckedSacked,
                                   uint32_t& newlyLost,
                                   bool& sndUnaAdvanced,
                                   uint32_t& packetsInFlight) const
{
    const uint32_t lostNow = m_txBuffer->GetLost();
    newlyAckedSacked = m_ackDelivered;
    newlyLost = lostNow > m_lostBeforeAckBytes
                    ? (lostNow - m_lostBeforeAckBytes) / m_tcb->m_segmentSize
                    : 0;
    sndUnaAdvanced = m_ackAdvanced;
    packetsInFlight = PacketsInFlight();
}

void
TcpLinuxSocket::FillLinuxState(emusim_tcp_state& state) const
{
    const uint32_t mss = m_tcb->m_segmentSize;
    state.packets_out = static_cast<uint32_t>(m_segments.size());
    state.sacked_out = m_sackedOut;
    state.lost_out = m_txBuffer->GetLost() / mss;
    state.retrans_out = m_txBuffer->GetRetransmitsCount() / mss; // bytes there
    state.max_packets_out = m_maxPacketsOut;
    state.is_cwnd_limited = m_isCwndLimited;
    state.delivered = m_delivered;
    state.delivered_ce = m_deliveredCe;
    state.rcv_nxt = m_tcb->m_rxBuffer->NextRxSequence().GetValue();
    state.delivered_mstamp = m_rate.GetDeliveredMstampUs();
    state.lost = m_lostCount;
    state.app_limited = m_rate.GetAppLimited();
    state.tcp_wstamp_ns = m_pacing.GetWstampNs();
    // sk_max_pacing_rate is ~0UL until SO_MAX_PACING_RATE sets it (sock_init_data,
    // net/core/sock.c); the blast client sets none
    state.max_pacing_rate = std::numeric_limits<uint64_t>::max();
    state.srtt_us = m_linuxRtt->GetSrttUsX8();
    state.min_rtt_us = m_minRttUs;
    state.lsndtime = m_lsndtimeJiffies;
    state.saw_tstamp = m_timestampEnabled ? 1 : 0;
}

void
TcpLinuxSocket::LastAckSample(int32_t& rttUs, uint32_t& inFlightBytes) const
{
    rttUs = m_ackRttUs;
    inFlightBytes = m_ackInFlightBytes;
}

uint32_t
TcpLinuxSocket::LastAckDelivered() const
{
    return m_ackDelivered;
}

bool
TcpLinuxSocket::AckRestartsRecovery() const
{
    return m_ackRestartsRecovery;
}

} // namespace ns3
