/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The multi-flow study's measurement of its bottleneck (sim/ns3/programs/multiflow.cc,
 * docs/multiflow.md).
 */

#ifndef EMUSIM_BOTTLENECK_SAMPLER_H
#define EMUSIM_BOTTLENECK_SAMPLER_H

#include "draining-sink.h"

#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief Polls a bottleneck FIFO and samples each flow's goodput, as time series.
 *
 * Every poll period it reads the FIFO's length and each flow's packets in it (counted on
 * enqueue and dequeue by the packet's source address: sender k is 10.1.k.2, flow k - 1);
 * every sample period it closes an interval: each flow's goodput from its sink's bytes, the
 * mean, smallest and largest polled length, each flow's mean packets queued, the buffer limit
 * and the FIFO's drops in the interval.
 */
class BottleneckSampler
{
  public:
    /**
     * \param bottleneck the FIFO
     * \param firstSenderNet the first sender's network (10.1.1.0)
     * \param flows the number of flows
     */
    BottleneckSampler(Ptr<QueueDisc> bottleneck, Ipv4Address firstSenderNet, size_t flows);

    /// \param sink the next flow's sink, in flow order
    void AddSink(Ptr<DrainingSink> sink);

    /**
     * \brief Set the buffer limit at a time (it never shrinks below what the FIFO holds).
     * \param at when \param packets the new limit
     */
    void ScheduleBuffer(Time at, uint32_t packets);

    /**
     * \brief Start polling and sampling. The sample at t closes the interval (t - sample, t];
     * the polls inside it come first because they are scheduled first for the same time.
     * \param poll the poll period \param sample the sample period
     */
    void Start(Time poll, Time sample);

    /// \return the bottleneck's FIFO
    Ptr<QueueDisc> Bottleneck() const
    {
        return m_bottleneck;
    }

    std::vector<Ptr<DrainingSink>> sinks;       //!< one per flow
    std::vector<double> t;                      //!< end of each sample interval
    std::vector<std::vector<double>> mbps;      //!< [flow][sample] goodput
    std::vector<std::vector<double>> flowQueue; //!< [flow][sample] mean packets queued
    std::vector<double> queueMean;              //!< mean queue per sample
    std::vector<uint32_t> queueMaxS;            //!< max queue per sample
    std::vector<uint32_t> queueMinS;            //!< min queue per sample
    std::vector<uint32_t> bufferS;              //!< the buffer limit at the sample
    std::vector<uint64_t> dropsS;               //!< FIFO drops in the interval

  private:
    /// The flow a packet belongs to, from its source address; -1 for none.
    int FlowOf(Ptr<const QueueDiscItem> item) const;
    void Enqueued(Ptr<const QueueDiscItem> item);
    void Dequeued(Ptr<const QueueDiscItem> item);
    void Poll(Time period);
    void Sample(Time period);
    void SetBuffer(uint32_t packets);

    Ptr<QueueDisc> m_bottleneck;        //!< the bottleneck's FIFO
    uint32_t m_firstSenderNet;          //!< 10.1.1.0 as an integer
    std::vector<int64_t> m_inQueue;     //!< each flow's packets in the FIFO
    std::vector<uint64_t> m_lastRx;     //!< sink counters at the previous sample
    double m_queueSum{0};               //!< sum of polled queue lengths in the interval
    uint32_t m_queueMax{0};             //!< largest polled length
    uint32_t m_queueMin{UINT32_MAX};    //!< smallest polled length
    std::vector<double> m_flowQueueSum; //!< sum of each flow's polled packets
    uint32_t m_polls{0};                //!< polls in the interval
    uint64_t m_dropsAtLastSample{0};    //!< the FIFO's drops before the interval
};

} // namespace ns3

#endif /* EMUSIM_BOTTLENECK_SAMPLER_H */
