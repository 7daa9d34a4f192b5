/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "dropper-queue-disc.h"

#include "dropper-decision.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DropperQueueDisc");

NS_OBJECT_ENSURE_REGISTERED(DropperQueueDisc);

TypeId
DropperQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DropperQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<DropperQueueDisc>()
            .AddAttribute("MaxSize",
                          "The FIFO's limit (the router's tx_queue_len in the report)",
                          QueueSizeValue(QueueSize("100p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("Mode",
                          "Dropper mode: Off, Random (r < Cutoff) or Regular (every N-th)",
                          EnumValue(DropperQueueDisc::OFF),
                          MakeEnumAccessor<Mode>(&DropperQueueDisc::m_mode),
                          MakeEnumChecker(DropperQueueDisc::OFF,
                                          "Off",
                                          DropperQueueDisc::RANDOM,
                                          "Random",
                                          DropperQueueDisc::REGULAR,
                                          "Regular"))
            .AddAttribute("Cutoff",
                          "Random mode: a target packet is dropped when a uniform 16-bit "
                          "number is below Cutoff = floor(rate x 65535)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DropperQueueDisc::m_cutoff),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("EveryN",
                          "Regular mode: drop one target packet in N (0 drops none)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DropperQueueDisc::m_everyN),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Target",
                          "Only IPv4 packets to this destination are considered",
                          Ipv4AddressValue(Ipv4Address("192.168.2.2")),
                          MakeIpv4AddressAccessor(&DropperQueueDisc::m_target),
                          MakeIpv4AddressChecker());
    return tid;
}

DropperQueueDisc::DropperQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE, QueueSizeUnit::PACKETS),
      m_uniform(CreateObject<UniformRandomVariable>()),
      m_targetPackets(0),
      m_dropped(0)
{
    NS_LOG_FUNCTION(this);
}

DropperQueueDisc::~DropperQueueDisc()
{
    NS_LOG_FUNCTION(this);
}

uint64_t
DropperQueueDisc::GetDroppedCount() const
{
    return m_dropped;
}

uint64_t
DropperQueueDisc::GetTargetCount() const
{
    return m_targetPackets;
}

void
DropperQueueDisc::ResetCounters()
{
    NS_LOG_FUNCTION(this);
    m_targetPackets = 0;
    m_dropped = 0;
}

int64_t
DropperQueueDisc::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_uniform->SetStream(stream);
    return 1;
}

bool
DropperQueueDisc::DecideTargetPacket()
{
    ++m_targetPackets;
    switch (m_mode)
    {
    case RANDOM:
        return emusim::RandomModeDrops(
            m_cutoff,
            static_cast<uint16_t>(m_uniform->GetInteger(0, emusim::kRandomRange)));
    case REGULAR:
        return emusim::RegularModeDrops(m_everyN, m_targetPackets);
    case OFF:
    default:
        return false;
    }
}

bool
DropperQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);

    auto ipv4Item = DynamicCast<Ipv4QueueDiscItem>(item);
    if (ipv4Item && ipv4Item->GetHeader().GetDestination() == m_target && DecideTargetPacket())
    {
        ++m_dropped;
        DropBeforeEnqueue(item, DROPPER_DROP);
        return false;
    }

    if (GetCurrentSize() + item > GetMaxSize())
    {
        DropBeforeEnqueue(item, LIMIT_EXCEEDED_DROP);
        return false;
    }
    return GetInternalQueue(0)->Enqueue(item);
}

Ptr<QueueDiscItem>
DropperQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    return GetInternalQueue(0)->Dequeue();
}

bool
DropperQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("DropperQueueDisc takes no classes and no packet filters");
        return false;
    }
    if (GetNInternalQueues() == 0)
    {
        AddInternalQueue(
            CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>("MaxSize",
                                                                     QueueSizeValue(GetMaxSize())));
    }
    if (GetNInternalQueues() != 1)
    {
        NS_LOG_ERROR("DropperQueueDisc needs exactly one internal queue");
        return false;
    }
    return true;
}

void
DropperQueueDisc::InitializeParams()
{
    NS_LOG_FUNCTION(this);
}

} // namespace ns3
