/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TestSuite emusim-tcp-linux-dsack: TcpLinuxSocket's D-SACK (RFC 2883 as Linux 6.1.192 sends
 * and takes it: tcp_dsack_set, tcp_check_dsack, tcp_try_undo_dsack, tcp_process_tlp_ack)
 * against sequences worked out by hand from the source, each beside the run without D-SACK.
 */

#include "linux-socket-run.h"

#include "ns3/test.h"

using namespace ns3;
using namespace ns3::linux_socket_test;

namespace
{

/// The first ACK with this acknowledgment number after `from`, or the end.
std::vector<RackRun::Ack>::const_iterator
AckOf(const RackRun& run, uint32_t ack, Time from = Time(0))
{
    return std::find_if(run.acks.begin(), run.acks.end(), [&](const RackRun::Ack& a) {
        return a.ack == ack && a.at > from;
    });
}

/// The first change of ssthresh below the initial (infinite) one, or the end.
std::vector<std::pair<Time, uint32_t>>::const_iterator
FirstReduction(const RackRun& run)
{
    return std::find_if(run.ssthresh.begin(), run.ssthresh.end(), [](const auto& change) {
        return change.second != UINT32_MAX;
    });
}

/**
 * A probe of a tail that was not lost: the ACKs of segments 8, 9 and 10 of 10 are lost, so 2 srtt
 * after the last ACK the sender probes by sending segment 10 again (tcp_send_loss_probe). The
 * receiver has it: an immediate ACK of everything with a D-SACK block for segment 10 alone
 * (tcp_data_queue, tcp_input.c:5220-5233). That block ends at the probe's tlp_high_seq and spans
 * one segment, so the sender takes it as FLAG_DSACK_TLP (tcp_dsack_seen, :1021-1024): both the
 * original and the probe arrived, the episode ends with no reduction (tcp_process_tlp_ack,
 * :3808-3810). Without D-SACK the probe's ACK only reaches tlp_high_seq, which ends nothing; the
 * next ACK beyond it, of data written a second later, counts as a loss the probe repaired: the
 * window is reduced once (:3811-3818), reno's ssthresh half the window.
 */
class DsackProbeTestCase : public TestCase
{
  public:
    DsackProbeTestCase()
        : TestCase("D-SACK: a probe of a tail that arrived ends the episode without a reduction")
    {
    }

  private:
    void DoRun() override
    {
        for (bool dsack : {true, false})
        {
            RackRun run;
            run.dsack = dsack;
            run.ackDropper = CreateObject<AckDropper>();
            run.ackDropper->m_acks = {1 + 8 * MSS, 1 + 9 * MSS, 1 + 10 * MSS};
            run.laterWriteAt = Seconds(1);
            run.laterSegments = 10;
            run.Go(CreateObject<SegmentDropper>(), 10, true, true, true);

            const auto sends10 = run.SendsOf(10);
            NS_TEST_ASSERT_MSG_EQ(sends10.size(), 2, "segment 10 probed");
            const auto probeAck = AckOf(run, 1 + 10 * MSS, sends10[1]);
            NS_TEST_ASSERT_MSG_EQ((probeAck != run.acks.end()), true, "the probe answered");
            NS_TEST_EXPECT_MSG_EQ(run.socket->GetTlpProbes(), 1, "one probe");
            NS_TEST_EXPECT_MSG_EQ(run.lossState, false, "no timeout");
            NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 20 * MSS, "everything acknowledged");
            if (dsack)
            {
                NS_TEST_ASSERT_MSG_EQ(probeAck->sack.size(), 1, "one SACK block: the D-SACK");
                NS_TEST_EXPECT_MSG_EQ(probeAck->sack[0].first, 1 + 9 * MSS, "segment 10's start");
                NS_TEST_EXPECT_MSG_EQ(probeAck->sack[0].second, 1 + 10 * MSS, "and end");
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetDsacksReceived(), 1, "taken");
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetTlpRecoveries(), 0, "no loss repaired");
                NS_TEST_EXPECT_MSG_EQ((FirstReduction(run) == run.ssthresh.end()),
                                      true,
                                      "no reduction");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(probeAck->sack.empty(), true, "no D-SACK block");
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetTlpRecoveries(), 1, "a loss 'repaired'");
                const auto reduction = FirstReduction(run);
                NS_TEST_ASSERT_MSG_EQ((reduction != run.ssthresh.end()), true, "a reduction");
                const Time at = reduction->first;
                NS_TEST_EXPECT_MSG_GT(at, run.laterWriteAt, "on the new data's first ACK");
                const uint32_t cwndBefore = RackRun::Before(run.cwnd, at, 10 * MSS);
                NS_TEST_EXPECT_MSG_EQ(reduction->second,
                                      std::max(cwndBefore / MSS / 2, 2U) * MSS,
                                      "reno's ssthresh: half the window");
            }
            run.Done();
        }
    }
};

