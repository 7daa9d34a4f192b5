/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TestSuite emusim-tcp-linux-cwr: a window reduction Linux's congestion control starts itself
 * (tcp_enter_cwr, which tcp_cdg's backoff calls), carried out by TcpLinuxSocket, against an
 * episode worked out by hand from Linux 6.1.192's tcp_input.c and tcp_cdg.c.
 */

#include "linux-socket-run.h"

#include "ns3/test.h"

using namespace ns3;
using namespace ns3::linux_socket_test;

namespace
{

/// The ACK of segment `k` (its cumulative acknowledgment number), or acks.end().
std::vector<RackRun::Ack>::const_iterator
AckOf(const RackRun& run, uint32_t k)
{
    return std::find_if(run.acks.begin(), run.acks.end(), [k](const RackRun::Ack& a) {
        return a.ack == 1 + k * MSS;
    });
}

/// The segments first sent at an instant (those an ACK let out), in order.
std::vector<uint32_t>
SentAt(const RackRun& run, Time at)
{
    std::vector<uint32_t> segments;
    for (const auto& s : run.sent)
    {
        if (s.at == at)
        {
            segments.push_back(s.segment);
        }
    }
    return segments;
}

/// cdg's backoff_factor that makes this run's backoff certain, and its default (tcp_cdg.c:40)
constexpr const char* CERTAIN_BACKOFF = "tcp_cdg.backoff_factor=65536";
constexpr const char* DEFAULT_BACKOFF = "tcp_cdg.backoff_factor=42";

/**
 * One CWR episode of cdg, without loss, worked by hand. Sender and receiver as in the other
 * Linux socket suites (20 ms each way, 100 Mb/s; the receiver acknowledges every segment while
 * its window grows).
 *
 * - Round 1: segments 1-10 go out at once at the handshake's end and come back acknowledged one
 *   by one, 120 µs apart (1502 bytes at 100 Mb/s), so their RTT samples grow by 120 µs each.
 *   Slow start takes cwnd from 10 to 20; segments 11-30 go out.
 * - The ACK of segment 1 ends cdg's first round (rtt_seq, the end of the initial snd_nxt, is
 *   passed): its gradient needs a previous round, so none; rtt_prev is segment 1's sample and
 *   rtt_seq the end of segment 10 (tcp_cdg_cong_avoid, tcp_cdg.c:272-285).
 * - The ACK of segment 11 ends the next: rtt.min (segment 2's) less rtt_prev.min (segment 1's)
 *   is 120 µs; the window of gradients has one of its 8 places filled, so grad = 120 x 8 / 1 =
 *   960 (tcp_cdg_grad, :190-239). With backoff_factor 65536, 960 x 65536 >= 2^24 makes
 *   nexp_u32 0 (:115-117), and the backoff happens unless get_random_u32() is 0 (:246-247).
 * - tcp_enter_cwr on that ACK (tcp_input.c:2726-2736, 2669-2681): cwnd stays 20 (prior_cwnd),
 *   ssthresh = max(2, 20 x 724 >> 10) = 14 (tcp_cdg_ssthresh, :333-334; backoff_beta =
 *   0.7071 x 1024 = 724), state CWR, high_seq = the end of segment 30. The window is not reduced
 *   on that ACK (cong_avoid is tcp_cong_control's other branch): one segment left, 31 goes out
 *   (prr_out 1).
 * - The ACKs of segments 12-30, one segment each, no loss: PRR (tcp_cwnd_reduction,
 *   tcp_input.c:2683-2707), prr_delivered = k - 11, in flight after the ACK = highest sent - k,
 *   delta = 14 - in flight; delta < 0: sndcnt = ceil(14 x prr_delivered / 20) - prr_out, else
 *   min(delta, max(prr_delivered - prr_out, 1) + 1); cwnd = in flight + sndcnt, and
 *   cwnd - in flight new segments go out:
 *
 *       ACK of  12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30
 *       in fl.  19 18 18 18 17 17 17 16 16 16 15 15 15 15 14 13 13 13 13
 *       sndcnt   0  1  1  0  1  1  0  1  1  0  1  1  1  0  0  1  1  1  1
 *       cwnd    19 19 19 18 18 18 17 17 17 16 16 16 16 15 14 14 14 14 14
 *       sent     - 32 33  - 34 35  - 36 37  - 38 39 40  -  - 41 42 43 44
 *
 *   (ACK 13: ceil(28 / 20) - 1 = 1; ACK 15: ceil(56 / 20) - 3 = 0; ACK 26: delta 0, so 0;
 *   ACK 27: delta 1, max(16 - 11, 1) + 1 = 7, so 1.)
 * - The ACK of segment 31 goes beyond high_seq: the episode ends, cwnd = ssthresh = 14,
 *   COMPLETE_CWR to cdg, state Open (tcp_end_cwnd_reduction, :2709-2723; tcp_fastretrans_alert,
 *   :3061-3070); Reno's growth in congestion avoidance on the same ACK adds one to a count of 14
 *   (tcp_cong_avoid_ai), so cwnd stays 14 and segment 45 goes out.
 */
class CwrEpisodeTestCase : public TestCase
{
  public:
    CwrEpisodeTestCase()
        : TestCase("cdg's backoff: one CWR episode, the window per ACK as PRR reduces it")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        RackRun run;
        run.algorithm = "cdg";
        run.moduleParameters = CERTAIN_BACKOFF;
        run.Go(drop, 100, true, true, true, true);

        const auto cwr = std::find_if(run.states.begin(), run.states.end(), [](const auto& s) {
            return s.second == TcpSocketState::CA_CWR;
        });
        NS_TEST_ASSERT_MSG_EQ((cwr != run.states.end()), true, "a CWR episode");
        const auto ack11 = AckOf(run, 11);
        NS_TEST_ASSERT_MSG_EQ((ack11 != run.acks.end()), true, "segment 11 acknowledged");
        NS_TEST_ASSERT_MSG_EQ(cwr->first, ack11->at, "entered on the ACK of segment 11");
        const Time entry = ack11->at;
        const auto cwndAfter = [&run](Time t) {
            return RackRun::Before(run.cwnd, t + NanoSeconds(1), 10 * MSS) / MSS;
        };
        NS_TEST_EXPECT_MSG_EQ(RackRun::Before(run.cwnd, entry, 10 * MSS) / MSS, 20, "cwnd before");
        NS_TEST_EXPECT_MSG_EQ(cwndAfter(entry), 20, "not reduced on the entry ACK");
        NS_TEST_EXPECT_MSG_EQ(RackRun::Before(run.ssthresh, entry + NanoSeconds(1), 0) / MSS,
                              14,
                              "ssthresh = 20 x 724 >> 10");
        NS_TEST_EXPECT_MSG_EQ(SentAt(run, entry).size(), 1, "one segment on the entry ACK");
        NS_TEST_EXPECT_MSG_EQ(SentAt(run, entry).front(), 31, "segment 31");

        // the table of the class comment: ACK of k -> cwnd after it, the segment it let out
        const std::map<uint32_t, std::pair<uint32_t, uint32_t>> expected = {{12, {19, 0}},
                                                                            {13, {19, 32}},
                                                                            {14, {19, 33}},
                                                                            {15, {18, 0}},
                                                                            {16, {18, 34}},
                                                                            {17, {18, 35}},
                                                                            {18, {17, 0}},
                                                                            {19, {17, 36}},
                                                                            {20, {17, 37}},
                                                                            {21, {16, 0}},
                                                                            {22, {16, 38}},
                                                                            {23, {16, 39}},
                                                                            {24, {16, 40}},
                                                                            {25, {15, 0}},
                                                                            {26, {14, 0}},
                                                                            {27, {14, 41}},
                                                                            {28, {14, 42}},
                                                                            {29, {14, 43}},
                                                                            {30, {14, 44}}};
        for (const auto& [k, want] : expected)
        {
            const auto ack = AckOf(run, k);
            NS_TEST_ASSERT_MSG_EQ((ack != run.acks.end()), true, "segment " << k << " acked");
            NS_TEST_EXPECT_MSG_EQ(
                RackRun::Before(run.states, ack->at + NanoSeconds(1), TcpSocketState::CA_OPEN),
                TcpSocketState::CA_CWR,
                "in CWR after the ACK of " << k);
            NS_TEST_EXPECT_MSG_EQ(cwndAfter(ack->at), want.first, "cwnd after the ACK of " << k);
            const auto out = SentAt(run, ack->at);
            NS_TEST_EXPECT_MSG_EQ(out.size(), want.second ? 1 : 0, "sent on the ACK of " << k);
            if (want.second != 0 && !out.empty())
            {
                NS_TEST_EXPECT_MSG_EQ(out.front(), want.second, "the segment the ACK of " << k);
            }
        }

        const auto ack31 = AckOf(run, 31);
        NS_TEST_ASSERT_MSG_EQ((ack31 != run.acks.end()), true, "segment 31 acknowledged");
        NS_TEST_EXPECT_MSG_EQ(RackRun::Before(run.states, ack31->at, TcpSocketState::CA_OPEN),
                              TcpSocketState::CA_CWR,
                              "CWR until the ACK of 31");
        NS_TEST_EXPECT_MSG_EQ(
            RackRun::Before(run.states, ack31->at + NanoSeconds(1), TcpSocketState::CA_CWR),
            TcpSocketState::CA_OPEN,
            "Open after it");
        NS_TEST_EXPECT_MSG_EQ(cwndAfter(ack31->at), 14, "cwnd = ssthresh");
        NS_TEST_EXPECT_MSG_EQ(SentAt(run, ack31->at).size(), 1, "one segment on it");
        NS_TEST_EXPECT_MSG_EQ(SentAt(run, ack31->at).front(), 45, "segment 45");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 100 * MSS, "everything acknowledged");
        run.Done();
        TcpLinuxCongestion::SetModuleParameters(DEFAULT_BACKOFF);
    }
};

