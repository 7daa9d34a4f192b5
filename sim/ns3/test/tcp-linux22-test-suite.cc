/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of Linux 2.2.16's TCP as modelled in sim/ns3/model/tcp-linux22*.{h,cc}. Every
 * expected value is worked out by hand from the 2.2.16 source (tag 2.2.16 of
 * github.com/schwabe/davej-history), cited at each case; none is the code's own output.
 *
 * Unit cases drive the clock, the RTT estimator, the congestion control and the recovery
 * directly (through a TcpSocketState, as ns-3's own tcp-*-test do). Socket cases run a
 * TcpLinux22Socket over a 100 Mb/s link whose receiving device drops chosen data segments.
 */

#include "../model/tcp-linux22-socket.h"
#include "../model/tcp-linux22.h"
#include "two-host-link.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/error-model.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t MSS = 1448;

/// A TcpSocketState with cwnd and ssthresh in segments.
Ptr<TcpSocketState>
State(uint32_t cwndSegments, uint32_t ssthreshSegments)
{
    auto tcb = CreateObject<TcpSocketState>();
    tcb->m_segmentSize = MSS;
    tcb->m_cWnd = cwndSegments * MSS;
    tcb->m_ssThresh = ssthreshSegments * MSS;
    return tcb;
}

// ---------------------------------------------------------------------------------------------

/// Jiffies and tick times at a phase (HZ = 100, include/asm-i386/param.h:5).
class Linux22ClockTestCase : public TestCase
{
  public:
    Linux22ClockTestCase()
        : TestCase("100 Hz clock: jiffies and tick times at a 3 ms phase")
    {
    }

  private:
    void DoRun() override
    {
        Linux22Clock clock(MilliSeconds(3));
        // tick j at j x 10 ms - 3 ms: jiffies is 0 until 7 ms, 1 from 7 ms
        NS_TEST_EXPECT_MSG_EQ(clock.Jiffies(Time(0)), 0, "jiffies at 0");
        NS_TEST_EXPECT_MSG_EQ(clock.Jiffies(NanoSeconds(6'999'999)), 0, "just before a tick");
        NS_TEST_EXPECT_MSG_EQ(clock.Jiffies(MilliSeconds(7)), 1, "on the tick");
        NS_TEST_EXPECT_MSG_EQ(clock.TickTime(1), MilliSeconds(7), "tick 1");
        NS_TEST_EXPECT_MSG_EQ(clock.TickTime(20), MilliSeconds(197), "tick 20");
        // a segment sent at 0.5 ms (jiffy 0) times out at tick 20 with the 20-tick floor:
        // 196.5 ms later; one sent at 6.9 ms (jiffy 0 too) 190.1 ms later
        NS_TEST_EXPECT_MSG_EQ(clock.TickTime(clock.Jiffies(MicroSeconds(500)) + 20) -
                                  MicroSeconds(500),
                              MicroSeconds(196500),
                              "timeout after an early send");
        NS_TEST_EXPECT_MSG_EQ(clock.TickTime(clock.Jiffies(MicroSeconds(6900)) + 20) -
                                  MicroSeconds(6900),
                              MicroSeconds(190100),
                              "timeout after a late send");
        // the phase is taken modulo one tick
        NS_TEST_EXPECT_MSG_EQ(Linux22Clock(MilliSeconds(13)).GetPhase(),
                              MilliSeconds(3),
                              "phase modulo 10 ms");
    }
};

/// tcp_rtt_estimator, tcp_set_rto and tcp_bound_rto (tcp_input.c:155-211) on a sequence.
class Linux22RtoTestCase : public TestCase
{
  public:
    Linux22RtoTestCase()
        : TestCase("RTT estimator and RTO in ticks on samples 1, 1, 0, 50")
    {
    }

  private:
    void DoRun() override
    {
        Linux22RttEstimator e;
        NS_TEST_EXPECT_MSG_EQ(e.HasSample(), false, "no sample yet");
        // sample 1: srtt = 8, mdev = 4; rto = 1 + 4 = 5; + 5/4 (1) + 5 >> (2-1) (2) = 8
        e.Sample(1);
        NS_TEST_EXPECT_MSG_EQ(e.m_srtt, 8, "srtt after 1");
        NS_TEST_EXPECT_MSG_EQ(e.m_mdev, 4, "mdev after 1");
        NS_TEST_EXPECT_MSG_EQ(e.RawRto(2), 8, "rto after 1, cwnd 2");
        // the 20-tick floor (HZ/5) rules
        NS_TEST_EXPECT_MSG_EQ(Linux22RttEstimator::Bound(e.RawRto(2)), 20, "floor");
        // sample 1: error 1 - 1 = 0, srtt 8; |0| - 4/4 = -1, mdev 3; rto = 4 + 1 + 2 = 7
        e.Sample(1);
        NS_TEST_EXPECT_MSG_EQ(e.m_srtt, 8, "srtt after 1, 1");
        NS_TEST_EXPECT_MSG_EQ(e.m_mdev, 3, "mdev after 1, 1");
        NS_TEST_EXPECT_MSG_EQ(e.RawRto(2), 7, "rto after 1, 1");
        // sample 0 counts as 1 (tcp_input.c:168): error 0, mdev 3 - 0 = 3
        e.Sample(0);
        NS_TEST_EXPECT_MSG_EQ(e.m_srtt, 8, "srtt after 0");
        NS_TEST_EXPECT_MSG_EQ(e.m_mdev, 3, "mdev after 0");
        // sample 50: error 49, srtt 57; 49 - 3/4 (0) = 49, mdev 52;
        // rto = 57/8 (7) + 52 = 59, + 59/4 (14) + 59 >> 0 (59) = 132 at cwnd 1; 87 at cwnd 3
        e.Sample(50);
        NS_TEST_EXPECT_MSG_EQ(e.m_srtt, 57, "srtt after 50");
        NS_TEST_EXPECT_MSG_EQ(e.m_mdev, 52, "mdev after 50");
        NS_TEST_EXPECT_MSG_EQ(e.RawRto(1), 132, "rto at cwnd 1");
        NS_TEST_EXPECT_MSG_EQ(e.RawRto(3), 87, "rto at cwnd 3");
        NS_TEST_EXPECT_MSG_EQ(Linux22RttEstimator::Bound(132), 132, "within bounds");
        NS_TEST_EXPECT_MSG_EQ(Linux22RttEstimator::Bound(12001), 12000, "120 s cap");
    }
};

/// tcp_cong_avoid (tcp_input.c:599-614) and tcp_recalc_ssthresh (tcp.h:707-712).
class Linux22WindowTestCase : public TestCase
{
  public:
    Linux22WindowTestCase()
        : TestCase("window: +1 per ACK in slow start, +1 per cwnd+1 ACKs above ssthresh")
    {
    }

  private:
    void DoRun() override
    {
        auto cc = CreateObject<TcpLinux22>();
        // slow start: one segment per ACK, however many segments it acknowledges
        auto tcb = State(2, 1000);
        for (int i = 0; i < 3; ++i)
        {
            cc->IncreaseWindow(tcb, 2);
        }
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 5 * MSS, "2 + 3 ACKs");
        // cwnd == ssthresh still counts as slow start ("<="): 5 -> 6
        tcb = State(5, 5);
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 6 * MSS, "cwnd <= ssthresh grows");
        // avoidance at cwnd 10: the counter must reach 10 first, so 10 ACKs leave cwnd at 10
        // and the 11th makes it 11
        tcb = State(10, 5);
        cc = CreateObject<TcpLinux22>();
        for (int i = 0; i < 10; ++i)
        {
            cc->IncreaseWindow(tcb, 1);
        }
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 10 * MSS, "10 ACKs in avoidance");
        cc->IncreaseWindow(tcb, 1);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 11 * MSS, "the 11th ACK");
        // ssthresh: max(min(snd_wnd / mss, cwnd) / 2, 2), snd_wnd = 31856 B = 22 segments
        cc->SetPeerWindow(31856);
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(State(10, 5), 0), 5 * MSS, "cwnd 10");
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(State(40, 5), 0), 11 * MSS, "window-limited");
        NS_TEST_EXPECT_MSG_EQ(cc->GetSsThresh(State(3, 5), 0), 2 * MSS, "at least 2");
    }
};

