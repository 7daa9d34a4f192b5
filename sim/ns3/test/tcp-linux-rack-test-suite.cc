/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TestSuite emusim-tcp-linux-rack: TcpLinuxSocket's RACK (tcp_recovery.c of Linux 6.1.192)
 * against instants worked out by hand from the source and the run's own send and ACK times.
 */

#include "linux-socket-run.h"

#include "ns3/test.h"

using namespace ns3;
using namespace ns3::linux_socket_test;

namespace
{

/**
 * A lone hole: of three segments the second is lost, so one SACK comes back and RFC 6675 (three
 * SACKed segments, or three duplicate ACKs) never fires. RACK's reordering window is then
 * min_rtt / 4 (fewer than `reordering` = 3 SACKed, not in recovery: tcp_rack_reo_wnd,
 * tcp_recovery.c:9-20), RACK's RTT that of segment 3, so segment 2 is lost
 * rtt(3) + min_rtt / 4 after its send, i.e. min_rtt / 4 - (send(3) - send(2)) after the SACK
 * arrives; the timer adds TCP_TIMEOUT_MIN_US (2 ms), rounds up to jiffies and fires on the
 * wheel's tick one jiffy past that (tcp_rack_mark_lost, :106-110; TimerWheelTestCase), where
 * recovery starts and segment 2 is retransmitted
 * (tcp_rack_reo_timeout, :149-167). Without RACK the retransmission waits for the RTO.
 */
class RackLoneHoleTestCase : public TestCase
{
  public:
    RackLoneHoleTestCase()
        : TestCase(
              "RACK: a lone hole goes on the reordering timer, a quarter of min_rtt after its send")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        drop->m_drops = {{2, 1}};
        RackRun run;
        run.Go(drop, 3, true);

        const auto sends2 = run.SendsOf(2);
        const auto sends3 = run.SendsOf(3);
        NS_TEST_ASSERT_MSG_EQ(sends2.size(), 2, "segment 2 sent twice");
        NS_TEST_ASSERT_MSG_EQ(sends3.size(), 1, "segment 3 sent once");
        // min_rtt: the smaller of the handshake's round trip and segment 1's (its ACK is the
        // first ACK of data, sent at once: a quick ACK)
        const auto sends1 = run.SendsOf(1);
        const auto ack1 = std::find_if(run.acks.begin(), run.acks.end(), [](const auto& a) {
            return a.ack == 1 + MSS;
        });
        NS_TEST_ASSERT_MSG_EQ((ack1 != run.acks.end()), true, "segment 1 acknowledged");
        const int64_t minRttUs = std::min((run.synAckReceived - run.synSent).GetMicroSeconds(),
                                          (ack1->at - sends1[0]).GetMicroSeconds());
        // the ACK that SACKs segment 3
        const auto sackAck = run.FirstSack();
        NS_TEST_ASSERT_MSG_EQ((sackAck != run.acks.end()), true, "a SACK");
        const int64_t nowUs = sackAck->at.GetMicroSeconds();
        const int64_t rackRttUs = nowUs - sends3[0].GetMicroSeconds();
        const int64_t remainingUs =
            rackRttUs + minRttUs / 4 - (nowUs - sends2[0].GetMicroSeconds());
        NS_TEST_ASSERT_MSG_GT(remainingUs, 0, "segment 2 not lost at once");
        const int64_t jiffies = (remainingUs + 2000 + 3999) / 4000;
        NS_TEST_EXPECT_MSG_EQ(sends2[1],
                              TickAfter(sackAck->at, jiffies),
                              "retransmitted on the tick");
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetRackReoTimeouts(), 1, "one reordering timeout");
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetRackMarkedLost(), 1, "one segment marked lost");
        NS_TEST_EXPECT_MSG_EQ(run.lossState, false, "no retransmission timeout");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 3 * MSS, "everything acknowledged");
        run.Done();

        // without RACK: the RTO (at least 200 ms after the send)
        auto dropAgain = CreateObject<SegmentDropper>();
        dropAgain->m_drops = {{2, 1}};
        RackRun classic;
        classic.Go(dropAgain, 3, false);
        const auto classic2 = classic.SendsOf(2);
        NS_TEST_ASSERT_MSG_EQ(classic2.size(), 2, "segment 2 sent twice without RACK");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(classic2[1] - classic2[0],
                                    MilliSeconds(200),
                                    "without RACK the RTO retransmits");
        NS_TEST_EXPECT_MSG_EQ(classic.lossState, true, "without RACK a timeout");
        classic.Done();
    }
};

