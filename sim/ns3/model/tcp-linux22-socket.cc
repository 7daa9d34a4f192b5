/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TcpSocketBase with Linux 2.2.16's timers and timeout; tcp-linux22-socket.h states each rule
 * with its source.
 */

#include "tcp-linux22-socket.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/rtt-estimator.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/type-id.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpLinux22Socket");
NS_OBJECT_ENSURE_REGISTERED(TcpLinux22Socket);

TypeId
TcpLinux22Socket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpLinux22Socket")
            .SetParent<TcpSocketBase>()
            .SetGroupName("Internet")
            .AddConstructor<TcpLinux22Socket>()
            .AddAttribute("TickPhase",
                          "Phase of the host's 100 Hz tick relative to the run's start, in "
                          "seconds, drawn once per host (values are reduced modulo 10 ms)",
                          StringValue("ns3::ConstantRandomVariable[Constant=0.0]"),
                          MakePointerAccessor(&TcpLinux22Socket::m_tickPhase),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("FackTrigger",
                          "Fast retransmit when fackets_out > 3 as well as on the third "
                          "duplicate ACK (tcp_input.c:510)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpLinux22Socket::m_fackTrigger),
                          MakeBooleanChecker())
            .AddAttribute("FackRetransmit",
                          "2.2's FACK: in flight is packets_out - fackets_out + retrans_out "
                          "in every state; during fast retransmit and after a timeout every "
                          "segment below the forward-most SACK is lost, the first hole sent "
                          "even with the pipe full (tcp_fack_retransmit, "
                          "tcp_output.c:689-716); false keeps RFC 6675's pipe and its three "
                          "SACKed segments above a hole",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpLinux22Socket::m_fackRetransmit),
                          MakeBooleanChecker())
            .AddAttribute("TickDelayedAck",
                          "Send a delayed ACK at the next tick (ato = 1 tick) instead of "
                          "DelAckTimeout later",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpLinux22Socket::m_tickDelAck),
                          MakeBooleanChecker());
    return tid;
}

TypeId
TcpLinux22Socket::GetInstanceTypeId() const
{
    return TcpLinux22Socket::GetTypeId();
}

TcpLinux22Socket::TcpLinux22Socket()
    : TcpSocketBase()
{
}

TcpLinux22Socket::TcpLinux22Socket(const TcpLinux22Socket& sock) = default;

TcpLinux22Socket::~TcpLinux22Socket() = default;

const Linux22Clock&
TcpLinux22Socket::GetClock()
{
    if (!m_clockSet)
    {
        double phase = 0.0;
        if (m_tickPhase)
        {
            // A random variable given as an attribute default is built when the command line
            // is parsed, before the program sets RngRun: a fresh stream now draws from this
            // run's seed and repetition (sender and receiver get one each, in order)
            m_tickPhase->SetStream(-1);
            phase = m_tickPhase->GetValue();
        }
        m_clock = Linux22Clock(Seconds(phase));
        m_clockSet = true;
    }
    return m_clock;
}

int64_t
TcpLinux22Socket::GetRtoTicks() const
{
    return m_rtoTicks;
}

uint32_t
TcpLinux22Socket::GetRetransmits() const
{
    return m_retransmits;
}

Ptr<TcpSocketBase>
TcpLinux22Socket::Fork()
{
    // the forked socket runs on the same host: draw the phase now so that it is shared
    GetClock();
    return CopyObject<TcpLinux22Socket>(this);
}

bool
TcpLinux22Socket::Synchronised() const
{
    return m_state == ESTABLISHED || m_state == CLOSE_WAIT || m_state == FIN_WAIT_1 ||
           m_state == FIN_WAIT_2 || m_state == CLOSING || m_state == LAST_ACK;
}

bool
TcpLinux22Socket::Outstanding() const
{
    return m_txBuffer->Size() > 0 && m_tcb->m_highTxMark.Get() > m_txBuffer->HeadSequence();
}

int64_t
TcpLinux22Socket::NowJiffies()
{
    return GetClock().Jiffies(Simulator::Now());
}

void
TcpLinux22Socket::TellPeerWindow()
{
    if (auto cc = DynamicCast<TcpLinux22>(m_congestionControl))
    {
        cc->SetPeerWindow(m_rWnd.Get());
    }
}