/// tcp_fast_retrans and clear_fast_retransmit (tcp_input.c:476-595).
class Linux22RecoveryTestCase : public TestCase
{
  public:
    Linux22RecoveryTestCase(uint32_t dupAcks, uint32_t partialAcks, bool sack, uint32_t expect)
        : TestCase("recovery: ssthresh 5, " + std::to_string(dupAcks) + " dup ACKs, " +
                   std::to_string(partialAcks) + " partial ACKs, SACK " + (sack ? "on" : "off")),
          m_dupAcks(dupAcks),
          m_partialAcks(partialAcks),
          m_sack(sack),
          m_expect(expect)
    {
    }

  private:
    void DoRun() override
    {
        auto rec = CreateObject<TcpLinux22Recovery>();
        rec->SetAttribute("Sack", BooleanValue(m_sack));
        auto tcb = State(10, 5);
        // the third duplicate ACK: cwnd = ssthresh + 3 (tcp_input.c:511-512)
        rec->EnterRecovery(tcb, 3, 10 * MSS, 0);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), 8 * MSS, "ssthresh + 3");
        for (uint32_t i = 3; i < m_dupAcks; ++i)
        {
            rec->DoRecovery(tcb, MSS, true);
        }
        for (uint32_t i = 0; i < m_partialAcks; ++i)
        {
            rec->DoRecovery(tcb, MSS, false);
        }
        // ns-3 sets cwnd to ssthresh before ExitRecovery
        tcb->m_cWnd = tcb->m_ssThresh.Get();
        rec->ExitRecovery(tcb);
        NS_TEST_EXPECT_MSG_EQ(tcb->m_cWnd.Get(), m_expect * MSS, "cwnd after recovery");
    }

    uint32_t m_dupAcks;     //!< duplicate ACKs in the recovery, the first three included
    uint32_t m_partialAcks; //!< partial ACKs
    bool m_sack;            //!< SACK (FACK) on
    uint32_t m_expect;      //!< cwnd after recovery, segments
};