/**
 * Recovery begun by the reordering timer. Of three segments the second is lost, and so is the
 * ACK of the first, so the ACK that SACKs segment 3 also acknowledges segment 1: it delivers two
 * segments. The reordering timer later marks segment 2 lost (as in RackLoneHoleTestCase) and
 * starts recovery with tcp_cwnd_reduction(sk, 1, newly lost, 0) (tcp_rack_reo_timeout,
 * tcp_recovery.c:157-161): one segment delivered, not the last ACK's two. Worked by hand from
 * tcp_cwnd_reduction (tcp_input.c:2683-2707): nothing is in flight (segment 2 lost, 3 SACKed),
 * ssthresh = max(cwnd / 2, 2) (Reno) is above that, so sndcnt = max(prr_delivered - prr_out,
 * 1) = 1 with no bonus (flag 0) and cwnd = 0 + 1 = one segment. With the ACK's two it would
 * be two.
 */
class RackTimerRecoveryTestCase : public TestCase
{
  public:
    RackTimerRecoveryTestCase()
        : TestCase("RACK: recovery begun by the reordering timer counts one segment delivered")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        drop->m_drops = {{2, 1}};
        RackRun run;
        run.ackDropper = CreateObject<AckDropper>();
        run.ackDropper->m_acks = {1 + MSS};
        run.Go(drop, 3, true);

        const auto sends2 = run.SendsOf(2);
        NS_TEST_ASSERT_MSG_EQ(sends2.size(), 2, "segment 2 sent twice");
        // the ACK that both acknowledges segment 1 and SACKs segment 3 came before the timer
        const auto sackAck = run.FirstSack();
        NS_TEST_ASSERT_MSG_EQ((sackAck != run.acks.end()), true, "a SACK");
        NS_TEST_ASSERT_MSG_EQ(sackAck->ack, 1 + MSS, "it acknowledges segment 1");
        NS_TEST_ASSERT_MSG_EQ((sackAck == run.acks.begin()), true, "the first ACK was dropped");
        NS_TEST_ASSERT_MSG_GT(sends2[1], sackAck->at, "retransmitted by the timer, later");
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetRackReoTimeouts(), 1, "one reordering timeout");

        // the window and threshold the timer set (the last changes at its instant)
        const uint32_t cwndBefore = RackRun::Before(run.cwnd, sends2[1], 10 * MSS);
        const uint32_t cwndAfter = RackRun::Before(run.cwnd, sends2[1] + NanoSeconds(1), 0);
        const uint32_t ssthreshAfter =
            RackRun::Before(run.ssthresh, sends2[1] + NanoSeconds(1), 0);
        NS_TEST_EXPECT_MSG_EQ(ssthreshAfter,
                              std::max(cwndBefore / MSS / 2, 2U) * MSS,
                              "Reno's ssthresh");
        NS_TEST_EXPECT_MSG_EQ(cwndAfter, MSS, "one segment: in flight 0 + sndcnt 1");
        NS_TEST_EXPECT_MSG_EQ(run.lossState, false, "no retransmission timeout");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 3 * MSS, "everything acknowledged");
        run.Done();
    }
};

/**
 * A lost retransmission: segment 5 of 40 is lost twice. Its first retransmission R goes out in
 * recovery; RACK's reordering window is 0 there (tcp_rack_reo_wnd, tcp_recovery.c:13-14), so
 * the first ACK that delivers a segment sent after R proves R lost (remaining = send(s) - R < 0
 * with rack.rtt = now - send(s): tcp_rack_detect_loss, :84-88), and segment 5 is marked to be
 * sent again (tcp_mark_skb_lost, tcp_input.c:1114-1119) and goes out on that ACK. ns-3's
 * RFC 6675 scoreboard cannot tell a retransmission lost: without RACK only the RTO resends it.
 */
class RackLostRetransmissionTestCase : public TestCase
{
  public:
    RackLostRetransmissionTestCase()
        : TestCase("RACK: a lost retransmission is sent again on the first ACK of later data")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        drop->m_drops = {{5, 2}};
        RackRun run;
        run.Go(drop, 40, true);

