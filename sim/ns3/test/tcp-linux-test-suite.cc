/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of Linux 6.1's congestion-control modules run by ns-3 (TcpLinuxCongestion,
 * sim/ns3/model/tcp-linux-congestion.h) and of Linux's RTT estimator and RTO
 * (TcpLinuxRttEstimator, sim/ns3/model/tcp-linux-socket.h).
 *
 * Every expected value is worked out by hand from Debian's linux-source-6.1 (6.1.192; the
 * modules as build/ns3/linux-source/net/ipv4/tcp_*.c, the rest of the tree as
 * /usr/src/linux-source-6.1.tar.xz has it), or from the algorithm's formula, with the working
 * and file:line beside each number; none is the code's own output. The congestion controls are
 * driven through a TcpSocketState, as ns-3's own tcp-*-test do: without a socket that keeps the
 * kernel's facts, the bridge takes is_cwnd_limited from tcb->m_isCwndLimited, packets_out from
 * m_bytesInFlight, srtt_us from m_srtt x 8 and the ACK's RTT sample from m_lastRtt.
 *
 * Windows are in segments of 1448 bytes; Linux's windows are segments, ns-3's bytes.
 */

#include "../model/tcp-linux-congestion.h"
#include "../model/tcp-linux-recovery.h"
#include "../model/tcp-linux-socket.h"

#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t MSS = 1448; //!< segment size, bytes

/// ns-3's "no threshold yet": TcpSocketBase's initial ssThresh, UINT32_MAX bytes
constexpr uint32_t NS3_INFINITE_SSTHRESH = std::numeric_limits<uint32_t>::max();

/**
 * @brief A socket state with windows in segments.
 * @param cwndSegments cwnd, segments
 * @param ssthreshSegments ssthresh, segments (0: ns-3's infinite UINT32_MAX bytes)
 * @param cwndLimited tcb->m_isCwndLimited (the bridge's is_cwnd_limited without a socket)
 * @return the state
 */
Ptr<TcpSocketState>
State(uint32_t cwndSegments, uint32_t ssthreshSegments, bool cwndLimited = true)
{
    auto tcb = CreateObject<TcpSocketState>();
    tcb->m_segmentSize = MSS;
    tcb->m_cWnd = cwndSegments * MSS;
    tcb->m_ssThresh = ssthreshSegments == 0 ? NS3_INFINITE_SSTHRESH : ssthreshSegments * MSS;
    tcb->m_isCwndLimited = cwndLimited;
    return tcb;
}

/**
 * @brief A bridge running one Linux algorithm.
 * @param algorithm its name (the Algorithm attribute)
 * @return the congestion control
 */
Ptr<TcpLinuxCongestion>
Linux(const std::string& algorithm)
{
    auto cc = CreateObject<TcpLinuxCongestion>();
    cc->SetAttribute("Algorithm", StringValue(algorithm));
    return cc;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// 1. Reno through the bridge: tcp_reno_cong_avoid, tcp_slow_start, tcp_cong_avoid_ai,
//    tcp_reno_ssthresh (net/ipv4/tcp_cong.c:406-470) and tcp_is_cwnd_limited
//    (include/net/tcp.h:1329-1341)

/**
 * @ingroup internet-test
 * @brief Slow start grows by the segments an ACK acknowledges (tcp_slow_start), where ns-3's
 * TcpNewReno grows by one; an ns-3 threshold of UINT32_MAX bytes is no threshold.
 */
class TcpLinuxRenoSlowStartTestCase : public TestCase
{
  public:
    TcpLinuxRenoSlowStartTestCase()
        : TestCase("reno: slow start grows by the segments acknowledged, NewReno by one")
    {
    }

  private:
    void DoRun() override
    {
        // ssthresh UINT32_MAX bytes is TCP_INFINITE_SSTHRESH (tcp.h:1251): cwnd 10 < ssthresh is
        // slow start (tcp.h:1264-1267). tcp_slow_start (tcp_cong.c:406-414): cwnd = min(10 + 2,
        // ssthresh) = 12, acked -= 12 - 10 -> 0, so tcp_reno_cong_avoid returns (:455-457).
        auto tcb = State(10, 0);
        Linux("reno")->IncreaseWindow(tcb, 2);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 12 * MSS, "Linux: 10 + 2 segments");
        NS_TEST_EXPECT_MSG_EQ(tcb->m_ssThresh.Get(),
                              NS3_INFINITE_SSTHRESH,
                              "the infinite threshold is left alone");

        // ns-3 3.44's TcpNewReno::SlowStart (tcp-congestion-ops.cc): one segment per call
        // whatever segmentsAcked says: 10 -> 11
        auto newReno = State(10, 0);
        CreateObject<TcpNewReno>()->IncreaseWindow(newReno, 2);
        NS_TEST_EXPECT_MSG_EQ(newReno->m_cWnd.Get(), 11 * MSS, "ns-3's NewReno: 10 + 1");

        // a stretch ACK of 30 segments from 10, ssthresh infinite: min(40, 0x7fffffff) = 40
        tcb = State(10, 0);
        Linux("reno")->IncreaseWindow(tcb, 30);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 40 * MSS, "10 + 30 segments");
    }
};

/**
 * @ingroup internet-test
 * @brief Slow start stops at ssthresh and what is left of the ACK goes to congestion avoidance
 * (tcp_slow_start's return value, tcp_reno_cong_avoid).
 */
class TcpLinuxRenoSlowStartToAvoidanceTestCase : public TestCase
{
  public:
    TcpLinuxRenoSlowStartToAvoidanceTestCase()
        : TestCase("reno: slow start stops at ssthresh, the rest goes to avoidance")
    {
    }

  private:
    void DoRun() override
    {
        // cwnd 10, ssthresh 11, 3 segments acknowledged. tcp_slow_start (tcp_cong.c:408-413):
        // cwnd = min(10 + 3, 11) = 11, acked = 3 - (11 - 10) = 2. tcp_cong_avoid_ai(tp, w = 11,
        // 2) (:420-436): snd_cwnd_cnt 0 < 11; cnt = 2 < 11: cwnd stays 11 with 2 counted.
        auto cc = Linux("reno");
        auto tcb = State(10, 11);
        cc->IncreaseWindow(tcb, 3);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 11 * MSS, "stopped at ssthresh");
        // 8 more ACKs of one segment: cnt 2 + 8 = 10 < 11, cwnd 11
        for (int i = 0; i < 8; ++i)
        {
            cc->IncreaseWindow(tcb, 1);
        }
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 11 * MSS, "10 of 11 counted");
        // the 9th: cnt 11 >= 11, delta 1, cnt 0, cwnd 12. Without the 2 carried from slow
        // start it would have taken 11 ACKs.
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 12 * MSS, "the carried 2 counted");

        // one stretch ACK of 13 from cwnd 10, ssthresh 11: slow start to 11, acked 13 - 1 = 12;
        // tcp_cong_avoid_ai(11, 12): cnt 12 >= 11, delta 12 / 11 = 1, cnt 1, cwnd 12
        cc = Linux("reno");
        tcb = State(10, 11);
        cc->IncreaseWindow(tcb, 13);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 12 * MSS, "13 acknowledged: 11, then 12");
        // cnt 1: 10 more single ACKs make 11 < 12; the 11th makes 12 >= 12: cwnd 13
        for (int i = 0; i < 10; ++i)
        {
            cc->IncreaseWindow(tcb, 1);
        }
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 12 * MSS, "1 + 10 of 12 counted");
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 13 * MSS, "1 + 11 of 12 counted");
    }
};

