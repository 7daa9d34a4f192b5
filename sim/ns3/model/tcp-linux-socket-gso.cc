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
    const auto autosize = std::max(static_cast<uint32_t>(bytes / mss), MIN_TSO_SEGS);
    segments = std::min(segments, autosize);
    // tcp_mss_split_point: within the peer's window and the data there is to send
    const SequenceNumber32 windowEnd = m_txBuffer->HeadSequence() + m_rWnd.Get();
    const uint32_t inWindow = windowEnd > seq ? (windowEnd - seq) / mss : 0;
    const uint32_t data = (m_txBuffer->SizeFromSequence(seq) + mss - 1) / mss;
    segments = std::min({segments, std::max(inWindow, 1U), std::max(data, 1U)});
    return std::max(segments, 1U);
}

void
TcpLinuxSocket::GsoBeforeSend(SequenceNumber32 seq)
{
    m_pushNext = false;
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
