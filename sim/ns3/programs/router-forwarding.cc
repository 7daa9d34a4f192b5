/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Router forwarding performance against packet size (the router-forwarding study): one UDP
 * flood of one payload size, one JSON object.
 *
 *   sender                  router                        receiver
 *   192.168.1.2  -------  192.168.1.1 | 192.168.2.1  -------  192.168.2.2
 *                100 Mb/s     [processor]  [FIFO]   100 Mb/s
 *
 * path direct: the sink listens on the router's own address 192.168.1.1, one link from the
 * sender, and nothing is forwarded (the measurement-tool paper's setup without the router).
 * path routed: the sink is the receiver, the datagrams are forwarded by the router.
 *
 * model off: ns-3 as it is, forwarding and making datagrams in no time. model on: the
 * router's CPU (RouterProcessor) spends routerPerPacketNs + L x routerPerByteNs on every
 * packet it forwards (L its IP length), with processorQueuePackets packets waiting at most;
 * the sender spends generatorTimeNs making each datagram, on its own CPU or, with sharedCpu,
 * on the router's (the emulation's namespaces share one CPU). The router-forwarding study
 * (src/emusim/studies/router_forwarding/fit.py) fits these times to the emulation's
 * measurements and docs/router-forwarding.md explains them.
 *
 * Framing, delays and queues are testbed-2001's; every parameter comes from the command line.
 */

#include "../helper/run-arguments.h"
#include "../helper/run-output.h"
#include "../helper/three-host-line-helper.h"
#include "../model/dropper-queue-disc.h"
#include "../model/flood-apps.h"
#include "../model/router-processor.h"
#include "../model/udp-sink.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <sstream>

using namespace ns3;
using emusim::FormatNumber;

NS_LOG_COMPONENT_DEFINE("RouterForwarding");

namespace
{

/// Everything one run needs, from the command line.
struct RunConfig
{
    std::string workload{"flood"};        //!< flood only
    uint32_t payload{1472};               //!< UDP payload bytes per datagram
    std::string path{"routed"};           //!< direct or routed
    double durationS{10};                 //!< how long the sender sends
    std::string model{"off"};             //!< the processing model: off or on
    bool sharedCpu{false};                //!< the sender makes datagrams on the router's CPU
    double generatorTimeNs{0};            //!< CPU time per datagram at the sender
    double routerPerPacketNs{0};          //!< router CPU time per forwarded packet
    double routerPerByteNs{0};            //!< router CPU time per byte of a forwarded packet
    uint32_t processorQueuePackets{1000}; //!< packets that may wait for the router's CPU
    double drainS{1};                     //!< simulated time after the sender stops
    emusim::LineArguments line;           //!< the links, queues and dropper
    emusim::RunArguments out;             //!< seed, run and output
};

/// Events per second over a window: (n - 1) intervals between the first and the last.
double
Rate(uint64_t n, double windowS)
{
    return n >= 2 && windowS > 0 ? (n - 1) / windowS : 0.0;
}

} // namespace