/**
 * @ingroup internet-test
 * @brief Congestion avoidance adds one segment per cwnd segments acknowledged, counted in
 * snd_cwnd_cnt across calls (tcp_cong_avoid_ai).
 */
class TcpLinuxRenoAvoidanceTestCase : public TestCase
{
  public:
    TcpLinuxRenoAvoidanceTestCase()
        : TestCase("reno: avoidance adds a segment per cwnd acknowledged")
    {
    }

  private:
    void DoRun() override
    {
        // cwnd 10, ssthresh 5: not slow start (10 < 5 false). tcp_cong_avoid_ai(tp, 10, 1)
        // (tcp_cong.c:420-436): cnt 1, 2, ..., 9 < 10 leave cwnd 10
        auto cc = Linux("reno");
        auto tcb = State(10, 5);
        for (int i = 0; i < 9; ++i)
        {
            cc->IncreaseWindow(tcb, 1);
        }
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 10 * MSS, "9 of 10 counted");
        // the 10th: cnt 10 >= 10, delta 1, cnt 0: cwnd 11
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 11 * MSS, "10 of 10: one more");
        // a stretch ACK of 25 at cwnd 11, cnt 0: cnt 25 >= 11, delta 25 / 11 = 2, cnt 25 - 22 =
        // 3, cwnd 13
        cc->IncreaseWindow(tcb, 25);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 13 * MSS, "25 at 11: two more");
        // cnt 3 at w = 13: 9 more make 12 < 13, the 10th 13: cwnd 14
        for (int i = 0; i < 9; ++i)
        {
            cc->IncreaseWindow(tcb, 1);
        }
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 13 * MSS, "3 + 9 of 13");
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 14 * MSS, "3 + 10 of 13: one more");

        // ns-3's sub-segment bytes: cwnd 10 segments + 1000 bytes is 10 segments to Linux
        // (cWnd / MSS); a call that leaves Linux's window alone keeps ns-3's bytes
        cc = Linux("reno");
        tcb = State(10, 5);
        tcb->m_cWnd = 10 * MSS + 1000;
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 10 * MSS + 1000, "unchanged window untouched");
    }
};

/**
 * @brief The facts a socket that models Linux's hands the bridge, set by hand: a cwnd-limited
 * connection whose last ACK newly delivered a given number of segments.
 */
class FixedFacts : public TcpLinuxFacts
{
  public:
    uint32_t delivered{0}; //!< segments the last ACK newly delivered

    void FillLinuxState(emusim_tcp_state& state) const override
    {
        state.is_cwnd_limited = 1;
        state.packets_out = state.snd_cwnd;
        state.max_packets_out = state.snd_cwnd;
    }

    void LastAckSample(int32_t& rttUs, uint32_t& inFlightBytes) const override
    {
        rttUs = -1;
        inFlightBytes = 0;
    }

    uint32_t LastAckDelivered() const override
    {
        return delivered;
    }

    bool restarts{false}; //!< the last ACK ends a recovery and starts the next

    bool AckRestartsRecovery() const override
    {
        return restarts;
    }

    bool TakeRateSample(emusim_rate_sample& /* rs */) override
    {
        return false; // no cong_control here
    }

    void SetAppLimited(uint32_t /* appLimited */) override
    {
    }
};

/**
 * @ingroup internet-test
 * @brief On an ACK that ends a fast recovery and starts the next, Linux runs no cong_avoid:
 * tcp_fastretrans_alert enters Recovery again before tcp_cong_control, which then reduces the
 * window (tcp_input.c:3056-3080, 3118-3140, 3573-3588). ns-3 3.44 grows it on its way out of
 * recovery.
 */
class TcpLinuxRestartedRecoveryTestCase : public TestCase
{
  public:
    TcpLinuxRestartedRecoveryTestCase()
        : TestCase("reno: no growth on the ACK that ends one recovery and starts the next")
    {
    }

  private:
    void DoRun() override
    {
        // recovery ends at cwnd = ssthresh = 4 with an ACK that newly delivers 11 segments
        FixedFacts facts;
        facts.delivered = 11;
        facts.restarts = true;
        auto cc = Linux("reno");
        cc->SetFacts(&facts);
        auto tcb = State(4, 4);
        cc->IncreaseWindow(tcb, 11);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 4 * MSS, "the next recovery starts: cwnd 4");
        // the same ACK with nothing left lost: tcp_cong_avoid_ai(tp, 4, 11): cnt 11 >= 4,
        // delta 11 / 4 = 2, cwnd 6
        facts.restarts = false;
        cc->IncreaseWindow(tcb, 11);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 6 * MSS, "Open after the ACK: cwnd 6");
        cc->SetFacts(nullptr);
    }
};

/**
 * @ingroup internet-test
 * @brief The window grows by what an ACK newly delivered (tcp_cong_control hands cong_avoid
 * acked_sacked, tcp_input.c:3573-3588; tcp_newly_delivered, :3869-3880), not by ns-3 3.44's
 * segsAcked, which on the ACK that ends fast recovery is the whole cumulative advance.
 */
class TcpLinuxRenoAfterRecoveryTestCase : public TestCase
{
  public:
    TcpLinuxRenoAfterRecoveryTestCase()
        : TestCase("reno: after recovery the window grows by the segments newly delivered")
    {
    }

  private:
    void DoRun() override
    {
        // recovery ends at cwnd = ssthresh = 4 with an ACK that advances snd_una by 11 segments,
        // 10 of them SACKed before: the retransmission is the one newly delivered.
        // Linux: tcp_cong_avoid_ai(tp, 4, 1): cnt 1 < 4, cwnd 4
        FixedFacts facts;
        facts.delivered = 1;
        auto cc = Linux("reno");
        cc->SetFacts(&facts);
        auto tcb = State(4, 4);
        cc->IncreaseWindow(tcb, 11);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 4 * MSS, "one delivered of 4: cwnd 4");
        // three more ACKs of one segment each: cnt 2, 3, 4 >= 4: cwnd 5
        cc->IncreaseWindow(tcb, 1);
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 4 * MSS, "cnt 3 of 4");
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 5 * MSS, "cnt 4 of 4: one more");
        cc->SetFacts(nullptr);

        // without a socket's facts the bridge takes ns-3's count: 11 at w = 4 is delta
        // 11 / 4 = 2, cwnd 6, as ns-3 3.44's TcpSocketBase grows it at the same exit
        cc = Linux("reno");
        tcb = State(4, 4);
        cc->IncreaseWindow(tcb, 11);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 6 * MSS, "ns-3's cumulative count: cwnd 6");
    }
};

/**
 * @ingroup internet-test
 * @brief tcp_is_cwnd_limited (include/net/tcp.h:1329-1341): no growth when the window was not
 * used, except in slow start below twice the packets out.
 */
class TcpLinuxRenoCwndLimitedTestCase : public TestCase
{
  public:
    TcpLinuxRenoCwndLimitedTestCase()
        : TestCase("reno: growth only when cwnd-limited, or in slow start below 2 x packets out")
    {
    }

