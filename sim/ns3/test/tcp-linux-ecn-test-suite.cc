/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TestSuite emusim-tcp-linux-ecn: Linux's dctcp (tcp_dctcp.c) on TcpLinuxSocket at both ends
 * with ECN, chosen data segments marked CE on the link: the receiver's echo as dctcp sets it
 * (an ACK's ECE is the CE state of the data it acknowledges) and the sender's CWR on an echo
 * (tcp_try_to_open's tcp_enter_cwr, dctcp_ssthresh from alpha, PRR), worked by hand from Linux
 * 6.1.192's tcp_input.c, tcp_output.c, tcp_dctcp.c and tcp_dctcp.h.
 */

#include "linux-socket-run.h"

#include "ns3/enum.h"
#include "ns3/ipv4-header.h"
#include "ns3/ppp-header.h"
#include "ns3/test.h"

using namespace ns3;
using namespace ns3::linux_socket_test;

namespace
{

/// Marks the first send of chosen data segments CE, as an AQM on the path would.
class CeMarker : public SegmentDropper
{
  public:
    std::set<uint32_t> m_ce; //!< 1-based segment numbers, each marked once

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        uint32_t segment = 0;
        if (!DataSegmentOf(p, MSS, segment) || m_ce.erase(segment) == 0)
        {
            return false;
        }
        PppHeader ppp;
        p->RemoveHeader(ppp);
        Ipv4Header ip;
        p->RemoveHeader(ip);
        ip.SetEcn(Ipv4Header::ECN_CE);
        p->AddHeader(ip);
        p->AddHeader(ppp);
        return false;
    }
};

/// What the sender sees of ECN: the ACKs with ECE, the data segments with CWR.
struct EcnSeen
{
    std::vector<uint32_t> eceAcks; //!< acknowledgment numbers of ACKs with ECE, in order
    std::vector<uint32_t> cwrData; //!< 1-based segments sent with CWR, in order

    void Tx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (p->GetSize() > 0 && (h.GetFlags() & TcpHeader::CWR))
        {
            cwrData.push_back((h.GetSequenceNumber().GetValue() - 1) / MSS + 1);
        }
    }

    void Rx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (!(h.GetFlags() & TcpHeader::SYN) && (h.GetFlags() & TcpHeader::ECE))
        {
            eceAcks.push_back(h.GetAckNumber().GetValue());
        }
    }
};

/// A dctcp run with ECN on both ends and `marked` segments marked CE; `segments` to send.
void
RunDctcp(RackRun& run, EcnSeen& seen, std::set<uint32_t> marked, uint32_t segments)
{
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));
    run.algorithm = "dctcp";
    run.onSocket = [&run, &seen](NodeContainer&) {
        run.socket->TraceConnectWithoutContext("Tx", MakeCallback(&EcnSeen::Tx, &seen));
        run.socket->TraceConnectWithoutContext("Rx", MakeCallback(&EcnSeen::Rx, &seen));
    };
    auto marker = CreateObject<CeMarker>();
    marker->m_ce = std::move(marked);
    run.Go(marker, segments, false);
}

/// The ACK that acknowledges segment `k` (its cumulative acknowledgment number), or acks.end().
std::vector<RackRun::Ack>::const_iterator
AckOf(const RackRun& run, uint32_t k)
{
    return std::find_if(run.acks.begin(), run.acks.end(), [k](const RackRun::Ack& a) {
        return a.ack == 1 + k * MSS;
    });
}

/**
 * The receiver's echo. Its window does not grow (WindowGrowthLimit 1 byte), so after the 16
 * quick ACKs of the first data (tcp_incr_quickack with the 65535-byte initial window) it
 * acknowledges every second segment: 17-18, 19-20. Segments 21 and 22 are marked CE.
 *
 * - 21: dctcp's CE state goes 0 -> 1 with no ACK delayed: ICSK_ACK_NOW, TCP_ECN_DEMAND_CWR set
 *   (dctcp_ece_ack_update, tcp_dctcp.h:19-38): the ACK of 21 at once, with ECE
 *   (tcp_ecn_send, tcp_output.c:383-384).
 * - 22: CE again, no change: its ACK is delayed.
 * - 23 (not CE): 1 -> 0 with the ACK of 22 delayed (ICSK_ACK_TIMER): that ACK goes first with
 *   the prior state, ECE (__tcp_send_ack); then the ACK of 23 at once, without ECE.
 *
 * So exactly the ACKs of 21 and 22 carry ECE. RFC 3168's echo, ns-3's own (ECE from the first
 * CE until the sender's CWR arrives), would set it on every ACK for a round trip after 21.
 */
class DctcpEchoTestCase : public TestCase
{
  public:
    DctcpEchoTestCase()
        : TestCase("dctcp's receiver echoes the CE state of each segment, at once on a change")
    {
    }

