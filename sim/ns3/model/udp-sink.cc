/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "udp-sink.h"

#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UdpSink");

NS_OBJECT_ENSURE_REGISTERED(UdpSink);

TypeId
UdpSink::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UdpSink")
                            .SetParent<Application>()
                            .SetGroupName("Applications")
                            .AddConstructor<UdpSink>()
                            .AddAttribute("Port",
                                          "Listening port",
                                          UintegerValue(1026),
                                          MakeUintegerAccessor(&UdpSink::m_port),
                                          MakeUintegerChecker<uint16_t>());
    return tid;
}

UdpSink::UdpSink()
    : m_port(0),
      m_received(0),
      m_bytes(0)
{
    NS_LOG_FUNCTION(this);
}

UdpSink::~UdpSink()
{
    NS_LOG_FUNCTION(this);
}

uint64_t
UdpSink::GetReceived() const
{
    return m_received;
}

uint64_t
UdpSink::GetBytes() const
{
    return m_bytes;
}

Time
UdpSink::GetElapsed() const
{
    return m_last - m_first;
}

void
UdpSink::StartApplication()
{
    NS_LOG_FUNCTION(this);
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
    m_socket->SetRecvCallback(MakeCallback(&UdpSink::Receive, this));
}

void
UdpSink::StopApplication()
{
    NS_LOG_FUNCTION(this);
    if (m_socket)
    {
        m_socket->Close();
    }
}

void
UdpSink::Receive(Ptr<Socket> socket)
{
    Ptr<Packet> packet;
    while ((packet = socket->Recv()))
    {
        if (m_received == 0)
        {
            m_first = Simulator::Now();
        }
        m_last = Simulator::Now();
        ++m_received;
        m_bytes += packet->GetSize();
    }
}

} // namespace ns3