  private:
    void DoRun() override
    {
        // avoidance, is_cwnd_limited false: tcp_is_cwnd_limited is false (tcp.h:1333-1340),
        // tcp_reno_cong_avoid returns at once (tcp_cong.c:450-451): 20 ACKs leave cwnd 10
        auto cc = Linux("reno");
        auto tcb = State(10, 5, false);
        for (int i = 0; i < 20; ++i)
        {
            cc->IncreaseWindow(tcb, 1);
        }
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 10 * MSS, "avoidance, not cwnd-limited");
        // and nothing was counted meanwhile: made limited, 9 ACKs leave 10, the 10th gives 11
        tcb->m_isCwndLimited = true;
        for (int i = 0; i < 9; ++i)
        {
            cc->IncreaseWindow(tcb, 1);
        }
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 10 * MSS, "nothing counted while not limited");
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 11 * MSS, "then 10 ACKs for one segment");

        // slow start, not limited, nothing in flight: packets_out = max_packets_out = 0, and
        // 10 < 2 x 0 is false (tcp.h:1337-1338): no growth
        cc = Linux("reno");
        tcb = State(10, 0, false);
        cc->IncreaseWindow(tcb, 2);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 10 * MSS, "slow start, nothing out");

        // slow start, not limited, 6 segments in flight: max_packets_out = ceil(6 MSS / MSS) =
        // 6; 10 < 12: 11; 11 < 12: 12; 12 < 12 false: stays 12
        tcb->m_bytesInFlight = 6 * MSS;
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 11 * MSS, "10 < 2 x 6");
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 12 * MSS, "11 < 2 x 6");
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 12 * MSS, "12 is twice 6: stop");
    }
};

/**
 * @ingroup internet-test
 * @brief tcp_reno_ssthresh (tcp_cong.c:465-470) in bytes, and tcp_reno_undo_cwnd (:473-478)
 * with the prior_cwnd the bridge saves as tcp_init_cwnd_reduction does (tcp_input.c:2676).
 */
class TcpLinuxRenoSsThreshTestCase : public TestCase
{
  public:
    TcpLinuxRenoSsThreshTestCase()
        : TestCase("reno: ssthresh max(half cwnd, 2) segments in bytes; undo to prior cwnd")
    {
    }

  private:
    void DoRun() override
    {
        auto cc = Linux("reno");
        // max(cwnd >> 1, 2): 10 -> 5, 11 -> 5, 100 -> 50, 3 -> max(1, 2) = 2, 1 -> 2
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(State(10, 0), 10 * MSS), 5 * MSS, "cwnd 10");
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(State(11, 0), 11 * MSS), 5 * MSS, "cwnd 11");
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(State(100, 0), 0), 50 * MSS, "cwnd 100");
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(State(3, 0), 0), 2 * MSS, "cwnd 3: at least 2");
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(State(1, 0), 0), 2 * MSS, "cwnd 1: at least 2");
        // 10 segments + 1000 bytes is 10 segments to Linux: 5
        auto tcb = State(10, 0);
        tcb->m_cWnd = 10 * MSS + 1000;
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(tcb, 0), 5 * MSS, "cwnd 10 and a part");

        // prior_cwnd = 20 saved by the reduction; cwnd cut to 10: undo gives max(10, 20) = 20
        cc = Linux("reno");
        tcb = State(20, 0);
        const uint32_t ssthresh = cc->GetSsThresh(tcb, 20 * MSS);
        NS_TEST_EXPECT_MSG_EQ(ssthresh, 10 * MSS, "cwnd 20");
        tcb->m_ssThresh = ssthresh;
        tcb->m_cWnd = ssthresh;
        NS_TEST_EXPECT_MSG_EQ(cc->UndoCwnd(tcb), 20 * MSS, "undo to the prior window");
    }
};

/**
 * @ingroup internet-test
 * @brief UINT32_MAX bytes is TCP_INFINITE_SSTHRESH (include/net/tcp.h:1251) both ways: reno
 * slow-starts without end under it, and a module that sets 0x7fffffff (cubic's init with
 * initial_ssthresh = 0x7fffffff and hystart off, tcp_cubic.c:138-139) gives ns-3 UINT32_MAX.
 */
class TcpLinuxInfiniteSsThreshTestCase : public TestCase
{
  public:
    TcpLinuxInfiniteSsThreshTestCase()
        : TestCase("UINT32_MAX bytes is Linux's infinite ssthresh 0x7fffffff, both ways")
    {
    }

  private:
    void DoRun() override
    {
        // ns-3 to Linux. cwnd 1000, ssthresh UINT32_MAX bytes (0x7fffffff segments): slow start,
        // min(1000 + 500, 0x7fffffff) = 1500 (tcp_cong.c:408), the threshold left as it was
        auto tcb = State(1000, 0);
        Linux("reno")->IncreaseWindow(tcb, 500);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 1500 * MSS, "no end to slow start");
        NS_TEST_EXPECT_MSG_EQ(tcb->m_ssThresh.Get(), NS3_INFINITE_SSTHRESH, "still infinite");
        // against a finite 1200: min(1500, 1200) = 1200, acked 500 - 200 = 300; avoidance at
        // w = 1200 counts 300 < 1200: cwnd 1200
        tcb = State(1000, 1200);
        Linux("reno")->IncreaseWindow(tcb, 500);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 1200 * MSS, "a finite threshold stops it");

        // Linux to ns-3. tcp_cubic.hystart = 0 and initial_ssthresh = 2147483647 (perm 0644,
        // tcp_cubic.c:69, 75): cubictcp_init sets snd_ssthresh = 0x7fffffff, which ns-3 gets as
        // UINT32_MAX bytes (not 0x7fffffff x 1448, nor a wrapped product)
        TcpLinuxCongestion::SetModuleParameters(
            "tcp_cubic.hystart=0;tcp_cubic.initial_ssthresh=2147483647");
        tcb = State(10, 20);
        Linux("cubic")->StartConnection(tcb);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_ssThresh.Get(), NS3_INFINITE_SSTHRESH, "0x7fffffff");
        // a finite initial_ssthresh of 100 segments: 100 x 1448 bytes
        TcpLinuxCongestion::SetModuleParameters("tcp_cubic.initial_ssthresh=100");
        tcb = State(10, 20);
        Linux("cubic")->StartConnection(tcb);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_ssThresh.Get(), 100 * MSS, "100 segments");
        // the defaults back (tcp_cubic.c:51, 55: initial_ssthresh 0, hystart 1)
        TcpLinuxCongestion::SetModuleParameters("tcp_cubic.hystart=1;tcp_cubic.initial_ssthresh=0");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_cubic", "hystart"),
                              "1",
                              "hystart restored");
        NS_TEST_EXPECT_MSG_EQ(
            TcpLinuxCongestion::GetModuleParameter("tcp_cubic", "initial_ssthresh"),
            "0",
            "initial_ssthresh restored");
        // with hystart on, init leaves the threshold alone (tcp_cubic.c:138): 20 segments
        tcb = State(10, 20);
        Linux("cubic")->StartConnection(tcb);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_ssThresh.Get(), 20 * MSS, "defaults: untouched");
    }
};

// ---------------------------------------------------------------------------------------------
// 2. CUBIC's window after a loss (net/ipv4/tcp_cubic.c)