  private:
    void DoRun() override
    {
        RackRun run;
        EcnSeen seen;
        run.windowGrowthLimit = 1;
        RunDctcp(run, seen, {21, 22}, 60);

        const std::vector<uint32_t> expected = {1 + 21 * MSS, 1 + 22 * MSS};
        NS_TEST_ASSERT_MSG_EQ(seen.eceAcks.size(), expected.size(), "two ACKs with ECE");
        NS_TEST_EXPECT_MSG_EQ(seen.eceAcks[0], expected[0], "the ACK of 21");
        NS_TEST_EXPECT_MSG_EQ(seen.eceAcks[1], expected[1], "the ACK of 22");
        for (const uint32_t k : {18U, 20U, 21U, 22U, 23U})
        {
            NS_TEST_EXPECT_MSG_EQ((AckOf(run, k) != run.acks.end()), true, "an ACK of " << k);
        }
        NS_TEST_EXPECT_MSG_EQ((AckOf(run, 17) == run.acks.end()), true, "17 delayed (with 18)");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 60 * MSS, "everything acknowledged");
        run.Done();
    }
};

/**
 * The sender's CWR. Segment 1 is marked CE, so the ACK of 1 carries ECE (dctcp's receiver, as
 * above). On it, in tcp_ack's order (tcp_input.c:3975-4035):
 *
 * - tcp_count_delivered counts its one segment delivered with CE (:413-419, 3375);
 * - in_ack_event (dctcp_update_alpha, tcp_dctcp.c:124-153; flags SLOWPATH | ECE): the ACK is
 *   past next_seq (snd_nxt when init ran, before segment 1), so alpha = 1024 - (1024 >> 4) +
 *   (1 << 6) / 1 = 1024 (one segment delivered since init, with CE);
 * - tcp_fastretrans_alert -> tcp_try_to_open -> tcp_enter_cwr (:2753-2763, 2726-2736):
 *   ssthresh = dctcp_ssthresh = 10 - (10 x 1024 >> 11) = 5 (tcp_dctcp.c:115-122), prior_cwnd
 *   10, high_seq = the end of segment 10, CWR queued for the next new data;
 * - tcp_cong_control in CWR: PRR (tcp_cwnd_reduction, :2683-2707) with prr_delivered 1.
 *
 * PRR while in flight > ssthresh: sndcnt = (5 prr_delivered + 9) / 10 - prr_out, cwnd =
 * in flight + sndcnt; then min(ssthresh - in flight, ...). Per ACK of k: in flight after it,
 * prr_delivered = k, cwnd:
 *
 *     k          1   2   3   4   5   6   7   8   9  10
 *     in flight  9   9   8   8   7   7   6   6   5   4
 *     prr_out    0   1   1   2   2   3   3   4   4   4
 *     sndcnt     1   0   1   0   1   0   1   0   0   1
 *     cwnd      10   9   9   8   8   7   7   6   5   5
 *
 * Segment 11, the first new data after the entry, carries CWR (tcp_ecn_send, tcp_output.c:
 * 369-378). The ACK of 11, beyond high_seq, ends the episode: cwnd = ssthresh = 5, Open
 * (tcp_end_cwnd_reduction, :2709-2723). Without the ECE's delivered_ce alpha would have decayed
 * to 960 and ssthresh been 10 - 4 = 6; with ns-3's own CWR (before in_ack_event, no PRR on the
 * entry ACK) the window would be 8 after the ACK of 3.
 */
class DctcpCwrTestCase : public TestCase
{
  public:
    DctcpCwrTestCase()
        : TestCase("an ECN echo enters CWR with dctcp's threshold from alpha, then PRR")
    {
    }

