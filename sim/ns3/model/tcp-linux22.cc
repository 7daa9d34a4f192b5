/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Linux 2.2.16's window and loss recovery; tcp-linux22.h states each rule with its source.
 */

#include "tcp-linux22.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/tcp-socket-state.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpLinux22");
NS_OBJECT_ENSURE_REGISTERED(TcpLinux22);
NS_OBJECT_ENSURE_REGISTERED(TcpLinux22Recovery);

// ---------------------------------------------------------------------------------------------
// Linux22Clock

Linux22Clock::Linux22Clock(Time phase)
    : m_phaseNs(((phase.GetNanoSeconds() % TICK_NS) + TICK_NS) % TICK_NS)
{
}

int64_t
Linux22Clock::Jiffies(Time t) const
{
    int64_t ns = t.GetNanoSeconds() + m_phaseNs;
    // floor division for the (unused in practice) negative times too
    return ns >= 0 ? ns / TICK_NS : -((-ns + TICK_NS - 1) / TICK_NS);
}

Time
Linux22Clock::TickTime(int64_t jiffy) const
{
    return NanoSeconds(jiffy * TICK_NS - m_phaseNs);
}

Time
Linux22Clock::GetPhase() const
{
    return NanoSeconds(m_phaseNs);
}

// ---------------------------------------------------------------------------------------------
// Linux22RttEstimator

void
Linux22RttEstimator::Sample(int64_t ticks)
{
    int64_t m = ticks <= 0 ? 1 : ticks;
    if (m_srtt != 0)
    {
        m -= m_srtt >> 3;
        m_srtt += m;
        if (m < 0)
        {
            m = -m;
        }
        m -= m_mdev >> 2;
        m_mdev += m;
    }
    else
    {
        m_srtt = m << 3;
        m_mdev = m << 2;
    }
}

int64_t
Linux22RttEstimator::RawRto(uint32_t cwndSegments) const
{
    int64_t rto = (m_srtt >> 3) + m_mdev;
    uint32_t shift = std::max<uint32_t>(cwndSegments, 1) - 1;
    rto += (rto >> 2) + (shift < 63 ? (rto >> shift) : 0);
    return rto;
}

int64_t
Linux22RttEstimator::Bound(int64_t rto)
{
    return std::clamp(rto, RTO_MIN_TICKS, RTO_MAX_TICKS);
}

bool
Linux22RttEstimator::HasSample() const
{
    return m_srtt != 0;
}

// ---------------------------------------------------------------------------------------------
// TcpLinux22

TypeId
TcpLinux22::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpLinux22")
                            .SetParent<TcpCongestionOps>()
                            .SetGroupName("Internet")
                            .AddConstructor<TcpLinux22>();
    return tid;
}

TcpLinux22::TcpLinux22()
    : TcpCongestionOps()
{
}

TcpLinux22::TcpLinux22(const TcpLinux22& other)
    : TcpCongestionOps(other),
      m_cwndCnt(other.m_cwndCnt),
      m_peerWindow(other.m_peerWindow)
{
}

TcpLinux22::~TcpLinux22() = default;

std::string
TcpLinux22::GetName() const
{
    return "TcpLinux22";
}

void
TcpLinux22::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked);
    if (segmentsAcked == 0)
    {
        return;
    }
    uint32_t cwnd = tcb->m_cWnd / tcb->m_segmentSize;
    uint32_t ssthresh = tcb->m_ssThresh / tcb->m_segmentSize;
    if (cwnd <= ssthresh)
    {
        tcb->m_cWnd = (cwnd + 1) * tcb->m_segmentSize;
    }
    else if (m_cwndCnt >= cwnd)
    {
        tcb->m_cWnd = (cwnd + 1) * tcb->m_segmentSize;
        m_cwndCnt = 0;
    }
    else
    {
        ++m_cwndCnt;
    }
}

uint32_t
TcpLinux22::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t /* bytesInFlight */)
{
    uint32_t wndPackets = m_peerWindow / std::max<uint32_t>(tcb->m_segmentSize, 1);
    uint32_t cwnd = tcb->m_cWnd / tcb->m_segmentSize;
    return std::max<uint32_t>(std::min(wndPackets, cwnd) >> 1, 2) * tcb->m_segmentSize;
}