// ---------------------------------------------------------------------------------------------
// Socket cases

/// Drops chosen data segments (first transmission only), or all data from a time on.
class SegmentDropModel : public ErrorModel
{
  public:
    std::set<uint32_t> m_segments; //!< 1-based segment numbers to drop once
    Time m_allFrom{Time::Max()};   //!< drop every data segment from this time
    Time m_allUntil{Time::Max()};  //!< ... until this time
    std::set<uint32_t> m_dropped;  //!< segments already dropped once

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        uint32_t segment = 0;
        if (!DataSegmentOf(p, MSS, segment))
        {
            return false;
        }
        Time now = Simulator::Now();
        if (now >= m_allFrom && now < m_allUntil)
        {
            return true;
        }
        if (m_segments.count(segment) && !m_dropped.count(segment))
        {
            m_dropped.insert(segment);
            return true;
        }
        return false;
    }

    void DoReset() override
    {
    }
};

/// One sender (TcpLinux22Socket) and one receiver (ns-3's socket) on a 100 Mb/s link.
struct Linux22Run
{
    struct Sent
    {
        Time at;
        uint32_t seq;
        bool retransmission;
    };

    std::vector<Sent> sent;                      //!< data segments the sender sent
    std::vector<std::pair<Time, uint32_t>> acks; //!< ACKs the sender received (time, ack)
    std::map<Time, uint32_t> cwnd;               //!< congestion window changes
    uint32_t highest{0};                         //!< highest sequence sent
    bool errorClosed{false};                     //!< the connection was given up
    Time errorAt;                                //!< when
    Ptr<TcpLinux22Socket> socket;                //!< the sender

