/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TestSuite emusim-tcp-linux-bbr: what a congestion control with cong_control (Linux 6.1's
 * tcp_bbr.c) needs of the socket, against values worked out by hand from Debian's
 * linux-source-6.1 (6.1.192): the delivery-rate sampler (net/ipv4/tcp_rate.c), the pacing
 * clock (tcp_wstamp_ns, net/ipv4/tcp_output.c), one cong_control call through the bridge, and
 * the first paced flight of a bbr connection.
 */

#include "../model/tcp-linux-congestion.h"
#include "../model/tcp-linux-rate.h"
#include "linux-socket-run.h"

#include "ns3/string.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/test.h"

#include <limits>

using namespace ns3;
using namespace ns3::linux_socket_test;

namespace
{

/// Sequence numbers of segment n (1-based): its end
constexpr uint32_t
End(uint32_t n)
{
    return 1 + n * MSS;
}

/**
 * Four segments of the first flight, a fifth sent after the first ACK, and four ACKs: a
 * cumulative one, a stretch ACK of two, a SACK of the fifth, and the cumulative ACK over the
 * SACKed one (tcp_rate_skb_sent, tcp_rate_skb_delivered, tcp_rate_gen, tcp_rate.c:40-191).
 * min_rtt is 20 ms. Times in µs.
 */
class RateSampleTestCase : public TestCase
{
  public:
    RateSampleTestCase()
        : TestCase("rate sample: delivered, interval and app-limited over four ACKs")
    {
    }