/**
 * @ingroup internet-test
 * @brief After a loss at W_max = 100 segments, CUBIC's window in congestion avoidance follows
 * W(t) = C (t - K)^3 + W_max, driven by an ACK clock over simulated time.
 *
 * The working. cubictcp_register (tcp_cubic.c:508-546) with bic_scale 41, beta 717:
 * cube_rtt_scale = 41 x 10 = 410, so bictcp_update's delta = 410 x offs^3 >> 40 (:279) with offs
 * in 1/1024 s is C x ((t - K) / 1 s)^3 with C = 410 / 1024 = 0.4004 (the paper's 0.4);
 * cube_factor = 2^40 / 410 = 2681735677 (:537-540); beta_scale = 8 x (1024 + 717) / 3 /
 * (1024 - 717) = 4642 / 307 = 15 (:518-519).
 *
 * The loss: cwnd 100, cubictcp_recalc_ssthresh (:341-356): epoch_start = 0; 100 <
 * last_max_cwnd (0) is false, so last_max_cwnd = 100; ssthresh = max(100 x 717 / 1024, 2) =
 * 71700 / 1024 = 70 segments.
 *
 * The epoch starts at the first ACK in avoidance, cwnd 70 (bictcp_update, :235-251):
 * last_max_cwnd 100 > 70, so bic_K = cubic_root(cube_factor x 30) = cubic_root(80452070310):
 * fls64 = 37, b = (37 x 84 >> 8) - 1 = 11, shift = a >> 33 = 9, v[9] = 129, x = (139 << 11) >>
 * 6 = 4448; Newton (:206-207): 2 x 4448 + a / (4448 x 4447) = 8896 + 4067 = 12963, x 341 >> 10 =
 * 4316, i.e. 4.2148 s (the exact cbrt(30 x 1024 / 410) = 4316.97/1024 s: the table's
 * approximation is 1 ms short). origin = 100. The formula: K = cbrt(W_max (1 - beta) / C) =
 * cbrt(100 x 307 / 1024 / 0.4) = 4.2162 s.
 *
 * The kernel's time (:267-271): t = (jiffies since the epoch + usecs_to_jiffies(delay_min)) x
 * 1024 / 250, floored; delay_min is the 200 ms RTT given before the loss (cubictcp_acked,
 * :452-476; after the loss samples are ignored for a second, :463, and then equal). So the
 * target at elapsed time e is bic_target = 100 -+ floor(0.4004 x |e + 0.2 s - K|^3), an
 * integer, the fraction dropped toward 100 (:279-283), with t to 4 ms.
 *
 * The ACK clock: one ACK of one segment every RTT / cwnd (cwnd ACKs per 200 ms RTT). Below the
 * target, cnt = cwnd / (bic_target - cwnd) (:286-287) makes the window gain (bic_target - cwnd)
 * per RTT. At the target, cnt = 100 cwnd (:288-289): the window waits while its ACKs are still
 * counted in snd_cwnd_cnt, and when the target steps up that credit (tcp_cong_avoid_ai,
 * tcp_cong.c:423-426) takes the step within a few ACKs. So the window never passes
 * bic_target(e), and trails it by no more than the target moved in the last RTT, less one for
 * the integer step: bic_target(e - RTT) - 1 <= cwnd(e) <= bic_target(e). Since the target is
 * W one delay_min ahead, the window runs from about a segment below W(e) (steep, concave part)
 * to about a segment above it (flat part, above the origin): |cwnd - W(e)| <= 1.25 at the three
 * checks, from the intervals below.
 *
 * TCP friendliness (:300-316) does not bound cnt here: tcp_cwnd starts at 70 and gains one per
 * cwnd x 15 >> 3 >= 131 ACKs; with at most 104 / 0.2 = 520 ACKs a second, tcp_cwnd <= 70 + 3.97
 * e, below the cubic curve at every e up to K + 2 s (e = 1: 74 < 86.9; e = 6.2: 95 < 103).
 * Not slow start (cwnd 70 = ssthresh), so HyStart does not run.
 *
 * The checks (W(e) with C = 0.4, K = 4.2162 s; bic_target from the kernel's integers):
 * - e = K - 2 s: W = 100 - 0.4 x 8 = 96.8. bic_target: jiffies 554 + 50 = 604, t = 2473, K - t =
 *   1843, 410 x 1843^3 >> 40 = 2 (2.33), target 98; one RTT earlier (t = K - 2.0 s) 100 -
 *   floor(3.20) = 97. cwnd in [96, 98].
 * - e = K: W = 100 = W_max. bic_target: jiffies 1054 + 50, t = 4521, t - K = 205, delta 0:
 *   target 100. The target reached 100 (0.4004 (K - t)^3 < 1, K - t < 1.357 s) at e = K - 1.56
 *   s, when cwnd ~ W = 98.5: from 98, cnt 49 then 99, ~0.3 s to 100, long before K. cwnd in [99,
 *   100].
 * - e = K + 2 s: W = 100 + 0.4 x 8 = 103.2. bic_target: jiffies 1554 + 50, t = 6569, t - K =
 *   2253, delta 4 (4.27): target 104; one RTT earlier (t = K + 2.0 s) 100 + floor(3.20) = 103.
 *   cwnd in [102, 104].
 */
class TcpLinuxCubicCurveTestCase : public TestCase
{
  public:
    TcpLinuxCubicCurveTestCase()
        : TestCase("cubic: after a loss at 100 segments the window follows C (t - K)^3 + W_max")
    {
    }

  private:
    /// The connection before the loss: cwnd 100 in avoidance, one 200 ms RTT sample.
    void Start()
    {
        // cwnd 100 = ssthresh 100 is not slow start: no HyStart (tcp_cubic.c:474)
        m_cc->StartConnection(m_tcb);
        m_tcb->m_lastRtt = MilliSeconds(RTT_MS);
        // epoch_start 0, so the sample is taken: delay_min = 200000 µs (tcp_cubic.c:463-472)
        m_cc->PktsAcked(m_tcb, 1, MilliSeconds(RTT_MS));
    }

    /// The loss: the threshold, and cwnd reduced to it (as ns-3's recovery leaves it).
    void Loss()
    {
        m_ssThreshAtLoss = m_cc->GetSsThresh(m_tcb, 100 * MSS);
        m_tcb->m_ssThresh = m_ssThreshAtLoss;
        m_tcb->m_cWnd = m_ssThreshAtLoss;
    }

    /// An ACK of one segment, and the next one RTT / cwnd later.
    void Ack()
    {
        // tcp_ack: pkts_acked (tcp_clean_rtx_queue) before cong_avoid (tcp_cong_avoid)
        m_cc->PktsAcked(m_tcb, 1, MilliSeconds(RTT_MS));
        m_cc->IncreaseWindow(m_tcb, 1);
        const uint32_t segments = m_tcb->m_cWnd.Get() / MSS;
        Simulator::Schedule(NanoSeconds(RTT_MS * 1000000 / segments),
                            &TcpLinuxCubicCurveTestCase::Ack,
                            this);
    }

    /**
     * @brief Note the window.
     * @param index which check
     */
    void Record(size_t index)
    {
        m_cwnd[index] = m_tcb->m_cWnd.Get() / MSS;
    }

