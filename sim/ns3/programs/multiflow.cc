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
 * --fastTraceFile writes one CSV line per once-per-RTT decision of every FAST flow's window rule
 * (ns3::TcpFast's Update trace source: its baseRTT, average RTT, estimated queued packets and
 * window before and after), a few lines per flow and RTT, to explain an equilibrium.
 *
 * Every parameter comes from the command line; src/emusim/backends/ns3/command.py derives them from
 * the scenario. TCP attributes are set the ns-3 way, e.g. --ns3::TcpL4Protocol::SocketType=...
 */

#include "../helper/progress.h"
#include "../helper/queue-setup.h"
#include "../helper/run-arguments.h"
#include "../helper/run-output.h"
#include "../model/bottleneck-sampler.h"
#include "../model/bounded-bulk-sender.h"
#include "../model/draining-sink.h"
#include "../model/tcp-event-trace.h"
#include "../model/tcp-fast.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cmath>
#include <fstream>
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
    std::string traceFile;                 //!< TCP event trace CSV of one flow ("" = none)
    uint32_t traceFlow{0};                 //!< which flow (0-based, in --flows order)
    std::string fastTraceFile;             //!< FAST's per-RTT decisions, CSV ("" = none)
    emusim::RunArguments out;              //!< seed, run and output
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

/**
 * Write each once-per-RTT decision of the socket's TcpFast to `out` (--fastTraceFile).
 * \param out the CSV file
 * \param flow the flow's index, 0-based in --flows order
 * \param socket the flow's sender socket (a TcpSocketBase whose congestion control is FAST)
 */