        const auto sends5 = run.SendsOf(5);
        NS_TEST_ASSERT_MSG_EQ(sends5.size(), 3, "segment 5 sent three times");
        const Time r = sends5[1];
        // the segments first sent after R (new data) and the first ACK that delivers one
        std::vector<std::pair<uint32_t, uint32_t>> after; // sequence ranges
        for (const auto& s : run.sent)
        {
            if (s.at > r && run.SendsOf(s.segment).front() == s.at)
            {
                after.emplace_back(1 + (s.segment - 1) * MSS, 1 + s.segment * MSS);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(after.empty(), false, "new data after the retransmission");
        auto delivers = [&after](const RackRun::Ack& a) {
            for (const auto& [start, end] : after)
            {
                for (const auto& [left, right] : a.sack)
                {
                    if (left <= start && end <= right)
                    {
                        return true;
                    }
                }
            }
            return false;
        };
        const auto proof = std::find_if(run.acks.begin(), run.acks.end(), [&](const auto& a) {
            return a.at > r && delivers(a);
        });
        NS_TEST_ASSERT_MSG_EQ((proof != run.acks.end()), true, "an ACK SACKs later data");
        NS_TEST_EXPECT_MSG_EQ(sends5[2], proof->at, "sent again on that ACK");
        NS_TEST_EXPECT_MSG_EQ(run.lossState, false, "no retransmission timeout");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 40 * MSS, "everything acknowledged");
        run.Done();

        auto dropAgain = CreateObject<SegmentDropper>();
        dropAgain->m_drops = {{5, 2}};
        RackRun classic;
        classic.Go(dropAgain, 40, false);
        const auto classic5 = classic.SendsOf(5);
        NS_TEST_ASSERT_MSG_EQ(classic5.size(), 3, "segment 5 sent three times without RACK");
        NS_TEST_EXPECT_MSG_EQ(classic.lossState, true, "without RACK the RTO resends it");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(classic5[2] - classic5[1],
                                    MilliSeconds(200),
                                    "without RACK: at least the minimum RTO later");
        classic.Done();
    }
};

/**
 * Entering recovery with the head's retransmission in flight. Segment 5 of 60 is lost twice
 * and a segment B, first sent after 5's first retransmission, once. RACK finds B lost when a
 * later segment is SACKed and retransmits it (B'); then the ACK of 5's second retransmission
 * acknowledges everything below B. That ends the recovery at its recovery point and, B still
 * marked lost, starts the next at once (tcp_fastretrans_alert, tcp_input.c:3061-3078,
 * 3118-3140). B' is in flight: Linux's tcp_xmit_retransmit_queue skips a segment already
 * retransmitted (TCPCB_SACKED_RETRANS, tcp_output.c:3416-3417), and the one segment
 * tcp_cwnd_reduction forces out on entry (tcp_input.c:2704-2705) is new data. ns-3's EnterRecovery retransmitted the
 * head, B, once more, within the round trip (a D-SACK when both copies arrive). Which B gives
 * that order depends on PRR's sends, so the case tries the first ten segments first sent after
 * 5's first retransmission and takes the first whose ACK up to B comes after B'.
 */
class RecoveryRestartTestCase : public TestCase
{
  public:
    RecoveryRestartTestCase()
        : TestCase("Recovery restarted with the head's retransmission in flight sends new data")
    {
    }

  private:
    void DoRun() override
    {
        constexpr uint32_t SEGMENTS = 60;
        auto probeDrop = CreateObject<SegmentDropper>();
        probeDrop->m_drops = {{5, 2}};
        RackRun probe;
        probe.Go(probeDrop, SEGMENTS, true);
        const auto probe5 = probe.SendsOf(5);
        NS_TEST_ASSERT_MSG_EQ(probe5.size(), 3, "segment 5 sent three times");
        std::vector<uint32_t> candidates;
        for (const auto& s : probe.sent)
        {
            if (s.at > probe5[1] && probe.SendsOf(s.segment).front() == s.at &&
                candidates.size() < 10)
            {
                candidates.push_back(s.segment);
            }
        }
        probe.Done();

        for (uint32_t b : candidates)
        {
            auto drop = CreateObject<SegmentDropper>();
            drop->m_drops = {{5, 2}, {b, 1}};
            RackRun run;
            run.dsack = true;
            run.Go(drop, SEGMENTS, true);
            const auto sendsB = run.SendsOf(b);
            const auto upToB = std::find_if(run.acks.begin(), run.acks.end(), [b](const auto& a) {
                return a.ack == 1 + (b - 1) * MSS;
            });
            if (sendsB.size() < 2 || upToB == run.acks.end() || upToB->at <= sendsB[1])
            {
                run.Done();
                continue;
            }
            NS_TEST_EXPECT_MSG_EQ(sendsB.size(), 2, "B sent twice, not again on the restart");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(run.socket->GetRecoveryEntriesRedirected(),
                                        1U,
                                        "a recovery began with Linux's send");
            NS_TEST_EXPECT_MSG_EQ(run.socket->GetDsacksReceived(), 0, "no copy arrived twice");
            NS_TEST_EXPECT_MSG_EQ(run.lossState, false, "no retransmission timeout");
            NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack,
                                  1 + SEGMENTS * MSS,
                                  "everything acknowledged");
            run.Done();
            return;
        }
        NS_TEST_ASSERT_MSG_EQ(true, false, "no B whose ACK came after its retransmission");
    }
};

