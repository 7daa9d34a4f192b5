/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Linux 6.1's cwnd reduction as an ns-3 TcpRecoveryOps; the header says what it does and where.
 */

#include "tcp-linux-recovery.h"

#include "ns3/log.h"
#include "ns3/tcp-socket-state.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpLinuxPrrRecovery");
NS_OBJECT_ENSURE_REGISTERED(TcpLinuxPrrRecovery);

TypeId
TcpLinuxPrrRecovery::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpLinuxPrrRecovery")
                            .SetParent<TcpRecoveryOps>()
                            .SetGroupName("Internet")
                            .AddConstructor<TcpLinuxPrrRecovery>();
    return tid;
}

TcpLinuxPrrRecovery::TcpLinuxPrrRecovery()
    : TcpRecoveryOps()
{
}

TcpLinuxPrrRecovery::TcpLinuxPrrRecovery(const TcpLinuxPrrRecovery& other)
    : TcpRecoveryOps(other),
      m_priorCwnd(other.m_priorCwnd),
      m_prrDelivered(other.m_prrDelivered),
      m_prrOutBytes(other.m_prrOutBytes)
{
}

TcpLinuxPrrRecovery::~TcpLinuxPrrRecovery() = default;

std::string
TcpLinuxPrrRecovery::GetName() const
{
    return "TcpLinuxPrrRecovery";
}

void
TcpLinuxPrrRecovery::SetFacts(const TcpLinuxAckFacts* facts)
{
    m_facts = facts;
}

uint32_t
TcpLinuxPrrRecovery::Reduce(uint32_t ssthresh,
                            uint32_t priorCwnd,
                            uint32_t inFlight,
                            uint32_t newlyAckedSacked,
                            uint32_t newlyLost,
                            bool sndUnaAdvanced,
                            uint32_t& prrDelivered,
                            uint32_t prrOut)
{
    // tcp_cwnd_reduction, net/ipv4/tcp_input.c:2683-2707
    if (newlyAckedSacked == 0 || priorCwnd == 0)
    {
        return 0;
    }
    const int64_t delta = int64_t{ssthresh} - inFlight;
    prrDelivered += newlyAckedSacked;
    int64_t sndcnt;
    if (delta < 0)
    {
        // proportional: ssthresh / prior_cwnd of what was delivered, rounded up
        const uint64_t dividend = uint64_t{ssthresh} * prrDelivered + priorCwnd - 1;
        sndcnt = static_cast<int64_t>(dividend / priorCwnd) - prrOut;
    }
    else
    {
        // slow start back up to ssthresh, one more when the ACK advanced snd_una cleanly
        sndcnt = std::max<int64_t>(int64_t{prrDelivered} - prrOut, newlyAckedSacked);
        if (sndUnaAdvanced && newlyLost == 0)
        {
            sndcnt++;
        }
        sndcnt = std::min(delta, sndcnt);
    }
    // force a fast retransmit upon entering fast recovery
    sndcnt = std::max<int64_t>(sndcnt, prrOut ? 0 : 1);
    return static_cast<uint32_t>(std::max<int64_t>(int64_t{inFlight} + sndcnt, 1));
}

void
TcpLinuxPrrRecovery::EnterRecovery(Ptr<TcpSocketState> tcb,
                                   uint32_t /* dupAckCount */,
                                   uint32_t /* unAckDataCount */,
                                   uint32_t deliveredBytes)
{
    NS_LOG_FUNCTION(this << tcb << deliveredBytes);
    InitReduction(std::max<uint32_t>(1, tcb->m_cWnd / tcb->m_segmentSize));
    CwndReduction(tcb, deliveredBytes);
}

void
TcpLinuxPrrRecovery::InitReduction(uint32_t priorCwnd)
{
    m_priorCwnd = priorCwnd;
    m_prrDelivered = 0;
    m_prrOutBytes = 0;
}

void
TcpLinuxPrrRecovery::DoRecovery(Ptr<TcpSocketState> tcb,
                                uint32_t deliveredBytes,
                                bool /* isDupAck */)
{
    NS_LOG_FUNCTION(this << tcb << deliveredBytes);
    if (m_facts != nullptr && m_facts->AckTakenInCwr())
    {
        return; // the socket reduces after Linux's checks (TcpLinuxAckFacts::AckTakenInCwr)
    }
    CwndReduction(tcb, deliveredBytes);
}

void
TcpLinuxPrrRecovery::CwndReduction(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes)
{
    const uint32_t mss = tcb->m_segmentSize;
    uint32_t delivered = deliveredBytes / mss;
    uint32_t lost = 0;
    bool advanced = false;
    uint32_t inFlight = (tcb->m_bytesInFlight + mss - 1) / mss;
    if (m_facts != nullptr)
    {
        m_facts->LastAckForRecovery(delivered, lost, advanced, inFlight);
    }
    const uint32_t ssthresh = std::max<uint32_t>(1, tcb->m_ssThresh / mss);
    const uint32_t prrOut = (m_prrOutBytes + mss - 1) / mss;
    const uint32_t cwnd =
        Reduce(ssthresh, m_priorCwnd, inFlight, delivered, lost, advanced, m_prrDelivered, prrOut);
    if (cwnd == 0)
    {
        return; // nothing delivered: the window stays
    }
    tcb->m_cWnd = cwnd * mss;
    tcb->m_cWndInfl = tcb->m_cWnd;
    NS_LOG_DEBUG("delivered " << delivered << " lost " << lost << " in flight " << inFlight
                              << " prr_delivered " << m_prrDelivered << " prr_out " << prrOut
                              << " -> cwnd " << cwnd);
}

void
TcpLinuxPrrRecovery::ExitRecovery(Ptr<TcpSocketState> tcb)
{
    // TcpSocketBase has set cwnd = ssthresh (tcp_end_cwnd_reduction)
    tcb->m_cWndInfl = tcb->m_cWnd;
}

void
TcpLinuxPrrRecovery::UpdateBytesSent(uint32_t bytesSent)
{
    m_prrOutBytes += bytesSent;
}

Ptr<TcpRecoveryOps>
TcpLinuxPrrRecovery::Fork()
{
    return CopyObject<TcpLinuxPrrRecovery>(this);
}

} // namespace ns3
