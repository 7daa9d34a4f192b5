/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "bottleneck-sampler.h"

#include "ns3/abort.h"
#include "ns3/callback.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

BottleneckSampler::BottleneckSampler(Ptr<QueueDisc> bottleneck,
                                     Ipv4Address firstSenderNet,
                                     size_t flows)
    : mbps(flows),
      flowQueue(flows),
      m_bottleneck(bottleneck),
      m_firstSenderNet(firstSenderNet.Get()),
      m_inQueue(flows, 0),
      m_lastRx(flows, 0),
      m_flowQueueSum(flows, 0)
{
    m_bottleneck->TraceConnectWithoutContext("Enqueue",
                                             MakeCallback(&BottleneckSampler::Enqueued, this));
    m_bottleneck->TraceConnectWithoutContext("Dequeue",
                                             MakeCallback(&BottleneckSampler::Dequeued, this));
    m_bottleneck->TraceConnectWithoutContext("Requeue",
                                             MakeCallback(&BottleneckSampler::Enqueued, this));
}

void
BottleneckSampler::AddSink(Ptr<DrainingSink> sink)
{
    sinks.push_back(sink);
}

void
BottleneckSampler::ScheduleBuffer(Time at, uint32_t packets)
{
    Simulator::Schedule(at, &BottleneckSampler::SetBuffer, this, packets);
}

void
BottleneckSampler::Start(Time poll, Time sample)
{
    Simulator::Schedule(poll, &BottleneckSampler::Poll, this, poll);
    Simulator::Schedule(sample + NanoSeconds(1), &BottleneckSampler::Sample, this, sample);
}

int
BottleneckSampler::FlowOf(Ptr<const QueueDiscItem> item) const
{
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip)
    {
        return -1;
    }
    const uint32_t src = ip->GetHeader().GetSource().Get();
    const int flow = static_cast<int>((src - m_firstSenderNet) >> 8);
    return flow >= 0 && flow < static_cast<int>(m_inQueue.size()) ? flow : -1;
}

void
BottleneckSampler::Enqueued(Ptr<const QueueDiscItem> item)
{
    if (int f = FlowOf(item); f >= 0)
    {
        ++m_inQueue[f];
    }
}

void
BottleneckSampler::Dequeued(Ptr<const QueueDiscItem> item)
{
    if (int f = FlowOf(item); f >= 0)
    {
        --m_inQueue[f];
    }
}

void
BottleneckSampler::Poll(Time period)
{
    const uint32_t q = m_bottleneck->GetNPackets();
    m_queueSum += q;
    m_queueMax = std::max(m_queueMax, q);
    m_queueMin = std::min(m_queueMin, q);
    for (size_t f = 0; f < m_inQueue.size(); ++f)
    {
        m_flowQueueSum[f] += static_cast<double>(m_inQueue[f]);
    }
    ++m_polls;
    Simulator::Schedule(period, &BottleneckSampler::Poll, this, period);
}

void
BottleneckSampler::Sample(Time period)
{
    const double dt = period.GetSeconds();
    t.push_back(Simulator::Now().GetSeconds());
    for (size_t f = 0; f < sinks.size(); ++f)
    {
        const uint64_t rx = sinks[f]->GetTotalRx();
        mbps[f].push_back((rx - m_lastRx[f]) * 8.0 / dt / 1e6);
        m_lastRx[f] = rx;
        flowQueue[f].push_back(m_polls ? m_flowQueueSum[f] / m_polls : 0.0);
        m_flowQueueSum[f] = 0;
    }
    queueMean.push_back(m_polls ? m_queueSum / m_polls : 0.0);
    queueMaxS.push_back(m_polls ? m_queueMax : 0);
    queueMinS.push_back(m_polls ? m_queueMin : 0);
    bufferS.push_back(m_bottleneck->GetMaxSize().GetValue());
    const uint64_t drops = m_bottleneck->GetStats().nTotalDroppedPackets;
    dropsS.push_back(drops - m_dropsAtLastSample);
    m_dropsAtLastSample = drops;
    m_queueSum = 0;
    m_queueMax = 0;
    m_queueMin = UINT32_MAX;
    m_polls = 0;
    Simulator::Schedule(period, &BottleneckSampler::Sample, this, period);
}

void
BottleneckSampler::SetBuffer(uint32_t packets)
{
    NS_ABORT_MSG_IF(packets < m_bottleneck->GetNPackets(),
                    "--bufferSchedule: cannot shrink the buffer below the packets it holds");
    m_bottleneck->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, packets));
}

} // namespace ns3
