/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Many long-lived TCP flows through one bottleneck whose flows arrive and leave (the multi-flow
 * dynamics study of issue 9, after the dummynet experiments of Jin, Wei and Low on FAST TCP):
 * per-flow throughput and the bottleneck's queue over time, one JSON object.
 *
 *   sender 1  10.1.1.2 --\                                                 /-- sink, port 5001
 *   sender 2  10.1.2.2 ---- router ====================== router2 --- receiver 10.2.0.2
 *   ...                 --/  10.0.0.1  bottleneck, FIFO     10.0.0.2       ...  port 5000+N
 *   sender N  10.1.N.2 -/    of bufferPackets (drop-tail)
 *
 * Every access link runs at accessRateBps (faster than the bottleneck, as the senders' GbE
 * NICs were faster than the dummynet pipe) and carries the flow's whole propagation delay,
 * rtt/2 each way; the bottleneck and the receiver's link have none. Only the bottleneck's egress
 * FIFO ever fills: the other queues hold more than any window.
 *
 * A flow is an application that keeps at most `backlogBytes` of unsent data in its socket
 * (as Linux's TCP_NOTSENT_LOWAT does), so that when it stops at its departure time its close
 * sends at most that much more: the departure is a departure, not a drain of a full buffer.
 *
 * Sampling, every sampleS: each flow's received bytes (its sink's counter); every pollS: the
 * bottleneck queue's length, and each flow's packets in it (counted by the queue disc's enqueue
 * and dequeue trace sources, not written anywhere: no per-packet tracing). The bottleneck
 * buffer can step at given times (the buffer-size experiment): --bufferSchedule=t:packets,...
 *
 * Every parameter comes from the command line; src/emusim/backends/ns3/command.py derives them from
 * the scenario. TCP attributes are set the ns-3 way, e.g. --ns3::TcpL4Protocol::SocketType=...
 */

#include "../helper/queue-setup.h"
#include "../helper/run-output.h"
#include "../model/draining-sink.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

using namespace ns3;
using emusim::FormatNumber;

NS_LOG_COMPONENT_DEFINE("Multiflow");