  private:
    void DoRun() override
    {
        TcpLinuxRateSampler rate;
        const uint32_t minRttUs = 20000;
        uint32_t delivered = 1; // the SYN
        // app_limited starts at ~0U (tcp_init_sock): the first flight is application-limited
        NS_TEST_EXPECT_MSG_EQ(rate.GetAppLimited(), ~0U, "tcp_init_sock");
        TcpLinuxTxRate tx[6];
        // 1-4 at 1000, 1100, 1200, 1300 with 0, 1, 2, 3 out: the first restarts the send phase
        // and the delivery clock at 1000 (:58-63); each keeps first_tx 1000, delivered_mstamp
        // 1000, delivered 1, app-limited
        for (uint32_t i = 1; i <= 4; ++i)
        {
            rate.SkbSent(tx[i], 900 + 100 * i, i - 1, delivered);
        }
        NS_TEST_EXPECT_MSG_EQ(tx[4].firstTxMstampUs, 1000, "send phase from the first");
        NS_TEST_EXPECT_MSG_EQ(tx[4].deliveredMstampUs, 1000, "delivery clock from the first");
        NS_TEST_EXPECT_MSG_EQ(tx[4].isAppLimited, true, "app-limited while app_limited != 0");

        // ACK A at 21000 acknowledges 1: prior_delivered 1, send phase 1000 - 1000 = 0, ACK
        // phase 21000 - 1000 = 20000, interval max = 20000 (not below min_rtt: valid);
        // delivered 2 - 1 = 1; app_limited cleared (after(2, ~0U)); delivered_mstamp 21000
        rate.StartAck(4);
        rate.SkbDelivered(tx[1], 1000, End(1), false, false);
        delivered = 2;
        rate.Gen(delivered, 1, 0, 21000, minRttUs);
        const emusim_rate_sample& rs = rate.GetSample();
        NS_TEST_EXPECT_MSG_EQ(rs.delivered, 1, "A: delivered");
        NS_TEST_EXPECT_MSG_EQ(rs.interval_us, 20000, "A: interval, the ACK phase");
        NS_TEST_EXPECT_MSG_EQ(rs.is_app_limited, true, "A: the first flight is app-limited");
        NS_TEST_EXPECT_MSG_EQ(rs.prior_in_flight, 4, "A: prior_in_flight");
        NS_TEST_EXPECT_MSG_EQ(rate.GetAppLimited(), 0, "A: the bubble is gone");
        NS_TEST_EXPECT_MSG_EQ(rate.GetDeliveredMstampUs(), 21000, "A: delivered_mstamp");

        // 5 at 21000 with 3 out: first_tx 1000 (segment 1's send), delivered_mstamp 21000,
        // delivered 2, not app-limited
        rate.SkbSent(tx[5], 21000, 3, delivered);
        NS_TEST_EXPECT_MSG_EQ(tx[5].firstTxMstampUs, 1000, "5: first_tx_mstamp");
        NS_TEST_EXPECT_MSG_EQ(tx[5].isAppLimited, false, "5: not app-limited");

        // ACK B at 21250 acknowledges 2 and 3: 2 is chosen first (send phase 1100 - 1000), 3
        // was sent later (1200 > 1100) and replaces it: send phase 200; ACK phase 21250 - 1000
        // = 20250; delivered 4 - 1 = 3
        rate.StartAck(4);
        rate.SkbDelivered(tx[2], 1100, End(2), false, false);
        rate.SkbDelivered(tx[3], 1200, End(3), false, false);
        delivered = 4;
        rate.Gen(delivered, 2, 0, 21250, minRttUs);
        NS_TEST_EXPECT_MSG_EQ(rs.delivered, 3, "B: delivered");
        NS_TEST_EXPECT_MSG_EQ(rs.snd_interval_us, 200, "B: send phase to the later send");
        NS_TEST_EXPECT_MSG_EQ(rs.interval_us, 20250, "B: interval");
        NS_TEST_EXPECT_MSG_EQ(rs.acked_sacked, 2, "B: acked_sacked");

        // ACK C at 21400 SACKs 5 (4 still out): prior_delivered 2, prior_mstamp 21000, send
        // phase 21000 - 1000 = 20000, ACK phase 400: interval 20000 (the send phase is the
        // longer); delivered 5 - 2 = 3; not app-limited; a loss marked on the way
        rate.StartAck(2);
        rate.SkbDelivered(tx[5], 21000, End(5), false, true);
        delivered = 5;
        rate.Gen(delivered, 1, 1, 21400, minRttUs);
        NS_TEST_EXPECT_MSG_EQ(rs.delivered, 3, "C: delivered");
        NS_TEST_EXPECT_MSG_EQ(rs.snd_interval_us, 20000, "C: send phase");
        NS_TEST_EXPECT_MSG_EQ(rs.rcv_interval_us, 400, "C: ACK phase");
        NS_TEST_EXPECT_MSG_EQ(rs.interval_us, 20000, "C: the longer phase");
        NS_TEST_EXPECT_MSG_EQ(rs.is_app_limited, false, "C: sent after the bubble");
        NS_TEST_EXPECT_MSG_EQ(rs.losses, 1, "C: losses");

        // ACK D at 21500 acknowledges 4 and 5; 5 was counted at its SACK and is skipped: 4
        // gives prior_delivered 1, prior_mstamp 1000, send phase 1300 - 1000 = 300, ACK phase
        // 20500; delivered 6 - 1 = 5, app-limited (4 was sent in the bubble)
        rate.StartAck(1);
        rate.SkbDelivered(tx[4], 1300, End(4), false, false);
        rate.SkbDelivered(tx[5], 21000, End(5), false, false);
        delivered = 6;
        rate.Gen(delivered, 1, 0, 21500, minRttUs);
        NS_TEST_EXPECT_MSG_EQ(rs.prior_delivered, 1, "D: the SACKed segment counted once");
        NS_TEST_EXPECT_MSG_EQ(rs.delivered, 5, "D: delivered");
        NS_TEST_EXPECT_MSG_EQ(rs.interval_us, 20500, "D: interval");
        NS_TEST_EXPECT_MSG_EQ(rs.is_app_limited, true, "D: app-limited");

        // a duplicate that delivers nothing: no sample (delivered and interval -1, :141-145)
        rate.StartAck(0);
        rate.Gen(delivered, 0, 0, 21600, minRttUs);
        NS_TEST_EXPECT_MSG_EQ(rs.delivered, -1, "no sample: delivered");
        NS_TEST_EXPECT_MSG_EQ(rs.interval_us, -1, "no sample: interval");

        // a sample shorter than min_rtt is none (:173-181): 6 sent at 21600 with nothing out
        // restarts both phases there; acknowledged at 30000: 8400 < 20000
        TcpLinuxTxRate sixth;
        rate.SkbSent(sixth, 21600, 0, delivered);
        rate.StartAck(1);
        rate.SkbDelivered(sixth, 21600, End(6), false, false);
        rate.Gen(delivered + 1, 1, 0, 30000, minRttUs);
        NS_TEST_EXPECT_MSG_EQ(rs.delivered, 1, "short: delivered");
        NS_TEST_EXPECT_MSG_EQ(rs.interval_us, -1, "short: no interval");

        // two sends of the same µs: the higher end sequence is the later send
        // (tcp_skb_sent_after, include/net/tcp.h:1205-1208), whichever is delivered first
        TcpLinuxTxRate a;
        TcpLinuxTxRate b;
        rate.SkbSent(a, 40000, 0, 7);
        rate.SkbSent(b, 40000, 1, 8);
        rate.StartAck(2);
        rate.SkbDelivered(b, 40000, End(8), false, true);
        rate.SkbDelivered(a, 40000, End(7), false, false);
        NS_TEST_EXPECT_MSG_EQ(rate.GetSample().prior_delivered, 8, "tie: the higher end_seq");

        // tcp_rate_check_app_limited (:198-207): delivered + in flight, or 1 when both are 0
        rate.CheckAppLimited(false, 9, 2);
        NS_TEST_EXPECT_MSG_EQ(rate.GetAppLimited(), 0, "no gap, no mark");
        rate.CheckAppLimited(true, 9, 2);
        NS_TEST_EXPECT_MSG_EQ(rate.GetAppLimited(), 11, "gap: delivered + in flight");
        rate.CheckAppLimited(true, 0, 0);
        NS_TEST_EXPECT_MSG_EQ(rate.GetAppLimited(), 1, "gap at the start: 1");
    }
};

/**
 * tcp_wstamp_ns at 1 448 000 B/s, one segment a millisecond (tcp_update_skb_after_send,
 * tcp_output.c:1202-1222; __tcp_transmit_skb, :1257-1259). Times in ns.
 */
class PacingClockTestCase : public TestCase
{
  public:
    PacingClockTestCase()
        : TestCase("pacing clock: departure times at a given rate, credit, GSO packets")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t rate = 1448000;
        const uint64_t ms = 1000000;
        TcpLinuxPacingClock clock;
        // ten segments at 0: the first nine unpaced (data_segs_out < 10), the tenth advances
        // the clock by 1448 x 10^9 / 1448000 = 1 ms
        uint32_t segsOut = 0;
        for (uint32_t i = 1; i <= 9; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(clock.PacketStarts(0), 0, "first flight: now");
            clock.SegmentSent(MSS, true, rate, ++segsOut);
        }
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), 0, "nine segments: not paced");
        clock.PacketStarts(0);
        clock.SegmentSent(MSS, true, rate, ++segsOut);
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), ms, "the tenth is paced");
        NS_TEST_EXPECT_MSG_EQ(clock.Holds(0), true, "the next waits");
        NS_TEST_EXPECT_MSG_EQ(clock.Holds(ms), false, "until 1 ms");

        // on time at 1 ms: leaves at 1 ms, next at 2 ms
        NS_TEST_EXPECT_MSG_EQ(clock.PacketStarts(ms), ms, "on time");
        clock.SegmentSent(MSS, true, rate, ++segsOut);
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), 2 * ms, "one segment later");

        // 0.3 ms late (2.3 ms): credit 0.3 ms off the 1 ms: next at 3.0 ms
        NS_TEST_EXPECT_MSG_EQ(clock.PacketStarts(2300000), 2300000, "late: leaves now");
        clock.SegmentSent(MSS, true, rate, ++segsOut);
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), 3000000, "credit 0.3 ms");

        // 2 ms late (5 ms): the credit is at most half the length: next at 5.5 ms
        clock.PacketStarts(5 * ms);
        clock.SegmentSent(MSS, true, rate, ++segsOut);
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), 5500000, "credit at most half");

        // a send the clock does not hold (a timeout's retransmission) at 5.2 ms: its
        // timestamp is the clock's 5.5 ms, and the clock goes on from there
        NS_TEST_EXPECT_MSG_EQ(clock.PacketStarts(5200000), 5500000, "ahead: stamped 5.5 ms");
        clock.SegmentSent(MSS, true, rate, ++segsOut);
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), 6500000, "no credit ahead of the clock");

        // a GSO packet of three at 6.9 ms (0.4 ms late), one skb: 3 ms - 0.4 = 2.6 ms, so
        // 9.5 ms after its last segment; segment by segment 1 - 0.4, 2 - 0.4
        clock.PacketStarts(6900000);
        clock.SegmentSent(MSS, true, rate, ++segsOut);
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), 7500000, "GSO: after one");
        clock.SegmentSent(MSS, true, rate, ++segsOut);
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), 8500000, "GSO: after two");
        clock.SegmentSent(MSS, true, rate, ++segsOut);
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), 9500000, "GSO: the whole skb, 2.6 ms");

        // the length of the whole skb, rounded once: 2 x 1448 B at 3 000 000 B/s is
        // 2896 x 10^9 / 3 x 10^6 = 965333 ns, not 2 x 482666
        clock.PacketStarts(9500000);
        clock.SegmentSent(MSS, true, 3000000, ++segsOut);
        clock.SegmentSent(MSS, true, 3000000, ++segsOut);
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), 9500000 + 965333, "rounded per skb");

        // no pacing: SK_PACING_NONE, a rate of 0 or ~0UL
        const uint64_t at = clock.GetWstampNs();
        clock.PacketStarts(at);
        clock.SegmentSent(MSS, false, rate, ++segsOut);
        clock.PacketStarts(at);
        clock.SegmentSent(MSS, true, 0, ++segsOut);
        clock.PacketStarts(at);
        clock.SegmentSent(MSS, true, std::numeric_limits<uint64_t>::max(), ++segsOut);
        NS_TEST_EXPECT_MSG_EQ(clock.GetWstampNs(), at, "not paced");
    }
};