/**
 * A spurious fast retransmission undone: without timestamps, the first send of segment 5 of 20
 * is delayed 30 ms on the link. The SACKs of 6 and later make RACK mark it lost a quarter of
 * min_rtt after RACK's RTT (tcp_rack_detect_loss), so recovery starts, reducing the window, and
 * 5 is sent again; then the delayed original fills the hole and the retransmission reaches the
 * receiver as old data, which it D-SACKs (tcp_data_queue, tcp_input.c:5220-5226). The block
 * lies below the ACK (tcp_check_dsack, :1266) and covers the one retransmission counted in
 * undo_retrans, which drops to 0 (:1290-1294, or tcp_sacktag_one, :1365-1369): the reduction is
 * undone, at the recovery's end (tcp_try_undo_recovery, TCPFULLUNDO) or before it
 * (tcp_try_undo_dsack, TCPDSACKUNDO): reno's undo_cwnd gives back at least the window before the
 * recovery, and ssthresh returns to prior_ssthresh, the initial threshold (tcp_current_ssthresh
 * is the larger of it and 3/4 cwnd). Without D-SACK and timestamps nothing proves the
 * retransmission needless: the reduction stays.
 */
class DsackUndoTestCase : public TestCase
{
  public:
    DsackUndoTestCase()
        : TestCase(
              "D-SACK: a retransmission the original beat is D-SACKed and the reduction undone")
    {
    }

  private:
    void DoRun() override
    {
        for (bool dsack : {true, false})
        {
            auto drop = CreateObject<SegmentDropper>();
            drop->m_delays = {{5, MilliSeconds(30)}};
            RackRun run;
            run.dsack = dsack;
            run.timestamps = false;
            run.Go(drop, 20, true, true, true);

            const auto sends5 = run.SendsOf(5);
            NS_TEST_ASSERT_MSG_EQ(sends5.size(), 2, "segment 5 retransmitted");
            const auto reduction = FirstReduction(run);
            NS_TEST_ASSERT_MSG_EQ((reduction != run.ssthresh.end()), true, "recovery reduced");
            const Time reducedAt = reduction->first;
            const uint32_t initialSsthresh = UINT32_MAX;
            const uint32_t cwndBefore = RackRun::Before(run.cwnd, reducedAt, 10 * MSS);
            // the retransmission went out after segment 20, so it arrives after it: its ACK is
            // the one after the first ACK of everything
            NS_TEST_ASSERT_MSG_GT(sends5[1], run.SendsOf(20).front(), "sent after segment 20");
            auto dupAck = AckOf(run, 1 + 20 * MSS);
            NS_TEST_ASSERT_MSG_EQ((dupAck != run.acks.end()), true, "everything acknowledged");
            ++dupAck;
            NS_TEST_ASSERT_MSG_EQ((dupAck != run.acks.end()), true, "the duplicate's ACK");
            const Time after = dupAck->at + NanoSeconds(1);
            if (dsack)
            {
                NS_TEST_ASSERT_MSG_EQ(dupAck->sack.empty(), false, "it carries a block");
                NS_TEST_EXPECT_MSG_EQ(dupAck->sack[0].first, 1 + 4 * MSS, "segment 5's start");
                NS_TEST_EXPECT_MSG_EQ(dupAck->sack[0].second, 1 + 5 * MSS, "and end");
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetDsackUndos() + run.socket->GetFullUndos(),
                                      1,
                                      "one undo");
                NS_TEST_EXPECT_MSG_EQ(RackRun::Before(run.ssthresh, after, 0),
                                      initialSsthresh,
                                      "ssthresh back to prior_ssthresh");
                NS_TEST_EXPECT_MSG_GT_OR_EQ(RackRun::Before(run.cwnd, after, 0),
                                            cwndBefore,
                                            "the window back");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(run.socket->GetDsackUndos() + run.socket->GetFullUndos(),
                                      0,
                                      "no undo");
                NS_TEST_EXPECT_MSG_LT(RackRun::Before(run.ssthresh, after, 0),
                                      initialSsthresh,
                                      "the reduction stays");
            }
            NS_TEST_EXPECT_MSG_EQ(run.lossState, false, "no timeout");
            NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 20 * MSS, "everything acknowledged");
            run.Done();
        }
    }
};

