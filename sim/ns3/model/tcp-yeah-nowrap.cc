/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TcpYeah with its slow start threshold's unsigned wrap corrected; tcp-yeah-nowrap.h says why.
 */

#include "tcp-yeah-nowrap.h"

#include "ns3/log.h"
#include "ns3/tcp-socket-state.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpYeahNoWrap");
NS_OBJECT_ENSURE_REGISTERED(TcpYeahNoWrap);

TypeId
TcpYeahNoWrap::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpYeahNoWrap")
                            .SetParent<TcpYeah>()
                            .SetGroupName("Internet")
                            .AddConstructor<TcpYeahNoWrap>();
    return tid;
}

TcpYeahNoWrap::TcpYeahNoWrap()
    : TcpYeah()
{
    NS_LOG_FUNCTION(this);
}

TcpYeahNoWrap::TcpYeahNoWrap(const TcpYeahNoWrap& sock)
    : TcpYeah(sock)
{
    NS_LOG_FUNCTION(this);
}

std::string
TcpYeahNoWrap::GetName() const
{
    return "TcpYeahNoWrap";
}

uint32_t
TcpYeahNoWrap::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    NS_LOG_FUNCTION(this << tcb << bytesInFlight);
    const uint32_t floorBytes = 2 * tcb->m_segmentSize; // "at least 2 segment to go out"
    const uint32_t yeah = TcpYeah::GetSsThresh(tcb, bytesInFlight);
    if (yeah > std::max(bytesInFlight, floorBytes))
    {
        // Only a wrapped subtraction exceeds both (tcp-yeah-nowrap.h).
        NS_LOG_INFO("TcpYeah's threshold " << yeah << " wrapped with " << bytesInFlight
                                           << " bytes in flight; " << floorBytes << " instead");
        return floorBytes;
    }
    return yeah;
}

Ptr<TcpCongestionOps>
TcpYeahNoWrap::Fork()
{
    // TcpYeah::Fork would copy a TcpYeah, and the socket would lose the correction.
    return CopyObject<TcpYeahNoWrap>(this);
}

} // namespace ns3