    void Tx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (p->GetSize() == 0)
        {
            return;
        }
        uint32_t seq = h.GetSequenceNumber().GetValue();
        sent.push_back({Simulator::Now(), seq, seq < highest});
        highest = std::max(highest, seq + p->GetSize());
    }

    void Rx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (h.GetFlags() & TcpHeader::ACK)
        {
            acks.emplace_back(Simulator::Now(), h.GetAckNumber().GetValue());
        }
    }

    void Cwnd(uint32_t, uint32_t now)
    {
        cwnd[Simulator::Now()] = now;
    }

    void Error(Ptr<Socket>)
    {
        errorClosed = true;
        errorAt = Simulator::Now();
    }

    void Connected(Ptr<Socket> s, uint32_t segments)
    {
        s->Send(Create<Packet>(segments * MSS));
    }

    /// Run `segments` full segments through `drop`, with the given phase and FACK trigger.
    void Go(Ptr<SegmentDropModel> drop,
            uint32_t segments,
            double phaseS,
            bool fack,
            Time stop,
            bool fackRetransmit = false)
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpLinux22::GetTypeId()));
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpLinux22Recovery::GetTypeId()));
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(MSS));
        Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
        Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(15));
        Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
        Config::SetDefault("ns3::TcpLinux22Socket::FackTrigger", BooleanValue(fack));
        Config::SetDefault("ns3::TcpLinux22Socket::FackRetransmit", BooleanValue(fackRetransmit));
        Config::SetDefault(
            "ns3::TcpLinux22Socket::TickPhase",
            StringValue("ns3::ConstantRandomVariable[Constant=" + std::to_string(phaseS) + "]"));

        TwoHostLink link("50us", drop);
        NodeContainer& nodes = link.nodes;

        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
        sink.Install(nodes.Get(1)).Start(Seconds(0));

        Ptr<Socket> s = CreateTcpSocketOfType(nodes.Get(0), TcpLinux22Socket::GetTypeId());
        socket = DynamicCast<TcpLinux22Socket>(s);
        s->TraceConnectWithoutContext("Tx", MakeCallback(&Linux22Run::Tx, this));
        s->TraceConnectWithoutContext("Rx", MakeCallback(&Linux22Run::Rx, this));
        s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&Linux22Run::Cwnd, this));
        s->SetConnectCallback(
            MakeBoundCallback(
                +[](Linux22Run* run, uint32_t n, Ptr<Socket> sock) { run->Connected(sock, n); },
                this,
                segments),
            MakeNullCallback<void, Ptr<Socket>>());
        s->SetCloseCallbacks(MakeNullCallback<void, Ptr<Socket>>(),
                             MakeCallback(&Linux22Run::Error, this));
        s->Bind();
        // connect once the simulation runs (the traffic-control layer is set up then)
        Simulator::ScheduleNow(
            +[](Ptr<Socket> sock, Address to) { sock->Connect(to); },
            s,
            Address(InetSocketAddress(link.receiver, 9)));
        Simulator::Stop(stop);
        Simulator::Run();
        Simulator::Destroy();
        Config::Reset();
    }
};

/// Fast retransmit on fackets_out > 3 (tcp_input.c:510) or on the third duplicate ACK.
class Linux22FackTriggerTestCase : public TestCase
{
  public:
    Linux22FackTriggerTestCase(bool fack, uint32_t expectDupAcks)
        : TestCase(std::string("fast retransmit after segments 5-8 are lost, fackets trigger ") +
                   (fack ? "on" : "off")),
          m_fack(fack),
          m_expectDupAcks(expectDupAcks)
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropModel>();
        drop->m_segments = {5, 6, 7, 8};
        Linux22Run run;
        run.Go(drop, 40, 0.003, m_fack, Seconds(5));