/// The duplicate ACK that SACKs segments 21 to `last` (the hole at 20), or acks.end().
std::vector<RackRun::Ack>::const_iterator
SackOf(const RackRun& run, uint32_t last)
{
    return std::find_if(run.acks.begin(), run.acks.end(), [last](const RackRun::Ack& a) {
        return a.ack == 1 + 19 * MSS && a.sack.size() == 1 && a.sack[0].first == 1 + 20 * MSS &&
               a.sack[0].second == 1 + last * MSS;
    });
}

/**
 * A loss in the episode: the same run as CwrEpisodeTestCase with segment 20 lost once. Up to
 * the ACK of 19 the table there holds. Then duplicate ACKs of 19 SACK 21, 21-22, ...; RACK's
 * reordering window is min_rtt / 4 while fewer than three segments are SACKed and 0 from the
 * third (tcp_rack_reo_wnd, tcp_recovery.c:9-20), so segment 20 is marked lost on the ACK that
 * SACKs 23, and recovery starts within the reduction: no new one, ssthresh stays 14, PRR's
 * counts go on, high_seq stays the end of segment 30 (tcp_enter_recovery, tcp_input.c:
 * 2894-2899). In flight = packets out - SACKed - lost + retransmitted:
 *
 *       ACK          [21]  [21-22]  [21-23]  [21-24]
 *       out (20-)      17      18       18       18
 *       SACKed          1       2        3        4
 *       lost            0       0        1        1
 *       in flight      16      16       14       13
 *       prr_delivered   9      10       11       12
 *       prr_out         6       7        7        7
 *       delta          -2      -2        0        1
 *       sndcnt          1       0        0        1
 *       cwnd           17      16       14       14
 *       sent           37       -        -       20 again
 *
 * ([21]: ceil(14 x 9 / 20) - 6 = 1; [21-23]: delta 0, so 0, and nothing goes out on entering
 * recovery, prr_out being past 0; [21-24]: min(1, max(12 - 7, 1)) = 1, the retransmission.)
 * The recovery ends on the first ACK at or beyond high_seq, the one the retransmission brings
 * (37), with cwnd = ssthresh = 14, in Open.
 */
