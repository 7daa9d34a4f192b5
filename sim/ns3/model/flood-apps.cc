/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "flood-apps.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FloodApps");

NS_OBJECT_ENSURE_REGISTERED(UdpFloodSender);

namespace
{
/// UDP header bytes.
constexpr uint32_t kUdpHeader = 8;
/// IPv4 header bytes (no options).
constexpr uint32_t kIpHeader = 20;
} // namespace

// ---------------------------------------------------------------------------------------------
// UdpFloodSender

TypeId
UdpFloodSender::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UdpFloodSender")
            .SetParent<Application>()
            .SetGroupName("Applications")
            .AddConstructor<UdpFloodSender>()
            .AddAttribute("Remote",
                          "The sink's address and port",
                          AddressValue(),
                          MakeAddressAccessor(&UdpFloodSender::m_remote),
                          MakeAddressChecker())
            .AddAttribute("Size",
                          "Payload bytes per datagram",
                          UintegerValue(1472),
                          MakeUintegerAccessor(&UdpFloodSender::m_size),
                          MakeUintegerChecker<uint32_t>(1, 65507))
            .AddAttribute("Duration",
                          "How long to send",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&UdpFloodSender::m_duration),
                          MakeTimeChecker(Time(1)))
            .AddAttribute("MaxInFlightFrames",
                          "Frames between the socket and the end of their transmission "
                          "before send() blocks",
                          UintegerValue(100),
                          MakeUintegerAccessor(&UdpFloodSender::m_maxInFlight),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("GeneratorTime",
                          "CPU time making one datagram takes (0: none)",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&UdpFloodSender::m_generatorTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Mtu",
                          "The sender's link IP MTU (fragments above it)",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&UdpFloodSender::m_mtu),
                          MakeUintegerChecker<uint32_t>(68));
    return tid;
}

UdpFloodSender::UdpFloodSender()
    : m_size(0),
      m_maxInFlight(0),
      m_mtu(0),
      m_frames(1),
      m_sent(0),
      m_inFlight(0),
      m_ready(false),
      m_generating(false),
      m_stopped(false)
{
    NS_LOG_FUNCTION(this);
}

UdpFloodSender::~UdpFloodSender()
{
    NS_LOG_FUNCTION(this);
}

uint32_t
UdpFloodSender::FramesPerDatagram(uint32_t payload, uint32_t mtu)
{
    const uint32_t ipPayload = payload + kUdpHeader;
    if (ipPayload + kIpHeader <= mtu)
    {
        return 1;
    }
    // Every fragment but the last carries a multiple of 8 bytes (RFC 791).
    const uint32_t perFragment = (mtu - kIpHeader) / 8 * 8;
    return (ipPayload + perFragment - 1) / perFragment;
}

void
UdpFloodSender::SetCpu(Ptr<RouterProcessor> cpu)
{
    m_cpu = cpu;
}

uint64_t
UdpFloodSender::GetSent() const
{
    return m_sent;
}

Time
UdpFloodSender::GetElapsed() const
{
    return m_last - m_first;
}

uint32_t
UdpFloodSender::GetFrames() const
{
    return m_frames;
}

void
UdpFloodSender::StartApplication()
{
    NS_LOG_FUNCTION(this);
    m_frames = FramesPerDatagram(m_size, m_mtu);
    NS_ABORT_MSG_IF(m_frames > m_maxInFlight,
                    "UdpFloodSender: a datagram of " << m_size << " B takes " << m_frames
                                                     << " frames, more than MaxInFlightFrames");
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    m_socket->Bind();
    m_socket->Connect(m_remote);
    m_start = Simulator::Now();
    m_end = m_start + m_duration;
    Generate();
}

void
UdpFloodSender::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_stopped = true;
    m_event.Cancel();
    if (m_socket)
    {
        m_socket->Close();
    }
}

void
UdpFloodSender::Generate()
{
    if (m_stopped || m_generating || m_ready)
    {
        return;
    }
    if (Simulator::Now() >= m_end)
    {
        m_stopped = true;
        return;
    }
    if (m_generatorTime.IsZero())
    {
        Generated();
        return;
    }
    m_generating = true;
    if (m_cpu)
    {
        m_cpu->RunHostWork(m_generatorTime, MakeCallback(&UdpFloodSender::Generated, this));
    }
    else
    {
        m_event = Simulator::Schedule(m_generatorTime, &UdpFloodSender::Generated, this);
    }
}

void
UdpFloodSender::Generated()
{
    m_generating = false;
    m_ready = true;
    TrySend();
}

void
UdpFloodSender::TrySend()
{
    if (!m_ready || m_inFlight + m_frames > m_maxInFlight)
    {
        return;
    }
    m_ready = false;
    if (m_stopped || Simulator::Now() >= m_end)
    {
        m_stopped = true;
        return;
    }
    m_socket->Send(Create<Packet>(m_size));
    if (m_sent == 0)
    {
        m_first = Simulator::Now();
    }
    ++m_sent;
    m_inFlight += m_frames;
    m_last = Simulator::Now();
    Generate();
}

void
UdpFloodSender::FrameSent(Ptr<const Packet> /* packet */)
{
    if (m_inFlight > 0)
    {
        --m_inFlight;
        TrySend();
    }
}

} // namespace ns3
