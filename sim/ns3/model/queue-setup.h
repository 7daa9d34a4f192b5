/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * How every emusim program sets up a link's queues and addresses, in one place: the queue disc
 * holds what Linux's qdisc holds (a FIFO of tx_queue_len packets, or the dropper in front of
 * it), the device's own queue only the frame being sent (docs/fidelity.md, "Queues").
 */

#ifndef EMUSIM_QUEUE_SETUP_H
#define EMUSIM_QUEUE_SETUP_H

#include "dropper-queue-disc.h"

#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <string>

namespace ns3
{
namespace emusim
{

/**
 * \brief Shrink a point-to-point device's own queue to the frame being sent.
 * \param device the device
 */
inline void
OneFrameDeviceQueue(Ptr<NetDevice> device)
{
    device->GetObject<PointToPointNetDevice>()->GetQueue()->SetMaxSize(QueueSize("1p"));
}

/**
 * \brief A drop-tail FIFO of `packets` packets as the root queue disc of `device`.
 * \param device the device
 * \param packets the FIFO's limit
 * \return the queue disc
 */
inline Ptr<QueueDisc>
InstallFifo(Ptr<NetDevice> device, uint32_t packets)
{
    OneFrameDeviceQueue(device);
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc",
                         "MaxSize",
                         QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, packets)));
    return tch.Install(device).Get(0);
}

/**
 * \brief The dropper (its decision before a FIFO of `packets` packets) as the root queue disc
 * of `device`.
 * \param device the device
 * \param packets the FIFO's limit
 * \param mode "random", "regular", anything else off
 * \param cutoff random: drop when a 16-bit r < cutoff
 * \param everyN regular: drop every N-th target packet
 * \param target the address whose packets the dropper considers
 * \return the queue disc
 */
inline Ptr<DropperQueueDisc>
InstallDropper(Ptr<NetDevice> device,
               uint32_t packets,
               const std::string& mode,
               uint32_t cutoff,
               uint32_t everyN,
               Ipv4Address target)
{
    OneFrameDeviceQueue(device);
    auto value = mode == "random"    ? DropperQueueDisc::RANDOM
                 : mode == "regular" ? DropperQueueDisc::REGULAR
                                     : DropperQueueDisc::OFF;
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::DropperQueueDisc",
                         "MaxSize",
                         QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, packets)),
                         "Mode",
                         EnumValue(value),
                         "Cutoff",
                         UintegerValue(cutoff),
                         "EveryN",
                         UintegerValue(everyN),
                         "Target",
                         Ipv4AddressValue(target));
    return DynamicCast<DropperQueueDisc>(tch.Install(device).Get(0));
}

/**
 * \brief Assign one address of a /24 to one device.
 * \param device the device
 * \param network the /24, e.g. "192.168.1.0"
 * \param host the host part, e.g. "0.0.0.2"
 * \return the address assigned
 */
inline Ipv4Address
AssignAddress(Ptr<NetDevice> device, const char* network, const char* host)
{
    Ipv4AddressHelper ipv4;
    ipv4.SetBase(network, "255.255.255.0", host);
    return ipv4.Assign(NetDeviceContainer(device)).GetAddress(0);
}

} // namespace emusim
} // namespace ns3

#endif /* EMUSIM_QUEUE_SETUP_H */