/**
 * The facts a TcpLinuxSocket would hand the bridge, set by hand, and the ACK's rate sample.
 */
class BbrFacts : public TcpLinuxFacts
{
  public:
    emusim_tcp_state facts{};     //!< the fields FillLinuxState copies
    emusim_rate_sample sample{};  //!< the ACK's sample
    bool fresh{false};            //!< the sample is not taken yet
    uint32_t appLimitedBack{~0U}; //!< what the bridge wrote back

    void FillLinuxState(emusim_tcp_state& state) const override
    {
        state.packets_out = facts.packets_out;
        state.sacked_out = facts.sacked_out;
        state.lost_out = facts.lost_out;
        state.retrans_out = facts.retrans_out;
        state.delivered = facts.delivered;
        state.delivered_mstamp = facts.delivered_mstamp;
        state.lost = facts.lost;
        state.app_limited = facts.app_limited;
        state.srtt_us = facts.srtt_us;
        state.min_rtt_us = facts.min_rtt_us;
        state.tcp_wstamp_ns = 0;
        state.max_pacing_rate = std::numeric_limits<uint64_t>::max();
    }

    void LastAckSample(int32_t& rttUs, uint32_t& inFlightBytes) const override
    {
        rttUs = -1;
        inFlightBytes = 0;
    }

