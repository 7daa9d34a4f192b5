/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TestSuite emusim-tcp-linux-gso: TcpLinuxSocket's GSO packets and their PSH (GsoPush:
 * __tcp_transmit_skb, tcp_write_xmit and tcp_tso_autosize of Linux 6.1.192), and the
 * receiver's ACK of a pushed segment once it is read (__tcp_cleanup_rbuf), against sequences
 * worked out by hand from the source.
 */

#include "linux-socket-run.h"

#include "ns3/test.h"

#include <set>

using namespace ns3;
using namespace ns3::linux_socket_test;

namespace
{

/// What crossed the link: data segments with PSH as they left the sender, and, at the
/// receiver, when each data segment arrived and each ACK left.
struct LinkLog
{
    std::set<uint32_t> pushed;                   //!< 1-based data segments sent with PSH
    std::map<uint32_t, Time> arrived;            //!< 1-based data segment -> its first arrival
    std::vector<std::pair<Time, uint32_t>> acks; //!< the receiver's ACKs: when, ack number

    void Follow(NodeContainer& nodes)
    {
        nodes.Get(0)->GetDevice(0)->TraceConnectWithoutContext(
            "PhyTxBegin",
            MakeCallback(&LinkLog::SenderTx, this));
        nodes.Get(1)->GetDevice(0)->TraceConnectWithoutContext(
            "PhyRxEnd",
            MakeCallback(&LinkLog::ReceiverRx, this));
        nodes.Get(1)->GetDevice(0)->TraceConnectWithoutContext(
            "PhyTxBegin",
            MakeCallback(&LinkLog::ReceiverTx, this));
    }

    void SenderTx(Ptr<const Packet> p)
    {
        TcpHeader tcp;
        if (TcpHeaderOf(p, tcp) > 0 && (tcp.GetFlags() & TcpHeader::PSH))
        {
            pushed.insert((tcp.GetSequenceNumber().GetValue() - 1) / MSS + 1);
        }
    }

    void ReceiverRx(Ptr<const Packet> p)
    {
        uint32_t segment = 0;
        if (DataSegmentOf(p, MSS, segment))
        {
            arrived.emplace(segment, Simulator::Now());
        }
    }

    void ReceiverTx(Ptr<const Packet> p)
    {
        TcpHeader tcp;
        if (TcpHeaderOf(p, tcp) == 0 && !(tcp.GetFlags() & TcpHeader::SYN))
        {
            acks.emplace_back(Simulator::Now(), tcp.GetAckNumber().GetValue());
        }
    }
};

/**
 * The first flight over the suite's 20 ms link (100 Mb/s). After the handshake srtt is its
 * round trip, about 40 ms, and cwnd 10 with ssthresh unset, so sk_pacing_rate = 1448 B x
 * 200 % x 10 / 40 ms = 724 kB/s (tcp_update_pacing_rate), of which 1/1024 s is 707 bytes; the
 * 64 KiB bonus is 64 KiB >> (40 000 µs >> 9 = 78), none, so tcp_tso_autosize gives
 * max(707 / 1448 = 0, tcp_min_tso_segs = 2) = 2 segments. tcp_cwnd_test allows min(10 / 2,
 * 10 - 0) = 5, so the ten segments go out as five packets of two, and the second segment of
 * each carries PSH: 2, 4, 6, 8 and 10.
 */
class GsoFirstFlightTestCase : public TestCase
{
  public:
    GsoFirstFlightTestCase()
        : TestCase("GSO: the first flight of 10 at a 40 ms RTT goes as packets of 2, PSH on "
                   "every second segment")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        RackRun run;
        run.gsoPush = true;
        LinkLog log;
        run.onSocket = [&log](NodeContainer& nodes) { log.Follow(nodes); };
        run.Go(drop, 10, true);
        NS_TEST_EXPECT_MSG_EQ((log.pushed == std::set<uint32_t>{2, 4, 6, 8, 10}),
                              true,
                              "PSH on segments 2, 4, 6, 8 and 10 only");
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetPushedSegments(), 5, "five pushed");
        run.Done();
    }
};

/**
 * A pushed segment is acknowledged as soon as it is read (tcp_measure_rcv_mss marks the ACK
 * ICSK_ACK_PUSHED, tcp_input.c:246-258; __tcp_cleanup_rbuf sends it once the application has
 * read everything, tcp.c:1600-1617), and the suite's receiver reads as data arrives: so every
 * segment with PSH, arriving in order, is answered at the instant it arrives by an ACK of
 * exactly its end, whatever the delayed-ACK count says. 400 segments, nothing lost; the
 * receiver's window does not grow (WindowGrowthLimit 1 byte), so once its 16 quick ACKs of the
 * first data are spent it acknowledges every second segment, and a pushed segment that is the
 * first of a pair (after a packet of three) is answered only by this rule.
 */