void
TcpLinux22Socket::ArmTimer()
{
    if (!Synchronised() || !Outstanding())
    {
        // nothing sent is unacknowledged: 2.2 clears its timer (tcp_input.c:880-882); a FIN
        // alone keeps ns-3's own timer
        m_timerSet = false;
        if (Synchronised() && m_txBuffer->Size() > 0)
        {
            m_retxEvent.Cancel();
        }
        return;
    }
    if (!m_timerSet)
    {
        m_expiry = NowJiffies() + m_rtoTicks;
        m_timerSet = true;
    }
    Time at = GetClock().TickTime(m_expiry);
    Time delay = std::max(at - Simulator::Now(), Time(0));
    m_retxEvent.Cancel();
    m_retxEvent = Simulator::Schedule(delay, &TcpLinux22Socket::ReTxTimeout, this);
}

void
TcpLinux22Socket::ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader)
{
    NS_LOG_FUNCTION(this << tcpHeader);
    if (!Synchronised())
    {
        TcpSocketBase::ReceivedAck(packet, tcpHeader);
        return;
    }
    const SequenceNumber32 ack = tcpHeader.GetAckNumber();
    const SequenceNumber32 oldUna = m_txBuffer->HeadSequence();
    const SequenceNumber32 oldHigh = m_tcb->m_highTxMark;
    const auto oldState = m_tcb->m_congState.Get();
    const uint32_t mss = m_tcb->m_segmentSize;

    if (tcpHeader.HasOption(TcpOption::SACK))
    {
        auto sack = DynamicCast<const TcpOptionSack>(tcpHeader.GetOption(TcpOption::SACK));
        for (const auto& block : sack->GetSackList())
        {
            m_highSack = std::max(m_highSack, block.second);
        }
    }
    TellPeerWindow();

    // any ACK but a duplicate clears the count outside fast retransmit (tcp_input.c:893)
    const bool dup = IsDuplicateAck(ack, oldUna, oldHigh, packet->GetSize() > 0);
    if (dup)
    {
        ++m_dupAcks22;
    }
    else if (oldState != TcpSocketState::CA_RECOVERY)
    {
        m_dupAcks22 = 0;
    }
    const uint32_t facketsOut = m_highSack > ack ? (m_highSack - ack + mss - 1) / mss : 0;
    if (m_fackTrigger && dup && m_retransmits == 0 && facketsOut > 3 &&
        m_dupAckCount + 1 < m_retxThresh &&
        (oldState == TcpSocketState::CA_OPEN || oldState == TcpSocketState::CA_DISORDER))
    {
        // tcp_input.c:510: fackets_out > 3 starts fast retransmit like a third duplicate ACK.
        // ns-3 enters recovery when its count reaches ReTxThreshold on this ACK.
        if (oldState == TcpSocketState::CA_OPEN)
        {
            m_congestionControl->CongestionStateSet(m_tcb, TcpSocketState::CA_DISORDER);
            m_tcb->m_congState = TcpSocketState::CA_DISORDER;
        }
        m_dupAckCount = m_retxThresh - 1;
    }

    // Does this ACK start fast retransmit? ns-3 enters recovery when its count reaches
    // ReTxThreshold (set above for the fackets_out trigger) outside a recovery episode.
    const bool entering =
        dup && (oldState == TcpSocketState::CA_OPEN || oldState == TcpSocketState::CA_DISORDER) &&
        m_dupAckCount + 1 >= m_retxThresh && (!m_recoverActive || ack >= m_recover);
    UseFackScoreboard(entering || oldState == TcpSocketState::CA_RECOVERY ||
                      oldState == TcpSocketState::CA_LOSS);

    if (m_retransmits > 0 && ack >= m_retransmitMark)
    {
        // packets_out == 0: the series is over (tcp_input.c:739-745); new data may go out on
        // this very ACK
        m_retransmits = 0;
        m_backoff = 0;
    }

    const uint32_t retransmittedBefore = m_retransmitted;
    TcpSocketBase::ReceivedAck(packet, tcpHeader);

    const SequenceNumber32 una = m_txBuffer->HeadSequence();
    const bool fackEvent = (dup && m_dupAcks22 > 3) || (una > oldUna && m_dupAcks22 >= 3);
    if (m_fackRetransmit && fackEvent && m_highSack > una &&
        m_retransmitted == retransmittedBefore &&
        (m_tcb->m_congState == TcpSocketState::CA_RECOVERY ||
         m_tcb->m_congState == TcpSocketState::CA_LOSS))
    {
        // tcp_fack_retransmit retransmits the first hole before it looks at the pipe
        // (tcp_output.c:703-708), on every duplicate ACK past the third (tcp_input.c:521,
        // 541) and every partial ACK after three (:566, 590): when ns-3's pipe let nothing
        // out, the first hole still goes
        SequenceNumber32 next;
        SequenceNumber32 nextHigh;
        if (m_txBuffer->NextSeg(&next, &nextHigh, false) && next < m_tcb->m_highTxMark)
        {
            SendDataPacket(next, m_tcb->m_segmentSize, true);
        }
    }
    const int64_t now = NowJiffies();
    if (una > oldUna)
    {
        // RTT sample in ticks from the echoed send time (tcp_ack_saw_tstamp, :729-755)
        if (!m_tcb->m_lastRtt.Get().IsZero())
        {
            const Time sent = Simulator::Now() - m_tcb->m_lastRtt.Get();
            m_estimator.Sample(now - GetClock().Jiffies(sent));
        }
        const uint32_t cwnd = std::max<uint32_t>(m_tcb->m_cWnd / mss, 1);
        int64_t rto = m_estimator.HasSample() ? m_estimator.RawRto(cwnd) : m_rtoTicks;
        if (m_retransmits > 0)
        {
            rto = m_backoff >= 20 ? Linux22RttEstimator::RTO_MAX_TICKS : rto << m_backoff;
        }
        m_rtoTicks = Linux22RttEstimator::Bound(rto);

        m_sendJiffy.erase(m_sendJiffy.begin(), m_sendJiffy.lower_bound(una));
        if (una >= oldHigh)
        {
            // everything acknowledged: the timer is cleared (:880-882) and set again only if
            // new data went out (tcp_write_xmit, tcp_output.c:363-364)
            m_timerSet = false;
        }
        else if (m_retransmits > 0)
        {
            m_expiry = now + m_rtoTicks; // tcp_ack_packets_out, :763-765
            m_timerSet = true;
        }
        else
        {
            // tcp_ack_packets_out, :767-770: rto after the head's (last) send, >= 1 tick
            int64_t when = now;
            auto it = m_sendJiffy.upper_bound(una);
            if (it != m_sendJiffy.begin())
            {
                when = std::prev(it)->second;
            }
            m_expiry = std::max(when + m_rtoTicks, now + 1);
            m_timerSet = true;
        }
    }
    if (oldState != TcpSocketState::CA_RECOVERY &&
        m_tcb->m_congState == TcpSocketState::CA_RECOVERY)
    {
        // fast retransmit: the timer restarts (tcp_input.c:518)
        if (auto rec = DynamicCast<TcpLinux22Recovery>(m_recoveryOps))
        {
            rec->SetDupAcks(m_dupAcks22);
        }
        m_expiry = now + m_rtoTicks;
        m_timerSet = true;
    }
    if (oldState == TcpSocketState::CA_RECOVERY &&
        m_tcb->m_congState != TcpSocketState::CA_RECOVERY)
    {
        // recovery over: fackets_out = 0, dup_acks = 0 (tcp_input.c:476-482, 563-564)
        m_highSack = una;
        m_dupAcks22 = 0;
    }
    m_highSack = std::max(m_highSack, una);
    UseFackScoreboard(m_tcb->m_congState == TcpSocketState::CA_RECOVERY ||
                      m_tcb->m_congState == TcpSocketState::CA_LOSS);
    ArmTimer();
}