        // the first retransmission is segment 5 (sequence 1 + 4 x 1448)
        auto first = std::find_if(run.sent.begin(), run.sent.end(), [](const auto& s) {
            return s.retransmission;
        });
        NS_TEST_ASSERT_MSG_EQ((first != run.sent.end()), true, "a retransmission");
        NS_TEST_EXPECT_MSG_EQ(first->seq, 1 + 4 * MSS, "segment 5 first");
        // ACKs of 5793 (segment 5's start) before it. The receiver ACKs segment 1, then 2-3;
        // segment 4 is still unacknowledged when segment 9 arrives, so the first ACK of 5793
        // acknowledges segment 4 and SACKs 9: not a duplicate for 2.2 (snd_una advances,
        // tcp_input.c:886), but fackets_out = 5 (segments 5-9). The next ACK (SACK 9-10) is
        // 2.2's first duplicate and fackets_out > 3: fast retransmit (tcp_input.c:510).
        // Without the trigger 2.2 would wait for its third duplicate (:511); the first ACK
        // does not count although it carries new SACK information (IsDuplicateAck). What
        // retransmits on the second duplicate then is ns-3's own RFC 6675 rule, three
        // segments SACKed above the hole (9-11, TcpTxBuffer::IsLost): a rule 2.2's
        // fackets_out > 3 implies, so it never acts first with the trigger on.
        uint32_t dups = 0;
        for (const auto& [t, ack] : run.acks)
        {
            if (t > first->at)
            {
                break;
            }
            dups += ack == 1 + 4 * MSS ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(dups - 1, m_expectDupAcks, "duplicate ACKs before the retransmit");
        // the transfer completes, without a timeout (segments 6-8 go by FACK recovery)
        NS_TEST_EXPECT_MSG_EQ(run.errorClosed, false, "not given up");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().second, 1 + 40 * MSS, "everything acknowledged");
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetRetransmits(), 0, "no timeout");
    }

    bool m_fack;              //!< FackTrigger
    uint32_t m_expectDupAcks; //!< duplicate ACKs before the fast retransmit
};

/// FACK's pipe and holes (tcp_packets_in_flight, tcp_fack_retransmit) against RFC 6675's.
class Linux22FackRetransmitTestCase : public TestCase
{
  public:
    Linux22FackRetransmitTestCase(bool fackRetransmit, std::vector<std::string> expectPerAck)
        : TestCase(std::string("segments 5-8 lost: what each ACK of segment 5 lets out, FACK ") +
                   (fackRetransmit ? "on" : "off")),
          m_fackRetransmit(fackRetransmit),
          m_expectPerAck(std::move(expectPerAck))
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropModel>();
        drop->m_segments = {5, 6, 7, 8};
        Linux22Run run;
        run.Go(drop, 40, 0.003, true, Seconds(5), m_fackRetransmit);

        // What the sender sends at each ACK of 5793 (segment 5's start), in order: segment
        // numbers, R for a retransmission.
        std::vector<std::string> perAck;
        for (const auto& [t, ack] : run.acks)
        {
            if (ack != 1 + 4 * MSS || perAck.size() == m_expectPerAck.size())
            {
                continue;
            }
            std::string sent;
            for (const auto& s : run.sent)
            {
                if (s.at == t)
                {
                    sent += (sent.empty() ? "" : " ") + std::to_string((s.seq - 1) / MSS + 1) +
                            (s.retransmission ? "R" : "");
                }
            }
            perAck.push_back(sent);
        }
        NS_TEST_ASSERT_MSG_EQ(perAck.size(), m_expectPerAck.size(), "ACKs of segment 5");
        for (size_t i = 0; i < perAck.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(perAck[i], m_expectPerAck[i], "at ACK " << i << " of 5793");
        }
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().second, 1 + 40 * MSS, "everything acknowledged");
        NS_TEST_EXPECT_MSG_EQ(run.socket->GetRetransmits(), 0, "no timeout");
    }

    bool m_fackRetransmit;                   //!< FackRetransmit
    std::vector<std::string> m_expectPerAck; //!< what each ACK of segment 5 lets out
};

