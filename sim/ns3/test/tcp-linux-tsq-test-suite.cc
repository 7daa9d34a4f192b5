/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TestSuite emusim-tcp-linux-tsq: TcpLinuxSocket's TCP small queues (tcp_small_queue_check of
 * Linux 6.1.192) against the host's queue worked out by hand from the source.
 */

#include "linux-socket-run.h"

#include "ns3/test.h"

using namespace ns3;
using namespace ns3::linux_socket_test;

namespace
{

/**
 * truesize of a full segment's skb: the kmalloc-1k head of tcp_stream_alloc_skb, SKB_TRUESIZE
 * (1024 - 320) = 704 + SKB_DATA_ALIGN(sizeof(struct sk_buff) = 232) = 256 + 320, and the
 * 1448 bytes of payload: 2728.
 */
class TsqTruesizeTestCase : public TestCase
{
  public:
    TsqTruesizeTestCase()
        : TestCase("TSQ: a full segment's skb charges 2728 bytes")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxSocket::SkbTruesize(MSS), 704 + 256 + 320 + 1448, "truesize");
    }
};

/**
 * The most the host holds of the socket's packets during the first flight (before the first
 * ACK of data, at 80 ms) and the limit at that moment, read as each transmission starts.
 */
struct FirstFlightCharge
{
    uint64_t most{0};        //!< bytes of truesize
    uint64_t limitAtMost{0}; //!< bytes

    /// Follow `run`'s sending device: connected before the socket follows it, so it sees each
    /// packet still charged as its transmission starts
    void Follow(RackRun& run)
    {
        run.onSocket = [&run, this](NodeContainer& nodes) {
            nodes.Get(0)->GetDevice(0)->TraceConnectWithoutContext(
                "PhyTxBegin",
                MakeCallback(&FirstFlightCharge::Seen, this).Bind(&run));
        };
    }

    void Seen(RackRun* run, Ptr<const Packet>)
    {
        const uint64_t charged = run->socket->GetTsqChargedBytes();
        if (Simulator::Now() < MilliSeconds(75) && charged > most)
        {
            most = charged;
            limitAtMost = run->socket->GetTsqLimitBytes();
        }
    }
};

/**
 * The first flight over a 20 ms link at 100 Mb/s (from the handshake's end, 40 ms, to the
 * first ACK of data, 80 ms). After the handshake srtt is its round trip, about 40 ms, cwnd 10
 * and ssthresh unset, so sk_pacing_rate = 1448 B x 200 % x 10 / 40 ms = 724 kB/s, whose
 * 1/1024 s is 707 bytes: the limit is 2 truesize, 5456 bytes. The socket sends while its
 * charge plus one is at most that: at 0 and 2728 bytes, not at 5456. The first segment finds
 * the link idle and leaves at once; from then on two segments are in the host when each
 * transmission starts (the one starting and the next), never more, and the rest of the window
 * waits in the socket. Everything arrives, with no retransmission.
 */
class TsqFirstFlightTestCase : public TestCase
{
  public:
    TsqFirstFlightTestCase()
        : TestCase("TSQ: two segments in the host during the first flight, the rest held")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        RackRun run;
        run.smallQueues = true;
        FirstFlightCharge charge;
        charge.Follow(run);
        run.Go(drop, 10, true);
        NS_TEST_EXPECT_MSG_EQ(charge.limitAtMost,
                              2 * TcpLinuxSocket::SkbTruesize(MSS),
                              "2 truesize");
        NS_TEST_EXPECT_MSG_EQ(charge.most, 2 * TcpLinuxSocket::SkbTruesize(MSS), "two in the host");
        NS_TEST_EXPECT_MSG_GT(run.socket->GetTsqThrottles(), 0, "the socket was held back");
        NS_TEST_EXPECT_MSG_EQ(run.sent.size(), 10, "each segment sent once");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 10 * MSS, "everything acknowledged");
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetTsqChargedBytes(), 0, "nothing left charged");
        run.Done();
    }
};

/**
 * The same first flight with GsoPush: a GSO packet is one skb, checked once, with one head.
 * tcp_tso_autosize gives 2 segments (707 bytes of pacing rate per 1/1024 s, no bonus at a
 * min_rtt of 40 ms: 65536 >> (40000 >> 9) is 0) and half of cwnd 10 is more, so the flight goes
 * as five packets of two segments. A packet charges 1280 + 2 x 1448 = 4176 bytes and the limit
 * is two of them, 8352. The handshake's ACK is on the link when the flight starts, so nothing
 * leaves at first: the first packet (4176) and the second (8352) go, the third is held (8353 >
 * 8352). When a packet's first segment starts its transmission the charge falls by 2728 to
 * 5624, and the next packet goes: 9800 in the host, 8352 + 1448, as each of the third to fifth
 * packets goes. Charged per segment with a limit of two segments, the host would never hold
 * more than 5456.
 */
class TsqGsoPacketTestCase : public TestCase
{
  public:
    TsqGsoPacketTestCase()
        : TestCase("TSQ: a GSO packet charges one head and the limit is two packets")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        RackRun run;
        run.smallQueues = true;
        run.gsoPush = true;
        FirstFlightCharge charge;
        charge.Follow(run);
        run.Go(drop, 10, true);
        const uint64_t packetTruesize = TcpLinuxSocket::SkbTruesize(2 * MSS);
        NS_TEST_EXPECT_MSG_EQ(packetTruesize, 4176, "one head and two segments");
        NS_TEST_EXPECT_MSG_EQ(charge.limitAtMost, 2 * packetTruesize, "two packets");
        NS_TEST_EXPECT_MSG_EQ(charge.most, 2 * packetTruesize + MSS, "a packet on 5624");
        NS_TEST_EXPECT_MSG_GT(run.socket->GetTsqThrottles(), 0, "the socket was held back");
        NS_TEST_EXPECT_MSG_EQ(run.sent.size(), 10, "each segment sent once");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 10 * MSS, "everything acknowledged");
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetTsqChargedBytes(), 0, "nothing left charged");
        run.Done();
    }
};

/// TestSuite emusim-tcp-linux-tsq.
class TcpLinuxTsqTestSuite : public TestSuite
{
  public:
    TcpLinuxTsqTestSuite()
        : TestSuite("emusim-tcp-linux-tsq", Type::UNIT)
    {
        AddTestCase(new TsqTruesizeTestCase, TestCase::Duration::QUICK);
        AddTestCase(new TsqFirstFlightTestCase, TestCase::Duration::QUICK);
        AddTestCase(new TsqGsoPacketTestCase, TestCase::Duration::QUICK);
    }
};

TcpLinuxTsqTestSuite g_tcpLinuxTsqTestSuite;

} // namespace