/**
 * Growth in Disorder. One segment of 200 is lost once the receiver acknowledges every second
 * segment (its window has reached the 256 KiB it may grow to; while it grows, each segment is
 * acknowledged at once: tcp_grow_window's quick |= 1, tcp_input.c:548). When the segment before
 * the lost one waits for its delayed ACK, the next one, arriving out of order, is acknowledged
 * at once: that ACK advances snd_una by one segment and SACKs one, and the sender goes to
 * Disorder (RACK's reordering window, a quarter of the 40-ms min_rtt, has not passed for the
 * lost one). Linux's tcp_cong_control grows the window on it, as on every ACK that
 * acknowledges data outside a window reduction (tcp_may_raise_cwnd, FLAG_DATA_ACKED:
 * tcp_input.c:3553-3589): reno in slow start adds what the ACK newly delivered, one segment
 * acknowledged and one SACKed (tcp_slow_start). ns-3 3.44's ProcessAck left it unchanged.
 * Which loss gives that ACK depends on how the delayed ACKs pair the segments, so the case
 * tries segments 90-99 and takes the first whose SACK comes on an advancing ACK.
 */
class DisorderGrowthTestCase : public TestCase
{
  public:
    DisorderGrowthTestCase()
        : TestCase("An ACK that acknowledges data and leaves the sender in Disorder grows cwnd")
    {
    }

  private:
    void DoRun() override
    {
        constexpr uint32_t SEGMENTS = 200;
        for (uint32_t lost = 90; lost < 100; ++lost)
        {
            auto drop = CreateObject<SegmentDropper>();
            drop->m_drops = {{lost, 1}};
            RackRun run;
            run.windowGrowthLimit = 256 * 1024;
            run.Go(drop, SEGMENTS, true);
            // the first ACK with a SACK block, and the ACK before it
            const auto sackAck = run.FirstSack();
            NS_TEST_ASSERT_MSG_EQ((sackAck != run.acks.end() && sackAck != run.acks.begin()),
                                  true,
                                  "a SACK after other ACKs");
            const auto previous = std::prev(sackAck);
            if (previous->ack == sackAck->ack)
            {
                run.Done(); // the segment before the hole was acknowledged already
                continue;
            }
            NS_TEST_ASSERT_MSG_EQ(sackAck->ack, 1 + (lost - 1) * MSS, "up to the hole");
            NS_TEST_ASSERT_MSG_EQ(previous->ack, 1 + (lost - 2) * MSS, "advancing by one");
            NS_TEST_ASSERT_MSG_EQ(sackAck->sack.size(), 1, "one SACK block");
            NS_TEST_ASSERT_MSG_EQ(sackAck->sack[0].first, 1 + lost * MSS, "SACKing the next");
            NS_TEST_ASSERT_MSG_EQ(sackAck->sack[0].second, 1 + (lost + 1) * MSS, "... alone");
            const auto sends = run.SendsOf(lost);
            NS_TEST_ASSERT_MSG_EQ(sends.size(), 2, "the lost segment sent twice");
            NS_TEST_ASSERT_MSG_GT(sends[1], sackAck->at, "no recovery on that ACK: Disorder");

            const uint32_t initial = 10 * MSS;
            const uint32_t before = RackRun::Before(run.cwnd, sackAck->at, initial);
            const uint32_t after =
                RackRun::Before(run.cwnd, sackAck->at + NanoSeconds(1), initial);
            NS_TEST_ASSERT_MSG_GT(RackRun::Before(run.ssthresh, sackAck->at, UINT32_MAX),
                                  before,
                                  "still in slow start");
            // tcp_slow_start(tp, acked_sacked = 2): cwnd + 2
            NS_TEST_EXPECT_MSG_EQ(after, before + 2 * MSS, "one acknowledged, one SACKed: +2");
            NS_TEST_EXPECT_MSG_EQ(run.lossState, false, "no retransmission timeout");
            NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack,
                                  1 + SEGMENTS * MSS,
                                  "everything acknowledged");
            run.Done();
            return;
        }
        NS_TEST_ASSERT_MSG_EQ(true, false, "no loss in 90-99 gave an advancing SACK");
    }
};

/**
 * A tail loss: the last three of ten segments (the initial window) are lost, so no ACK comes
 * after the one of segment 7. That ACK (three segments out) arms the probe timer for
 * 2 srtt + 2 ms in jiffies, before the RTO (tcp_schedule_loss_probe, tcp_output.c:2782-2805),
 * on the wheel's tick one jiffy past that. With nothing new to send the probe retransmits
 * segment 10 (tcp_send_loss_probe, :2852-2880); its SACK lets RACK mark 8 and 9 lost at once (sent
 * 2 srtt before it: far beyond min_rtt / 4), and recovery resends them. Without probes (RACK
 * alone) nothing comes back until the RTO.
 */