    void DoRun() override
    {
        m_cc = Linux("cubic");
        m_tcb = State(100, 100);
        // the formula: C = 0.4, beta = 717 / 1024, W_max = 100
        const double c = 0.4;
        const double wMax = 100;
        const double k = std::cbrt(wMax * (1 - 717.0 / 1024) / c); // 4.2162 s
        const std::vector<double> elapsed{k - 2, k, k + 2};
        // bounds worked out in the class comment
        const std::vector<uint32_t> low{96, 99, 102};
        const std::vector<uint32_t> high{98, 100, 104};
        m_cwnd.assign(elapsed.size(), 0);

        const Time lossAt = Seconds(1); // a whole jiffy: the epoch starts at jiffy 250
        Simulator::Schedule(lossAt - Seconds(0.2), &TcpLinuxCubicCurveTestCase::Start, this);
        Simulator::Schedule(lossAt, &TcpLinuxCubicCurveTestCase::Loss, this);
        Simulator::Schedule(lossAt, &TcpLinuxCubicCurveTestCase::Ack, this);
        for (size_t i = 0; i < elapsed.size(); ++i)
        {
            Simulator::Schedule(lossAt + Seconds(elapsed[i]),
                                &TcpLinuxCubicCurveTestCase::Record,
                                this,
                                i);
        }
        Simulator::Stop(lossAt + Seconds(k + 2.5));
        Simulator::Run();
        Simulator::Destroy();

        NS_TEST_EXPECT_MSG_EQ(m_ssThreshAtLoss, 70 * MSS, "ssthresh 717/1024 of 100");
        for (size_t i = 0; i < elapsed.size(); ++i)
        {
            const double formula = c * std::pow(elapsed[i] - k, 3) + wMax;
            std::ostringstream what;
            what << "cwnd " << m_cwnd[i] << " at K " << (elapsed[i] - k >= 0 ? "+ " : "- ")
                 << std::abs(elapsed[i] - k) << " s, W(t) = " << formula;
            NS_TEST_EXPECT_MSG_GT_OR_EQ(m_cwnd[i], low[i], what.str());
            NS_TEST_EXPECT_MSG_LT_OR_EQ(m_cwnd[i], high[i], what.str());
            NS_TEST_EXPECT_MSG_EQ_TOL(static_cast<double>(m_cwnd[i]), formula, 1.25, what.str());
        }
    }

    static constexpr int64_t RTT_MS = 200; //!< the path's round trip, ms
    Ptr<TcpLinuxCongestion> m_cc;          //!< the bridge running cubic
    Ptr<TcpSocketState> m_tcb;             //!< the connection
    uint32_t m_ssThreshAtLoss{0};          //!< GetSsThresh at the loss, bytes
    std::vector<uint32_t> m_cwnd;          //!< the window at each check, segments
};

/**
 * @ingroup internet-test
 * @brief Westwood's bandwidth estimate comes from in_ack_event (tcp_westwood_ack,
 * net/ipv4/tcp_westwood.c:225-238), which tcp_ack calls after the ACK's acknowledgements
 * (tcp_in_ack_event, tcp_input.c:3828-3845, 4006). Worked by hand: the module starts at 1 s
 * (rtt_win_sx = that jiffy, first_ack = 1); then one ACK of one segment (1448 bytes) at
 * 1 s + (4k + 1) ms, k = 1, 2, ..., i.e. one per jiffy, each with an RTT sample of 100 ms
 * (w->rtt = 25 jiffies, tcp_westwood_pkts_acked). On the fast path (westwood_fast_bw) each ACK
 * first closes the window if more than max(rtt, 50 ms) = 25 jiffies have passed, then adds
 * its bytes: the first ACK adds none (first_ack takes snd_una as it is), ACKs 2-25 add 24 x
 * 1448 = 34 752 bytes, and ACK 26 (delta 26 jiffies) closes the first window: bw_est = 34 752
 * / 26 = 1336 bytes per jiffy (westwood_filter's first sample). rtt_min is 25 jiffies, so a
 * timeout then (CA_EVENT_LOSS, tcp_westwood_event) sets ssthresh = max(1336 x 25 / 1448, 2) =
 * 23 segments (tcp_westwood_bw_rttmin). Without in_ack_event the estimate stays 0 and
 * ssthresh is 2.
 */
class TcpLinuxWestwoodInAckEventTestCase : public TestCase
{
  public:
    TcpLinuxWestwoodInAckEventTestCase()
        : TestCase("westwood: in_ack_event estimates the bandwidth; ssthresh 23 after 26 ACKs")
    {
    }

  private:
    /// ACK number k: one more segment acknowledged, an RTT sample of 100 ms.
    void Ack(uint32_t k)
    {
        m_tcb->m_lastAckedSeq = SequenceNumber32(1 + k * MSS);
        m_tcb->m_lastRtt = MilliSeconds(100);
        m_cc->PktsAcked(m_tcb, 1, MilliSeconds(100));
    }

    void DoRun() override
    {
        m_cc = Linux("westwood");
        m_tcb = State(20, 20);
        m_tcb->m_lastAckedSeq = SequenceNumber32(1);
        const Time start = Seconds(1); // a whole jiffy
        Simulator::Schedule(start, [this]() { m_cc->StartConnection(m_tcb); });
        for (uint32_t k = 1; k <= 26; ++k)
        {
            Simulator::Schedule(start + MilliSeconds(4 * k + 1),
                                &TcpLinuxWestwoodInAckEventTestCase::Ack,
                                this,
                                k);
        }
        Simulator::Schedule(start + MilliSeconds(4 * 26 + 2), [this]() {
            // a timeout: tcp_westwood_event sets ssthresh from the estimate (its own ssthresh
            // hook is tcp_reno_ssthresh)
            m_cc->CwndEvent(m_tcb, TcpSocketState::CA_EVENT_LOSS);
            m_ssThresh = m_tcb->m_ssThresh.Get();
        });
        Simulator::Run();
        Simulator::Destroy();
        NS_TEST_EXPECT_MSG_EQ(m_ssThresh, 23 * MSS, "bw_est 1336 B/jiffy x rtt_min 25 jiffies");
    }

    Ptr<TcpLinuxCongestion> m_cc; //!< the bridge running westwood
    Ptr<TcpSocketState> m_tcb;    //!< the connection
    uint32_t m_ssThresh{0};       //!< ssthresh after the timeout, bytes
};

// ---------------------------------------------------------------------------------------------
// 3. Module parameters (kernel/params.c's sysfs, through emusim_cc_set_param)

/**
 * @ingroup internet-test
 * @brief tcp_cubic.beta changes cubictcp_recalc_ssthresh's factor; parameters read back as
 * sysfs prints them; the ModuleParameters attribute sets them when a connection starts.
 */
class TcpLinuxModuleParametersTestCase : public TestCase
{
  public:
    TcpLinuxModuleParametersTestCase()
        : TestCase("module parameters: tcp_cubic.beta sets the reduction; values read back")
    {
    }