namespace
{

/// One flow of the experiment.
struct FlowSpec
{
    double rttMs;  //!< round-trip propagation delay
    double startS; //!< when the sender connects
    double stopS;  //!< when the sender stops writing and closes
};

/// A step of the bottleneck buffer.
struct BufferStep
{
    double atS;       //!< when the buffer takes this size
    uint32_t packets; //!< the bottleneck FIFO's limit from then on
};

/// Everything one run needs, from the command line.
struct RunConfig
{
    uint64_t bottleneckRateBps{800000000}; //!< bottleneck rate
    uint64_t bottleneckGapNs{360};         //!< per-frame overhead time at that rate
    uint64_t accessRateBps{1000000000};    //!< senders' and receiver's link rate
    uint64_t accessGapNs{288};             //!< per-frame overhead time at that rate
    uint32_t bufferPackets{2000};          //!< bottleneck FIFO limit at time 0
    std::string bufferSchedule;            //!< "t:packets,..." later limits
    std::string flows;                     //!< "rtt_ms:start_s:stop_s,..."
    double durationS{100};                 //!< simulated time
    double sampleS{1};                     //!< throughput sample period
    double pollS{0.1};                     //!< queue poll period
    uint32_t backlogBytes{262144};         //!< unsent data a flow keeps in its socket
    uint64_t seed{1};                      //!< RngSeed
    uint64_t run{1};                       //!< RngRun
    std::string output;                    //!< JSON path ("" or "-": stdout)
};

/// Split `text` at `sep`.
std::vector<std::string>
Split(const std::string& text, char sep)
{
    std::vector<std::string> out;
    std::istringstream is(text);
    std::string item;
    while (std::getline(is, item, sep))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

/// Parse --flows.
std::vector<FlowSpec>
ParseFlows(const std::string& text)
{
    std::vector<FlowSpec> flows;
    for (const auto& item : Split(text, ','))
    {
        auto fields = Split(item, ':');
        NS_ABORT_MSG_UNLESS(fields.size() == 3,
                            "--flows: '" << item << "' is not rtt_ms:start_s:stop_s");
        FlowSpec f{std::stod(fields[0]), std::stod(fields[1]), std::stod(fields[2])};
        NS_ABORT_MSG_UNLESS(f.rttMs >= 0 && f.startS >= 0 && f.stopS > f.startS,
                            "--flows: '" << item << "' needs rtt >= 0 and stop > start >= 0");
        flows.push_back(f);
    }
    NS_ABORT_MSG_IF(flows.empty(), "--flows: at least one flow");
    NS_ABORT_MSG_IF(flows.size() > 250, "--flows: at most 250 flows (one /24 each)");
    return flows;
}

/// Parse --bufferSchedule.
std::vector<BufferStep>
ParseSchedule(const std::string& text)
{
    std::vector<BufferStep> steps;
    for (const auto& item : Split(text, ','))
    {
        auto fields = Split(item, ':');
        NS_ABORT_MSG_UNLESS(fields.size() == 2, "--bufferSchedule: '" << item << "' is not t:p");
        steps.push_back({std::stod(fields[0]), static_cast<uint32_t>(std::stoul(fields[1]))});
    }
    return steps;
}

/**
 * A bulk sender that keeps at most a fixed backlog of unsent bytes in its TCP socket, from
 * its start until its stop, then closes.
 */
class BoundedBulkSender : public Application
{
  public:
    /// \param remote the sink's address \param backlogBytes unsent bytes kept in the socket
    BoundedBulkSender(Address remote, uint32_t backlogBytes)
        : m_remote(remote),
          m_backlog(backlogBytes)
    {
    }

  private:
    void StartApplication() override
    {
        // ns-3's own socket, not the profile's blast socket (linux-6.1: TcpLinuxSocket): on
        // TcpLinuxSocket a 20-flow run's windows grew until ns-3 3.44's sent-list walks
        // (TcpTxBuffer::GetPacketFromList, NextSeg) took most of the time, 6 times the CPU at
        // 80 simulated seconds (bbr, 20 Mb/s). libemusim-ns3 now replaces those walks
        // (docs/ns3-hot-paths.md); moving the senders to the profile's socket changes the
        // study's results and is left to a change of its own
        m_socket = DynamicCast<TcpSocketBase>(
            Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId()));
        m_socket->Bind();
        m_socket->TraceConnectWithoutContext("NextTxSequence",
                                             MakeCallback(&BoundedBulkSender::NextTx, this));
        m_socket->SetConnectCallback(MakeCallback(&BoundedBulkSender::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeCallback(&BoundedBulkSender::Space, this));
        m_socket->SetDataSentCallback(MakeCallback(&BoundedBulkSender::Space, this));
        m_socket->Connect(m_remote);
    }

    void StopApplication() override
    {
        m_stopped = true;
        if (m_socket)
        {
            m_socket->Close();
        }
    }

    /// NextTxSequence trace: where the next new byte goes from
    void NextTx(SequenceNumber32, SequenceNumber32 next)
    {
        m_nextTx = next;
    }

    void Connected(Ptr<Socket>)
    {
        m_connected = true;
        TopUp();
    }

    void Space(Ptr<Socket>, uint32_t)
    {
        TopUp();
    }

    /// Write until the socket holds m_backlog unsent bytes.
    void TopUp()
    {
        if (!m_connected || m_stopped)
        {
            return;
        }
        const SequenceNumber32 tail = m_socket->GetTxBuffer()->TailSequence();
        const uint32_t unsent = tail > m_nextTx ? tail - m_nextTx : 0;
        if (unsent >= m_backlog)
        {
            return;
        }
        const uint32_t want = std::min(m_backlog - unsent, m_socket->GetTxAvailable());
        if (want > 0)
        {
            m_socket->Send(Create<Packet>(want), 0);
        }
    }

    Address m_remote;            //!< the sink
    uint32_t m_backlog;          //!< unsent bytes to keep
    Ptr<TcpSocketBase> m_socket; //!< the connection
    SequenceNumber32 m_nextTx;   //!< next new sequence number TCP sends
    bool m_connected{false};     //!< handshake done
    bool m_stopped{false};       //!< past the departure time
};

/// What the poller and the samplers accumulate.
struct Recorder
{
    std::vector<Ptr<DrainingSink>> sinks; //!< one per flow
    std::vector<int64_t> inQueue;         //!< each flow's packets in the bottleneck FIFO
    Ptr<QueueDisc> bottleneck;            //!< the bottleneck's FIFO
    uint32_t firstSenderNet{0};           //!< 10.1.1.0 as an integer
    std::vector<uint64_t> lastRx;         //!< sink counters at the previous sample
    // per sample interval, accumulated over polls
    double queueSum{0};               //!< sum of polled queue lengths
    uint32_t queueMax{0};             //!< largest polled length
    uint32_t queueMin{UINT32_MAX};    //!< smallest polled length
    std::vector<double> flowQueueSum; //!< sum of each flow's polled packets
    uint32_t polls{0};                //!< polls in the interval
    uint64_t dropsAtLastSample{0};    //!< the FIFO's drops before the interval
    // the series
    std::vector<double> t;                      //!< end of each sample interval
    std::vector<std::vector<double>> mbps;      //!< [flow][sample] goodput
    std::vector<std::vector<double>> flowQueue; //!< [flow][sample] mean packets queued
    std::vector<double> queueMean;              //!< mean queue per sample
    std::vector<uint32_t> queueMaxS;            //!< max queue per sample
    std::vector<uint32_t> queueMinS;            //!< min queue per sample
    std::vector<uint32_t> bufferS;              //!< the buffer limit at the sample
    std::vector<uint64_t> dropsS;               //!< FIFO drops in the interval
};

Recorder g_rec; //!< the one run's recorder

/// The flow a packet belongs to, from its source address (10.1.k.2 is flow k - 1).
int
FlowOf(Ptr<const QueueDiscItem> item)
{
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip)
    {
        return -1;
    }
    const uint32_t src = ip->GetHeader().GetSource().Get();
    const int flow = static_cast<int>((src - g_rec.firstSenderNet) >> 8);
    return flow >= 0 && flow < static_cast<int>(g_rec.inQueue.size()) ? flow : -1;
}

void
Enqueued(Ptr<const QueueDiscItem> item)
{
    if (int f = FlowOf(item); f >= 0)
    {
        ++g_rec.inQueue[f];
    }
}

void
Dequeued(Ptr<const QueueDiscItem> item)
{
    if (int f = FlowOf(item); f >= 0)
    {
        --g_rec.inQueue[f];
    }
}

void
Poll(Time period)
{
    const uint32_t q = g_rec.bottleneck->GetNPackets();
    g_rec.queueSum += q;
    g_rec.queueMax = std::max(g_rec.queueMax, q);
    g_rec.queueMin = std::min(g_rec.queueMin, q);
    for (size_t f = 0; f < g_rec.inQueue.size(); ++f)
    {
        g_rec.flowQueueSum[f] += static_cast<double>(g_rec.inQueue[f]);
    }
    ++g_rec.polls;
    Simulator::Schedule(period, &Poll, period);
}

void
Sample(Time period)
{
    const double dt = period.GetSeconds();
    g_rec.t.push_back(Simulator::Now().GetSeconds());
    for (size_t f = 0; f < g_rec.sinks.size(); ++f)
    {
        const uint64_t rx = g_rec.sinks[f]->GetTotalRx();
        g_rec.mbps[f].push_back((rx - g_rec.lastRx[f]) * 8.0 / dt / 1e6);
        g_rec.lastRx[f] = rx;
        g_rec.flowQueue[f].push_back(g_rec.polls ? g_rec.flowQueueSum[f] / g_rec.polls : 0.0);
        g_rec.flowQueueSum[f] = 0;
    }
    g_rec.queueMean.push_back(g_rec.polls ? g_rec.queueSum / g_rec.polls : 0.0);
    g_rec.queueMaxS.push_back(g_rec.polls ? g_rec.queueMax : 0);
    g_rec.queueMinS.push_back(g_rec.polls ? g_rec.queueMin : 0);
    g_rec.bufferS.push_back(g_rec.bottleneck->GetMaxSize().GetValue());
    const uint64_t drops = g_rec.bottleneck->GetStats().nTotalDroppedPackets;
    g_rec.dropsS.push_back(drops - g_rec.dropsAtLastSample);
    g_rec.dropsAtLastSample = drops;
    g_rec.queueSum = 0;
    g_rec.queueMax = 0;
    g_rec.queueMin = UINT32_MAX;
    g_rec.polls = 0;
    Simulator::Schedule(period, &Sample, period);
}

void
SetBuffer(uint32_t packets)
{
    NS_ABORT_MSG_IF(packets < g_rec.bottleneck->GetNPackets(),
                    "--bufferSchedule: cannot shrink the buffer below the packets it holds");
    g_rec.bottleneck->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, packets));
}