    uint32_t LastAckDelivered() const override
    {
        return sample.acked_sacked;
    }

    bool AckRestartsRecovery() const override
    {
        return false;
    }

    bool TakeRateSample(emusim_rate_sample& rs) override
    {
        if (!fresh)
        {
            return false;
        }
        fresh = false;
        rs = sample;
        return true;
    }

    void SetAppLimited(uint32_t appLimited) override
    {
        appLimitedBack = appLimited;
    }
};

/**
 * tcp_bbr.c through the bridge: bbr_init's pacing rate, one cong_control call in STARTUP, and
 * one at the start of a recovery (bbr_main, tcp_bbr.c:1026-1036). srtt and min_rtt 20 ms,
 * cwnd 10, 1448-byte segments. BW_SCALE 24, BBR_SCALE 8; high_gain = 256 x 2885 / 1000 + 1 =
 * 739 (:154); a rate in bytes per second is bw x mss x gain >> 8 x 990000 >> 24 (1 % margin,
 * bbr_rate_bytes_per_sec, :244-253).
 */
class BbrCongControlTestCase : public TestCase
{
  public:
    BbrCongControlTestCase()
        : TestCase("bbr: cong_control sets the window and pacing rate; packet conservation")
    {
    }

  private:
    void DoRun() override
    {
        auto cc = CreateObject<TcpLinuxCongestion>();
        cc->SetAttribute("Algorithm", StringValue("bbr"));
        NS_TEST_EXPECT_MSG_EQ(cc->HasCongControl(), true, "bbr has cong_control");
        auto reno = CreateObject<TcpLinuxCongestion>();
        reno->SetAttribute("Algorithm", StringValue("reno"));
        NS_TEST_EXPECT_MSG_EQ(reno->HasCongControl(), false, "reno has cong_avoid");

        BbrFacts facts;
        facts.facts.delivered = 1; // the SYN
        facts.facts.srtt_us = 8 * 20000;
        facts.facts.min_rtt_us = 20000;
        cc->SetFacts(&facts);
        auto tcb = CreateObject<TcpSocketState>();
        tcb->m_segmentSize = MSS;
        tcb->m_cWnd = 10 * MSS;
        tcb->m_ssThresh = std::numeric_limits<uint32_t>::max();

        // bbr_init (:1038-1078), bbr_init_pacing_rate_from_rtt (:266-282): bw = 10 x 2^24 /
        // 20000 = 8388; 8388 x 1448 = 12145824, x 739 = 8975763936, >> 8 = 35061577,
        // x 990000 = 34710961230000, >> 24 = 2068934 B/s; and it asks TCP to pace
        cc->StartConnection(tcb);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_pacingRate.Get().GetBitRate(), 8 * 2068934, "init rate");
        NS_TEST_EXPECT_MSG_EQ(cc->GetPacingStatus(), 1, "SK_PACING_NEEDED");