class TlpTailLossTestCase : public TestCase
{
  public:
    TlpTailLossTestCase()
        : TestCase("TLP: a tail loss is probed 2 srtt after the last ACK, then RACK repairs it")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        drop->m_drops = {{8, 1}, {9, 1}, {10, 1}};
        RackRun run;
        run.Go(drop, 10, true, true);

        const auto ack7 = std::find_if(run.acks.begin(), run.acks.end(), [](const auto& a) {
            return a.ack == 1 + 7 * MSS;
        });
        NS_TEST_ASSERT_MSG_EQ((ack7 != run.acks.end()), true, "segment 7 acknowledged");
        const auto sends10 = run.SendsOf(10);
        NS_TEST_ASSERT_MSG_EQ(sends10.size(), 2, "segment 10 sent twice (the probe)");
        // srtt lies between the smallest and the largest sample taken so far; the probe's tick
        // follows from either end when both give the same jiffies
        const auto [lo, hi] = run.RttRangeUs(ack7->at);
        const int64_t jiffiesLo = (2 * lo + 2000 + 3999) / 4000;
        const int64_t jiffiesHi = (2 * hi + 2000 + 3999) / 4000;
        NS_TEST_ASSERT_MSG_EQ(jiffiesLo, jiffiesHi, "srtt's range decides the jiffies");
        NS_TEST_EXPECT_MSG_EQ(sends10[1], TickAfter(ack7->at, jiffiesLo), "the probe's tick");
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetTlpProbes(), 1, "one probe");
        // 8 and 9 go again on the probe's ACK, without a timeout
        const auto probeAck = std::find_if(run.acks.begin(), run.acks.end(), [&](const auto& a) {
            return a.at > sends10[1];
        });
        NS_TEST_ASSERT_MSG_EQ((probeAck != run.acks.end()), true, "the probe is answered");
        const auto sends8 = run.SendsOf(8);
        NS_TEST_ASSERT_MSG_EQ(sends8.size(), 2, "segment 8 retransmitted");
        NS_TEST_EXPECT_MSG_EQ(sends8[1], probeAck->at, "on the probe's ACK");
        NS_TEST_EXPECT_MSG_EQ(run.lossState, false, "no retransmission timeout");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 10 * MSS, "everything acknowledged");
        run.Done();

        auto dropAgain = CreateObject<SegmentDropper>();
        dropAgain->m_drops = {{8, 1}, {9, 1}, {10, 1}};
        RackRun rackOnly;
        rackOnly.Go(dropAgain, 10, true, false);
        NS_TEST_EXPECT_MSG_EQ(rackOnly.lossState, true, "without probes the RTO");
        NS_TEST_EXPECT_MSG_EQ(rackOnly.socket->GetTlpProbes(), 0, "no probe");
        rackOnly.Done();
    }
};

/**
 * A spurious timeout: from 100 ms on every ACK is lost until the sender times out, while all
 * the data arrived. The retransmitted head reaches the receiver as a duplicate, whose ACK
 * acknowledges everything and echoes the timestamp of the last segment that arrived in order,
 * an original send: older than the first retransmission (tcp_packet_delayed, tcp_input.c:
 * 2424-2429). In Loss that ACK undoes the timeout (tcp_try_undo_loss, :2636-2660): the window
 * comes back through reno's undo_cwnd, max(cwnd, prior_cwnd) (tcp_cong.c:473-478), so at least
 * the window at the timeout, and the threshold to prior_ssthresh, the threshold before it (still
 * the initial one: tcp_current_ssthresh is the larger of it and 3/4 cwnd). Without undo the
 * timeout's reduction stays: ssthresh half the flight, the window far below.
 */
class UndoSpuriousTimeoutTestCase : public TestCase
{
  public:
    UndoSpuriousTimeoutTestCase()
        : TestCase("Undo: a timeout while only the ACKs were lost is undone by the first ACK")
    {
    }

