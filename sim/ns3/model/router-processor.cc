/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "router-processor.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RouterProcessor");

NS_OBJECT_ENSURE_REGISTERED(RouterProcessor);
NS_OBJECT_ENSURE_REGISTERED(ProcessingRouting);

// ---------------------------------------------------------------------------------------------
// RouterProcessor

TypeId
RouterProcessor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RouterProcessor")
            .SetParent<Object>()
            .SetGroupName("Internet")
            .AddConstructor<RouterProcessor>()
            .AddAttribute("PerPacketTime",
                          "CPU time forwarding takes per packet, whatever its size",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RouterProcessor::m_perPacket),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PerByteNs",
                          "CPU time forwarding takes per byte of a packet's IP length, in ns "
                          "(a fraction of a nanosecond is kept: Time's resolution is 1 ns)",
                          DoubleValue(0),
                          MakeDoubleAccessor(&RouterProcessor::m_perByteNs),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("QueuePackets",
                          "Packets that may wait for the CPU (Linux: netdev_max_backlog)",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&RouterProcessor::m_queueLimit),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("Drop",
                            "A packet found the input queue full; the argument is its IP length",
                            MakeTraceSourceAccessor(&RouterProcessor::m_dropTrace),
                            "ns3::TracedValueCallback::Uint32");
    return tid;
}

RouterProcessor::RouterProcessor()
    : m_perByteNs(0),
      m_queueLimit(0),
      m_busy(false),
      m_servingPacket(false),
      m_hostPending(false),
      m_arrivals(0),
      m_drops(0),
      m_served(0),
      m_maxWaiting(0)
{
    NS_LOG_FUNCTION(this);
}

RouterProcessor::~RouterProcessor()
{
    NS_LOG_FUNCTION(this);
}

void
RouterProcessor::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_event.Cancel();
    m_queue.clear();
    m_current = Done();
    m_hostDone = Done();
    Object::DoDispose();
}

Time
RouterProcessor::GetServiceTime(uint32_t bytes) const
{
    return m_perPacket + NanoSeconds(static_cast<int64_t>(std::llround(m_perByteNs * bytes)));
}

bool
RouterProcessor::Submit(uint32_t bytes, Done done)
{
    NS_LOG_FUNCTION(this << bytes);
    ++m_arrivals;
    if (m_queue.size() >= m_queueLimit && m_busy)
    {
        ++m_drops;
        m_dropTrace(bytes);
        return false;
    }
    m_queue.push_back({bytes, done});
    if (m_busy)
    {
        m_maxWaiting = std::max(m_maxWaiting, static_cast<uint32_t>(m_queue.size()));
    }
    StartNext();
    return true;
}

void
RouterProcessor::RunHostWork(Time duration, Done done)
{
    NS_LOG_FUNCTION(this << duration);
    NS_ABORT_MSG_IF(m_hostPending || (m_busy && !m_servingPacket),
                    "RouterProcessor: host work asked for while other host work is not done");
    m_hostPending = true;
    m_hostDuration = duration;
    m_hostDone = done;
    StartNext();
}

void
RouterProcessor::StartNext()
{
    if (m_busy)
    {
        return;
    }
    Time duration;
    if (!m_queue.empty())
    {
        Waiting next = m_queue.front();
        m_queue.pop_front();
        duration = GetServiceTime(next.bytes);
        m_current = next.done;
        m_servingPacket = true;
        m_forwardingTime += duration;
    }
    else if (m_hostPending)
    {
        m_hostPending = false;
        duration = m_hostDuration;
        m_current = m_hostDone;
        m_hostDone = Done();
        m_servingPacket = false;
        m_hostTime += duration;
    }
    else
    {
        return;
    }
    m_busy = true;
    m_event = Simulator::Schedule(duration, &RouterProcessor::EndService, this);
}

void
RouterProcessor::EndService()
{
    NS_LOG_FUNCTION(this);
    m_busy = false;
    if (m_servingPacket)
    {
        ++m_served;
    }
    Done done = m_current;
    m_current = Done();
    // The next piece of work starts before this one's consequences run, as a CPU goes on.
    StartNext();
    if (!done.IsNull())
    {
        done();
    }
}