        // an ACK whose sample is 20 segments in 20 ms, from a segment sent when delivered was 1
        // (a round starts: prior_delivered 1 >= next_rtt_delivered 1, :771-776), 1 acked:
        // bw = 20 x 2^24 / 20000 = 16777 (:784); the pacing rate rises to 16777 x 1448 =
        // 24293096, x 739 = 17952597944, >> 8 = 70127335, x 990000 >> 24 = 4138115 (:293-294);
        // the target window, bbr_bdp (:359-381): 16777 x 20000 = 335540000, x 739 >> 8 =
        // 968609609, rounded up in 2^24: 58; plus 3 x bbr_tso_segs_goal (4138115 >> 10 = 4041
        // bytes, 2 segments, at least bbr_min_tso_segs 2: :303-317) = 64, even (:394-409).
        // Below it and not yet full: cwnd + acked = 11 (:539-544)
        facts.facts.delivered = 21;
        facts.facts.delivered_mstamp = 20000;
        facts.facts.packets_out = 10;
        facts.sample = emusim_rate_sample{};
        facts.sample.prior_delivered = 1;
        facts.sample.delivered = 20;
        facts.sample.interval_us = 20000;
        facts.sample.rtt_us = 20000;
        facts.sample.acked_sacked = 1;
        facts.fresh = true;
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 10 * MSS, "no cong_avoid");
        cc->CongControl(tcb, TcpRateOps::TcpRateConnection{}, TcpRateOps::TcpRateSample{});
        NS_TEST_EXPECT_MSG_EQ(facts.fresh, false, "the sample was taken");
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 11 * MSS, "slow start toward the target");
        NS_TEST_EXPECT_MSG_EQ(tcb->m_pacingRate.Get().GetBitRate(), 8 * 4138115, "rate");
        NS_TEST_EXPECT_MSG_EQ(facts.appLimitedBack, 0, "app_limited written back");
        // taken once: a second call for the same ACK does nothing
        tcb->m_cWnd = 30 * MSS;
        cc->CongControl(tcb, TcpRateOps::TcpRateConnection{}, TcpRateOps::TcpRateSample{});
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 30 * MSS, "no sample, no call");
        tcb->m_cWnd = 11 * MSS;

        // recovery starts: bbr_ssthresh saves cwnd 11 (bbr_save_cwnd, :320-329) and returns
        // ssthresh unchanged (:1100-1104); the ACK (1 delivered, 1 lost, 30 out, 3 SACKed, 1
        // lost: 26 in flight) gets packet conservation: cwnd - losses = 10, then in flight +
        // acked = 27 (bbr_set_cwnd_to_recover_or_restore, :491-509), whatever the window was
        tcb->m_congState = TcpSocketState::CA_RECOVERY;
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(tcb, 0),
                              std::numeric_limits<uint32_t>::max(),
                              "ssthresh kept");
        facts.facts.packets_out = 30;
        facts.facts.sacked_out = 3;
        facts.facts.lost_out = 1;
        facts.facts.delivered = 22;
        facts.sample = emusim_rate_sample{};
        facts.sample.prior_delivered = 11;
        facts.sample.delivered = 11;
        facts.sample.interval_us = 20000;
        facts.sample.rtt_us = 20000;
        facts.sample.acked_sacked = 1;
        facts.sample.losses = 1;
        facts.fresh = true;
        cc->CongControl(tcb, TcpRateOps::TcpRateConnection{}, TcpRateOps::TcpRateSample{});
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 27 * MSS, "in flight + acked");
        cc->SetFacts(nullptr);
    }
};

