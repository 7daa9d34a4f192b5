/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "queue-setup.h"

#include "ns3/enum.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/queue.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

namespace ns3
{
namespace emusim
{

void
OneFrameDeviceQueue(Ptr<NetDevice> device)
{
    device->GetObject<PointToPointNetDevice>()->GetQueue()->SetMaxSize(QueueSize("1p"));
}

Ptr<QueueDisc>
InstallFifo(Ptr<NetDevice> device, uint32_t packets)
{
    OneFrameDeviceQueue(device);
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc",
                         "MaxSize",
                         QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, packets)));
    return tch.Install(device).Get(0);
}

Ptr<DropperQueueDisc>
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

Ipv4Address
AssignAddress(Ptr<NetDevice> device, const char* network, const char* host)
{
    Ipv4AddressHelper ipv4;
    ipv4.SetBase(network, "255.255.255.0", host);
    return ipv4.Assign(NetDeviceContainer(device)).GetAddress(0);
}

} // namespace emusim
} // namespace ns3