class CwrThenRecoveryTestCase : public TestCase
{
  public:
    CwrThenRecoveryTestCase()
        : TestCase("A loss in CWR: recovery goes on with the reduction under way")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        drop->m_drops = {{20, 1}};
        RackRun run;
        run.algorithm = "cdg";
        run.moduleParameters = CERTAIN_BACKOFF;
        run.Go(drop, 100, true, true, true, true);

        const auto ack11 = AckOf(run, 11);
        NS_TEST_ASSERT_MSG_EQ((ack11 != run.acks.end()), true, "segment 11 acknowledged");
        NS_TEST_ASSERT_MSG_EQ(
            RackRun::Before(run.states, ack11->at + NanoSeconds(1), TcpSocketState::CA_OPEN),
            TcpSocketState::CA_CWR,
            "CWR from the ACK of 11");
        const auto cwndAfter = [&run](Time t) {
            return RackRun::Before(run.cwnd, t + NanoSeconds(1), 10 * MSS) / MSS;
        };

        // ACK [21-last] -> state after it, cwnd after it, segment it let out (0: none)
        struct Row
        {
            uint32_t last;
            TcpSocketState::TcpCongState_t state;
            uint32_t cwnd;
            uint32_t sent;
        };

        const std::vector<Row> rows = {{21, TcpSocketState::CA_CWR, 17, 37},
                                       {22, TcpSocketState::CA_CWR, 16, 0},
                                       {23, TcpSocketState::CA_RECOVERY, 14, 0},
                                       {24, TcpSocketState::CA_RECOVERY, 14, 20}};
        for (const auto& row : rows)
        {
            const auto ack = SackOf(run, row.last);
            NS_TEST_ASSERT_MSG_EQ((ack != run.acks.end()), true, "SACK of 21-" << row.last);
            NS_TEST_EXPECT_MSG_EQ(
                RackRun::Before(run.states, ack->at + NanoSeconds(1), TcpSocketState::CA_OPEN),
                row.state,
                "state after [21-" << row.last << "]");
            NS_TEST_EXPECT_MSG_EQ(cwndAfter(ack->at), row.cwnd, "cwnd after [21-" << row.last);
            const auto out = SentAt(run, ack->at);
            NS_TEST_EXPECT_MSG_EQ(out.size(), row.sent ? 1 : 0, "sent on [21-" << row.last);
            if (row.sent != 0 && !out.empty())
            {
                NS_TEST_EXPECT_MSG_EQ(out.front(), row.sent, "the segment on [21-" << row.last);
            }
        }
        // one threshold, the backoff's, from the CWR's start to the recovery's end
        const auto ack37 = AckOf(run, 37);
        NS_TEST_ASSERT_MSG_EQ((ack37 != run.acks.end()), true, "the retransmission fills the hole");
        uint32_t thresholds = 0;
        for (const auto& [at, value] : run.ssthresh)
        {
            if (at >= ack11->at && at <= ack37->at)
            {
                ++thresholds;
                NS_TEST_EXPECT_MSG_EQ(value / MSS, 14, "the backoff's threshold");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(thresholds, 1, "no second reduction for the loss");
        NS_TEST_EXPECT_MSG_EQ(RackRun::Before(run.states, ack37->at, TcpSocketState::CA_OPEN),
                              TcpSocketState::CA_RECOVERY,
                              "in recovery until the ACK of 37");
        NS_TEST_EXPECT_MSG_EQ(
            RackRun::Before(run.states, ack37->at + NanoSeconds(1), TcpSocketState::CA_RECOVERY),
            TcpSocketState::CA_OPEN,
            "Open after it");
        NS_TEST_EXPECT_MSG_EQ(cwndAfter(ack37->at), 14, "cwnd = ssthresh");
        NS_TEST_EXPECT_MSG_EQ(run.lossState, false, "no retransmission timeout");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 100 * MSS, "everything acknowledged");
        run.Done();
        TcpLinuxCongestion::SetModuleParameters(DEFAULT_BACKOFF);
    }
};

