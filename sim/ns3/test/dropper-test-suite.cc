/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of DropperQueueDisc against independently stated expectations: the shared vectors of
 * spec/drop_decision_vectors.csv, exact regular-mode drop positions, and binomial bounds for
 * random mode.
 */

#include "../model/dropper-decision.h"
#include "../model/dropper-queue-disc.h"

#include "ns3/ipv4-header.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/packet.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

const Ipv4Address kTarget("192.168.2.2");
const Ipv4Address kOther("192.168.2.3");

/// A queue-disc item carrying an IPv4 packet to `destination`.
Ptr<QueueDiscItem>
MakeItem(Ipv4Address destination)
{
    Ipv4Header header;
    header.SetDestination(destination);
    header.SetSource(Ipv4Address("192.168.1.2"));
    header.SetPayloadSize(1480);
    return Create<Ipv4QueueDiscItem>(Create<Packet>(1480), Address(), 0x0800, header);
}

/// A dropper with the given attributes, initialised and ready for Enqueue.
Ptr<DropperQueueDisc>
MakeDropper(const std::string& mode, uint32_t cutoff, uint32_t everyN)
{
    auto dropper = CreateObject<DropperQueueDisc>();
    dropper->SetAttribute("Mode", EnumValue(mode == "Random"    ? DropperQueueDisc::RANDOM
                                            : mode == "Regular" ? DropperQueueDisc::REGULAR
                                                                : DropperQueueDisc::OFF));
    dropper->SetAttribute("Cutoff", UintegerValue(cutoff));
    dropper->SetAttribute("EveryN", UintegerValue(everyN));
    dropper->SetAttribute("Target", Ipv4AddressValue(kTarget));
    dropper->Initialize();
    return dropper;
}

/// Offer one packet and take it back out, so the FIFO never fills. \return whether it passed.
bool
Offer(Ptr<DropperQueueDisc> dropper, Ipv4Address destination)
{
    bool passed = dropper->Enqueue(MakeItem(destination));
    if (passed)
    {
        dropper->Dequeue();
    }
    return passed;
}

} // namespace

/**
 * \ingroup traffic-control-test
 * \brief Every row of spec/drop_decision_vectors.csv against dropper-decision.h.
 */
class DropDecisionVectorsTestCase : public TestCase
{
  public:
    DropDecisionVectorsTestCase()
        : TestCase("shared drop-decision vectors")
    {
    }

  private:
    void DoRun() override
    {
        std::ifstream in(EMUSIM_SPEC_DIR "/drop_decision_vectors.csv");
        NS_TEST_ASSERT_MSG_EQ(in.good(), true, "cannot open the vectors file");
        std::string line;
        uint32_t rows = 0;
        bool header = true;
        while (std::getline(in, line))
        {
            if (line.empty() || line[0] == '#')
            {
                continue;
            }
            if (header)
            {
                header = false;
                continue;
            }
            std::vector<std::string> field;
            std::stringstream ss(line);
            std::string cell;
            while (std::getline(ss, cell, ','))
            {
                field.push_back(cell);
            }
            NS_TEST_ASSERT_MSG_GT_OR_EQ(field.size(), 4, "short row: " << line);
            const std::string& kind = field[0];
            const uint64_t expected = std::stoull(field[3]);
            if (kind == "cutoff")
            {
                auto cutoff = emusim::CutoffFromDecimalRate(field[1]);
                NS_TEST_ASSERT_MSG_EQ(cutoff.has_value(), true, line);
                NS_TEST_ASSERT_MSG_EQ(*cutoff, expected, line);
            }
            else if (kind == "random")
            {
                bool drop = emusim::RandomModeDrops(std::stoul(field[1]), std::stoul(field[2]));
                NS_TEST_ASSERT_MSG_EQ(drop, (expected == 1), line);
            }
            else if (kind == "regular")
            {
                bool drop = emusim::RegularModeDrops(std::stoul(field[1]), std::stoull(field[2]));
                NS_TEST_ASSERT_MSG_EQ(drop, (expected == 1), line);
            }
            else if (kind == "tsc")
            {
                NS_TEST_ASSERT_MSG_EQ(emusim::TscRandom(std::stoull(field[2], nullptr, 16)),
                                      expected,
                                      line);
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ(kind, "a known kind", line);
            }
            ++rows;
        }
        NS_TEST_ASSERT_MSG_GT(rows, 40, "too few vectors read");
        for (const char* bad : {"", "x", "1.5", "2", "-0.1", "0.1.2", "0,1", ".", "1.0001"})
        {
            NS_TEST_ASSERT_MSG_EQ(emusim::CutoffFromDecimalRate(bad).has_value(), false, bad);
        }
    }
};

/**
 * \ingroup traffic-control-test
 * \brief Regular mode drops exactly the N-th, 2N-th, ... target packets; others pass.
 */