void
TcpLinux22::CwndEvent(Ptr<TcpSocketState> /* tcb */, const TcpSocketState::TcpCAEvent_t event)
{
    if (event == TcpSocketState::CA_EVENT_LOSS)
    {
        m_cwndCnt = 0;
    }
}

void
TcpLinux22::SetPeerWindow(uint32_t bytes)
{
    m_peerWindow = bytes;
}

Ptr<TcpCongestionOps>
TcpLinux22::Fork()
{
    return CopyObject<TcpLinux22>(this);
}

// ---------------------------------------------------------------------------------------------
// TcpLinux22Recovery

TypeId
TcpLinux22Recovery::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpLinux22Recovery")
            .SetParent<TcpRecoveryOps>()
            .SetGroupName("Internet")
            .AddConstructor<TcpLinux22Recovery>()
            .AddAttribute("Sack",
                          "Whether SACK information is used (2.2's FACK mode: no inflation); "
                          "false gives Reno's inflation by one segment per duplicate ACK",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpLinux22Recovery::m_sack),
                          MakeBooleanChecker());
    return tid;
}

TcpLinux22Recovery::TcpLinux22Recovery()
    : TcpRecoveryOps()
{
}

TcpLinux22Recovery::TcpLinux22Recovery(const TcpLinux22Recovery& other)
    : TcpRecoveryOps(other),
      m_dupAcks(other.m_dupAcks),
      m_cwndCnt(other.m_cwndCnt),
      m_cwnd(other.m_cwnd),
      m_sack(other.m_sack)
{
}

TcpLinux22Recovery::~TcpLinux22Recovery() = default;

std::string
TcpLinux22Recovery::GetName() const
{
    return "TcpLinux22Recovery";
}

void
TcpLinux22Recovery::EnterRecovery(Ptr<TcpSocketState> tcb,
                                  uint32_t dupAckCount,
                                  uint32_t /* unAckDataCount */,
                                  uint32_t /* deliveredBytes */)
{
    NS_LOG_FUNCTION(this << tcb << dupAckCount);
    m_dupAcks = dupAckCount;
    m_cwndCnt = 0;
    tcb->m_cWnd = tcb->m_ssThresh + 3 * tcb->m_segmentSize;
    tcb->m_cWndInfl = tcb->m_cWnd;
    m_cwnd = tcb->m_cWnd;
}

void
TcpLinux22Recovery::DoRecovery(Ptr<TcpSocketState> tcb,
                               uint32_t /* deliveredBytes */,
                               bool isDupAck)
{
    NS_LOG_FUNCTION(this << tcb << isDupAck);
    if (isDupAck)
    {
        ++m_dupAcks;
        if (!m_sack && m_dupAcks > 3)
        {
            tcb->m_cWnd += tcb->m_segmentSize;
        }
    }
    else
    {
        uint32_t cwnd = tcb->m_cWnd / tcb->m_segmentSize;
        if (cwnd <= tcb->m_ssThresh / tcb->m_segmentSize)
        {
            tcb->m_cWnd = (cwnd + 1) * tcb->m_segmentSize;
        }
        else if (m_cwndCnt >= cwnd)
        {
            tcb->m_cWnd = (cwnd + 1) * tcb->m_segmentSize;
            m_cwndCnt = 0;
        }
        else
        {
            ++m_cwndCnt;
        }
    }
    tcb->m_cWndInfl = tcb->m_cWnd;
    m_cwnd = tcb->m_cWnd;
}

void
TcpLinux22Recovery::ExitRecovery(Ptr<TcpSocketState> tcb)
{
    NS_LOG_FUNCTION(this << tcb);
    if (m_dupAcks <= 3)
    {
        tcb->m_cWnd = m_cwnd;
    }
    else
    {
        tcb->m_cWnd = tcb->m_ssThresh.Get();
    }
    tcb->m_cWndInfl = tcb->m_cWnd;
    m_dupAcks = 0;
}

void
TcpLinux22Recovery::SetDupAcks(uint32_t dupAcks)
{
    m_dupAcks = dupAcks;
}

uint32_t
TcpLinux22Recovery::GetDupAcks() const
{
    return m_dupAcks;
}

Ptr<TcpRecoveryOps>
TcpLinux22Recovery::Fork()
{
    return CopyObject<TcpLinux22Recovery>(this);
}

} // namespace ns3