int
main(int argc, char* argv[])
{
    RunConfig cfg;
    CommandLine cmd(__FILE__);
    cmd.AddValue("workload", "flood (the only workload of this program)", cfg.workload);
    cmd.AddValue("payload", "UDP payload bytes per datagram", cfg.payload);
    cmd.AddValue("path", "direct (sink on the router) or routed (sink beyond it)", cfg.path);
    cmd.AddValue("durationS", "seconds the sender sends", cfg.durationS);
    cmd.AddValue("model", "the processing model: off or on", cfg.model);
    cmd.AddValue("sharedCpu", "the sender makes datagrams on the router's CPU", cfg.sharedCpu);
    cmd.AddValue("generatorTimeNs", "CPU time per datagram at the sender, ns", cfg.generatorTimeNs);
    cmd.AddValue("routerPerPacketNs", "router CPU time per packet, ns", cfg.routerPerPacketNs);
    cmd.AddValue("routerPerByteNs", "router CPU time per byte, ns", cfg.routerPerByteNs);
    cmd.AddValue("processorQueuePackets",
                 "packets that may wait for the router's CPU",
                 cfg.processorQueuePackets);
    cmd.AddValue("drainS", "simulated seconds after the sender stops", cfg.drainS);
    emusim::AddLineArguments(cmd, cfg.line);
    emusim::AddRunArguments(cmd, cfg.out);
    cmd.Parse(argc, argv);

    NS_ABORT_MSG_UNLESS(cfg.workload == "flood", "--workload must be flood, not " << cfg.workload);
    NS_ABORT_MSG_UNLESS(cfg.path == "direct" || cfg.path == "routed",
                        "--path must be direct or routed, not " << cfg.path);
    NS_ABORT_MSG_UNLESS(cfg.model == "off" || cfg.model == "on",
                        "--model must be off or on, not " << cfg.model);
    emusim::CheckDropper(cfg.line);
    NS_ABORT_MSG_IF(cfg.payload < 8 || cfg.payload > 65507,
                    "--payload must be in [8, 65507], not " << cfg.payload);
    NS_ABORT_MSG_IF(cfg.durationS <= 0, "--durationS must be > 0");
    NS_ABORT_MSG_IF(cfg.generatorTimeNs < 0 || cfg.routerPerPacketNs < 0 || cfg.routerPerByteNs < 0,
                    "the processing model's times must be >= 0");
    const bool modelOn = cfg.model == "on";
    const bool routed = cfg.path == "routed";

    emusim::SeedStreams(cfg.out);

    ThreeHostLineHelper line(cfg.line);
    line.Install(1000);
    Ptr<Node> sender = line.GetSender();
    Ptr<Node> router = line.GetRouter();
    Ptr<Node> receiver = line.GetReceiver();
    Ptr<DropperQueueDisc> egress = line.GetDropper();
    const Ipv4Address routerAddress = line.GetRouterAddress();
    const Ipv4Address receiverAddress = line.GetReceiverAddress();
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<RouterProcessor> processor;
    if (modelOn)
    {
        processor = CreateObject<RouterProcessor>();
        processor->SetAttribute("PerPacketTime",
                                TimeValue(NanoSeconds(std::llround(cfg.routerPerPacketNs))));
        processor->SetAttribute("PerByteNs", DoubleValue(cfg.routerPerByteNs));
        processor->SetAttribute("QueuePackets", UintegerValue(cfg.processorQueuePackets));
        ProcessingRouting::Install(router, processor);
    }

    const uint16_t port = 1026;
    auto sink = CreateObject<UdpSink>();
    sink->SetAttribute("Port", UintegerValue(port));
    (routed ? receiver : router)->AddApplication(sink);
    auto flood = CreateObject<UdpFloodSender>();
    const Ipv4Address destination = routed ? receiverAddress : routerAddress;
    flood->SetAttribute("Remote", AddressValue(InetSocketAddress(destination, port)));
    flood->SetAttribute("Size", UintegerValue(cfg.payload));
    flood->SetAttribute("Duration", TimeValue(Seconds(cfg.durationS)));
    flood->SetAttribute("MaxInFlightFrames", UintegerValue(cfg.line.hostQueuePackets));
    if (modelOn)
    {
        flood->SetAttribute("GeneratorTime",
                            TimeValue(NanoSeconds(std::llround(cfg.generatorTimeNs))));
        if (cfg.sharedCpu)
        {
            flood->SetCpu(processor);
        }
    }
    sender->AddApplication(flood);
    line.GetSenderDevice()->TraceConnectWithoutContext(
        "PhyTxEnd",
        MakeCallback(&UdpFloodSender::FrameSent, flood));

    Simulator::Stop(Seconds(cfg.durationS + cfg.drainS));
    Simulator::Run();

    const uint64_t sent = flood->GetSent();
    const uint64_t received = sink->GetReceived();
    const double txS = flood->GetElapsed().GetSeconds();
    const double rxS = sink->GetElapsed().GetSeconds();
    const double pps = Rate(received, rxS);
    const QueueDisc::Stats& out = egress->GetStats();
    const uint64_t processorDrops = processor ? processor->GetDrops() : 0;
    std::ostringstream json;
    json << "{\"status\": \"ok\", \"metrics\": {"
         << "\"tx_datagrams\": " << sent << ", \"rx_datagrams\": " << received
         << ", \"tx_s\": " << FormatNumber(txS) << ", \"rx_s\": " << FormatNumber(rxS)
         << ", \"tx_pps\": " << FormatNumber(Rate(sent, txS), 3)
         << ", \"packets_per_s\": " << FormatNumber(pps, 3)
         << ", \"throughput_Mbps\": " << FormatNumber(pps * cfg.payload * 8 / 1e6, 6)
         << ", \"loss\": " << FormatNumber(sent > 0 ? 1.0 - double(received) / sent : 0.0)
         << ", \"frames_per_datagram\": " << flood->GetFrames() << ", \"send_errors\": 0"
         << ", \"router_forwarded_frames\": "
         << out.nTotalReceivedPackets - out.nTotalDroppedPackets
         << ", \"router_dropped_frames\": " << out.nTotalDroppedPackets + processorDrops
         << ", \"sink_dropped_datagrams\": 0"
         << ", \"packets_dropped\": " << egress->GetDroppedCount() << "}, \"ns3\": {"
         << "\"version\": \"3.44\", \"seed\": " << cfg.out.seed << ", \"run\": " << cfg.out.run
         << ", \"simulated_s\": " << FormatNumber(Simulator::Now().GetSeconds())
         << ", \"model\": \"" << cfg.model
         << "\", \"shared_cpu\": " << (modelOn && cfg.sharedCpu ? "true" : "false")
         << ", \"rx_bytes\": " << sink->GetBytes();
    if (processor)
    {
        json << ", \"processor\": {\"arrivals\": " << processor->GetArrivals()
             << ", \"served\": " << processor->GetServed() << ", \"drops\": " << processorDrops
             << ", \"max_waiting\": " << processor->GetMaxWaiting()
             << ", \"forwarding_s\": " << FormatNumber(processor->GetForwardingTime().GetSeconds())
             << ", \"host_s\": " << FormatNumber(processor->GetHostTime().GetSeconds()) << "}";
    }
    json << "}}\n";
    Simulator::Destroy();
    emusim::WriteResult(json.str(), cfg.out.output);
    return 0;
}