/// A JSON array of numbers.
template <typename T>
std::string
Array(const std::vector<T>& values, int digits)
{
    std::ostringstream os;
    os << "[";
    for (size_t i = 0; i < values.size(); ++i)
    {
        os << (i ? ", " : "") << FormatNumber(static_cast<double>(values[i]), digits);
    }
    os << "]";
    return os.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    RunConfig cfg;
    CommandLine cmd(__FILE__);
    cmd.AddValue("bottleneckRateBps", "bottleneck rate in bit/s", cfg.bottleneckRateBps);
    cmd.AddValue("bottleneckGapNs", "per-frame overhead at the bottleneck", cfg.bottleneckGapNs);
    cmd.AddValue("accessRateBps", "access link rate in bit/s", cfg.accessRateBps);
    cmd.AddValue("accessGapNs", "per-frame overhead on access links", cfg.accessGapNs);
    cmd.AddValue("bufferPackets", "bottleneck FIFO limit at time 0", cfg.bufferPackets);
    cmd.AddValue("bufferSchedule", "later limits: t_s:packets,...", cfg.bufferSchedule);
    cmd.AddValue("flows", "rtt_ms:start_s:stop_s,... one per flow", cfg.flows);
    cmd.AddValue("durationS", "simulated seconds", cfg.durationS);
    cmd.AddValue("sampleS", "throughput sample period", cfg.sampleS);
    cmd.AddValue("pollS", "queue poll period", cfg.pollS);
    cmd.AddValue("backlogBytes", "unsent bytes a sender keeps in its socket", cfg.backlogBytes);
    cmd.AddValue("seed", "RngSeed", cfg.seed);
    cmd.AddValue("run", "RngRun", cfg.run);
    cmd.AddValue("output", "JSON output path (- for stdout)", cfg.output);
    cmd.Parse(argc, argv);

    const auto flows = ParseFlows(cfg.flows);
    const auto schedule = ParseSchedule(cfg.bufferSchedule);
    NS_ABORT_MSG_UNLESS(cfg.sampleS > 0 && cfg.pollS > 0 && cfg.pollS <= cfg.sampleS,
                        "--sampleS and --pollS must be > 0, pollS <= sampleS");
    NS_ABORT_MSG_UNLESS(cfg.durationS > 0, "--durationS must be > 0");
    RngSeedManager::SetSeed(cfg.seed);
    RngSeedManager::SetRun(cfg.run);

    const size_t n = flows.size();
    NodeContainer senders;
    senders.Create(n);
    NodeContainer core;
    core.Create(3); // router, router2, receiver
    Ptr<Node> router = core.Get(0);
    Ptr<Node> router2 = core.Get(1);
    Ptr<Node> receiver = core.Get(2);
    InternetStackHelper internet;
    internet.Install(senders);
    internet.Install(core);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(cfg.accessRateBps)));
    access.SetDeviceAttribute("InterframeGap", TimeValue(NanoSeconds(cfg.accessGapNs)));
    PointToPointHelper pipe;
    pipe.SetDeviceAttribute("DataRate", DataRateValue(DataRate(cfg.bottleneckRateBps)));
    pipe.SetDeviceAttribute("InterframeGap", TimeValue(NanoSeconds(cfg.bottleneckGapNs)));
    pipe.SetChannelAttribute("Delay", TimeValue(Seconds(0)));

    // Queue discs go in before addresses, or ns-3 installs its default FqCoDel. Queues other
    // than the bottleneck's hold more than any window, so they never drop.
    const uint32_t big = 1000000;
    Ipv4AddressHelper ipv4;
    std::vector<Ipv4Address> senderAddresses;
    for (size_t i = 0; i < n; ++i)
    {
        access.SetChannelAttribute("Delay", TimeValue(MilliSeconds(flows[i].rttMs / 2)));
        NetDeviceContainer link = access.Install(senders.Get(i), router);
        emusim::InstallFifo(link.Get(0), big);
        emusim::InstallFifo(link.Get(1), big);
        std::ostringstream net;
        net << "10.1." << i + 1 << ".0";
        ipv4.SetBase(net.str().c_str(), "255.255.255.0", "0.0.0.1");
        auto ifs = ipv4.Assign(NetDeviceContainer(link.Get(1), link.Get(0)));
        senderAddresses.push_back(ifs.GetAddress(1));
    }
    NetDeviceContainer middle = pipe.Install(router, router2);
    emusim::InstallFifo(middle.Get(0), cfg.bufferPackets);
    emusim::InstallFifo(middle.Get(1), big);
    access.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    NetDeviceContainer last = access.Install(router2, receiver);
    emusim::InstallFifo(last.Get(0), big);
    emusim::InstallFifo(last.Get(1), big);
    ipv4.SetBase("10.0.0.0", "255.255.255.0", "0.0.0.1");
    ipv4.Assign(middle);
    ipv4.SetBase("10.2.0.0", "255.255.255.0", "0.0.0.1");
    const Ipv4Address receiverAddress = ipv4.Assign(last).GetAddress(1);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    internet.AssignStreams(senders, 1000);
    internet.AssignStreams(core, 2000);

    g_rec.bottleneck =
        middle.Get(0)->GetNode()->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(
            middle.Get(0));
    g_rec.firstSenderNet = Ipv4Address("10.1.1.0").Get();
    g_rec.inQueue.assign(n, 0);
    g_rec.flowQueueSum.assign(n, 0);
    g_rec.lastRx.assign(n, 0);
    g_rec.mbps.assign(n, {});
    g_rec.flowQueue.assign(n, {});
    g_rec.bottleneck->TraceConnectWithoutContext("Enqueue", MakeCallback(&Enqueued));
    g_rec.bottleneck->TraceConnectWithoutContext("Dequeue", MakeCallback(&Dequeued));
    g_rec.bottleneck->TraceConnectWithoutContext("Requeue", MakeCallback(&Enqueued));

    for (size_t i = 0; i < n; ++i)
    {
        const uint16_t port = 5001 + i;
        auto sink = CreateObject<DrainingSink>();
        sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), port)));
        receiver->AddApplication(sink);
        sink->SetStartTime(Seconds(0));
        g_rec.sinks.push_back(sink);
        auto sender = CreateObject<BoundedBulkSender>(InetSocketAddress(receiverAddress, port),
                                                      cfg.backlogBytes);
        senders.Get(i)->AddApplication(sender);
        sender->SetStartTime(Seconds(flows[i].startS));
        sender->SetStopTime(Seconds(flows[i].stopS));
    }
    for (const auto& step : schedule)
    {
        Simulator::Schedule(Seconds(step.atS), &SetBuffer, step.packets);
    }
    Simulator::Schedule(Seconds(cfg.pollS), &Poll, Seconds(cfg.pollS));
    // the sample at t closes the interval (t - sampleS, t]; polls inside it at t - sampleS + k
    // pollS come first because they were scheduled first for the same time
    Simulator::Schedule(Seconds(cfg.sampleS) + NanoSeconds(1), &Sample, Seconds(cfg.sampleS));

    Simulator::Stop(Seconds(cfg.durationS) + NanoSeconds(2));
    Simulator::Run();

    TypeIdValue socketType;
    senders.Get(0)->GetObject<TcpL4Protocol>()->GetAttribute("SocketType", socketType);
    const QueueDisc::Stats& stats = g_rec.bottleneck->GetStats();
    uint64_t delivered = 0;
    for (const auto& sink : g_rec.sinks)
    {
        delivered += sink->GetTotalRx();
    }

    std::ostringstream json;
    json << "{\"status\": \"ok\", \"metrics\": {"
         << "\"flows\": " << n << ", \"bytes_delivered\": " << delivered
         << ", \"goodput_Bps\": " << FormatNumber(delivered / cfg.durationS, 3)
         << ", \"bottleneck_packets\": " << stats.nTotalReceivedPackets
         << ", \"bottleneck_drops\": " << stats.nTotalDroppedPackets << "}, \"series\": {"
         << "\"t_s\": " << Array(g_rec.t, 6)
         << ", \"queue_mean_pkts\": " << Array(g_rec.queueMean, 3)
         << ", \"queue_max_pkts\": " << Array(g_rec.queueMaxS, 0)
         << ", \"queue_min_pkts\": " << Array(g_rec.queueMinS, 0)
         << ", \"buffer_pkts\": " << Array(g_rec.bufferS, 0)
         << ", \"drops\": " << Array(g_rec.dropsS, 0) << ", \"flow_Mbps\": [";
    for (size_t f = 0; f < n; ++f)
    {
        json << (f ? ", " : "") << Array(g_rec.mbps[f], 6);
    }
    json << "], \"flow_queue_pkts\": [";
    for (size_t f = 0; f < n; ++f)
    {
        json << (f ? ", " : "") << Array(g_rec.flowQueue[f], 3);
    }
    json << "]}, \"ns3\": {\"version\": \"3.44\", \"seed\": " << cfg.seed
         << ", \"run\": " << cfg.run
         << ", \"simulated_s\": " << FormatNumber(Simulator::Now().GetSeconds())
         << ", \"congestion_control\": \"" << socketType.Get().GetName() << "\"}}\n";
    Simulator::Destroy();
    emusim::WriteResult(json.str(), cfg.output);
    return 0;
}
