/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of RouterProcessor and UdpFloodSender against formulas worked out by hand: the
 * service rate of a saturated server is 1 / (a + b L), the queue holds what its limit says
 * and drops the rest, host work waits for packets, and a datagram's fragment count follows
 * RFC 791's 8-byte rule.
 */

#include "../model/flood-apps.h"
#include "../model/router-processor.h"

#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <vector>

using namespace ns3;

namespace
{

/// A processor with the given per-packet time, per-byte time (ns) and queue limit.
Ptr<RouterProcessor>
MakeProcessor(Time perPacket, double perByteNs, uint32_t queue)
{
    auto processor = CreateObject<RouterProcessor>();
    processor->SetAttribute("PerPacketTime", TimeValue(perPacket));
    processor->SetAttribute("PerByteNs", DoubleValue(perByteNs));
    processor->SetAttribute("QueuePackets", UintegerValue(queue));
    return processor;
}

} // namespace

/**
 * \ingroup internet-test
 * \brief Service time is a + b L; a saturated processor forwards 1 / (a + b L) packets per
 * second, one after another from time 0.
 */
class ServiceRateTestCase : public TestCase
{
  public:
    ServiceRateTestCase()
        : TestCase("saturated service rate is the inverse of a + b L")
    {
    }

  private:
    void DoRun() override
    {
        // a = 20 us, b = 12.5 ns/B, L = 1500 B: 20 + 18.75 = 38.75 us per packet.
        const Time perPacket = MicroSeconds(20);
        const double perByteNs = 12.5;
        const uint32_t bytes = 1500;
        const Time service = NanoSeconds(20000 + 18750);
        auto processor = MakeProcessor(perPacket, perByteNs, 1000);
        NS_TEST_ASSERT_MSG_EQ(processor->GetServiceTime(bytes), service, "a + b L");
        NS_TEST_ASSERT_MSG_EQ(processor->GetServiceTime(0), perPacket, "a alone for L = 0");

        const uint32_t n = 200;
        std::vector<Time> ends;
        for (uint32_t i = 0; i < n; ++i)
        {
            bool accepted = processor->Submit(bytes, RouterProcessor::Done([&ends]() {
                                                  ends.push_back(Simulator::Now());
                                              }));
            NS_TEST_ASSERT_MSG_EQ(accepted, true, "the queue has room for " << n);
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(ends.size(), n, "every packet served");
        for (uint32_t k = 0; k < n; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(ends[k],
                                  service * static_cast<int64_t>(k + 1),
                                  "the k-th packet leaves after k service times");
        }
        // Over the busy period the rate is exactly 1 / service(L): 25 806.45... packets/s.
        const double rate = n / ends.back().GetSeconds();
        NS_TEST_ASSERT_MSG_EQ_TOL(rate, 1.0 / 38.75e-6, 1e-6, "service rate");
        NS_TEST_ASSERT_MSG_EQ(processor->GetServed(), n, "served count");
        NS_TEST_ASSERT_MSG_EQ(processor->GetForwardingTime(),
                              service * static_cast<int64_t>(n),
                              "busy time");
        Simulator::Destroy();
    }
};

/**
 * \ingroup internet-test
 * \brief Offered packets faster than it serves them, the processor forwards one every S and
 * drops what finds QueuePackets waiting. Arrivals every T < S from time 0, packet k at k T;
 * services end at S, 2 S, ... An arrival at the instant a service ends is counted before the
 * end (it was scheduled first), so packet k finds ceil(k T / S) - 1 services ended, one in
 * service, and, while nothing has been dropped, W(k) = k - ceil(k T / S) waiting. The first
 * drop is the first k with W(k) >= Q.
 */
class OverloadTestCase : public TestCase
{
  public:
    OverloadTestCase()
        : TestCase("overload: one packet every S, the queue fills to its limit, the rest drops")
    {
    }

  private:
    void Offer(Ptr<RouterProcessor> processor, uint32_t k)
    {
        bool accepted = processor->Submit(100, RouterProcessor::Done([this]() {
                                              m_ends.push_back(Simulator::Now());
                                          }));
        if (!accepted && m_firstDrop < 0)
        {
            m_firstDrop = k;
        }
    }