/// 2.2's duplicate ACK (tcp_input.c:886-891) against RFC 6675's, on hand-made ACKs.
class Linux22DuplicateAckTestCase : public TestCase
{
  public:
    Linux22DuplicateAckTestCase()
        : TestCase("duplicate ACK: ack == snd_una with data outstanding and none carried")
    {
    }

  private:
    void DoRun() override
    {
        const SequenceNumber32 una(1 + 4 * MSS);
        const SequenceNumber32 high(1 + 10 * MSS);
        // snd_una unchanged, data outstanding: a duplicate, with or without SACK blocks
        NS_TEST_EXPECT_MSG_EQ(TcpLinux22Socket::IsDuplicateAck(una, una, high, false),
                              true,
                              "ack == snd_una");
        // advances snd_una: not a duplicate, although a SACK block on it would be new
        // information for RFC 6675 (a partial ACK in recovery, or the first ACK after a hole)
        NS_TEST_EXPECT_MSG_EQ(TcpLinux22Socket::IsDuplicateAck(una + MSS, una, high, false),
                              false,
                              "ack > snd_una");
        // nothing outstanding (packets_out == 0)
        NS_TEST_EXPECT_MSG_EQ(TcpLinux22Socket::IsDuplicateAck(high, high, high, false),
                              false,
                              "nothing outstanding");
        // carries data (FLAG_DATA)
        NS_TEST_EXPECT_MSG_EQ(TcpLinux22Socket::IsDuplicateAck(una, una, high, true),
                              false,
                              "carries data");
    }
};

/// A dead link: timeouts on ticks, doubling to the 120 s cap, 16 in all (tcp_timer.c).
class Linux22TimeoutSeriesTestCase : public TestCase
{
  public:
    Linux22TimeoutSeriesTestCase()
        : TestCase("timeout series on a dead link: ticks, doubling, 120 s cap, given up")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropModel>();
        drop->m_allFrom = MilliSeconds(20);
        Linux22Run run;
        const double phase = 0.0042;
        run.Go(drop, 5000, phase, true, Seconds(2000));
        Linux22Clock clock(Seconds(phase));

        // the head: the highest cumulative ACK; its last send before the link died
        uint32_t head = 0;
        for (const auto& a : run.acks)
        {
            head = std::max(head, a.second);
        }
        Time headSent;
        uint32_t highBefore = 0;
        std::vector<const Linux22Run::Sent*> after;
        for (const auto& s : run.sent)
        {
            if (s.at < MilliSeconds(20) || (s.seq == head && !s.retransmission))
            {
                if (s.seq == head)
                {
                    headSent = s.at;
                }
                highBefore = std::max(highBefore, s.seq);
            }
        }
        for (const auto& s : run.sent)
        {
            if (s.retransmission && s.seq == head && s.at > headSent)
            {
                after.push_back(&s);
            }
        }
        // 2.2 retransmits the head at each of 16 timeouts; the 16th exceeds tcp_retries2 = 15
        // and the connection is given up (tcp_timer.c:162, after the retransmission at :480)
        NS_TEST_ASSERT_MSG_EQ(after.size(), 16, "16 timeouts");
        // first: rto (20 ticks: the floor rules on a LAN) after the head's send jiffy, on the
        // tick (tcp_ack_packets_out, tcp_input.c:759-777)
        Time expect = clock.TickTime(clock.Jiffies(headSent) + 20);
        NS_TEST_EXPECT_MSG_EQ(after[0]->at, expect, "first timeout on the tick");
        // then 0.4, 0.8, ... s: rto doubled each time, capped at 120 s (tcp_timer.c:498-499)
        Time wait = MilliSeconds(400);
        for (size_t k = 1; k < after.size(); ++k)
        {
            expect += wait;
            NS_TEST_EXPECT_MSG_EQ(after[k]->at, expect, "timeout " << k + 1);
            wait = std::min(wait + wait, Seconds(120));
        }
        // nothing else was sent: no new data and no other segment while retransmitting
        size_t retx = 0;
        for (const auto& s : run.sent)
        {
            retx += s.at >= after[0]->at ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(retx, 16, "only the head is sent");
        NS_TEST_EXPECT_MSG_EQ(run.errorClosed, true, "given up");
        NS_TEST_EXPECT_MSG_EQ(run.errorAt, after.back()->at, "at the 16th timeout");
        // 15 waits: 0.4, 0.8, ..., 102.4 s (nine, 204.4 s) and six of 120 s: 924.4 s
        NS_TEST_EXPECT_MSG_EQ(after.back()->at - after[0]->at,
                              MilliSeconds(924400),
                              "the series lasts 924.4 s after the first timeout");
    }
};

