/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Linux 6.1 socket TestSuites' run: a TcpLinuxSocket sender and receiver on a 100 Mb/s link
 * of 20 ms each way, with chosen data segments dropped or delayed and chosen ACKs dropped, every
 * send, ACK, state, window and threshold recorded.
 */

#ifndef EMUSIM_TEST_LINUX_SOCKET_RUN_H
#define EMUSIM_TEST_LINUX_SOCKET_RUN_H

#include "../model/blast-apps.h"
#include "../model/tcp-linux-recovery.h"
#include "../model/tcp-linux-socket.h"
#include "../model/tcp-linux22-socket.h" // CreateTcpSocketOfType
#include "two-host-link.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/error-model.h"
#include "ns3/inet-socket-address.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace ns3
{
namespace linux_socket_test
{

inline constexpr uint32_t MSS = 1448;
/// One jiffy at CONFIG_HZ=250
inline const Time JIFFY = MilliSeconds(4);

/// Drops chosen data segments a chosen number of times (first sends first), and delays the
/// first send of others (it is taken off the link and handed to the receiving device later).
class SegmentDropper : public ErrorModel
{
  public:
    std::map<uint32_t, uint32_t> m_drops; //!< 1-based segment number -> sends to drop
    std::map<uint32_t, Time> m_delays;    //!< 1-based segment number -> its first send's delay
    Ptr<PointToPointNetDevice> m_device;  //!< the receiving device (set by RackRun::Go)

  private:
    bool m_handingOver{false}; //!< a delayed segment is being handed to the device

    bool DoCorrupt(Ptr<Packet> p) override
    {
        uint32_t segment = 0;
        if (m_handingOver || !DataSegmentOf(p, MSS, segment))
        {
            return false;
        }
        auto delayed = m_delays.find(segment);
        if (delayed != m_delays.end() && m_device)
        {
            Simulator::Schedule(delayed->second, &SegmentDropper::HandOver, this, p->Copy());
            m_delays.erase(delayed);
            return true;
        }
        auto it = m_drops.find(segment);
        if (it == m_drops.end() || it->second == 0)
        {
            return false;
        }
        --it->second;
        return true;
    }

    void DoReset() override
    {
    }

    void HandOver(Ptr<Packet> p)
    {
        m_handingOver = true;
        m_device->Receive(p);
        m_handingOver = false;
    }
};

/// Drops the first ACK of each chosen acknowledgment number the sender receives.
class AckDropper : public ErrorModel
{
  public:
    std::set<uint32_t> m_acks; //!< acknowledgment numbers, each dropped once

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        TcpHeader tcp;
        return TcpHeaderOf(p, tcp) >= 0 && m_acks.erase(tcp.GetAckNumber().GetValue()) > 0;
    }

    void DoReset() override
    {
    }
};

/// Drops everything the sender receives from a time on, until told the blackout is over.
class AckBlackout : public ErrorModel
{
  public:
    Time m_from{Time::Max()}; //!< the blackout's start
    bool m_over{false};       //!< set when the sender times out

  private:
    bool DoCorrupt(Ptr<Packet>) override
    {
        return !m_over && Simulator::Now() >= m_from;
    }

    void DoReset() override
    {
    }
};

/// A Linux 6.1 sender and receiver (TcpLinuxSocket, Linux's reno or another module, Linux's
/// PRR) on a 100 Mb/s link of 20 ms each way (min_rtt / 4 then spans jiffies).
struct RackRun
{
    struct Sent
    {
        Time at;
        uint32_t segment; //!< 1-based
    };

    struct Ack
    {
        Time at;
        uint32_t ack;
        std::vector<std::pair<uint32_t, uint32_t>> sack; //!< blocks, sequence numbers
    };

    std::vector<Sent> sent;
    std::vector<Ack> acks;
    Time synSent;
    Time synAckReceived;
    bool lossState{false}; //!< the sender went through CA_LOSS (a retransmission timeout)
    Time lossAt;           //!< when it first entered CA_LOSS
    Ptr<TcpLinuxSocket> socket;
    Ptr<AckBlackout> blackout;     //!< ACKs dropped until the timeout
    Ptr<AckDropper> ackDropper;    //!< or chosen ACKs dropped
    bool dsack{false};             //!< D-SACK on both ends
    uint32_t windowGrowthLimit{0}; //!< the receiver's WindowGrowthLimit, bytes (0: none)
    Time laterWriteAt;             //!< when the application writes again (0: never) ...
    uint32_t laterSegments{0};     //!< ... this many segments
    Time spikeFrom{Time::Max()};   //!< the link's delay becomes spikeDelay from then ...
    Time spikeUntil;               //!< ... until then (20 ms again)
    Time spikeDelay;               //!< the delay meanwhile
    bool timestamps{true};         //!< the timestamp option on both ends
    bool smallQueues{false};       //!< TCP small queues on the sender
    bool gsoPush{false};           //!< PSH on every GSO packet (GsoPush)
    std::string algorithm{"reno"}; //!< the Linux module the sender runs
    std::string moduleParameters;  //!< its ModuleParameters
    std::function<void(NodeContainer&)> onSocket; //!< called once the socket exists
    std::vector<std::pair<Time, TcpSocketState::TcpCongState_t>> states; //!< the state's changes
    std::vector<std::pair<Time, uint32_t>> cwnd;     //!< the window's changes, bytes
    std::vector<std::pair<Time, uint32_t>> ssthresh; //!< the threshold's changes, bytes

    void Cwnd(uint32_t, uint32_t now)
    {
        cwnd.emplace_back(Simulator::Now(), now);
    }

    void Ssthresh(uint32_t, uint32_t now)
    {
        ssthresh.emplace_back(Simulator::Now(), now);
    }

    /// A traced value just before `t` (the last change before it), or `initial`.
    template <typename T>
    static T Before(const std::vector<std::pair<Time, T>>& series,
                    Time t,
                    std::type_identity_t<T> initial)
    {
        T value = initial;
        for (const auto& [at, v] : series)
        {
            if (at >= t)
            {
                break;
            }
            value = v;
        }
        return value;
    }

    void Tx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (h.GetFlags() & TcpHeader::SYN)
        {
            synSent = Simulator::Now();
        }
        if (p->GetSize() > 0)
        {
            sent.push_back({Simulator::Now(), (h.GetSequenceNumber().GetValue() - 1) / MSS + 1});
        }
    }

    void Rx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (h.GetFlags() & TcpHeader::SYN)
        {
            synAckReceived = Simulator::Now();
            return;
        }
        Ack a{Simulator::Now(), h.GetAckNumber().GetValue(), {}};
        if (h.HasOption(TcpOption::SACK))
        {
            auto sack = DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK));
            for (const auto& [left, right] : sack->GetSackList())
            {
                a.sack.emplace_back(left.GetValue(), right.GetValue());
            }
        }
        acks.push_back(a);
    }

    void State(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
    {
        states.emplace_back(Simulator::Now(), now);
        if (now == TcpSocketState::CA_LOSS && !lossState)
        {
            lossAt = Simulator::Now();
            if (blackout)
            {
                blackout->m_over = true;
            }
        }
        lossState |= now == TcpSocketState::CA_LOSS;
    }

    /// The first ACK that carries a SACK block (acks.end() if none).
    std::vector<Ack>::const_iterator FirstSack() const
    {
        return std::find_if(acks.begin(), acks.end(), [](const Ack& a) {
            return !a.sack.empty();
        });
    }

    /// Sends of a segment, in order.
    std::vector<Time> SendsOf(uint32_t segment) const
    {
        std::vector<Time> at;
        for (const auto& s : sent)
        {
            if (s.segment == segment)
            {
                at.push_back(s.at);
            }
        }
        return at;
    }

    /// The round trips an ACK can sample up to `until`: from the SYN, and from each segment's
    /// first send to the first ACK that covers it (Linux's estimator averages such samples,
    /// so srtt lies between the smallest and the largest).
    std::pair<int64_t, int64_t> RttRangeUs(Time until) const
    {
        int64_t lo = (synAckReceived - synSent).GetMicroSeconds();
        int64_t hi = lo;
        for (const auto& s : sent)
        {
            if (s.at > until)
            {
                break;
            }
            const uint32_t end = 1 + s.segment * MSS;
            auto a = std::find_if(acks.begin(), acks.end(), [end](const Ack& x) {
                return static_cast<int32_t>(x.ack - end) >= 0;
            });
            if (a != acks.end() && a->at <= until && SendsOf(s.segment).front() == s.at)
            {
                const int64_t us = (a->at - s.at).GetMicroSeconds();
                lo = std::min(lo, us);
                hi = std::max(hi, us);
            }
        }
        return {lo, hi};
    }

    void Go(Ptr<SegmentDropper> drop,
            uint32_t segments,
            bool rack,
            bool tlp = false,
            bool undo = false,
            bool frto = false)
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TcpLinuxCongestion::GetTypeId()));
        Config::SetDefault("ns3::TcpLinuxCongestion::Algorithm", StringValue(algorithm));
        Config::SetDefault("ns3::TcpLinuxCongestion::ModuleParameters",
                           StringValue(moduleParameters));
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpLinuxPrrRecovery::GetTypeId()));
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(MSS));
        Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
        Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 22));
        Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
        Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
        Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
        Config::SetDefault("ns3::TcpLinuxSocket::Rack", BooleanValue(rack));
        Config::SetDefault("ns3::TcpLinuxSocket::Tlp", BooleanValue(tlp));
        Config::SetDefault("ns3::TcpLinuxSocket::Undo", BooleanValue(undo));
        Config::SetDefault("ns3::TcpLinuxSocket::Frto", BooleanValue(frto));
        Config::SetDefault("ns3::TcpLinuxSocket::Dsack", BooleanValue(dsack));
        Config::SetDefault("ns3::TcpLinuxSocket::WindowGrowthLimit",
                           UintegerValue(windowGrowthLimit));
        Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
        Config::SetDefault("ns3::TcpLinuxSocket::SmallQueues", BooleanValue(smallQueues));
        Config::SetDefault("ns3::TcpLinuxSocket::GsoPush", BooleanValue(gsoPush));

        Ptr<ErrorModel> reverse = blackout;
        if (!reverse)
        {
            reverse = ackDropper;
        }
        TwoHostLink link("20ms", drop, reverse);
        NodeContainer& nodes = link.nodes;
        drop->m_device = DynamicCast<PointToPointNetDevice>(nodes.Get(1)->GetDevice(0));
        if (spikeFrom != Time::Max())
        {
            auto setDelay = +[](Ptr<Channel> channel, Time delay) {
                channel->SetAttribute("Delay", TimeValue(delay));
            };
            Simulator::Schedule(spikeFrom, setDelay, link.channel, spikeDelay);
            Simulator::Schedule(spikeUntil, setDelay, link.channel, MilliSeconds(20));
        }

        auto server = CreateObject<TcpBlastServer>();
        server->SetAttribute("Port", UintegerValue(9));
        server->SetAttribute("SocketType", TypeIdValue(TcpLinuxSocket::GetTypeId()));
        nodes.Get(1)->AddApplication(server);
        server->SetStartTime(Seconds(0));

        Ptr<Socket> s = CreateTcpSocketOfType(nodes.Get(0), TcpLinuxSocket::GetTypeId());
        socket = DynamicCast<TcpLinuxSocket>(s);
        s->TraceConnectWithoutContext("Tx", MakeCallback(&RackRun::Tx, this));
        s->TraceConnectWithoutContext("Rx", MakeCallback(&RackRun::Rx, this));
        s->TraceConnectWithoutContext("CongState", MakeCallback(&RackRun::State, this));
        s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&RackRun::Cwnd, this));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeCallback(&RackRun::Ssthresh, this));
        s->SetConnectCallback(
            MakeBoundCallback(
                +[](uint32_t n, Ptr<Socket> sock) { sock->Send(Create<Packet>(n * MSS)); },
                segments),
            MakeNullCallback<void, Ptr<Socket>>());
        if (laterSegments > 0)
        {
            Simulator::Schedule(
                laterWriteAt,
                +[](Ptr<Socket> sock, uint32_t n) { sock->Send(Create<Packet>(n * MSS)); },
                s,
                laterSegments);
        }
        if (onSocket)
        {
            onSocket(nodes);
        }
        s->Bind();
        Simulator::ScheduleNow(
            +[](Ptr<Socket> sock, Address to) { sock->Connect(to); },
            s,
            Address(InetSocketAddress(link.receiver, 9)));
        Simulator::Stop(Seconds(5));
        Simulator::Run();
    }

    void Done()
    {
        socket = nullptr;
        Simulator::Destroy();
        Config::Reset();
    }
};

/// The tick on which a timer armed at `now` for `jiffies` (fewer than 63) fires: Linux 6.1's
/// timer wheel files it one jiffy past its expiry so that it never runs early (calc_index,
/// kernel/time/timer.c:516-531), and runs it when jiffies reach that (ticks at whole jiffies
/// of the clock).
inline Time
TickAfter(Time now, int64_t jiffies)
{
    return JIFFY * (now.GetNanoSeconds() / JIFFY.GetNanoSeconds() + jiffies + 1);
}

} // namespace linux_socket_test
} // namespace ns3

#endif // EMUSIM_TEST_LINUX_SOCKET_RUN_H