/**
 * A loss just beyond the episode: the same run with segment 31 lost once, the first segment
 * beyond high_seq (the end of 30), sent on the ACK that began CWR. The table of
 * CwrEpisodeTestCase holds to the ACK of 30, which does not end the episode (it is high_seq,
 * not beyond). Duplicate ACKs of 30 follow; on the one that SACKs 32-34 RACK marks 31 lost and
 * recovery starts within the reduction, high_seq still the end of 30 = snd_una; there 31 is
 * retransmitted. The next duplicate ACK (SACKing 32-35) ends that recovery at once, snd_una
 * being at high_seq (tcp_fastretrans_alert, tcp_input.c:3061, 3072-3078): it echoes the send of
 * segment 35, older than the retransmission, so the reduction is undone (tcp_try_undo_recovery,
 * :2591-2617; with prior_ssthresh 0 since CWR neither window nor threshold changes, :2541-2568),
 * the state is Open, and tcp_end_cwnd_reduction tells cdg COMPLETE_CWR (its state back to
 * unknown, tcp_cdg.c:362-367). 31 is still marked lost: recovery starts again, a new reduction
 * with cdg's ssthresh out of backoff (:336-342): shadow_wnd = min(shadow_wnd >> 1, cwnd) =
 * min(20 >> 1, 14) = 10 (shadow_wnd grew with cwnd to 20 in slow start, :295-296, and was kept
 * at the backoff, :255), and max3(2, 10, 14 >> 1) = 10. (Without COMPLETE_CWR cdg would still
 * be backing off: 14 x 724 >> 10 = 9.)
 */