  private:
    void DoRun() override
    {
        // the modules' defaults: tcp_cubic.c:49-53 (beta 717, bic_scale 41, fast_convergence
        // 1), tcp_hybla.c:29 (rtt0 25)
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_cubic", "beta"),
                              "717",
                              "beta");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_cubic", "bic_scale"),
                              "41",
                              "bic_scale (perm 0444, tcp_cubic.c:71)");
        NS_TEST_EXPECT_MSG_EQ(
            TcpLinuxCongestion::GetModuleParameter("tcp_cubic", "fast_convergence"),
            "1",
            "fast_convergence");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_hybla", "rtt0"),
                              "25",
                              "rtt0");

        // beta 717: max(100 x 717 / 1024, 2) = 70 (tcp_cubic.c:355)
        NS_TEST_EXPECT_MSG_EQ(Linux("cubic")->GetSsThresh(State(100, 0), 0), 70 * MSS, "beta 717");
        // beta 512 (perm 0644, :67): 100 x 512 / 1024 = 50; 7 x 512 / 1024 = 3
        TcpLinuxCongestion::SetModuleParameters("tcp_cubic.beta=512");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_cubic", "beta"),
                              "512",
                              "beta set");
        NS_TEST_EXPECT_MSG_EQ(Linux("cubic")->GetSsThresh(State(100, 0), 0),
                              50 * MSS,
                              "beta 512, cwnd 100");
        NS_TEST_EXPECT_MSG_EQ(Linux("cubic")->GetSsThresh(State(7, 0), 0),
                              3 * MSS,
                              "beta 512, cwnd 7");
        TcpLinuxCongestion::SetModuleParameters("tcp_cubic.beta=717");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_cubic", "beta"),
                              "717",
                              "beta restored");
        NS_TEST_EXPECT_MSG_EQ(Linux("cubic")->GetSsThresh(State(100, 0), 0),
                              70 * MSS,
                              "beta 717 again");

        // two at once, ';'-separated, through the attribute, applied at StartConnection;
        // param_set_int is kstrtoint(val, 0, ...), base 0 taking hex (kernel/params.c:219-222,
        // 241): 0x200 = 512
        auto cc = Linux("cubic");
        cc->SetAttribute("ModuleParameters", StringValue("tcp_cubic.beta=0x200;tcp_hybla.rtt0=50"));
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_cubic", "beta"),
                              "717",
                              "not before the connection starts");
        cc->StartConnection(State(100, 0));
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_cubic", "beta"),
                              "512",
                              "beta from the attribute");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_hybla", "rtt0"),
                              "50",
                              "rtt0 from the attribute");
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(State(100, 0), 0), 50 * MSS, "beta 512 in use");
        TcpLinuxCongestion::SetModuleParameters("tcp_cubic.beta=717;tcp_hybla.rtt0=25");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_cubic", "beta"),
                              "717",
                              "beta restored");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::GetModuleParameter("tcp_hybla", "rtt0"),
                              "25",
                              "rtt0 restored");
    }
};

// ---------------------------------------------------------------------------------------------
// 4. TcpLinuxRttEstimator: tcp_rtt_estimator (net/ipv4/tcp_input.c:848-905), tcp_set_rto
//    (:953-978) and __tcp_set_rto (include/net/tcp.h:725-728), rto_min = TCP_RTO_MIN = HZ / 5 =
//    50 jiffies = 200000 µs (tcp.h:144, tcp_rto_min_us :768-771), 4000 µs jiffies (HZ 250)

/**
 * @ingroup internet-test
 * @brief A test of TcpLinuxRttEstimator, with the check every sample gets.
 */
class TcpLinuxRttEstimatorTestCase : public TestCase
{
  public:
    /**
     * @brief Constructor.
     * @param name the case's name
     */
    explicit TcpLinuxRttEstimatorTestCase(const std::string& name)
        : TestCase(name)
    {
    }

  protected:
    /**
     * @brief Check srtt and the RTO, and that ns-3's estimate + 4 x variation is the RTO
     * exactly (TcpSocketBase's formula, with rttvar >= 200 ms > its granularity).
     * @param e the estimator
     * @param srttUsX8 expected srtt_us (x 8)
     * @param rtoUs expected RTO, µs
     * @param what which samples
     */
    void Check(const TcpLinuxRttEstimator& e,
               uint32_t srttUsX8,
               uint64_t rtoUs,
               const std::string& what)
    {
        NS_TEST_EXPECT_MSG_EQ(e.GetSrttUsX8(), srttUsX8, what << ": srtt_us");
        NS_TEST_EXPECT_MSG_EQ(e.GetRtoUs(), rtoUs, what << ": RTO, µs");
        NS_TEST_EXPECT_MSG_EQ(rtoUs % TcpLinuxRttEstimator::JIFFY_US,
                              0U,
                              what << ": whole jiffies");
        NS_TEST_EXPECT_MSG_EQ(e.GetEstimate(), MicroSeconds(srttUsX8 >> 3), what << ": estimate");
        NS_TEST_EXPECT_MSG_EQ(e.GetEstimate() + e.GetVariation() * 4,
                              MicroSeconds(rtoUs),
                              what << ": estimate + 4 x variation");
        // TcpSocketBase's whole formula with the linux profiles' ClockGranularity 1 ms and
        // MinRto 200 ms (config/tcp_profiles.yaml): the floors do not bind
        NS_TEST_EXPECT_MSG_EQ(
            Max(e.GetEstimate() + Max(MilliSeconds(1), e.GetVariation() * 4), MilliSeconds(200)),
            MicroSeconds(rtoUs),
            what << ": ns-3's RTO formula");
    }
};

/**
 * @ingroup internet-test
 * @brief Samples of 20, 30 and 10 ms: the first sample, a rise in the same window, a fall (the
 * smaller gain) at a window boundary; rttvar at its 200 ms floor throughout.
 */
class TcpLinuxRttEstimatorFloorTestCase : public TcpLinuxRttEstimatorTestCase
{
  public:
    TcpLinuxRttEstimatorFloorTestCase()
        : TcpLinuxRttEstimatorTestCase(
              "RTT estimator: samples 20, 30, 10 ms, rttvar at its 200 ms floor")
    {
    }

  private:
    void DoRun() override
    {
        auto e = CreateObject<TcpLinuxRttEstimator>();
        // 20 ms, snd_una 1000, snd_nxt 11000. First sample (:899-904): srtt = 20000 << 3 =
        // 160000; mdev = 20000 << 1 = 40000; rttvar = max(40000, 200000) = 200000; mdev_max =
        // 200000; rtt_seq = 11000. RTO = usecs_to_jiffies(20000 + 200000) = 55 jiffies = 220000.
        e->Sample(20000, 1000, 11000);
        Check(*e, 160000, 220000, "20 ms");
        NS_TEST_EXPECT_MSG_EQ(e->GetEstimate(), MilliSeconds(20), "estimate 20 ms");
        NS_TEST_EXPECT_MSG_EQ(e->GetVariation(), MicroSeconds(50000), "(220 - 20) / 4 ms");

        // 30 ms, snd_una 5000 (not after rtt_seq 11000), snd_nxt 15000 (:870-897): m = 30000 -
        // 160000 >> 3 = 10000; srtt = 170000; m >= 0: m -= 40000 >> 2 -> 0; mdev 40000 (not >
        // mdev_max 200000). RTO = 170000 >> 3 + 200000 = 21250 + 200000 = 221250 µs, 55.3 jiffies
        // rounded up to 56 = 224000 µs.
        e->Sample(30000, 5000, 15000);
        Check(*e, 170000, 224000, "20, 30 ms");
        NS_TEST_EXPECT_MSG_EQ(e->GetVariation(), NanoSeconds(50687500), "(224000 - 21250) / 4 µs");

        // 10 ms, snd_una 12000 after rtt_seq 11000, snd_nxt 20000: m = 10000 - 21250 = -11250;
        // srtt = 158750; m < 0 (:873-886): m = 11250 - 40000 >> 2 = 1250 > 0, m >>= 3 -> 156;
        // mdev = 40156 (not > 200000). after(12000, 11000): mdev_max 200000 < rttvar 200000 is
        // false; rtt_seq = 20000, mdev_max = 200000. RTO = 158750 >> 3 + 200000 = 19843 +
        // 200000 = 219843 µs, 54.96 jiffies -> 55 = 220000 µs.
        e->Sample(10000, 12000, 20000);
        Check(*e, 158750, 220000, "20, 30, 10 ms");
        NS_TEST_EXPECT_MSG_EQ(e->GetNSamples(), 3U, "three samples");

        // Reset: the next sample is a first one again; Measurement() (no sequence numbers) of
        // 20 ms gives what Sample(20000, ...) gave
        e->Reset();
        e->Measurement(MilliSeconds(20));
        Check(*e, 160000, 220000, "20 ms after Reset");
        // a copy carries the state: 30 ms then as above (the window test cannot pass without
        // sequence numbers, and rttvar stays 200000)
        Ptr<TcpLinuxRttEstimator> copy = DynamicCast<TcpLinuxRttEstimator>(e->Copy());
        NS_TEST_ASSERT_MSG_NE(copy, nullptr, "Copy is a TcpLinuxRttEstimator");
        copy->Measurement(MilliSeconds(30));
        Check(*copy, 170000, 224000, "copy, 20, 30 ms");
    }
};

