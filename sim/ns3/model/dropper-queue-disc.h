/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The 2001 report's packet dropper as an ns-3 queue disc.
 */

#ifndef EMUSIM_DROPPER_QUEUE_DISC_H
#define EMUSIM_DROPPER_QUEUE_DISC_H

#include "ns3/ipv4-address.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \ingroup traffic-control
 *
 * \brief A FIFO queue disc that first lets the 2001 packet dropper decide.
 *
 * The report's dropper was a hook at the start of Linux's dev_queue_xmit: it saw every packet
 * the router was about to queue for transmission, before the queue, and discarded some of
 * those addressed to one target host. Installed as the root queue disc of the router's egress
 * device, this class sees the same packets at the same place: a dropped packet never occupies
 * the queue or the link. Packets that pass are queued in one FIFO of MaxSize packets, like the
 * single band pfifo_fast uses for bulk data.
 *
 *  - Random mode: a uniform 16-bit number r is drawn per target packet; the packet is dropped
 *    when r < Cutoff (Cutoff = floor(rate x 65535)).
 *  - Regular mode: target packets are counted; the N-th is dropped and the count restarts.
 *
 * The decision itself is in dropper-decision.h, shared with the tests of every implementation.
 */
class DropperQueueDisc : public QueueDisc
{
  public:
    /// Which decision the dropper makes.
    enum Mode
    {
        OFF,     //!< pass every packet
        RANDOM,  //!< drop when a 16-bit random number is below the cutoff
        REGULAR, //!< drop every N-th target packet
    };

    /// Reason given to DropBeforeEnqueue for a packet the dropper discarded.
    static constexpr const char* DROPPER_DROP = "Dropper";
    /// Reason given to DropBeforeEnqueue for a packet that found the FIFO full.
    static constexpr const char* LIMIT_EXCEEDED_DROP = "Queue disc limit exceeded";

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    DropperQueueDisc();
    ~DropperQueueDisc() override;

    /**
     * \brief Packets discarded by the dropper since the last reset (the report's numDropped).
     * \return the count
     */
    uint64_t GetDroppedCount() const;

    /**
     * \brief Target packets seen by the dropper since the last reset.
     * \return the count
     */
    uint64_t GetTargetCount() const;

    /// Reset the drop count and the regular-mode counter ("reset" written to numDropped).
    void ResetCounters();

    /**
     * \brief Assign a fixed random variable stream number to the random variables used.
     * \param stream first stream index to use
     * \return the number of stream indices assigned
     */
    int64_t AssignStreams(int64_t stream);

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    /**
     * \brief Whether the dropper discards this target packet; advances the regular counter.
     * \return true to drop
     */
    bool DecideTargetPacket();

    Mode m_mode;                           //!< dropper mode
    uint16_t m_cutoff;                     //!< random mode: drop when r < m_cutoff
    uint32_t m_everyN;                     //!< regular mode: drop one target packet in N
    Ipv4Address m_target;                  //!< only packets to this address are considered
    Ptr<UniformRandomVariable> m_uniform;  //!< source of the 16-bit random numbers
    uint64_t m_targetPackets;              //!< target packets seen since the last reset
    uint64_t m_dropped;                    //!< target packets dropped since the last reset
};

} // namespace ns3

#endif /* EMUSIM_DROPPER_QUEUE_DISC_H */
