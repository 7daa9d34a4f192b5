/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of ThreeHostLineHelper and UdpSink against the testbed they stand for: the report's
 * addresses (Table 1.2), the links' settings, the queue discs docs/fidelity.md describes
 * ("Queues"), and a sink that counts what a sender sent, with exact arrival times.
 */

#include "../helper/three-host-line-helper.h"
#include "../model/dropper-queue-disc.h"
#include "../model/udp-sink.h"

#include "ns3/data-rate.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-address-generator.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/test.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <string>

using namespace ns3;

namespace
{

/// The only address of `node`'s interface `ifIndex` (0 is the loopback).
Ipv4Address
AddressOf(Ptr<Node> node, uint32_t ifIndex)
{
    return node->GetObject<Ipv4>()->GetAddress(ifIndex, 0).GetLocal();
}

/// The root queue disc of the device of `node`'s interface `ifIndex` (0 is the loopback).
Ptr<QueueDisc>
RootOf(Ptr<Node> node, uint32_t ifIndex)
{
    Ptr<NetDevice> device = node->GetObject<Ipv4>()->GetNetDevice(ifIndex);
    return node->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(device);
}

/// The limit of a queue disc, in packets.
uint32_t
LimitOf(Ptr<QueueDisc> disc)
{
    return disc->GetMaxSize().GetValue();
}

/// Clean up after a test case: the simulator, and the addresses it allocated (a second line
/// would be refused as a duplicate).
void
Done()
{
    Simulator::Destroy();
    Ipv4AddressGenerator::Reset();
}

} // namespace

/**
 * \ingroup internet-test
 * \brief The line the helper builds: nodes, addresses, links and queue discs.
 */
class ThreeHostLineTestCase : public TestCase
{
  public:
    ThreeHostLineTestCase()
        : TestCase("the three-host line: addresses, links, queue discs")
    {
    }

  private:
    void DoRun() override
    {
        ThreeHostLineHelper line({.linkRateBps = 100000000,
                                  .interframeGapNs = 2880,
                                  .channelDelayNs = 37863,
                                  .routerQueuePackets = 11,
                                  .hostQueuePackets = 7,
                                  .dropMode = "regular",
                                  .everyN = 5,
                                  .target = "192.168.2.2"});
        const int64_t streams = line.Install(1000);
        NS_TEST_ASSERT_MSG_GT(streams, 0, "streams assigned");

        Ptr<Node> sender = line.GetSender();
        Ptr<Node> router = line.GetRouter();
        Ptr<Node> receiver = line.GetReceiver();
        NS_TEST_ASSERT_MSG_EQ(sender->GetId(), 0, "the sender is node 0");
        NS_TEST_ASSERT_MSG_EQ(router->GetId(), 1, "the router is node 1");
        NS_TEST_ASSERT_MSG_EQ(receiver->GetId(), 2, "the receiver is node 2");

        // interface 0 is the loopback
        NS_TEST_ASSERT_MSG_EQ(sender->GetObject<Ipv4>()->GetNInterfaces(), 2, "sender's");
        NS_TEST_ASSERT_MSG_EQ(router->GetObject<Ipv4>()->GetNInterfaces(), 3, "router's");
        NS_TEST_ASSERT_MSG_EQ(receiver->GetObject<Ipv4>()->GetNInterfaces(), 2, "receiver's");
        NS_TEST_ASSERT_MSG_EQ(AddressOf(sender, 1), Ipv4Address("192.168.1.2"), "sender");
        NS_TEST_ASSERT_MSG_EQ(AddressOf(router, 1), Ipv4Address("192.168.1.1"), "router, left");
        NS_TEST_ASSERT_MSG_EQ(AddressOf(router, 2), Ipv4Address("192.168.2.1"), "router, right");
        NS_TEST_ASSERT_MSG_EQ(AddressOf(receiver, 1), Ipv4Address("192.168.2.2"), "receiver");
        NS_TEST_ASSERT_MSG_EQ(line.GetRouterAddress(), Ipv4Address("192.168.1.1"), "getter");
        NS_TEST_ASSERT_MSG_EQ(line.GetReceiverAddress(), Ipv4Address("192.168.2.2"), "getter");
        NS_TEST_ASSERT_MSG_EQ(line.GetSenderDevice(),
                              sender->GetObject<Ipv4>()->GetNetDevice(1),
                              "sender's device");

        for (Ptr<Node> node : {sender, router, receiver})
        {
            for (uint32_t i = 1; i < node->GetObject<Ipv4>()->GetNInterfaces(); ++i)
            {
                auto device =
                    DynamicCast<PointToPointNetDevice>(node->GetObject<Ipv4>()->GetNetDevice(i));
                NS_TEST_ASSERT_MSG_NE(device, nullptr, "a point-to-point device");
                DataRateValue rate;
                device->GetAttribute("DataRate", rate);
                TimeValue gap;
                device->GetAttribute("InterframeGap", gap);
                TimeValue delay;
                device->GetChannel()->GetAttribute("Delay", delay);
                NS_TEST_ASSERT_MSG_EQ(rate.Get(), DataRate("100Mbps"), "link rate");
                NS_TEST_ASSERT_MSG_EQ(gap.Get(), NanoSeconds(2880), "interframe gap");
                NS_TEST_ASSERT_MSG_EQ(delay.Get(), NanoSeconds(37863), "channel delay");
                NS_TEST_ASSERT_MSG_EQ(device->GetQueue()->GetMaxSize(),
                                      QueueSize("1p"),
                                      "the device queue holds the frame being sent");
            }
        }

        // hosts: FIFOs of hostQueuePackets; router: a FIFO toward the sender, the dropper
        // toward the receiver, both of routerQueuePackets
        NS_TEST_ASSERT_MSG_EQ(RootOf(sender, 1)->GetInstanceTypeId().GetName(),
                              "ns3::FifoQueueDisc",
                              "sender's queue disc");
        NS_TEST_ASSERT_MSG_EQ(LimitOf(RootOf(sender, 1)), 7, "sender's FIFO");
        NS_TEST_ASSERT_MSG_EQ(RootOf(router, 1)->GetInstanceTypeId().GetName(),
                              "ns3::FifoQueueDisc",
                              "router's queue disc toward the sender");
        NS_TEST_ASSERT_MSG_EQ(LimitOf(RootOf(router, 1)), 11, "router's FIFO");
        auto dropper = DynamicCast<DropperQueueDisc>(RootOf(router, 2));
        NS_TEST_ASSERT_MSG_NE(dropper, nullptr, "the dropper toward the receiver");
        NS_TEST_ASSERT_MSG_EQ(dropper, line.GetDropper(), "GetDropper");
        NS_TEST_ASSERT_MSG_EQ(LimitOf(dropper), 11, "the dropper's FIFO");
        EnumValue<DropperQueueDisc::Mode> mode;
        dropper->GetAttribute("Mode", mode);
        NS_TEST_ASSERT_MSG_EQ(mode.Get(), DropperQueueDisc::REGULAR, "dropper mode");
        UintegerValue everyN;
        dropper->GetAttribute("EveryN", everyN);
        NS_TEST_ASSERT_MSG_EQ(everyN.Get(), 5, "dropper EveryN");
        NS_TEST_ASSERT_MSG_EQ(RootOf(receiver, 1)->GetInstanceTypeId().GetName(),
                              "ns3::FifoQueueDisc",
                              "receiver's queue disc");
        NS_TEST_ASSERT_MSG_EQ(LimitOf(RootOf(receiver, 1)), 7, "receiver's FIFO");
        Done();
    }
};