  private:
    void DoRun() override
    {
        for (bool undo : {true, false})
        {
            RackRun run;
            run.blackout = CreateObject<AckBlackout>();
            run.blackout->m_from = MilliSeconds(100);
            run.Go(CreateObject<SegmentDropper>(), 200, false, false, undo);

            NS_TEST_ASSERT_MSG_EQ(run.lossState, true, "a timeout");
            const uint32_t cwndAtTimeout = RackRun::Before(run.cwnd, run.lossAt, 10 * MSS);
            const uint32_t ssthreshBefore = RackRun::Before(run.ssthresh, run.lossAt, UINT32_MAX);
            // the first ACK after the timeout
            const auto first = std::find_if(run.acks.begin(), run.acks.end(), [&](const auto& a) {
                return a.at > run.lossAt;
            });
            NS_TEST_ASSERT_MSG_EQ((first != run.acks.end()), true, "an ACK after the timeout");
            const Time after = first->at + NanoSeconds(1);
            const uint32_t cwndAfter = RackRun::Before(run.cwnd, after, 0);
            const uint32_t ssthreshAfter = RackRun::Before(run.ssthresh, after, 0);
            if (undo)
            {
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetLossUndos(), 1, "one timeout undone");
                NS_TEST_EXPECT_MSG_GT_OR_EQ(cwndAfter, cwndAtTimeout, "the window comes back");
                NS_TEST_EXPECT_MSG_EQ(ssthreshAfter, ssthreshBefore, "the threshold comes back");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetLossUndos(), 0, "no undo");
                NS_TEST_EXPECT_MSG_LT(cwndAfter, cwndAtTimeout, "the window stays reduced");
                NS_TEST_EXPECT_MSG_LT_OR_EQ(ssthreshAfter,
                                            cwndAtTimeout / 2,
                                            "the threshold stays reduced");
            }
            NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 200 * MSS, "everything acknowledged");
            run.Done();
        }
    }
};

/**
 * A timeout F-RTO finds spurious: without timestamps, from 300 ms to 600 ms the link's delay is
 * 400 ms each way, so the ACKs come too late and the sender times out (its RTO, about 260 ms
 * after the last ACK at 319 ms, is 65 jiffies: on level 1 of the wheel it runs at the next
 * multiple of 8 jiffies, 608 ms, before the first delayed ACK at 701 ms; with 300 ms that ACK
 * came at 601 ms, first) and resends the head. An ACK of the head alone lets new data out
 * instead of retransmissions (step 2.b); the first ACK of a segment behind the head, never
 * retransmitted and below high_seq, proves the timeout spurious (step 3.b; tcp_process_loss,
 * tcp_input.c:2905-2935) and undoes it through reno's undo_cwnd (at least the window at the
 * timeout). With F-RTO off and no timestamp to prove it, the reduction stays and the
 * outstanding data is resent.
 */
class FrtoSpuriousTimeoutTestCase : public TestCase
{
  public:
    FrtoSpuriousTimeoutTestCase()
        : TestCase("F-RTO: a timeout after a delay spike is undone by the first ACK of old data")
    {
    }

  private:
    void DoRun() override
    {
        for (bool frto : {true, false})
        {
            RackRun run;
            run.timestamps = false;
            run.spikeFrom = MilliSeconds(300);
            run.spikeUntil = MilliSeconds(600);
            run.spikeDelay = MilliSeconds(400);
            run.Go(CreateObject<SegmentDropper>(), 4000, false, false, true, frto);

            NS_TEST_ASSERT_MSG_EQ(run.lossState, true, "a timeout");
            const uint32_t cwndAtTimeout = RackRun::Before(run.cwnd, run.lossAt, 10 * MSS);
            // the head resent at the timeout, and the highest segment sent before it
            const auto head = std::find_if(run.sent.begin(), run.sent.end(), [&](const auto& x) {
                return x.at >= run.lossAt;
            });
            NS_TEST_ASSERT_MSG_EQ((head != run.sent.end()), true, "the head resent");
            uint32_t highest = 0;
            for (const auto& x : run.sent)
            {
                highest = x.at < run.lossAt ? std::max(highest, x.segment) : highest;
            }
            // the first ACK of a segment beyond the head: never retransmitted, below high_seq
            const uint32_t beyondHead = 1 + head->segment * MSS;
            const auto proof = std::find_if(run.acks.begin(), run.acks.end(), [&](const auto& a) {
                return a.at > run.lossAt && static_cast<int32_t>(a.ack - beyondHead) > 0;
            });
            NS_TEST_ASSERT_MSG_EQ((proof != run.acks.end()), true, "old data acknowledged");
            const uint32_t cwndAfter = RackRun::Before(run.cwnd, proof->at + NanoSeconds(1), 0);
            // what went out from the timeout to that ACK, the head aside: old or new segments
            bool oldResent = false;
            for (const auto& x : run.sent)
            {
                if (x.at > run.lossAt && x.at <= proof->at && x.segment != head->segment)
                {
                    oldResent |= x.segment <= highest;
                }
            }
            if (frto)
            {
                // tcp_try_undo_loss counts LINUX_MIB_TCPLOSSUNDO, and TCPSPURIOUSRTOS for F-RTO
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetSpuriousRtos(), 1, "F-RTO undid it");
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetLossUndos(), 1, "one timeout undone");
                NS_TEST_EXPECT_MSG_GT_OR_EQ(cwndAfter, cwndAtTimeout, "the window comes back");
                NS_TEST_EXPECT_MSG_EQ(oldResent, false, "new data instead of retransmissions");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetSpuriousRtos(), 0, "no F-RTO");
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetLossUndos(), 0, "no timestamp to undo by");
                NS_TEST_EXPECT_MSG_LT(cwndAfter, cwndAtTimeout, "the window stays reduced");
                NS_TEST_EXPECT_MSG_EQ(oldResent, true, "the outstanding data resent");
            }
            NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 4000 * MSS, "everything acknowledged");
            run.Done();
        }
    }
};

