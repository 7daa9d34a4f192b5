/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TcpLinuxSocket's TCP small queues as Linux 6.1 has them (tcp_small_queue_check, tcp_wfree,
 * tcp_tsq_handler in net/ipv4/tcp_output.c; tcp_update_pacing_rate in tcp_input.c);
 * tcp-linux-socket.h states each rule with its source.
 */

#include "tcp-linux-socket.h"

#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/tag.h"
#include "ns3/traffic-control-layer.h"

#include <algorithm>

namespace ns3
{

namespace
{

/**
 * Marks a segment charged to a socket, so that its host knows it when it leaves: packet uids
 * do not do, since the segments of one application write share theirs, and a retransmission
 * its original's.
 */
class TsqTag : public Tag
{
  public:
    /// the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::emusim::TsqTag").SetParent<Tag>().AddConstructor<TsqTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return sizeof(id);
    }

    void Serialize(TagBuffer buffer) const override
    {
        buffer.WriteU64(id);
    }

    void Deserialize(TagBuffer buffer) override
    {
        id = buffer.ReadU64();
    }

    void Print(std::ostream& os) const override
    {
        os << "tsq=" << id;
    }

    uint64_t id{0}; //!< the charge's number, unique in the simulation
};

/// the next charge's number (0: none)
uint64_t g_nextTsqId = 1;

} // namespace

uint32_t
TcpLinuxSocket::SkbTruesize(uint32_t payloadBytes)
{
    return SKB_HEAD_TRUESIZE_B + payloadBytes;
}

uint64_t
TcpLinuxSocket::PacingRateBps() const
{
    const uint64_t mss = m_tcb->m_segmentSize;
    uint64_t rateBps; // sk_pacing_rate, bytes per second
    if (Paces())
    {
        // the socket paces (SK_PACING_NEEDED in Linux): its own rate, the module's or ns-3's
        rateBps = m_tcb->m_pacingRate.Get().GetBitRate() / 8;
    }
    else
    {
        // tcp_update_pacing_rate: mss x (USEC_PER_SEC / 100 << 3) x ratio x max(cwnd,
        // packets_out) / srtt_us, srtt_us being srtt x 8
        const uint64_t cwnd = m_tcb->m_cWnd.Get() / mss;
        const uint64_t ssthresh = m_tcb->m_ssThresh.Get() / mss;
        const uint64_t ratioPct = cwnd < ssthresh / 2 ? 200 : 120; // tcp_pacing_ss/ca_ratio
        const uint64_t packetsOut = m_segments.size();
        rateBps = mss * ((1000000 / 100) << 3) * ratioPct * std::max(cwnd, packetsOut);
        const uint32_t srttUsX8 = m_linuxRtt->GetSrttUsX8();
        if (srttUsX8 != 0)
        {
            rateBps /= srttUsX8;
        }
    }
    return rateBps;
}

uint64_t
TcpLinuxSocket::GetTsqLimitBytes() const
{
    const bool paces = Paces(); // then no cap
    const uint64_t rateBps = PacingRateBps();
    // 2 x the truesize of the skb about to be sent (tcp_write_xmit checks after tso_fragment):
    // the next GSO packet's segments as one skb, or a whole segment
    const uint32_t segments = m_gsoPush ? GsoSegments(m_tcb->m_nextTxSequence) : 1;
    uint64_t limit =
        std::max<uint64_t>(2 * SkbTruesize(segments * m_tcb->m_segmentSize), rateBps >> 10);
    if (!paces)
    {
        limit = std::min(limit, TSQ_LIMIT_OUTPUT_B);
    }
    return limit;
}

uint64_t
TcpLinuxSocket::GetTsqChargedBytes() const
{
    return m_tsqChargedBytes;
}

uint32_t
TcpLinuxSocket::GetTsqThrottles() const
{
    return m_tsqThrottles;
}

bool
TcpLinuxSocket::TsqHeld() const
{
    // tcp_small_queue_check (tcp_output.c:2528-2571): sk_wmem_alloc holds the socket's own 1
    // besides the packets' truesize; always send with at most one skb unacknowledged
    if (!m_smallQueues || m_segments.size() <= 1)
    {
        return false;
    }
    if (m_gsoLeft > 0 && Simulator::Now().GetNanoSeconds() == m_gsoAtNs)
    {
        return false; // the rest of a GSO packet that went out now: one skb, checked once
    }
    if (m_tsqChargedBytes + 1 <= GetTsqLimitBytes())
    {
        return false;
    }
    if (!m_tsqHeld)
    {
        ++m_tsqThrottles;
    }
    m_tsqHeld = true;
    return true;
}