void
TcpLinux22Socket::UseFackScoreboard(bool lossEpisode)
{
    // tcp_fack_retransmit (tcp_output.c:689-716) retransmits every segment below fackets_out
    // that is neither SACKed nor retransmitted, while tcp_packets_in_flight = packets_out -
    // fackets_out + retrans_out (include/net/tcp.h:775-778) is below cwnd; it runs when fast
    // retransmit starts and on every later duplicate or partial ACK until high_seq
    // (tcp_input.c:510-543, 566-591), after a timeout too (high_seq set, tcp_timer.c:485).
    // ns-3's scoreboard with one SACKed segment as the loss threshold is that rule: a hole is
    // lost (TcpTxBuffer::IsLost) and out of the pipe (BytesInFlight) as soon as anything above
    // it is SACKed. Outside such an episode RFC 6675's threshold stays, so the trigger of fast
    // retransmit is 2.2's count and fackets_out (ReceivedAck), not a single SACK. The pipe
    // itself is AvailableWindow's, in every state.
    m_txBuffer->SetDupAckThresh(m_fackRetransmit && lossEpisode ? 1 : m_retxThresh);
}

void
TcpLinux22Socket::ProcessAck(const SequenceNumber32& ackNumber,
                             bool scoreboardUpdated,
                             uint32_t currentDelivered,
                             const SequenceNumber32& oldHeadSequence,
                             bool receivedData)
{
    // ns-3 counts RFC 6675's duplicates, ACKs with new SACK information; 2.2 counts its own,
    // so an ACK that advances snd_una (a partial ACK during recovery included) neither adds
    // to the count that starts fast retransmit nor to the one that decides the window at
    // its end (clear_fast_retransmit, tcp_input.c:476-482)
    const bool isDupAck =
        Synchronised()
            ? IsDuplicateAck(ackNumber, oldHeadSequence, m_tcb->m_highTxMark, receivedData)
            : scoreboardUpdated;
    TcpSocketBase::ProcessAck(ackNumber, isDupAck, currentDelivered, oldHeadSequence, receivedData);
}