class RegularModeTestCase : public TestCase
{
  public:
    RegularModeTestCase()
        : TestCase("regular mode drops every N-th target packet and nothing else")
    {
    }

  private:
    void DoRun() override
    {
        auto dropper = MakeDropper("Regular", 0, 6);
        uint32_t target = 0;
        for (uint32_t i = 1; i <= 120; ++i)
        {
            // Every third offered packet goes elsewhere: it must pass and not count.
            if (i % 3 == 0)
            {
                NS_TEST_ASSERT_MSG_EQ(Offer(dropper, kOther), true, "non-target packet " << i);
                continue;
            }
            ++target;
            NS_TEST_ASSERT_MSG_EQ(Offer(dropper, kTarget), (target % 6 != 0), "target " << target);
        }
        NS_TEST_ASSERT_MSG_EQ(dropper->GetTargetCount(), 80, "target packets counted");
        NS_TEST_ASSERT_MSG_EQ(dropper->GetDroppedCount(), 13, "80 / 6 drops");
        NS_TEST_ASSERT_MSG_EQ(dropper->GetStats().GetNDroppedPackets(
                                  DropperQueueDisc::DROPPER_DROP),
                              13,
                              "drop reason recorded");

        // After a reset, counting restarts: the 6th target packet after it is the one dropped.
        dropper->ResetCounters();
        for (uint32_t k = 1; k <= 5; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(Offer(dropper, kTarget), true, "after reset " << k);
        }
        NS_TEST_ASSERT_MSG_EQ(Offer(dropper, kTarget), false, "6th after reset");
        dropper->Dispose();
    }
};

/**
 * \ingroup traffic-control-test
 * \brief Random mode: the drop count lies in the binomial 99.9 % interval of cutoff / 65536.
 */
class RandomModeTestCase : public TestCase
{
  public:
    RandomModeTestCase()
        : TestCase("random mode drops with probability cutoff over 65536")
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        const uint32_t n = 200000;
        for (uint16_t cutoff : {262, 6553, 9699, 32767})
        {
            auto dropper = MakeDropper("Random", cutoff, 0);
            dropper->AssignStreams(7);
            uint32_t dropped = 0;
            for (uint32_t i = 0; i < n; ++i)
            {
                dropped += Offer(dropper, kTarget) ? 0 : 1;
                NS_TEST_ASSERT_MSG_EQ(Offer(dropper, kOther), true, "non-target dropped");
            }
            const double p = cutoff / 65536.0;
            const double mean = n * p;
            const double sd = std::sqrt(n * p * (1 - p));
            // z = 3.2905 bounds a two-sided 99.9 % interval of the normal approximation.
            NS_TEST_ASSERT_MSG_EQ_TOL(double(dropped), mean, 3.2905 * sd, "cutoff " << cutoff);
            NS_TEST_ASSERT_MSG_EQ(dropper->GetDroppedCount(), dropped, "counter");
            dropper->Dispose();
        }
        // Cutoff 0 never drops.
        auto never = MakeDropper("Random", 0, 0);
        for (uint32_t i = 0; i < 10000; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(Offer(never, kTarget), true, "cutoff 0 dropped a packet");
        }
        never->Dispose();
    }
};

/**
 * \ingroup traffic-control-test
 * \brief Packets that pass wait in a FIFO of MaxSize packets; the overflow is tail-dropped.
 */
class FifoLimitTestCase : public TestCase
{
  public:
    FifoLimitTestCase()
        : TestCase("passing packets queue in a FIFO of MaxSize packets")
    {
    }

  private:
    void DoRun() override
    {
        auto dropper = MakeDropper("Off", 0, 0);
        dropper->SetMaxSize(QueueSize("5p"));
        for (uint32_t i = 0; i < 5; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(dropper->Enqueue(MakeItem(kTarget)), true, "fits");
        }
        NS_TEST_ASSERT_MSG_EQ(dropper->Enqueue(MakeItem(kTarget)), false, "6th is over");
        NS_TEST_ASSERT_MSG_EQ(dropper->GetDroppedCount(), 0, "an overflow is not a dropper drop");
        NS_TEST_ASSERT_MSG_EQ(dropper->GetNPackets(), 5, "queue length");
        dropper->Dispose();
    }
};

/**
 * \ingroup traffic-control-test
 * \brief The DropperQueueDisc test suite.
 */
class DropperTestSuite : public TestSuite
{
  public:
    DropperTestSuite()
        : TestSuite("emusim-dropper", Type::UNIT)
    {
        AddTestCase(new DropDecisionVectorsTestCase, TestCase::Duration::QUICK);
        AddTestCase(new RegularModeTestCase, TestCase::Duration::QUICK);
        AddTestCase(new RandomModeTestCase, TestCase::Duration::QUICK);
        AddTestCase(new FifoLimitTestCase, TestCase::Duration::QUICK);
    }
};

/// Static instance: registers the suite with the TestRunner.
static DropperTestSuite g_dropperTestSuite;