/**
 * @ingroup internet-test
 * @brief Samples of 200, 40, 180, 180 ms: rttvar above its floor, the smaller gain raising
 * mdev_max within a window, and rttvar decaying toward mdev_max only at a window boundary.
 */
class TcpLinuxRttEstimatorDecayTestCase : public TcpLinuxRttEstimatorTestCase
{
  public:
    TcpLinuxRttEstimatorDecayTestCase()
        : TcpLinuxRttEstimatorTestCase(
              "RTT estimator: samples 200, 40, 180, 180 ms, rttvar decays per window")
    {
    }

  private:
    void DoRun() override
    {
        auto e = CreateObject<TcpLinuxRttEstimator>();
        // 200 ms, una 1000, nxt 11000: srtt 1600000, mdev 400000, rttvar = max(400000, 200000)
        // = 400000 = mdev_max; rtt_seq 11000. RTO = 200000 + 400000 = 600000 (150 jiffies)
        e->Sample(200000, 1000, 11000);
        Check(*e, 1600000, 600000, "200 ms");

        // 40 ms, una 5000 (same window), nxt 15000: m = 40000 - 200000 = -160000; srtt =
        // 1440000 (180000 µs); m = 160000 - 400000 >> 2 = 60000 > 0, >>= 3 -> 7500; mdev =
        // 407500 > mdev_max 400000: mdev_max = 407500, > rttvar: rttvar = 407500. RTO = 180000 +
        // 407500 = 587500 µs, 146.9 jiffies -> 147 = 588000 µs. (The full gain, mdev 460000,
        // would have given 640000.)
        e->Sample(40000, 5000, 15000);
        Check(*e, 1440000, 588000, "200, 40 ms");

        // 180 ms, una 12000 after rtt_seq 11000, nxt 20000: m = 180000 - 180000 = 0; srtt
        // 1440000; m = 0 - 407500 >> 2 = -101875; mdev = 305625 (not > 407500). Window boundary:
        // mdev_max 407500 < rttvar 407500 false, no decay; rtt_seq 20000, mdev_max = 200000.
        // RTO = 180000 + 407500 -> 588000 µs.
        e->Sample(180000, 12000, 20000);
        Check(*e, 1440000, 588000, "200, 40, 180 ms");

        // 180 ms again, both ways. m = 0 - 305625 >> 2 = -76406, mdev = 229219 > mdev_max
        // 200000: mdev_max = 229219 (not > rttvar 407500).
        Ptr<TcpLinuxRttEstimator> sameWindow = DynamicCast<TcpLinuxRttEstimator>(e->Copy());
        // una 21000 after rtt_seq 20000: mdev_max 229219 < rttvar 407500: rttvar -= (407500 -
        // 229219) >> 2 = 178281 >> 2 = 44570 -> 362930. RTO = 180000 + 362930 = 542930 µs,
        // 135.7 jiffies -> 136 = 544000 µs.
        e->Sample(180000, 21000, 30000);
        Check(*e, 1440000, 544000, "200, 40, 180, 180 ms, next window");
        // una 15000, not after rtt_seq 20000: no decay, rttvar 407500, RTO 588000 µs
        sameWindow->Sample(180000, 15000, 30000);
        Check(*sameWindow, 1440000, 588000, "200, 40, 180, 180 ms, same window");
    }
};

// ---------------------------------------------------------------------------------------------
// 5. The registered algorithms

/**
 * @ingroup internet-test
 * @brief Available(): reno first (built in, registered at boot, tcp_cong.c:481-488), then one
 * name for each module of the CMakeLists' LINUX_CC_MODULES; TCP_CONG_NEEDS_ECN of dctcp.
 */
class TcpLinuxAvailableTestCase : public TestCase
{
  public:
    TcpLinuxAvailableTestCase()
        : TestCase("Available: reno first, then every module of LINUX_CC_MODULES; dctcp needs ECN")
    {
    }

  private:
    void DoRun() override
    {
        // the modules the build compiles, as sim/ns3/CMakeLists.txt names them (the spec
        // directory is the repository's, next to sim/)
        std::ifstream in(EMUSIM_SPEC_DIR "/../sim/ns3/CMakeLists.txt");
        NS_TEST_ASSERT_MSG_EQ(in.good(), true, "sim/ns3/CMakeLists.txt readable");
        std::stringstream text;
        text << in.rdbuf();
        const std::string cmake = text.str();
        const std::string key = "set(LINUX_CC_MODULES";
        const auto begin = cmake.find(key);
        NS_TEST_ASSERT_MSG_NE(begin, std::string::npos, "set(LINUX_CC_MODULES ...) found");
        const auto end = cmake.find(')', begin);
        std::istringstream words(cmake.substr(begin + key.size(), end - begin - key.size()));
        std::vector<std::string> modules;
        for (std::string word; words >> word;)
        {
            modules.push_back(word);
        }
        NS_TEST_ASSERT_MSG_GT(modules.size(), 1U, "modules named");

        const std::vector<std::string> available = TcpLinuxCongestion::Available();
        NS_TEST_ASSERT_MSG_GT(available.size(), 0U, "something registered");
        NS_TEST_EXPECT_MSG_EQ(available.front(), "reno", "reno first");
        for (const auto& module : modules)
        {
            // each tcp_NAME.c registers the algorithm "NAME" (its .name; tcp_dctcp.c registers
            // dctcp alone, its dctcp-reno is a fallback never registered, :245-252, :280)
            NS_TEST_EXPECT_MSG_EQ(
                (std::find(available.begin(), available.end(), module) != available.end()),
                true,
                "module " << module << " registered");
        }
        // one registration per module file (tcp_register_congestion_control once in each)
        NS_TEST_EXPECT_MSG_EQ(available.size(), 1 + modules.size(), "reno and one per module");
        std::vector<std::string> sorted = available;
        std::sort(sorted.begin(), sorted.end());
        NS_TEST_EXPECT_MSG_EQ((std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()),
                              true,
                              "no name twice");

        // .flags: dctcp TCP_CONG_NEEDS_ECN (tcp_dctcp.c:239); cubic none (tcp_cubic.c:478-488);
        // reno and bbr TCP_CONG_NON_RESTRICTED only (tcp_cong.c:482, tcp_bbr.c:1143). (NeedsEcn
        // asks the registry; it makes no connection, so bbr is fine here.)
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::NeedsEcn("dctcp"), true, "dctcp");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::NeedsEcn("cubic"), false, "cubic");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::NeedsEcn("reno"), false, "reno");
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxCongestion::NeedsEcn("bbr"), false, "bbr");

        // the name the connection reports
        NS_TEST_EXPECT_MSG_EQ(Linux("hybla")->GetName(), "linux-hybla", "GetName");
    }
};

// ---------------------------------------------------------------------------------------------
// 6. hybla's init (net/ipv4/tcp_hybla.c:34-66)

/**
 * @ingroup internet-test
 * @brief hybla_init sets cwnd to rho, from the srtt the connection starts with.
 */