/**
 * The timer wheel of Linux 6.1 (kernel/time/timer.c:516-569), worked by hand: a timer armed n
 * jiffies ahead at wheel clock c, expiry e = c + n, lands in level L, the first with
 * n < LVL_START(L + 1) = 63 << 3L, and runs on jiffy ((e >> 3L) + 1) << 3L. Level 0 (n < 63):
 * one jiffy after its expiry; level 1 (63 <= n < 504): the next multiple of 8 after it; level 2
 * (504 <= n < 4032): of 64. So a probe 1 jiffy ahead runs 1-2 jiffies later and an ACK in the
 * next jiffy that re-arms it pushes it on again; the minimum RTO, 50 jiffies, runs at 51.
 */
class TimerWheelTestCase : public TestCase
{
  public:
    TimerWheelTestCase()
        : TestCase("Timer wheel: a timer runs on its bucket's jiffy, never before its expiry")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            uint64_t clk;
            uint64_t jiffies;
            uint64_t runs;
            const char* why;
        };

        const Case cases[] = {
            {1000, 0, 1001, "expiry now: the next jiffy"},
            {1000, 1, 1002, "a probe one jiffy ahead: two jiffies on"},
            {1000, 50, 1051, "the minimum RTO, 200 ms: 51 jiffies"},
            {1000, 62, 1063, "the last of level 0"},
            {1000, 63, 1064, "level 1: 1063 rounded up to a multiple of 8"},
            {1001, 63, 1072, "level 1: 1064 is a multiple of 8 and still one more"},
            {1000, 250, 1256, "a one-second RTO: 1250 to the next multiple of 8"},
            {1000, 503, 1504, "the last of level 1"},
            {1000, 504, 1536, "level 2: 1504 to the next multiple of 64"},
        };
        for (const auto& c : cases)
        {
            NS_TEST_EXPECT_MSG_EQ(TcpLinuxSocket::WheelBucketJiffy(c.clk, c.jiffies),
                                  c.runs,
                                  c.why);
        }
    }
};

/**
 * A backed-off RTO on the wheel: with probes off, the tail segment 10 is lost twice. The last
 * ACK (of 9) arms the RTO through tcp_rearm_rto: rto = srtt + rttvar (rttvar at its floor,
 * rto_min = 200 ms: __tcp_set_rto, include/net/tcp.h:725-728) rounded up to J jiffies, about
 * 61 on this 40-ms path, less than 63, so it runs one tick after its expiry. The timeout
 * resends 10 and doubles the RTO (tcp_timer.c:601-623) to 2 J jiffies, past 63: level 1 of
 * the wheel, which runs it on the next multiple of 8 jiffies after its expiry
 * (TimerWheelTestCase). TcpSocketBase would arm both to the nanosecond: the first 2 J * 4 ms
 * after the ACK, the second exactly 2 J * 4 ms after the first.
 */
class BackoffOnWheelTestCase : public TestCase
{
  public:
    BackoffOnWheelTestCase()
        : TestCase("Backoff: a backed-off RTO runs on level 1 of the wheel, like the first on 0")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        drop->m_drops = {{10, 2}};
        RackRun run;
        run.Go(drop, 10, true, false);