/**
 * A bbr connection's first flight and the next (RackRun: 100 Mb/s, 20 ms each way, 30
 * segments written at once, no loss). The ten of the initial window leave at once (data_segs_out
 * below 10, and the tenth's length starts the clock). bbr_init set the rate from the
 * handshake's round trip r (µs, srtt = r): bw = 10 x 2^24 / r, rate = bw x 1448 x 739 >> 8 x
 * 990000 >> 24 (above); a segment's length is L = 1448 x 10^9 / rate ns. The first ACK of data
 * comes long after the clock, so the 11th leaves at once with the credit at its most, half its
 * length: the 12th follows L - L/2 later, each of the next L after the one before (the clock's
 * timer: tcp_pace_kick), while the window has room and no ACK of the second flight is back.
 */
class BbrFirstPacedFlightTestCase : public TestCase
{
  public:
    BbrFirstPacedFlightTestCase()
        : TestCase("bbr on TcpLinuxSocket: the second flight leaves at the pacing rate")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        RackRun run;
        run.algorithm = "bbr";
        run.Go(drop, 30, true);
        NS_TEST_ASSERT_MSG_GT(run.sent.size(), 15, "the second flight went out");
        for (uint32_t i = 1; i < 10; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(run.sent[i].at, run.sent[0].at, "the first ten at once");
        }
        // the socket's RTT sample: whole µs of its clock at the SYN-ACK less at the SYN
        const uint64_t rttUs = static_cast<uint64_t>(run.synAckReceived.GetMicroSeconds() -
                                                     run.synSent.GetMicroSeconds());
        const uint64_t bw = (uint64_t{10} << 24) / rttUs;
        const uint64_t rate = ((bw * MSS * 739) >> 8) * 990000 >> 24;
        const int64_t lengthNs = static_cast<int64_t>(uint64_t{MSS} * 1000000000 / rate);
        const Time first = run.sent[10].at;
        NS_TEST_EXPECT_MSG_EQ(first, run.acks.front().at, "the 11th on the first ACK");
        Time expected = first + NanoSeconds(lengthNs - lengthNs / 2);
        for (uint32_t i = 11; i < 16; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(run.sent[i].segment, i + 1, "in order, no retransmission");
            NS_TEST_EXPECT_MSG_EQ(run.sent[i].at, expected, "segment " << i + 1);
            expected += NanoSeconds(lengthNs);
        }
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetLinuxAlgorithm(), "bbr", "bbr ran");
        run.Done();
    }
};

/// TestSuite emusim-tcp-linux-bbr.
class TcpLinuxBbrTestSuite : public TestSuite
{
  public:
    TcpLinuxBbrTestSuite()
        : TestSuite("emusim-tcp-linux-bbr", Type::UNIT)
    {
        AddTestCase(new RateSampleTestCase, TestCase::Duration::QUICK);
        AddTestCase(new PacingClockTestCase, TestCase::Duration::QUICK);
        AddTestCase(new BbrCongControlTestCase, TestCase::Duration::QUICK);
        AddTestCase(new BbrFirstPacedFlightTestCase, TestCase::Duration::QUICK);
    }
};

TcpLinuxBbrTestSuite g_tcpLinuxBbrTestSuite;

} // namespace