void
TcpLinux22Socket::ReceivedData(Ptr<Packet> packet, const TcpHeader& tcpHeader)
{
    const bool pending = m_delAckEvent.IsPending();
    TcpSocketBase::ReceivedData(packet, tcpHeader);
    if (m_tickDelAck && !pending && m_delAckEvent.IsPending())
    {
        // tcp_send_delayed_ack with ato = 1 tick: the ACK leaves at the next tick
        m_delAckEvent.Cancel();
        Time at = GetClock().TickTime(NowJiffies() + 1);
        m_delAckEvent =
            Simulator::Schedule(at - Simulator::Now(), &TcpLinux22Socket::DelAckTimeout, this);
    }
}

uint32_t
TcpLinux22Socket::SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck)
{
    const bool retransmission = seq < m_tcb->m_highTxMark;
    uint32_t sz = TcpSocketBase::SendDataPacket(seq, maxSize, withAck);
    m_retransmitted += retransmission ? 1 : 0;
    if (Synchronised())
    {
        m_sendJiffy[seq] = NowJiffies();
        ArmTimer();
    }
    return sz;
}

bool
TcpLinux22Socket::IsDuplicateAck(SequenceNumber32 ack,
                                 SequenceNumber32 una,
                                 SequenceNumber32 highTxMark,
                                 bool carriesData)
{
    // tcp_input.c:886-891: ack == snd_una, packets_out, no data. 2.2 also excludes an ACK
    // that updates the window (FLAG_WIN_UPDATE); that is left out, as ns-3 leaves it out.
    return ack == una && ack < highTxMark && !carriesData;
}

uint32_t
TcpLinux22Socket::AvailableWindow() const
{
    uint32_t window = TcpSocketBase::AvailableWindow();
    const SequenceNumber32 una = m_txBuffer->HeadSequence();
    if (m_fackRetransmit && Synchronised() && m_highSack > una)
    {
        // tcp_snd_test sends while tcp_packets_in_flight = packets_out - fackets_out +
        // retrans_out is below cwnd (include/net/tcp.h:775-778, 820-828), whatever the state:
        // fackets_out counts from snd_una to the forward-most SACKed segment as soon as a SACK
        // arrives (tcp_sacktag_write_queue, tcp_input.c:307-348), so every segment below it
        // leaves the pipe even before fast retransmit starts (RFC 6675 keeps a hole in the
        // pipe until three segments above it are SACKed)
        const SequenceNumber32 high = m_tcb->m_highTxMark;
        const uint32_t above = high > m_highSack ? high - m_highSack : 0;
        const uint32_t inFlight = above + m_txBuffer->GetRetransmitsCount();
        const uint32_t allowed = Window();
        window = inFlight >= allowed ? 0 : allowed - inFlight;
    }
    if (m_retransmits > 0 && window > 0)
    {
        // tcp_snd_test: no new data while retransmits != 0 (include/net/tcp.h:824-828)
        SequenceNumber32 next;
        SequenceNumber32 nextHigh;
        if (!m_txBuffer->NextSeg(&next, &nextHigh, false) || next >= m_tcb->m_highTxMark)
        {
            return 0;
        }
    }
    return window;
}