uint32_t
TcpLinuxSocket::AvailableWindow() const
{
    const uint32_t window = TcpSocketBase::AvailableWindow();
    if (m_rtoSending && BytesInFlight() > 0)
    {
        // tcp_retransmit_timer sends the head alone (tcp_timer.c:574); the rest waits for an ACK
        // even where its retransmission restored cwnd (tcp_event_data_sent's CA_EVENT_TX_START,
        // tcp_output.c:167-168, on which bbr leaving PROBE_RTT sets its prior cwnd)
        return 0;
    }
    // tcp_write_xmit's order: the pacing clock, then the TSO deferral and TCP small queues
    return window > 0 && (PacingHolds() || TsqHeld() || TsoDefers()) ? 0 : window;
}

void
TcpLinuxSocket::TsqFollowHost()
{
    if (!m_smallQueues || m_tsqFollowing || !m_node)
    {
        return;
    }
    m_tsqFollowing = true;
    TraceConnectWithoutContext("Tx", MakeCallback(&TcpLinuxSocket::TsqCharge, this));
    auto tc = m_node->GetObject<TrafficControlLayer>();
    for (uint32_t i = 0; i < m_node->GetNDevices(); ++i)
    {
        Ptr<NetDevice> device = m_node->GetDevice(i);
        // a packet leaves the host when its transmission starts (the emulation's HTB releases
        // it then), or is dropped by the device's own queue
        bool followed = device->TraceConnectWithoutContext(
            "PhyTxBegin",
            MakeCallback(&TcpLinuxSocket::TsqRelease, this));
        followed |= device->TraceConnectWithoutContext(
            "MacTxDrop",
            MakeCallback(&TcpLinuxSocket::TsqRelease, this));
        if (followed)
        {
            m_tsqSources.emplace_back(device);
        }
        Ptr<QueueDisc> qdisc = tc ? tc->GetRootQueueDiscOnDevice(device) : nullptr;
        if (qdisc && qdisc->TraceConnectWithoutContext(
                         "Drop",
                         MakeCallback(&TcpLinuxSocket::TsqQueueDiscDrop, this)))
        {
            m_tsqSources.emplace_back(qdisc);
        }
    }
}

void
TcpLinuxSocket::TsqUnfollowHost()
{
    if (!m_tsqFollowing)
    {
        return;
    }
    TraceDisconnectWithoutContext("Tx", MakeCallback(&TcpLinuxSocket::TsqCharge, this));
    for (const auto& source : m_tsqSources)
    {
        source->TraceDisconnectWithoutContext("PhyTxBegin",
                                              MakeCallback(&TcpLinuxSocket::TsqRelease, this));
        source->TraceDisconnectWithoutContext("MacTxDrop",
                                              MakeCallback(&TcpLinuxSocket::TsqRelease, this));
        source->TraceDisconnectWithoutContext(
            "Drop",
            MakeCallback(&TcpLinuxSocket::TsqQueueDiscDrop, this));
    }
    m_tsqSources.clear();
    m_tsqFollowing = false;
    m_tsqEvent.Cancel();
}

void
TcpLinuxSocket::TsqCharge(Ptr<const Packet> packet,
                          const TcpHeader& /* header */,
                          Ptr<const TcpSocketBase> /* socket */)
{
    const uint32_t payload = packet->GetSize();
    if (payload == 0)
    {
        return; // a pure ACK (not charged here, class comment)
    }
    // a packet tag stays through the copies and headers of IP and the device
    TsqTag tag;
    tag.id = g_nextTsqId++;
    packet->AddPacketTag(tag);
    // a GSO packet is one skb: its first segment brings the head, the others their payload
    const uint32_t truesize = m_packetStarts ? SkbTruesize(payload) : payload;
    m_tsqCharged.emplace(tag.id, truesize);
    m_tsqChargedBytes += truesize;
}

void
TcpLinuxSocket::TsqRelease(Ptr<const Packet> packet)
{
    TsqTag tag;
    if (!packet->PeekPacketTag(tag))
    {
        return; // not a charged segment
    }
    auto it = m_tsqCharged.find(tag.id);
    if (it == m_tsqCharged.end())
    {
        return; // another socket's
    }
    m_tsqChargedBytes -= it->second;
    m_tsqCharged.erase(it);
    // tcp_wfree: a socket held back is queued for the tasklet, once
    if (m_tsqHeld && !m_tsqEvent.IsPending())
    {
        m_tsqHeld = false;
        m_tsqEvent = Simulator::ScheduleNow(&TcpLinuxSocket::TsqWrite, this);
    }
}

void
TcpLinuxSocket::TsqQueueDiscDrop(Ptr<const QueueDiscItem> item)
{
    TsqRelease(item->GetPacket());
}

void
TcpLinuxSocket::TsqWrite()
{
    // tcp_tsq_write: in a state that sends data, what the window allows (SendPendingData
    // takes lost segments first, as tcp_xmit_retransmit_queue does)
    if (m_endPoint == nullptr ||
        (m_state != ESTABLISHED && m_state != FIN_WAIT_1 && m_state != CLOSING &&
         m_state != CLOSE_WAIT && m_state != LAST_ACK))
    {
        return;
    }
    SendPendingData(m_connected);
}

} // namespace ns3
