/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "queue-setup.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/nstime.h"
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

namespace
{
/// One full IP packet: ns-3's queue discs count IP bytes, Linux's qdiscs the Ethernet frame
constexpr uint32_t MTU_B = 1500;
} // namespace

Ptr<QueueDisc>
InstallCodel(Ptr<NetDevice> device, uint32_t packets, const CodelArguments& codel)
{
    OneFrameDeviceQueue(device);
    TrafficControlHelper tch;
    // Linux keeps CoDel's times as ns >> CODEL_SHIFT (10) in a u32 (include/net/codel.h:62-70)
    // and converts tc's microseconds so (net/sched/sch_codel.c:186, :192, :198); ns-3 3.44
    // keeps Times and compares them the same way (codel-queue-disc.cc, Time2CoDel, :452-456),
    // so the microseconds go over unchanged. A CE threshold marks in Linux whenever it is set
    // (include/net/codel_impl.h:254-265), in ns-3 only with UseEcn and without UseL4s
    // (codel-queue-disc.cc:401-402); emusim.backends.ns3.command refuses a threshold without ECN.
    // The limit is a count of packets in both (sch_codel.c:151, codel-queue-disc.cc:168).
    // CoDel does not drop while the backlog left is at most one MTU: Linux's test is
    // backlog <= mtu with both in frame bytes (codel_impl.h:128-129, the device's MTU plus its
    // link header: sch_codel.c:233), ns-3's bytes < MinBytes in IP bytes
    // (codel-queue-disc.cc:202-203): one full packet left is "at most one MTU" in both when
    // MinBytes is one byte more than the IP MTU.
    tch.SetRootQueueDisc(
        "ns3::CoDelQueueDisc",
        "MaxSize",
        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, packets)),
        "MinBytes",
        UintegerValue(MTU_B + 1),
        "Target",
        TimeValue(MicroSeconds(codel.targetUs)),
        "Interval",
        TimeValue(MicroSeconds(codel.intervalUs)),
        "UseEcn",
        BooleanValue(codel.ecn),
        "UseL4s",
        BooleanValue(false),
        "CeThreshold",
        TimeValue(codel.ceThresholdUs > 0 ? MicroSeconds(codel.ceThresholdUs) : Time::Max()));
    return tch.Install(device).Get(0);
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