    void DoRun() override
    {
        const int64_t serviceUs = 30; // a = 30 us, b = 0
        const int64_t intervalUs = 10;
        const uint32_t queue = 50;
        const uint32_t n = 3000;
        auto processor = MakeProcessor(MicroSeconds(serviceUs), 0, queue);
        for (uint32_t k = 0; k < n; ++k)
        {
            Simulator::Schedule(MicroSeconds(intervalUs * k),
                                &OverloadTestCase::Offer,
                                this,
                                processor,
                                k);
        }
        Simulator::Run();
        // W(k) = k - ceil(k / 3) >= 50 first at k = 75 (75 - 25 = 50; 74 - 25 = 49).
        int64_t expected = -1;
        for (int64_t k = 1; k < n && expected < 0; ++k)
        {
            if (k - (k * intervalUs + serviceUs - 1) / serviceUs >= queue)
            {
                expected = k;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(expected, 75, "hand-worked first drop");
        NS_TEST_ASSERT_MSG_EQ(m_firstDrop, expected, "first dropped packet");
        NS_TEST_ASSERT_MSG_EQ(processor->GetMaxWaiting(), queue, "the queue filled");
        NS_TEST_ASSERT_MSG_EQ(processor->GetArrivals(), n, "arrivals");
        NS_TEST_ASSERT_MSG_EQ(processor->GetServed() + processor->GetDrops(), n, "conservation");
        NS_TEST_ASSERT_MSG_EQ(m_ends.size(), processor->GetServed(), "callbacks");
        // Busy from time 0 to the end: packet j leaves at (j + 1) S, a rate of exactly 1 / S
        // while 1 / T = 3 / S are offered.
        for (uint32_t j = 0; j < m_ends.size(); ++j)
        {
            NS_TEST_ASSERT_MSG_EQ(m_ends[j], MicroSeconds(serviceUs * (j + 1)), "departure " << j);
        }
        // Arrivals stop at (n - 1) T = 29 990 us; 999 services have ended by then, one is in
        // service and Q wait: 999 + 1 + 50 = 1050 forwarded, the rest dropped.
        NS_TEST_ASSERT_MSG_EQ(processor->GetServed(), 1050, "forwarded");
        Simulator::Destroy();
    }

    int64_t m_firstDrop{-1};  //!< index of the first packet dropped
    std::vector<Time> m_ends; //!< departures
};

/**
 * \ingroup internet-test
 * \brief Host work on a shared CPU runs only while no packet waits. A sender makes a datagram
 * in H, whose packet reaches the router at once and takes S: the CPU is never idle and
 * alternates, so 100 datagrams take 100 (H + S), a rate of 1 / (H + S), and nothing drops.
 */
class HostWorkTestCase : public TestCase
{
  public:
    HostWorkTestCase()
        : TestCase("host work yields to forwarding on a shared CPU: rate 1 over H + S")
    {
    }

  private:
    void HostDone()
    {
        ++m_made;
        Simulator::ScheduleNow(&HostWorkTestCase::Arrive, this);
        if (m_made < 100)
        {
            m_processor->RunHostWork(MicroSeconds(40),
                                     MakeCallback(&HostWorkTestCase::HostDone, this));
        }
    }

    void Arrive()
    {
        m_processor->Submit(1500, RouterProcessor::Done([this]() { m_last = Simulator::Now(); }));
    }

    void DoRun() override
    {
        // a = 5 us, b = 10 ns/B: S = 5 + 15 = 20 us for 1500 B; H = 40 us.
        m_processor = MakeProcessor(MicroSeconds(5), 10, 1000);
        NS_TEST_ASSERT_MSG_EQ(m_processor->GetServiceTime(1500), MicroSeconds(20), "S");
        m_processor->RunHostWork(MicroSeconds(40), MakeCallback(&HostWorkTestCase::HostDone, this));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_made, 100, "every datagram made");
        NS_TEST_ASSERT_MSG_EQ(m_processor->GetServed(), 100, "every packet forwarded");
        NS_TEST_ASSERT_MSG_EQ(m_last, MicroSeconds(100 * (40 + 20)), "100 (H + S), never idle");
        NS_TEST_ASSERT_MSG_EQ(m_processor->GetDrops(), 0, "no drop on a shared CPU");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(m_processor->GetMaxWaiting(), 2, "packets never pile up");
        NS_TEST_ASSERT_MSG_EQ(m_processor->GetHostTime(), MicroSeconds(4000), "100 H");
        NS_TEST_ASSERT_MSG_EQ(m_processor->GetForwardingTime(), MicroSeconds(2000), "100 S");
        m_processor = nullptr;
        Simulator::Destroy();
    }

    Ptr<RouterProcessor> m_processor; //!< the shared CPU
    uint32_t m_made{0};               //!< datagrams made
    Time m_last;                      //!< the last forwarding's end
};

/**
 * \ingroup internet-test
 * \brief Fragments per datagram: 1 up to 1472 B of payload at MTU 1500, then
 * ceil((payload + 8) / 1480) (1480 = 1500 - 20 rounded down to 8 bytes).
 */
class FragmentCountTestCase : public TestCase
{
  public:
    FragmentCountTestCase()
        : TestCase("fragments per datagram")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(UdpFloodSender::FramesPerDatagram(64, 1500), 1, "64 B");
        NS_TEST_ASSERT_MSG_EQ(UdpFloodSender::FramesPerDatagram(1472, 1500), 1, "1472 B fits");
        NS_TEST_ASSERT_MSG_EQ(UdpFloodSender::FramesPerDatagram(1473, 1500), 2, "1473 B");
        NS_TEST_ASSERT_MSG_EQ(UdpFloodSender::FramesPerDatagram(2048, 1500), 2, "2056 / 1480");
        NS_TEST_ASSERT_MSG_EQ(UdpFloodSender::FramesPerDatagram(4096, 1500), 3, "4104 / 1480");
        NS_TEST_ASSERT_MSG_EQ(UdpFloodSender::FramesPerDatagram(8192, 1500), 6, "8200 / 1480");
        NS_TEST_ASSERT_MSG_EQ(UdpFloodSender::FramesPerDatagram(2952, 1500), 2, "2960 = 2 x 1480");
        NS_TEST_ASSERT_MSG_EQ(UdpFloodSender::FramesPerDatagram(2953, 1500), 3, "one byte more");
        // MTU 1006: 986 bytes per fragment (1006 - 20 = 986, rounded down to 984)
        NS_TEST_ASSERT_MSG_EQ(UdpFloodSender::FramesPerDatagram(1960, 1006), 2, "1968 = 2 x 984");
    }
};

/**
 * \ingroup internet-test
 * \brief The router processing model's suite.
 */
class RouterProcessorTestSuite : public TestSuite
{
  public:
    RouterProcessorTestSuite()
        : TestSuite("emusim-router-processor", Type::UNIT)
    {
        AddTestCase(new ServiceRateTestCase, TestCase::Duration::QUICK);
        AddTestCase(new OverloadTestCase, TestCase::Duration::QUICK);
        AddTestCase(new HostWorkTestCase, TestCase::Duration::QUICK);
        AddTestCase(new FragmentCountTestCase, TestCase::Duration::QUICK);
    }
};

/// The suite's one instance, registered with the test runner.
static RouterProcessorTestSuite g_routerProcessorTestSuite;