uint64_t
RouterProcessor::GetArrivals() const
{
    return m_arrivals;
}

uint64_t
RouterProcessor::GetDrops() const
{
    return m_drops;
}

uint64_t
RouterProcessor::GetServed() const
{
    return m_served;
}

uint32_t
RouterProcessor::GetMaxWaiting() const
{
    return m_maxWaiting;
}

Time
RouterProcessor::GetForwardingTime() const
{
    return m_forwardingTime;
}

Time
RouterProcessor::GetHostTime() const
{
    return m_hostTime;
}

// ---------------------------------------------------------------------------------------------
// ProcessingRouting

TypeId
ProcessingRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ProcessingRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .SetGroupName("Internet")
                            .AddConstructor<ProcessingRouting>();
    return tid;
}

ProcessingRouting::ProcessingRouting()
{
    NS_LOG_FUNCTION(this);
}

ProcessingRouting::~ProcessingRouting()
{
    NS_LOG_FUNCTION(this);
}

Ptr<ProcessingRouting>
ProcessingRouting::Install(Ptr<Node> node, Ptr<RouterProcessor> processor)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    NS_ABORT_MSG_UNLESS(ipv4, "ProcessingRouting::Install: the node has no IPv4 stack");
    Ptr<Ipv4RoutingProtocol> inner = ipv4->GetRoutingProtocol();
    NS_ABORT_MSG_UNLESS(inner, "ProcessingRouting::Install: the node has no routing yet");
    auto routing = CreateObject<ProcessingRouting>();
    routing->m_inner = inner;
    routing->m_processor = processor;
    ipv4->SetRoutingProtocol(routing);
    return routing;
}

void
ProcessingRouting::DoDispose()
{
    if (m_inner)
    {
        m_inner->Dispose();
    }
    m_inner = nullptr;
    m_processor = nullptr;
    Ipv4RoutingProtocol::DoDispose();
}

Ptr<Ipv4Route>
ProcessingRouting::RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr)
{
    return m_inner->RouteOutput(p, header, oif, sockerr);
}

bool
ProcessingRouting::RouteInput(Ptr<const Packet> p,
                              const Ipv4Header& header,
                              Ptr<const NetDevice> idev,
                              const UnicastForwardCallback& ucb,
                              const MulticastForwardCallback& mcb,
                              const LocalDeliverCallback& lcb,
                              const ErrorCallback& ecb)
{
    Ptr<RouterProcessor> processor = m_processor;
    UnicastForwardCallback viaProcessor(
        [processor, ucb](Ptr<Ipv4Route> route, Ptr<const Packet> packet, const Ipv4Header& h) {
            const uint32_t bytes = packet->GetSize() + h.GetSerializedSize();
            processor->Submit(bytes, RouterProcessor::Done([ucb, route, packet, h]() {
                                  ucb(route, packet, h);
                              }));
        });
    return m_inner->RouteInput(p, header, idev, viaProcessor, mcb, lcb, ecb);
}

void
ProcessingRouting::NotifyInterfaceUp(uint32_t interface)
{
    m_inner->NotifyInterfaceUp(interface);
}

void
ProcessingRouting::NotifyInterfaceDown(uint32_t interface)
{
    m_inner->NotifyInterfaceDown(interface);
}

void
ProcessingRouting::NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
    m_inner->NotifyAddAddress(interface, address);
}

void
ProcessingRouting::NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
    m_inner->NotifyRemoveAddress(interface, address);
}

void
ProcessingRouting::SetIpv4(Ptr<Ipv4> /* ipv4 */)
{
    // The wrapped protocol has had its Ipv4 since the stack was installed (and an
    // Ipv4ListRouting refuses a second one): nothing to pass on.
}

void
ProcessingRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const
{
    m_inner->PrintRoutingTable(stream, unit);
}

} // namespace ns3
