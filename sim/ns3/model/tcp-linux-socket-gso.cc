/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TcpLinuxSocket's GSO packets: the new data one send emits cut as Linux's tcp_write_xmit cuts
 * it, and PSH on the last segment of each packet of two or more (__tcp_transmit_skb,
 * net/ipv4/tcp_output.c:1287-1296), which Linux's receiver acknowledges once it is read. The
 * class comment of tcp-linux-socket.h says what is modelled and what is not.
 */

#include "tcp-linux-socket.h"

#include "ns3/simulator.h"
#include "ns3/tcp-tx-buffer.h"

#include <algorithm>

namespace ns3
{

namespace
{

/// sk_pacing_shift: a packet of at most 1/1024 s of the pacing rate (tcp_tso_autosize)
constexpr uint32_t PACING_SHIFT = 10;
/// sysctl_tcp_tso_rtt_log = 9 (net/ipv4/tcp_ipv4.c): the 64 KiB bonus halves per 512 µs of
/// min_rtt
constexpr uint32_t TSO_RTT_LOG = 9;
/// sk_gso_max_size of a veth (GSO_LEGACY_MAX_SIZE, include/linux/netdevice.h), bytes
constexpr uint64_t GSO_MAX_SIZE_B = 65536;
/// sysctl_tcp_min_tso_segs = 2 (net/ipv4/tcp_ipv4.c)
constexpr uint32_t MIN_TSO_SEGS = 2;
/// sysctl_tcp_tso_win_divisor = 3 (net/ipv4/tcp_ipv4.c:3351)
constexpr uint64_t TSO_WIN_DIVISOR = 3;
constexpr int64_t NS_PER_MS = 1000000;

} // namespace

uint32_t
TcpLinuxSocket::GsoSegments(SequenceNumber32 seq) const
{
    const uint32_t mss = m_tcb->m_segmentSize;
    // tcp_cwnd_test: at most half the window, so that two packets are in flight, and no more
    // than it leaves (ns-3's pipe for tcp_packets_in_flight)
    const uint32_t cwnd = m_tcb->m_cWnd.Get() / mss;
    const uint32_t inFlight = BytesInFlight() / mss;
    uint32_t segments = 1;
    if (cwnd > inFlight)
    {
        segments = std::min(std::max(cwnd >> 1, 1U), cwnd - inFlight);
    }
    segments = std::min(segments, TsoAutosizeSegments());
    // tcp_mss_split_point: within the peer's window and the data there is to send
    const SequenceNumber32 windowEnd = m_txBuffer->HeadSequence() + m_rWnd.Get();
    const uint32_t inWindow = windowEnd > seq ? (windowEnd - seq) / mss : 0;
    const uint32_t data = (m_txBuffer->SizeFromSequence(seq) + mss - 1) / mss;
    segments = std::min({segments, std::max(inWindow, 1U), std::max(data, 1U)});
    return std::max(segments, 1U);
}

uint32_t
TcpLinuxSocket::TsoAutosizeSegments() const
{
    // tcp_tso_autosize; before any RTT sample Linux's min_rtt is ~0U, so no bonus
    uint64_t bytes = PacingRateBps() >> PACING_SHIFT;
    if (m_minRttUs != 0)
    {
        const uint32_t shift = m_minRttUs >> TSO_RTT_LOG;
        if (shift < 32)
        {
            bytes += GSO_MAX_SIZE_B >> shift;
        }
    }
    bytes = std::min(bytes, GSO_MAX_SIZE_B);
    // tcp_tso_segs: the module's min_tso_segs if it has one (bbr's: 1 below 1.2 Mb/s, else 2;
    // tcp_bbr.c:298-301), else the sysctl (tcp_output.c:2003-2005)
    uint32_t minTsoSegs = MIN_TSO_SEGS;
    if (auto cc = DynamicCast<TcpLinuxCongestion>(m_congestionControl))
    {
        const uint32_t own = cc->MinTsoSegs(m_tcb);
        minTsoSegs = own != 0 ? own : minTsoSegs;
    }
    return std::max(static_cast<uint32_t>(bytes / m_tcb->m_segmentSize), minTsoSegs);
}

bool
TcpLinuxSocket::TsoDefers() const
{
    // tcp_tso_should_defer, tcp_output.c:2183-2293 (class comment)
    if (!m_gsoPush || m_tcb->m_congState >= TcpSocketState::CA_RECOVERY || m_lastSendNs < 0)
    {
        return false;
    }
    const int64_t now = Simulator::Now().GetNanoSeconds();
    if (m_gsoLeft > 0 && now == m_gsoAtNs)
    {
        return false; // the rest of a packet already decided (TcpSocketBase sends segments)
    }
    if (now - m_lastSendNs > NS_PER_MS)
    {
        return false; // the last send was more than 1 ms ago: no burst to avoid
    }
    const uint64_t mss = m_tcb->m_segmentSize;
    const uint64_t cwnd = m_tcb->m_cWnd.Get() / mss;
    const uint64_t inFlight = BytesInFlight() / mss;
    if (cwnd <= inFlight)
    {
        return false; // tcp_cwnd_test stops it first
    }
    const SequenceNumber32 next = m_tcb->m_nextTxSequence;
    const SequenceNumber32 windowEnd = m_txBuffer->HeadSequence() + m_rWnd.Get();
    const uint64_t sendWin = windowEnd > next ? windowEnd - next : 0;
    const uint64_t congWin = (cwnd - inFlight) * mss;
    const uint64_t limit = std::min(sendWin, congWin);
    if (limit >= TsoAutosizeSegments() * mss)
    {
        return false; // a full packet fits
    }
    // the head skb of the write queue: tcp_sendmsg fills skbs to the size goal, 64 KiB
    const uint64_t data = m_txBuffer->SizeFromSequence(next);
    const uint64_t skbLen = std::min(GSO_MAX_SIZE_B / mss * mss, data);
    const bool tail = data <= GSO_MAX_SIZE_B / mss * mss;
    if (!tail && limit >= skbLen)
    {
        return false;
    }
    // tcp_tso_win_divisor = 3: a third of the window is worth sending
    const uint64_t chunk = std::min<uint64_t>(m_rWnd.Get(), cwnd * mss) / TSO_WIN_DIVISOR;
    if (limit >= chunk || m_segments.empty())
    {
        return false;
    }
    // when is the oldest segment's ACK due (its send plus srtt)?
    const int64_t srttNs = static_cast<int64_t>(m_linuxRtt->GetSrttUsX8()) * 1000 / 8;
    const int64_t expectedAckNs =
        static_cast<int64_t>(m_segments.begin()->second.sentUs) * 1000 + srttNs;
    if (expectedAckNs - now > std::min<int64_t>(srttNs / 2, NS_PER_MS))
    {
        return false; // too late to wait for
    }
    // the last data of a write that will get no more (FIN) goes now
    if (tail && data <= limit && m_closeOnEmpty)
    {
        return false;
    }
    m_deferCwndLimited = congWin < sendWin && congWin <= skbLen;
    ++m_tsoDeferrals;
    if (m_deferCwndLimited)
    {
        const_cast<TcpLinuxSocket*>(this)->ValidateCwnd();
    }
    return true;
}

uint32_t
TcpLinuxSocket::GetTsoDeferrals() const
{
    return m_tsoDeferrals;
}

void
TcpLinuxSocket::GsoBeforeSend(SequenceNumber32 seq)
{
    m_pushNext = false;
    m_packetStarts = true; // a packet of one segment, unless a GSO packet goes on
    if (!m_gsoPush)
    {
        return;
    }
    if (!m_gsoFollowing)
    {
        TraceConnectWithoutContext("Tx", MakeCallback(&TcpLinuxSocket::GsoMarkPush, this));
        m_gsoFollowing = true;
    }
    const bool newData = m_segments.find(seq.GetValue()) == m_segments.end();
    if (!newData || m_inProbe)
    {
        // a retransmission or a probe goes out as a packet of its own (one segment here)
        m_gsoLeft = 0;
        return;
    }
    // a new packet when the last one is complete, or at a later instant (another
    // tcp_write_xmit: whatever of the last one was not sent went with its own end)
    const int64_t now = Simulator::Now().GetNanoSeconds();
    if (m_gsoLeft == 0 || now != m_gsoAtNs)
    {
        m_gsoSize = GsoSegments(seq);
        m_gsoLeft = m_gsoSize;
        m_gsoAtNs = now;
    }
    else
    {
        m_packetStarts = false;
    }
    m_pushNext = m_gsoSize > 1 && m_gsoLeft == 1;
    --m_gsoLeft;
}

void
TcpLinuxSocket::GsoMarkPush(Ptr<const Packet> packet,
                            const TcpHeader& header,
                            Ptr<const TcpSocketBase> /* socket */)
{
    if (!m_pushNext || packet->GetSize() == 0)
    {
        return;
    }
    // TcpSocketBase::SendDataPacket fires its Tx trace with the header it then hands to
    // TcpL4Protocol::SendPacket, which writes it into the packet: the header is the sender's
    // own local variable, so setting the flag here puts it on the wire (a TestSuite checks the
    // receiver sees it: emusim-tcp-linux-gso)
    auto& outgoing = const_cast<TcpHeader&>(header);
    outgoing.SetFlags(outgoing.GetFlags() | TcpHeader::PSH);
    ++m_pushedSegments;
}

uint32_t
TcpLinuxSocket::GetPushedSegments() const
{
    return m_pushedSegments;
}

} // namespace ns3