class GsoPushedAckTestCase : public TestCase
{
  public:
    GsoPushedAckTestCase()
        : TestCase("GSO: the receiver acknowledges each pushed segment once it has read it")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        RackRun run;
        run.gsoPush = true;
        run.windowGrowthLimit = 1;
        LinkLog log;
        run.onSocket = [&log](NodeContainer& nodes) { log.Follow(nodes); };
        run.Go(drop, 400, true);
        NS_TEST_ASSERT_MSG_GT(log.pushed.size(), 20, "enough pushed segments to check");
        uint32_t answered = 0;
        for (uint32_t segment : log.pushed)
        {
            const Time at = log.arrived.at(segment);
            const uint32_t end = 1 + segment * MSS;
            for (const auto& [when, ack] : log.acks)
            {
                if (when == at && ack == end)
                {
                    ++answered;
                    break;
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(answered, log.pushed.size(), "each answered on arrival");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 400 * MSS, "everything acknowledged");
        run.Done();
    }
};

/**
 * TSO deferral (tcp_tso_should_defer). Congestion avoidance from the start (ssthresh 6 below
 * the initial window of 10) and a receiver that acknowledges every segment
 * (PeerPushesEverySegment), so each ACK frees one segment of window, two when cwnd grows. At a
 * 40 ms RTT a full packet is tcp_tso_autosize's minimum, 2 segments (first test); one segment
 * is less than that, less than the 64 KiB head skb and less than a third of cwnd (10 / 3), the
 * last send was 123 µs before (one serialisation at 100 Mb/s), and the oldest segment's ACK is
 * due within 1 ms (the next one, 123 µs on): so Linux holds it for the next ACK, and new data
 * leaves in pairs. A window of 10 to 20 segments takes 1.2-2.5 ms of the 40 ms round trip, so
 * each round's first ACK comes more than 1 ms after the last send, and its segment goes at
 * once, alone ("avoid bursty behaviour"): every lone send follows such a pause, and no other
 * does. Without the deferral each ACK sends its one segment.
 */
class GsoDeferralTestCase : public TestCase
{
  public:
    GsoDeferralTestCase()
        : TestCase("GSO: one segment of window waits for the next ACK (TSO deferral)")
    {
    }

  private:
    /**
     * @brief The new data's send instants after the first flight.
     * @param gso GsoPush
     * @param deferrals set to the socket's TSO deferrals
     * @param afterPause set to the lone sends more than 1 ms after the send before them
     * @return instants at which exactly one new segment was sent
     */
    static uint32_t LoneSends(bool gso, uint32_t& deferrals, uint32_t& afterPause)
    {
        Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(6 * MSS));
        Config::SetDefault("ns3::TcpLinuxSocket::PeerPushesEverySegment", BooleanValue(true));
        auto drop = CreateObject<SegmentDropper>();
        RackRun run;
        run.gsoPush = gso;
        run.Go(drop, 200, true);
        std::map<int64_t, uint32_t> perInstant;
        uint32_t highest = 0;
        for (const auto& s : run.sent)
        {
            if (s.segment > highest && s.segment > 10)
            {
                ++perInstant[s.at.GetNanoSeconds()];
            }
            highest = std::max(highest, s.segment);
        }
        uint32_t lone = 0;
        afterPause = 0;
        int64_t previous = run.sent.at(9).at.GetNanoSeconds(); // the first flight's last
        for (const auto& [at, n] : perInstant)
        {
            lone += n == 1;
            afterPause += n == 1 && at - previous > MilliSeconds(1).GetNanoSeconds();
            previous = at;
        }
        deferrals = run.socket->GetTsoDeferrals();
        run.Done();
        return lone;
    }

    void DoRun() override
    {
        uint32_t deferrals = 0;
        uint32_t afterPause = 0;
        const uint32_t lone = LoneSends(true, deferrals, afterPause);
        NS_TEST_EXPECT_MSG_GT(lone, 5, "a lone send per round trip");
        NS_TEST_EXPECT_MSG_EQ(afterPause, lone, "every lone send after a pause over 1 ms");
        NS_TEST_EXPECT_MSG_GT(deferrals, 50, "the other ACKs held their segment");
        uint32_t none = 0;
        NS_TEST_EXPECT_MSG_GT(LoneSends(false, none, afterPause), 100, "without: one per ACK");
        NS_TEST_EXPECT_MSG_EQ(none, 0, "without: no deferral");
    }
};

/// Without GsoPush (the default, and every profile but Linux 6.1's) no segment carries PSH.
class GsoOffTestCase : public TestCase
{
  public:
    GsoOffTestCase()
        : TestCase("GSO: off, no segment carries PSH")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        RackRun run;
        LinkLog log;
        run.onSocket = [&log](NodeContainer& nodes) { log.Follow(nodes); };
        run.Go(drop, 50, true);
        NS_TEST_EXPECT_MSG_EQ(log.pushed.size(), 0, "no PSH");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 50 * MSS, "everything acknowledged");
        run.Done();
    }
};

/// TestSuite emusim-tcp-linux-gso.
class TcpLinuxGsoTestSuite : public TestSuite
{
  public:
    TcpLinuxGsoTestSuite()
        : TestSuite("emusim-tcp-linux-gso", Type::UNIT)
    {
        AddTestCase(new GsoFirstFlightTestCase, TestCase::Duration::QUICK);
        AddTestCase(new GsoPushedAckTestCase, TestCase::Duration::QUICK);
        AddTestCase(new GsoDeferralTestCase, TestCase::Duration::QUICK);
        AddTestCase(new GsoOffTestCase, TestCase::Duration::QUICK);
    }
};

TcpLinuxGsoTestSuite g_tcpLinuxGsoTestSuite;

} // namespace