/**
 * \ingroup internet-test
 * \brief UdpSink over the line: counts, bytes, and the time from the first arrival to the last.
 */
class UdpSinkTestCase : public TestCase
{
  public:
    UdpSinkTestCase()
        : TestCase("UdpSink counts datagrams, bytes and the arrival span")
    {
    }

  private:
    void DoRun() override
    {
        ThreeHostLineHelper line(
            {.linkRateBps = 100000000, .interframeGapNs = 2880, .channelDelayNs = 40000});
        line.Install(1000);
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();

        const uint16_t port = 1026;
        auto sink = CreateObject<UdpSink>();
        sink->SetAttribute("Port", UintegerValue(port));
        line.GetReceiver()->AddApplication(sink);

        // Three datagrams one second apart over an idle line: each takes the same time, so the
        // sink sees them exactly two seconds apart, first to last.
        Ptr<Socket> socket = Socket::CreateSocket(line.GetSender(), UdpSocketFactory::GetTypeId());
        socket->Connect(InetSocketAddress(line.GetReceiverAddress(), port));
        const uint32_t sizes[] = {100, 1000, 1472};
        for (uint32_t i = 0; i < 3; ++i)
        {
            Simulator::Schedule(Seconds(1 + i), [socket, size = sizes[i]]() {
                socket->Send(Create<Packet>(size));
            });
        }
        Simulator::Stop(Seconds(5));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(sink->GetReceived(), 3, "datagrams");
        NS_TEST_ASSERT_MSG_EQ(sink->GetBytes(), 100 + 1000 + 1472, "payload bytes");
        // the datagrams differ in size, so in serialisation time: 1372 more bytes on two links
        const Time extra = DataRate("100Mbps").CalculateBytesTxTime(1472 - 100) * 2;
        NS_TEST_ASSERT_MSG_EQ(sink->GetElapsed(), Seconds(2) + extra, "first to last arrival");
        Done();
    }
};

/**
 * \ingroup internet-test
 * \brief The suite of the three-host line and its UDP sink.
 */
class ThreeHostLineTestSuite : public TestSuite
{
  public:
    ThreeHostLineTestSuite()
        : TestSuite("emusim-three-host-line", Type::UNIT)
    {
        AddTestCase(new ThreeHostLineTestCase, TestCase::Duration::QUICK);
        AddTestCase(new UdpSinkTestCase, TestCase::Duration::QUICK);
    }
};

/// The suite's one instance, registered with the test runner.
static ThreeHostLineTestSuite g_threeHostLineTestSuite;