void
TcpLinux22Socket::ReTxTimeout()
{
    NS_LOG_FUNCTION(this);
    if (Synchronised() && m_txBuffer->Size() > 0 && (!Outstanding() || !m_timerSet))
    {
        // packets_out == 0: nothing to time out (tcp_timer.c:437-440)
        return;
    }
    if (!Synchronised() || !Outstanding())
    {
        // connection setup, or a FIN alone: ns-3's own handling
        TcpSocketBase::ReTxTimeout();
        return;
    }
    if (Simulator::Now() < GetClock().TickTime(m_expiry))
    {
        ArmTimer();
        return;
    }
    TellPeerWindow();
    const bool first = m_retransmits == 0;
    ++m_retransmits;

    // RFC 2018: forget every SACK (tcp_timer.c:441-452), fackets_out = 0 (:456)
    m_txBuffer->SetSentListLost(true);
    m_highSack = m_txBuffer->HeadSequence();
    UseFackScoreboard(true);
    if (first)
    {
        // tcp_timer.c:457-471, on the first timeout of a series only
        m_tcb->m_ssThresh = m_congestionControl->GetSsThresh(m_tcb, BytesInFlight());
        m_tcb->m_cWnd = m_tcb->m_segmentSize;
        m_tcb->m_cWndInfl = m_tcb->m_cWnd;
    }
    m_congestionControl->CwndEvent(m_tcb, TcpSocketState::CA_EVENT_LOSS);
    if (m_tcb->m_congState != TcpSocketState::CA_LOSS)
    {
        m_congestionControl->CongestionStateSet(m_tcb, TcpSocketState::CA_LOSS);
        m_tcb->m_congState = TcpSocketState::CA_LOSS;
    }
    m_recover = m_tcb->m_highTxMark;
    m_recoverActive = true;
    m_retransmitMark = m_tcb->m_highTxMark;
    m_dupAckCount = 0;
    m_dupAcks22 = 0;
    m_history.clear();

    // backoff and doubling, capped at 120 s (tcp_timer.c:498-499)
    ++m_backoff;
    m_rtoTicks = std::min<int64_t>(m_rtoTicks * 2, Linux22RttEstimator::RTO_MAX_TICKS);
    m_expiry = NowJiffies() + m_rtoTicks;
    m_timerSet = true;

    DoRetransmit(); // the head (tcp_timer.c:480)
    if (m_retransmits > m_dataRetries)
    {
        // tcp_write_timeout, tcp_timer.c:162, after the retransmission: the connection is
        // given up
        NS_LOG_INFO("retransmits " << m_retransmits << " > " << m_dataRetries << ": giving up");
        m_timerSet = false;
        m_retxEvent.Cancel();
        NotifyErrorClose();
        DeallocateEndPoint();
        return;
    }
    ArmTimer();
}

Ptr<Socket>
CreateTcpSocketOfType(Ptr<Node> node, TypeId socketType)
{
    if (socketType == TcpSocketBase::GetTypeId())
    {
        return Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
    }
    NS_ABORT_MSG_UNLESS(socketType.IsChildOf(TcpSocketBase::GetTypeId()),
                        socketType.GetName() << " is not a TcpSocketBase");
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    NS_ABORT_MSG_UNLESS(tcp, "the node has no TcpL4Protocol");
    TypeIdValue congestion;
    TypeIdValue recovery;
    TypeIdValue rtt;
    tcp->GetAttribute("SocketType", congestion);
    tcp->GetAttribute("RecoveryType", recovery);
    tcp->GetAttribute("RttEstimatorType", rtt);

    ObjectFactory factory(socketType.GetName());
    Ptr<TcpSocketBase> socket = factory.Create<TcpSocketBase>();
    factory.SetTypeId(congestion.Get());
    Ptr<TcpCongestionOps> cc = factory.Create<TcpCongestionOps>();
    factory.SetTypeId(recovery.Get());
    Ptr<TcpRecoveryOps> rec = factory.Create<TcpRecoveryOps>();
    factory.SetTypeId(rtt.Get());
    Ptr<RttEstimator> estimator = factory.Create<RttEstimator>();

    socket->SetNode(node);
    socket->SetTcp(tcp);
    socket->SetRtt(estimator);
    socket->SetCongestionControlAlgorithm(cc);
    socket->SetRecoveryAlgorithm(rec);
    tcp->AddSocket(socket);
    return socket;
}

} // namespace ns3