class CwrLossBeyondHighSeqTestCase : public TestCase
{
  public:
    CwrLossBeyondHighSeqTestCase()
        : TestCase("A loss just beyond CWR's high_seq: recovery, undone at once, then again")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        drop->m_drops = {{31, 1}};
        RackRun run;
        run.algorithm = "cdg";
        run.moduleParameters = CERTAIN_BACKOFF;
        run.Go(drop, 100, true, true, true, true);

        const auto ack30 = AckOf(run, 30);
        NS_TEST_ASSERT_MSG_EQ((ack30 != run.acks.end()), true, "segment 30 acknowledged");
        NS_TEST_EXPECT_MSG_EQ(
            RackRun::Before(run.states, ack30->at + NanoSeconds(1), TcpSocketState::CA_OPEN),
            TcpSocketState::CA_CWR,
            "still CWR at high_seq");
        const auto sack = [&run](uint32_t last) {
            return std::find_if(run.acks.begin(), run.acks.end(), [last](const RackRun::Ack& a) {
                return a.ack == 1 + 30 * MSS && a.sack.size() == 1 &&
                       a.sack[0].first == 1 + 31 * MSS && a.sack[0].second == 1 + last * MSS;
            });
        };
        const auto sack34 = sack(34);
        const auto sack35 = sack(35);
        NS_TEST_ASSERT_MSG_EQ((sack34 != run.acks.end() && sack35 != run.acks.end()),
                              true,
                              "duplicate ACKs of 30 SACKing 32-34 and 32-35");
        NS_TEST_EXPECT_MSG_EQ(
            RackRun::Before(run.states, sack34->at + NanoSeconds(1), TcpSocketState::CA_OPEN),
            TcpSocketState::CA_RECOVERY,
            "recovery on the third SACKed segment");
        const auto sends31 = run.SendsOf(31);
        NS_TEST_ASSERT_MSG_EQ(sends31.size(), 2, "segment 31 sent twice");
        NS_TEST_EXPECT_MSG_EQ(sends31[1], sack34->at, "retransmitted as recovery starts");
        // on the next ACK: Open (the recovery's end), then Disorder and Recovery again
        std::vector<TcpSocketState::TcpCongState_t> onSack35;
        for (const auto& [at, state] : run.states)
        {
            if (at == sack35->at)
            {
                onSack35.push_back(state);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(onSack35.size(), 3, "three changes on the ACK SACKing 32-35");
        NS_TEST_EXPECT_MSG_EQ(onSack35[0], TcpSocketState::CA_OPEN, "the recovery ends");
        NS_TEST_EXPECT_MSG_EQ(onSack35[2], TcpSocketState::CA_RECOVERY, "and starts again");
        // thresholds: the backoff's on the ACK of 11, none at the first recovery, 10 at the second
        std::vector<std::pair<Time, uint32_t>> thresholds;
        for (const auto& [at, value] : run.ssthresh)
        {
            if (at > run.synAckReceived && at <= sack35->at)
            {
                thresholds.emplace_back(at, value / MSS);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(thresholds.size(), 2, "two reductions");
        NS_TEST_EXPECT_MSG_EQ(thresholds[0].first, AckOf(run, 11)->at, "the backoff's");
        NS_TEST_EXPECT_MSG_EQ(thresholds[0].second, 14, "20 x 724 >> 10");
        NS_TEST_EXPECT_MSG_EQ(thresholds[1].first, sack35->at, "the second recovery's");
        NS_TEST_EXPECT_MSG_EQ(thresholds[1].second, 10, "cdg out of backoff: max3(2, 10, 7)");
        NS_TEST_EXPECT_MSG_EQ(run.lossState, false, "no retransmission timeout");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 100 * MSS, "everything acknowledged");
        run.Done();
        TcpLinuxCongestion::SetModuleParameters(DEFAULT_BACKOFF);
    }
};

class TcpLinuxCwrTestSuite : public TestSuite
{
  public:
    TcpLinuxCwrTestSuite()
        : TestSuite("emusim-tcp-linux-cwr", Type::UNIT)
    {
        AddTestCase(new CwrEpisodeTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new CwrThenRecoveryTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new CwrLossBeyondHighSeqTestCase(), TestCase::Duration::QUICK);
    }
};

/// The suite's instance (registers it).
TcpLinuxCwrTestSuite g_tcpLinuxCwrTestSuite;

} // namespace