  private:
    void DoRun() override
    {
        RackRun run;
        EcnSeen seen;
        RunDctcp(run, seen, {1}, 40);
        NS_TEST_ASSERT_MSG_EQ(run.socket->GetLinuxAlgorithm(), "dctcp", "dctcp, not dctcp-reno");

        NS_TEST_ASSERT_MSG_EQ(seen.eceAcks.size(), 1, "one ACK with ECE");
        NS_TEST_EXPECT_MSG_EQ(seen.eceAcks[0], 1 + MSS, "the ACK of segment 1");
        const auto ack1 = AckOf(run, 1);
        NS_TEST_ASSERT_MSG_EQ((ack1 != run.acks.end()), true, "segment 1 acknowledged");
        const Time entry = ack1->at;
        const auto after = [](const auto& series, Time t, auto initial) {
            return RackRun::Before(series, t + NanoSeconds(1), initial);
        };
        NS_TEST_EXPECT_MSG_EQ(after(run.states, entry, TcpSocketState::CA_OPEN),
                              TcpSocketState::CA_CWR,
                              "CWR on the ACK of 1");
        NS_TEST_EXPECT_MSG_EQ(after(run.ssthresh, entry, 0U), 5 * MSS, "ssthresh 10 - 5");

        const std::map<uint32_t, uint32_t> cwndAfter = {
            {1, 10},
            {2, 9},
            {3, 9},
            {4, 8},
            {5, 8},
            {6, 7},
            {7, 7},
            {8, 6},
            {9, 5},
            {10, 5},
        };
        for (const auto& [k, cwnd] : cwndAfter)
        {
            const auto ack = AckOf(run, k);
            NS_TEST_ASSERT_MSG_EQ((ack != run.acks.end()), true, "segment " << k << " acked");
            NS_TEST_EXPECT_MSG_EQ(after(run.cwnd, ack->at, 10 * MSS) / MSS,
                                  cwnd,
                                  "cwnd after the ACK of " << k);
            NS_TEST_EXPECT_MSG_EQ(after(run.states, ack->at, TcpSocketState::CA_OPEN),
                                  TcpSocketState::CA_CWR,
                                  "in CWR after the ACK of " << k);
        }
        NS_TEST_ASSERT_MSG_EQ(seen.cwrData.size(), 1, "one segment with CWR");
        NS_TEST_EXPECT_MSG_EQ(seen.cwrData[0], 11, "segment 11");
        const auto ack11 = AckOf(run, 11);
        NS_TEST_ASSERT_MSG_EQ((ack11 != run.acks.end()), true, "segment 11 acknowledged");
        NS_TEST_EXPECT_MSG_EQ(after(run.states, ack11->at, TcpSocketState::CA_CWR),
                              TcpSocketState::CA_OPEN,
                              "Open after the ACK of 11");
        NS_TEST_EXPECT_MSG_EQ(after(run.cwnd, ack11->at, 0U) / MSS, 5, "cwnd = ssthresh");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 40 * MSS, "everything acknowledged");
        run.Done();
    }
};

/**
 * A loss under dctcp. With alpha 0 (dctcp_alpha_on_init = 0, and no segment marked, so it stays
 * 0) dctcp's own threshold is the window itself: cwnd - (cwnd x 0 >> 11) (dctcp_ssthresh,
 * tcp_dctcp.c:115-122). On a loss dctcp halves it all the same: tcp_enter_recovery sets
 * dctcp_ssthresh's value (tcp_init_cwnd_reduction, tcp_input.c:2897) and then calls
 * tcp_set_ca_state (:2899), whose hook dctcp_state sets ssthresh = max(cwnd >> 1, 2)
 * (dctcp_react_to_loss, tcp_dctcp.c:157-171). So the threshold Recovery starts with is half the
 * window it was entered with; in the other order it would be the whole window.
 */
class DctcpLossTestCase : public TestCase
{
  public:
    DctcpLossTestCase()
        : TestCase("a loss under dctcp halves the window whatever alpha (set_state after ssthresh)")
    {
    }

  private:
    void DoRun() override
    {
        RackRun run;
        run.moduleParameters = "tcp_dctcp.dctcp_alpha_on_init=0";
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));
        run.algorithm = "dctcp";
        auto drop = CreateObject<SegmentDropper>();
        drop->m_drops = {{20, 1}};
        run.Go(drop, 60, true);
        NS_TEST_ASSERT_MSG_EQ(run.socket->GetLinuxAlgorithm(), "dctcp", "dctcp, not dctcp-reno");

        const auto entry = std::find_if(run.states.begin(), run.states.end(), [](const auto& s) {
            return s.second == TcpSocketState::CA_RECOVERY;
        });
        NS_TEST_ASSERT_MSG_EQ((entry != run.states.end()), true, "recovery on the loss");
        const uint32_t cwnd = RackRun::Before(run.cwnd, entry->first, 10 * MSS) / MSS;
        const uint32_t ssthresh =
            RackRun::Before(run.ssthresh, entry->first + NanoSeconds(1), 0U) / MSS;
        NS_TEST_ASSERT_MSG_GT(cwnd, 4, "a window worth halving");
        NS_TEST_EXPECT_MSG_EQ(ssthresh, std::max(cwnd >> 1, 2U), "dctcp_react_to_loss's half");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().ack, 1 + 60 * MSS, "everything acknowledged");
        run.Done();
    }
};

class TcpLinuxEcnTestSuite : public TestSuite
{
  public:
    TcpLinuxEcnTestSuite()
        : TestSuite("emusim-tcp-linux-ecn", Type::UNIT)
    {
        AddTestCase(new DctcpEchoTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new DctcpCwrTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new DctcpLossTestCase(), TestCase::Duration::QUICK);
    }
};

/// The suite's one instance, which registers it
TcpLinuxEcnTestSuite g_tcpLinuxEcnTestSuite;

} // namespace