class TcpLinuxHyblaInitTestCase : public TestCase
{
  public:
    /**
     * @brief Constructor.
     * @param srttMs the tcb's smoothed RTT when the connection starts, ms
     * @param rtt0Ms tcp_hybla.rtt0 (ms) for this case
     * @param rho the expected initial cwnd, segments, worked out in the suite
     */
    TcpLinuxHyblaInitTestCase(uint32_t srttMs, uint32_t rtt0Ms, uint32_t rho)
        : TestCase("hybla: srtt " + std::to_string(srttMs) + " ms, rtt0 " + std::to_string(rtt0Ms) +
                   " ms: initial cwnd " + std::to_string(rho)),
          m_srttMs(srttMs),
          m_rtt0Ms(rtt0Ms),
          m_rho(rho)
    {
    }

  private:
    void DoRun() override
    {
        auto cc = Linux("hybla");
        cc->SetAttribute("ModuleParameters",
                         StringValue("tcp_hybla.rtt0=" + std::to_string(m_rtt0Ms)));
        // no socket: the bridge's Load gives the module srtt_us = tcb->m_srtt in µs x 8
        auto tcb = State(10, 0);
        tcb->m_srtt = MilliSeconds(m_srttMs);
        cc->StartConnection(tcb);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), m_rho * MSS, "cwnd = rho");
        // init runs once: a second StartConnection with another srtt changes nothing
        tcb->m_srtt = MilliSeconds(400);
        tcb->m_cWnd = 10 * MSS;
        cc->StartConnection(tcb);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 10 * MSS, "init runs once");
        TcpLinuxCongestion::SetModuleParameters("tcp_hybla.rtt0=25");
    }

    uint32_t m_srttMs; //!< smoothed RTT at the start, ms
    uint32_t m_rtt0Ms; //!< tcp_hybla.rtt0
    uint32_t m_rho;    //!< expected cwnd, segments
};

// ---------------------------------------------------------------------------------------------

/**
 * @ingroup tcp
 * @brief Linux's cwnd reduction (tcp_cwnd_reduction, net/ipv4/tcp_input.c:2683-2707), worked by
 * hand for each branch: the proportional part while more is in flight than ssthresh, the slow
 * start back up to it (one more segment on an ACK that advanced snd_una without new losses),
 * the fast retransmit forced at entry, and an ACK that delivered nothing.
 */
class TcpLinuxPrrTestCase : public TestCase
{
  public:
    TcpLinuxPrrTestCase()
        : TestCase("Linux PRR: proportional, slow start to ssthresh, forced retransmit")
    {
    }

  private:
    void DoRun() override
    {
        uint32_t delivered = 0;
        // entry: prior_cwnd 20, ssthresh 10, 19 in flight, one SACKed: delta = 10 - 19 < 0;
        // prr_delivered 1; (10 x 1 + 20 - 1) / 20 = 29 / 20 = 1; sndcnt = 1 - prr_out 0 = 1;
        // cwnd = 19 + 1 = 20
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxPrrRecovery::Reduce(10, 20, 19, 1, 1, false, delivered, 0),
                              20,
                              "entry: one segment (the fast retransmit)");
        NS_TEST_EXPECT_MSG_EQ(delivered, 1, "prr_delivered counts the SACKed segment");
        // next ACK, one more SACKed, the retransmission out (prr_out 1), 18 in flight:
        // prr_delivered 2; (10 x 2 + 19) / 20 = 1; sndcnt = 1 - 1 = 0; cwnd = 18
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxPrrRecovery::Reduce(10, 20, 18, 1, 0, false, delivered, 1),
                              18,
                              "proportional: nothing to send yet");
        // ... after 20 delivered in all with 10 sent: (10 x 20 + 19) / 20 = 10; sndcnt = 0
        delivered = 19;
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxPrrRecovery::Reduce(10, 20, 11, 1, 0, false, delivered, 10),
                              11,
                              "proportional: ssthresh / prior_cwnd of what was delivered");
        // below ssthresh: ssthresh 20, 8 in flight (delta 12), 2 delivered, prr_delivered
        // 12 -> 14, prr_out 13: max(14 - 13, 2) = 2, +1 (snd_una advanced, no new loss) = 3,
        // min(12, 3) = 3: cwnd = 11
        delivered = 12;
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxPrrRecovery::Reduce(20, 30, 8, 2, 0, true, delivered, 13),
                              11,
                              "slow start toward ssthresh, one more on a clean advance");
        // the same ACK with a new loss: no extra segment, cwnd = 8 + 2 = 10
        delivered = 12;
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxPrrRecovery::Reduce(20, 30, 8, 2, 1, true, delivered, 13),
                              10,
                              "a new loss takes the extra segment away");
        // never above ssthresh: ssthresh 10, 9 in flight (delta 1): min(1, 3) = 1, cwnd 10
        delivered = 12;
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxPrrRecovery::Reduce(10, 30, 9, 2, 0, true, delivered, 13),
                              10,
                              "bounded by ssthresh - in flight");
        // an ACK that delivered nothing leaves cwnd alone (0: no change) and the counters too
        delivered = 5;
        NS_TEST_EXPECT_MSG_EQ(TcpLinuxPrrRecovery::Reduce(10, 20, 9, 0, 0, false, delivered, 3),
                              0,
                              "nothing delivered, nothing changed");
        NS_TEST_EXPECT_MSG_EQ(delivered, 5, "prr_delivered unchanged");
    }
};

/**
 * @ingroup internet-test
 * @brief The TcpLinuxCongestion and TcpLinuxRttEstimator test suite.
 */
class TcpLinuxTestSuite : public TestSuite
{
  public:
    TcpLinuxTestSuite()
        : TestSuite("emusim-tcp-linux", Type::UNIT)
    {
        AddTestCase(new TcpLinuxRenoSlowStartTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxRenoSlowStartToAvoidanceTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxRenoAvoidanceTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxRenoCwndLimitedTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxRenoAfterRecoveryTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxRestartedRecoveryTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxRenoSsThreshTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxInfiniteSsThreshTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxCubicCurveTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxWestwoodInAckEventTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxModuleParametersTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxRttEstimatorFloorTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxRttEstimatorDecayTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxAvailableTestCase, Duration::QUICK);
        AddTestCase(new TcpLinuxPrrTestCase, Duration::QUICK);
        // hybla_recalc_param (tcp_hybla.c:34-44): rho_3ls = max(srtt_us / (rtt0 x 1000), 8),
        // srtt_us being 8 x srtt (the bridge's Load: m_srtt x 8); rho = rho_3ls >> 3;
        // hybla_init (:46-66) sets cwnd to rho.
        // 20 ms: 160000 / 25000 = 6, max(6, 8) = 8, rho 1
        AddTestCase(new TcpLinuxHyblaInitTestCase(20, 25, 1), Duration::QUICK);
        // 100 ms: 800000 / 25000 = 32, rho 4
        AddTestCase(new TcpLinuxHyblaInitTestCase(100, 25, 4), Duration::QUICK);
        // 100 ms with rtt0 50 ms (perm 0644, :30): 800000 / 50000 = 16, rho 2
        AddTestCase(new TcpLinuxHyblaInitTestCase(100, 50, 2), Duration::QUICK);
        // 230 ms: 1840000 / 25000 = 73 (73.6), rho 73 >> 3 = 9
        AddTestCase(new TcpLinuxHyblaInitTestCase(230, 25, 9), Duration::QUICK);
    }
};

/// The suite's static instance, which registers it with the TestRunner.
static TcpLinuxTestSuite g_tcpLinuxTestSuite;