        const auto sends10 = run.SendsOf(10);
        NS_TEST_ASSERT_MSG_EQ(sends10.size(), 3, "segment 10 sent three times");
        const auto lastAck = std::find_if(run.acks.rbegin(), run.acks.rend(), [&](const auto& a) {
            return a.at < sends10[1];
        });
        NS_TEST_ASSERT_MSG_EQ((lastAck != run.acks.rend()), true, "an ACK before the timeout");
        NS_TEST_ASSERT_MSG_EQ(lastAck->ack, 1 + 9 * MSS, "the last ACK is of segment 9");
        // srtt lies between the smallest and the largest sample; rttvar is at rto_min
        const auto [lo, hi] = run.RttRangeUs(lastAck->at);
        const int64_t jiffiesLo = (lo + 200000 + 3999) / 4000;
        const int64_t jiffiesHi = (hi + 200000 + 3999) / 4000;
        NS_TEST_ASSERT_MSG_EQ(jiffiesLo, jiffiesHi, "srtt's range decides the RTO's jiffies");
        NS_TEST_ASSERT_MSG_LT(jiffiesLo, 63, "the first RTO is on level 0");
        NS_TEST_EXPECT_MSG_EQ(sends10[1], TickAfter(lastAck->at, jiffiesLo), "the first timeout");
        const auto clk =
            static_cast<uint64_t>(sends10[1].GetNanoSeconds() / JIFFY.GetNanoSeconds());
        const uint64_t runs = ((clk + 2 * jiffiesLo) / 8 + 1) * 8;
        NS_TEST_EXPECT_MSG_EQ(sends10[2], JIFFY * static_cast<int64_t>(runs), "the backed-off one");
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetRtoExpiries(), 2, "two expiries (TCPTimeouts)");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 10 * MSS, "everything acknowledged");
        run.Done();
    }
};

/**
 * A module that sets cwnd on CA_EVENT_TX_START, as bbr does when it leaves PROBE_RTT on it
 * (bbr_check_probe_rtt_done restores its prior cwnd; tcp_bbr.c:346, 917).
 */
class RaisesCwndOnTxStart : public TcpNewReno
{
  public:
    /// the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::emusim::RaisesCwndOnTxStart")
                                .SetParent<TcpNewReno>()
                                .AddConstructor<RaisesCwndOnTxStart>();
        return tid;
    }

    std::string GetName() const override
    {
        return "RaisesCwndOnTxStart";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<RaisesCwndOnTxStart>(this);
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        if (event == TcpSocketState::CA_EVENT_TX_START)
        {
            tcb->m_cWnd = 10 * tcb->m_segmentSize;
        }
    }
};

/**
 * The timeout's retransmission goes alone. With every ACK lost from 100 ms the sender times out
 * with its whole window out; every segment is marked lost, so nothing is in flight when the
 * head is resent, and tcp_event_data_sent signals CA_EVENT_TX_START (tcp_output.c:167-168),
 * on which this module sets cwnd to 10 segments. tcp_retransmit_timer sends the head alone
 * (tcp_timer.c:574): at the timeout's instant one segment leaves, the rest at the next ACK.
 */
class TimeoutSendsTheHeadAloneTestCase : public TestCase
{
  public:
    TimeoutSendsTheHeadAloneTestCase()
        : TestCase("RTO: the timeout resends the head alone though TX_START raised cwnd")
    {
    }

  private:
    void DoRun() override
    {
        RackRun run;
        run.blackout = CreateObject<AckBlackout>();
        run.blackout->m_from = MilliSeconds(100);
        run.onSocket = [&run](NodeContainer&) {
            run.socket->SetCongestionControlAlgorithm(CreateObject<RaisesCwndOnTxStart>());
        };
        run.Go(CreateObject<SegmentDropper>(), 200, false);

        NS_TEST_ASSERT_MSG_EQ(run.lossState, true, "a timeout");
        const auto atTimeout = std::count_if(run.sent.begin(), run.sent.end(), [&](const auto& s) {
            return s.at == run.lossAt;
        });
        NS_TEST_EXPECT_MSG_EQ(atTimeout, 1, "one segment at the timeout's instant");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 200 * MSS, "everything acknowledged");
        run.Done();
    }
};

/// TestSuite emusim-tcp-linux-rack.
class TcpLinuxRackTestSuite : public TestSuite
{
  public:
    TcpLinuxRackTestSuite()
        : TestSuite("emusim-tcp-linux-rack", Type::UNIT)
    {
        AddTestCase(new TimerWheelTestCase, Duration::QUICK);
        AddTestCase(new BackoffOnWheelTestCase, Duration::QUICK);
        AddTestCase(new RackLoneHoleTestCase, Duration::QUICK);
        AddTestCase(new RackTimerRecoveryTestCase, Duration::QUICK);
        AddTestCase(new RackLostRetransmissionTestCase, Duration::QUICK);
        AddTestCase(new RecoveryRestartTestCase, Duration::QUICK);
        AddTestCase(new DisorderGrowthTestCase, Duration::QUICK);
        AddTestCase(new TlpTailLossTestCase, Duration::QUICK);
        AddTestCase(new UndoSpuriousTimeoutTestCase, Duration::QUICK);
        AddTestCase(new FrtoSpuriousTimeoutTestCase, Duration::QUICK);
        AddTestCase(new TimeoutSendsTheHeadAloneTestCase, Duration::QUICK);
    }
};

/// Static instance.
TcpLinuxRackTestSuite g_tcpLinuxRackTestSuite;

} // namespace