/**
 * Quick ACKs after old data: the receiver's window does not grow here (WindowGrowthLimit 1 byte:
 * rcv_ssthresh starts at 65535, above it), so once the first data's 16 quick ACKs are spent it
 * acknowledges every second segment. Segment 60 of 300 is delayed 30 ms, RACK resends it, the
 * original fills the hole first and the resend arrives as old data: tcp_data_queue answers it
 * with tcp_enter_quickack_mode(sk, TCP_MAX_QUICKACKS) (tcp_input.c:5227-5231), min(16, rcv_wnd /
 * (2 rcv_mss)) = min(16, 65535 / 2896) = 16 credits, one spent on the duplicate's own ACK, so
 * each of the next 15 segments is acknowledged alone: 15 ACKs in a row each one segment beyond
 * the one before. The ACKs just before it came every second segment.
 */
class QuickAckAfterOldDataTestCase : public TestCase
{
  public:
    QuickAckAfterOldDataTestCase()
        : TestCase("Old data: the next 15 segments are acknowledged one by one (quick ACKs)")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropper>();
        drop->m_delays = {{60, MilliSeconds(30)}};
        RackRun run;
        run.dsack = true; // to find the duplicate's ACK by its block
        run.windowGrowthLimit = 1;
        run.Go(drop, 300, true, true, true);

        NS_TEST_ASSERT_MSG_EQ(run.SendsOf(60).size(), 2, "segment 60 resent");
        const auto dup = std::find_if(run.acks.begin(), run.acks.end(), [](const auto& a) {
            return !a.sack.empty() && a.sack[0].first == 1 + 59 * MSS &&
                   a.sack[0].second == 1 + 60 * MSS;
        });
        NS_TEST_ASSERT_MSG_EQ((dup != run.acks.end()), true, "the duplicate's ACK");
        NS_TEST_ASSERT_MSG_GT(dup - run.acks.begin(), 2, "ACKs before it");
        NS_TEST_ASSERT_MSG_GT(run.acks.end() - dup, 16, "ACKs after it");
        NS_TEST_EXPECT_MSG_EQ((dup - 1)->ack - (dup - 2)->ack,
                              2 * MSS,
                              "every second segment before");
        for (int i = 1; i <= 15; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ((dup + i)->ack - (dup + i - 1)->ack,
                                  MSS,
                                  "quick ACK " << i << " acknowledges one segment");
        }
        NS_TEST_EXPECT_MSG_EQ((dup + 16)->ack - (dup + 15)->ack, 2 * MSS, "then every second");
        run.Done();
    }
};

/// TestSuite emusim-tcp-linux-dsack.
class TcpLinuxDsackTestSuite : public TestSuite
{
  public:
    TcpLinuxDsackTestSuite()
        : TestSuite("emusim-tcp-linux-dsack", Type::UNIT)
    {
        AddTestCase(new DsackProbeTestCase, Duration::QUICK);
        AddTestCase(new DsackUndoTestCase, Duration::QUICK);
        AddTestCase(new QuickAckAfterOldDataTestCase, Duration::QUICK);
    }
};

/// Static instance.
TcpLinuxDsackTestSuite g_tcpLinuxDsackTestSuite;

} // namespace
