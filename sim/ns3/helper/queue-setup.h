/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * How every emusim program sets up a link's queues and addresses, in one place: the queue disc
 * holds what Linux's qdisc holds (a FIFO of tx_queue_len packets, or the dropper in front of
 * it), the device's own queue only the frame being sent (docs/fidelity.md, "Queues").
 */

#ifndef EMUSIM_QUEUE_SETUP_H
#define EMUSIM_QUEUE_SETUP_H

#include "../model/dropper-queue-disc.h"

#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/ptr.h"
#include "ns3/queue-disc.h"

#include <cstdint>
#include <string>

namespace ns3
{
namespace emusim
{

/**
 * \brief Shrink a point-to-point device's own queue to the frame being sent.
 * \param device the device
 */
void OneFrameDeviceQueue(Ptr<NetDevice> device);

/**
 * \brief A drop-tail FIFO of `packets` packets as the root queue disc of `device`, whose own
 * queue then holds one frame (OneFrameDeviceQueue).
 * \param device the device
 * \param packets the FIFO's limit
 * \return the queue disc
 */
Ptr<QueueDisc> InstallFifo(Ptr<NetDevice> device, uint32_t packets);

/**
 * \brief The dropper (its decision before a FIFO of `packets` packets) as the root queue disc
 * of `device`, whose own queue then holds one frame (OneFrameDeviceQueue).
 * \param device the device
 * \param packets the FIFO's limit
 * \param mode "random", "regular", anything else off
 * \param cutoff random: drop when a 16-bit r < cutoff
 * \param everyN regular: drop every N-th target packet
 * \param target the address whose packets the dropper considers
 * \return the queue disc
 */
Ptr<DropperQueueDisc> InstallDropper(Ptr<NetDevice> device,
                                     uint32_t packets,
                                     const std::string& mode,
                                     uint32_t cutoff,
                                     uint32_t everyN,
                                     Ipv4Address target);

/// CoDel's settings (RFC 8289; Linux's sch_codel, ns-3's CoDelQueueDisc), in Linux's units.
struct CodelArguments
{
    uint32_t targetUs{5000};     //!< acceptable sojourn time (tc-codel's target)
    uint32_t intervalUs{100000}; //!< sliding window for the minimum sojourn (tc-codel's interval)
    bool ecn{false};             //!< mark ECN-capable packets instead of dropping them
    uint32_t ceThresholdUs{0};   //!< mark every packet that waited longer; 0: no threshold
};

/**
 * \brief CoDel of `packets` packets as the root queue disc of `device`, whose own queue then
 * holds one frame (OneFrameDeviceQueue), set as Linux's sch_codel with `codel` (queue-setup.cc
 * gives each attribute's Linux counterpart).
 * \param device the device
 * \param packets the limit (sch_codel's limit, in packets)
 * \param codel target, interval, ECN and CE threshold
 * \return the queue disc
 */
Ptr<QueueDisc> InstallCodel(Ptr<NetDevice> device, uint32_t packets, const CodelArguments& codel);

/**
 * \brief Assign one address of a /24 to one device.
 * \param device the device
 * \param network the /24, e.g. "192.168.1.0"
 * \param host the host part, e.g. "0.0.0.2"
 * \return the address assigned
 */
Ipv4Address AssignAddress(Ptr<NetDevice> device, const char* network, const char* host);

} // namespace emusim
} // namespace ns3

#endif /* EMUSIM_QUEUE_SETUP_H */