void
WatchFast(std::ofstream* out, uint32_t flow, Ptr<Socket> socket)
{
    PointerValue ops;
    socket->GetAttribute("CongestionOps", ops);
    Ptr<TcpFast> fast = DynamicCast<TcpFast>(ops.Get<TcpCongestionOps>());
    NS_ABORT_MSG_IF(!fast, "--fastTraceFile: flow " << flow << " does not run ns3::TcpFast");
    UintegerValue segment;
    socket->GetAttribute("SegmentSize", segment);
    const double segmentBytes = segment.Get();
    fast->TraceConnectWithoutContext(
        "Update",
        Callback<void, Time, Time, double, uint32_t, uint32_t>(
            [out,
             flow,
             segmentBytes](Time base, Time avg, double queued, uint32_t before, uint32_t after) {
                *out << FormatNumber(Simulator::Now().GetSeconds(), 6) << "," << flow << ","
                     << FormatNumber(base.GetSeconds() * 1e3, 6) << ","
                     << FormatNumber(avg.GetSeconds() * 1e3, 6) << "," << FormatNumber(queued, 3)
                     << "," << FormatNumber(before / segmentBytes, 3) << ","
                     << FormatNumber(after / segmentBytes, 3) << "\n";
            }));
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
    cmd.AddValue("traceFile", "TCP event trace CSV of one flow's sender", cfg.traceFile);
    cmd.AddValue("traceFlow", "the traced flow, 0-based in --flows order", cfg.traceFlow);
    cmd.AddValue("fastTraceFile", "FAST's per-RTT window decisions, CSV", cfg.fastTraceFile);
    emusim::AddRunArguments(cmd, cfg.out);
    cmd.Parse(argc, argv);

    const auto flows = ParseFlows(cfg.flows);
    const auto schedule = ParseSchedule(cfg.bufferSchedule);
    NS_ABORT_MSG_UNLESS(cfg.sampleS > 0 && cfg.pollS > 0 && cfg.pollS <= cfg.sampleS,
                        "--sampleS and --pollS must be > 0, pollS <= sampleS");
    NS_ABORT_MSG_UNLESS(cfg.durationS > 0, "--durationS must be > 0");
    emusim::SeedStreams(cfg.out);

    const size_t n = flows.size();
    NS_ABORT_MSG_UNLESS(cfg.traceFile.empty() || cfg.traceFlow < n,
                        "--traceFlow=" << cfg.traceFlow << " but --flows has " << n
                                       << " flows (0-based)");
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

    BottleneckSampler rec(
        middle.Get(0)->GetNode()->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(
            middle.Get(0)),
        Ipv4Address("10.1.1.0"),
        n);

    Ptr<TcpEventTrace> eventTrace;
    std::ofstream fastTrace;
    if (!cfg.fastTraceFile.empty())
    {
        fastTrace.open(cfg.fastTraceFile);
        NS_ABORT_MSG_UNLESS(fastTrace, "--fastTraceFile: cannot write " << cfg.fastTraceFile);
        fastTrace << "t_s,flow,base_rtt_ms,avg_rtt_ms,queued_pkts,cwnd_before_pkts,"
                     "cwnd_after_pkts\n";
    }
    for (size_t i = 0; i < n; ++i)
    {
        const uint16_t port = 5001 + i;
        auto sink = CreateObject<DrainingSink>();
        sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), port)));
        receiver->AddApplication(sink);
        sink->SetStartTime(Seconds(0));
        rec.AddSink(sink);
        auto sender = CreateObject<BoundedBulkSender>(InetSocketAddress(receiverAddress, port),
                                                      cfg.backlogBytes);
        senders.Get(i)->AddApplication(sender);
        const bool traceEvents = !cfg.traceFile.empty() && i == cfg.traceFlow;
        if (traceEvents)
        {
            // the sender's events only: the bottleneck's drops are every flow's, and the
            // trace's segment numbers are this connection's
            eventTrace = CreateObject<TcpEventTrace>();
            eventTrace->Open(cfg.traceFile);
        }
        if (traceEvents || fastTrace.is_open())
        {
            std::ofstream* fastOut = fastTrace.is_open() ? &fastTrace : nullptr;
            Ptr<TcpEventTrace> events = traceEvents ? eventTrace : nullptr;
            const auto flow = static_cast<uint32_t>(i);
            sender->SetSocketCallback(
                Callback<void, Ptr<Socket>>([events, fastOut, flow](Ptr<Socket> socket) {
                    if (events)
                    {
                        events->WatchSocket(socket);
                    }
                    if (fastOut)
                    {
                        WatchFast(fastOut, flow, socket);
                    }
                }));
        }
        sender->SetStartTime(Seconds(flows[i].startS));
        sender->SetStopTime(Seconds(flows[i].stopS));
    }
    for (const auto& step : schedule)
    {
        rec.ScheduleBuffer(Seconds(step.atS), step.packets);
    }
    rec.Start(Seconds(cfg.pollS), Seconds(cfg.sampleS));

    // a line on standard error every twentieth of the run (the paper scale's runs last hours)
    emusim::ReportProgress("multiflow", Seconds(cfg.durationS), Seconds(cfg.durationS / 20));
    Simulator::Stop(Seconds(cfg.durationS) + NanoSeconds(2));
    Simulator::Run();

    TypeIdValue socketType;
    senders.Get(0)->GetObject<TcpL4Protocol>()->GetAttribute("SocketType", socketType);
    const QueueDisc::Stats& stats = rec.Bottleneck()->GetStats();
    uint64_t delivered = 0;
    for (const auto& sink : rec.sinks)
    {
        delivered += sink->GetTotalRx();
    }

    std::ostringstream json;
    json << "{\"status\": \"ok\", \"metrics\": {"
         << "\"flows\": " << n << ", \"bytes_delivered\": " << delivered
         << ", \"goodput_Bps\": " << FormatNumber(delivered / cfg.durationS, 3)
         << ", \"bottleneck_packets\": " << stats.nTotalReceivedPackets
         << ", \"bottleneck_drops\": " << stats.nTotalDroppedPackets << "}, \"series\": {"
         << "\"t_s\": " << Array(rec.t, 6) << ", \"queue_mean_pkts\": " << Array(rec.queueMean, 3)
         << ", \"queue_max_pkts\": " << Array(rec.queueMaxS, 0)
         << ", \"queue_min_pkts\": " << Array(rec.queueMinS, 0)
         << ", \"buffer_pkts\": " << Array(rec.bufferS, 0)
         << ", \"drops\": " << Array(rec.dropsS, 0) << ", \"flow_Mbps\": [";
    for (size_t f = 0; f < n; ++f)
    {
        json << (f ? ", " : "") << Array(rec.mbps[f], 6);
    }
    json << "], \"flow_queue_pkts\": [";
    for (size_t f = 0; f < n; ++f)
    {
        json << (f ? ", " : "") << Array(rec.flowQueue[f], 3);
    }
    json << "]}, \"ns3\": {\"version\": \"3.44\", \"seed\": " << cfg.out.seed
         << ", \"run\": " << cfg.out.run
         << ", \"simulated_s\": " << FormatNumber(Simulator::Now().GetSeconds())
         << ", \"congestion_control\": \"" << socketType.Get().GetName() << "\"}}\n";
    Simulator::Destroy();
    emusim::WriteResult(json.str(), cfg.out.output);
    return 0;
}