/// After a timeout: no new data until everything outstanding then is acknowledged, and the
/// backed-off RTO meanwhile (tcp.h:824-828; tcp_input.c:739-754, 763-765).
class Linux22AfterTimeoutTestCase : public TestCase
{
  public:
    Linux22AfterTimeoutTestCase()
        : TestCase("after a timeout: no new data until all outstanding is acknowledged")
    {
    }

  private:
    void DoRun() override
    {
        auto drop = CreateObject<SegmentDropModel>();
        // the link is dead for 300 ms: the first timeout's retransmission is lost, the second
        // goes through
        drop->m_allFrom = MilliSeconds(20);
        drop->m_allUntil = MilliSeconds(320);
        Linux22Run run;
        run.Go(drop, 5000, 0.0, true, Seconds(30));

        // the timeouts: retransmissions of the lowest unacknowledged sequence after 20 ms
        std::vector<const Linux22Run::Sent*> retx;
        for (const auto& s : run.sent)
        {
            if (s.retransmission && s.at > MilliSeconds(20))
            {
                retx.push_back(&s);
            }
        }
        NS_TEST_ASSERT_MSG_EQ((retx.size() >= 2), true, "two timeouts at least");
        const Time firstTimeout = retx[0]->at;
        const Time secondTimeout = retx[1]->at;
        // with the phase 0, ticks fall on multiples of 10 ms; the second timeout comes 40
        // ticks (400 ms) after the first: doubled
        NS_TEST_EXPECT_MSG_EQ(secondTimeout - firstTimeout, MilliSeconds(400), "doubled rto");
        NS_TEST_EXPECT_MSG_EQ(firstTimeout.GetNanoSeconds() % 10'000'000, 0, "on a tick");
        // what was outstanding at the first timeout
        uint32_t mark = 0;
        for (const auto& s : run.sent)
        {
            if (s.at < firstTimeout)
            {
                mark = std::max(mark, s.seq + MSS);
            }
        }
        // when everything below the mark is acknowledged
        Time allAcked = Time::Max();
        for (const auto& [t, ack] : run.acks)
        {
            if (ack >= mark)
            {
                allAcked = t;
                break;
            }
        }
        NS_TEST_ASSERT_MSG_EQ((allAcked < Seconds(30)), true, "recovered");
        // no segment at or above the mark went out before that
        uint32_t early = 0;
        for (const auto& s : run.sent)
        {
            early += (s.seq >= mark && s.at < allAcked) ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(early, 0, "no new data while retransmitting");
        // and new data right after
        bool newData = false;
        for (const auto& s : run.sent)
        {
            newData = newData || (s.seq >= mark && s.at == allAcked);
        }
        NS_TEST_EXPECT_MSG_EQ(newData, true, "new data on the ACK that ends the series");
        NS_TEST_EXPECT_MSG_EQ(run.acks.back().second, 1 + 5000 * MSS, "everything acknowledged");
        // cwnd was one segment after the first timeout (tcp_timer.c:470)
        auto it = run.cwnd.upper_bound(firstTimeout);
        NS_TEST_ASSERT_MSG_EQ((it != run.cwnd.begin()), true, "a cwnd trace");
        NS_TEST_EXPECT_MSG_EQ(std::prev(it)->second, MSS, "cwnd 1 after the timeout");
    }
};

/// The suite.
class TcpLinux22TestSuite : public TestSuite
{
  public:
    TcpLinux22TestSuite()
        : TestSuite("emusim-tcp-linux22", Type::UNIT)
    {
        AddTestCase(new Linux22ClockTestCase(), Duration::QUICK);
        AddTestCase(new Linux22RtoTestCase(), Duration::QUICK);
        AddTestCase(new Linux22WindowTestCase(), Duration::QUICK);
        // more than three duplicate ACKs: cwnd = ssthresh (clear_fast_retransmit, :478-479)
        AddTestCase(new Linux22RecoveryTestCase(6, 0, true, 5), Duration::QUICK);
        // exactly three: cwnd stays at ssthresh + 3 = 8
        AddTestCase(new Linux22RecoveryTestCase(3, 0, true, 8), Duration::QUICK);
        // exactly three and 9 partial ACKs: above ssthresh the counter reaches 8 after 8 ACKs,
        // the 9th makes cwnd 9 (tcp_cong_avoid via should_advance_cwnd, :697-718)
        AddTestCase(new Linux22RecoveryTestCase(3, 9, true, 9), Duration::QUICK);
        // without SACK, dup ACKs after the third inflate (:530-531), but more than three
        // deflate to ssthresh at the end anyway
        AddTestCase(new Linux22RecoveryTestCase(6, 0, false, 5), Duration::QUICK);
        AddTestCase(new Linux22FackTriggerTestCase(true, 1), Duration::QUICK);
        AddTestCase(new Linux22FackTriggerTestCase(false, 2), Duration::QUICK);
        // Worked by hand (initial cwnd 10, an ACK per two segments, as the trigger case):
        // ACKs of 1 and 3 grow cwnd to 12 and let 11-15 out. ACK 0 of 5793 acknowledges 4 and
        // SACKs 9: cwnd 13. With FACK, in flight = packets_out - fackets_out + retrans_out =
        // 11 - 5 = 6 (include/net/tcp.h:775-778): 16-22 go. ACK 1 (SACK 9-10, fackets_out 6)
        // starts fast retransmit: ssthresh 6, cwnd 9; segment 5 (in flight 12 + 1). Each later
        // ACK SACKs one more segment (in flight - 1); from the fourth duplicate on every ACK
        // retransmits the first hole before it looks at the pipe (tcp_input.c:521-541,
        // tcp_output.c:703-708): 6, 7, 8 at ACKs 4-6 (in flight 12, 12, 11), then nothing
        // while in flight >= 9 (10, 9) and 23 at ACK 9 (8). Without FACK (RFC 6675) holes
        // 5-8 stay in the pipe until three segments above them are SACKed: ACK 0 lets 16-18
        // out (pipe 10); ACK 1 retransmits 5 (pipe 12); from ACK 2 (9-11 SACKed) 6-8 are
        // lost, one goes per ACK (pipe 8 each time), then new data, 19 at ACK 5.
        AddTestCase(new Linux22FackRetransmitTestCase(
                        true,
                        {"16 17 18 19 20 21 22", "5R", "", "", "6R", "7R", "8R", "", "", "23"}),
                    Duration::QUICK);
        AddTestCase(
            new Linux22FackRetransmitTestCase(false, {"16 17 18", "5R", "6R", "7R", "8R", "19"}),
            Duration::QUICK);
        AddTestCase(new Linux22DuplicateAckTestCase(), Duration::QUICK);
        AddTestCase(new Linux22TimeoutSeriesTestCase(), Duration::QUICK);
        AddTestCase(new Linux22AfterTimeoutTestCase(), Duration::QUICK);
    }
};

/// Static instance.
TcpLinux22TestSuite g_tcpLinux22TestSuite;

} // namespace
