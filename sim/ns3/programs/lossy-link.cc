/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Bulk TCP over a lossy link with delay (the lossy-link family): one transfer, one JSON object.
 *
 *   sender         router                       router2                receiver
 *   192.168.1.2 -- .1.1 | .2.1  ============  .2.2 | .3.1  --------  192.168.3.2
 *   accessRateBps       [loss + FIFO] -->  <-- [loss + FIFO]    accessRateBps
 *                        linkRateBps, linkDelayNs each way
 *                        (--aqm=codel: [CoDel] --> instead of the forward loss and FIFO)
 *
 * The middle link loses packets at random in each direction: the root queue disc of each of
 * its two egress devices is a DropperQueueDisc in random mode (a packet is dropped before the
 * queue when a uniform 16-bit number is below lossCutoff, spec/drop-decision.md), toward the
 * receiver for data and toward the sender for ACKs, as netem's `loss` drops at the egress
 * before its queue. Framing, queues and the TCP blast applications are those of testbed-2001.
 * The hosts' links run at linkRateBps too unless accessRateBps says otherwise. With --aqm=codel
 * the forward egress (router toward router2, the data's) is CoDel instead (queue-setup.h,
 * InstallCodel), which marks or drops by sojourn time; the reverse keeps its dropper.
 * Every parameter comes from the command line; src/emusim/backends/ns3/command.py derives them from
 * the scenario, and TCP attributes are set the ns-3 way, e.g.
 * --ns3::TcpL4Protocol::SocketType=ns3::TcpHtcp.
 */

#include "../helper/linux-run-facts.h"
#include "../helper/queue-setup.h"
#include "../helper/run-arguments.h"
#include "../helper/run-output.h"
#include "../model/blast-apps.h"
#include "../model/dropper-queue-disc.h"
#include "../model/tcp-event-trace.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <sstream>

using namespace ns3;
using emusim::FormatNumber;

NS_LOG_COMPONENT_DEFINE("LossyLink");

namespace
{

/// Everything one run needs, from the command line.
struct RunConfig
{
    std::string workload{"tcp"};       //!< tcp only (the bulk transfer)
    uint64_t linkDelayNs{1920};        //!< propagation delay of the impaired middle link
    uint32_t lossCutoff{0};            //!< middle link: drop when a 16-bit r < lossCutoff
    uint64_t accessRateBps{0};         //!< the hosts' links; 0: linkRateBps, as the middle link
    uint64_t accessInterframeGapNs{0}; //!< their per-frame overhead (with accessRateBps)
    std::string aqm;                   //!< the forward egress: "" (loss + FIFO) or "codel"
    emusim::CodelArguments codel;      //!< CoDel's settings (with --aqm=codel)
    /// TCP writes (690 608 x 1448 B: 1 GB), the time cap, the TCP trace
    emusim::BlastArguments blast{.writes = 690608, .maxSimTimeS = 3600};
    emusim::LineArguments line; //!< the links and queues (no dropper: the loss is its own)
    emusim::RunArguments out;   //!< seed, run and output
};

/// The lossy egress of the middle link: random loss of packets to `toward`, then a FIFO.
Ptr<DropperQueueDisc>
InstallLoss(Ptr<NetDevice> device, const RunConfig& cfg, Ipv4Address toward)
{
    return emusim::InstallDropper(device,
                                  cfg.line.routerQueuePackets,
                                  cfg.lossCutoff > 0 ? "random" : "off",
                                  cfg.lossCutoff,
                                  0,
                                  toward);
}

/// The counters of one direction of the middle link, as JSON members with `suffix`: packets
/// that reached its egress, those dropped there (by the loss, the FIFO or CoDel), those the
/// random loss dropped, and with CoDel those it marked CE, by why as sch_codel counts them:
/// a sojourn over the CE threshold (its ce_mark) and its control law marking where it would
/// drop (its ecn_mark; sch_codel.c, codel_dump_stats).
std::string
LinkCounters(Ptr<QueueDisc> egress, const std::string& suffix)
{
    const QueueDisc::Stats& stats = egress->GetStats();
    auto dropper = DynamicCast<DropperQueueDisc>(egress);
    std::ostringstream os;
    os << ", \"link_packets_" << suffix << "\": " << stats.nTotalReceivedPackets
       << ", \"link_dropped_" << suffix << "\": " << stats.nTotalDroppedPackets
       << ", \"link_random_drops_" << suffix
       << "\": " << (dropper ? dropper->GetDroppedCount() : 0);
    if (!dropper)
    {
        os << ", \"link_ce_marks_" << suffix
           << "\": " << stats.GetNMarkedPackets(CoDelQueueDisc::CE_THRESHOLD_EXCEEDED_MARK)
           << ", \"link_ecn_marks_" << suffix
           << "\": " << stats.GetNMarkedPackets(CoDelQueueDisc::TARGET_EXCEEDED_MARK);
    }
    return os.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    RunConfig cfg;
    CommandLine cmd(__FILE__);
    cmd.AddValue("workload", "tcp (the only workload of this program)", cfg.workload);
    cmd.AddValue("linkDelayNs", "delay of the impaired middle link in ns", cfg.linkDelayNs);
    cmd.AddValue("lossCutoff", "middle link: drop when a 16-bit r < lossCutoff", cfg.lossCutoff);
    cmd.AddValue("accessRateBps", "the hosts' links in bit/s (0: linkRateBps)", cfg.accessRateBps);
    cmd.AddValue("accessInterframeGapNs",
                 "per-frame overhead time of the hosts' links in ns (with accessRateBps)",
                 cfg.accessInterframeGapNs);
    cmd.AddValue("aqm", "the middle link's forward egress: codel, or empty (loss + FIFO)", cfg.aqm);
    cmd.AddValue("codelTargetUs", "CoDel's target in us", cfg.codel.targetUs);
    cmd.AddValue("codelIntervalUs", "CoDel's interval in us", cfg.codel.intervalUs);
    cmd.AddValue("codelEcn", "CoDel marks ECN-capable packets instead of dropping", cfg.codel.ecn);
    cmd.AddValue("codelCeThresholdUs",
                 "CoDel marks packets that waited longer, in us (0: none)",
                 cfg.codel.ceThresholdUs);
    emusim::AddBlastArguments(cmd, cfg.blast);
    emusim::AddLineArguments(cmd, cfg.line, false);
    emusim::AddRunArguments(cmd, cfg.out);
    cmd.Parse(argc, argv);

    NS_ABORT_MSG_UNLESS(cfg.workload == "tcp", "--workload must be tcp, not " << cfg.workload);
    NS_ABORT_MSG_IF(cfg.lossCutoff > 65535, "--lossCutoff must be at most 65535");
    NS_ABORT_MSG_IF(cfg.blast.writes == 0 || cfg.blast.writeSize == 0,
                    "--writes and --writeSize must be > 0");
    NS_ABORT_MSG_UNLESS(cfg.aqm.empty() || cfg.aqm == "codel",
                        "--aqm must be codel or empty, not " << cfg.aqm);
    // CoDel takes the forward egress's place, dropper and all: a lossy forward direction and
    // CoDel would need both in one queue disc, which no scenario asks for
    NS_ABORT_MSG_IF(!cfg.aqm.empty() && cfg.lossCutoff > 0,
                    "--aqm=codel replaces the forward loss: it needs --lossCutoff=0");
    NS_ABORT_MSG_IF(cfg.accessRateBps > 0 && cfg.accessInterframeGapNs == 0,
                    "--accessRateBps needs --accessInterframeGapNs");

    emusim::SeedStreams(cfg.out);

    NodeContainer nodes;
    nodes.Create(4);
    Ptr<Node> sender = nodes.Get(0);
    Ptr<Node> router = nodes.Get(1);
    Ptr<Node> router2 = nodes.Get(2);
    Ptr<Node> receiver = nodes.Get(3);

    const bool ownAccessRate = cfg.accessRateBps > 0;
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute(
        "DataRate",
        DataRateValue(DataRate(ownAccessRate ? cfg.accessRateBps : cfg.line.linkRateBps)));
    p2p.SetDeviceAttribute("InterframeGap",
                           TimeValue(NanoSeconds(ownAccessRate ? cfg.accessInterframeGapNs
                                                               : cfg.line.interframeGapNs)));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(cfg.line.channelDelayNs)));
    NetDeviceContainer left = p2p.Install(sender, router);
    NetDeviceContainer right = p2p.Install(router2, receiver);
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(cfg.line.linkRateBps)));
    p2p.SetDeviceAttribute("InterframeGap", TimeValue(NanoSeconds(cfg.line.interframeGapNs)));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(cfg.linkDelayNs)));
    NetDeviceContainer middle = p2p.Install(router, router2);

    InternetStackHelper internet;
    internet.Install(nodes);

    // Queue discs go in before addresses, or ns-3 installs its default FqCoDel.
    const Ipv4Address senderAddress("192.168.1.2");
    const Ipv4Address receiverAddress("192.168.3.2");
    emusim::InstallFifo(left.Get(0), cfg.line.hostQueuePackets);
    emusim::InstallFifo(left.Get(1), cfg.line.routerQueuePackets);
    Ptr<QueueDisc> forward;
    int64_t stream = 1000;
    if (cfg.aqm.empty())
    {
        auto loss = InstallLoss(middle.Get(0), cfg, receiverAddress);
        stream += loss->AssignStreams(stream);
        forward = loss;
    }
    else
    {
        forward = emusim::InstallCodel(middle.Get(0), cfg.line.routerQueuePackets, cfg.codel);
        stream += 1; // CoDel draws nothing; the other streams keep their numbers
    }
    auto reverse = InstallLoss(middle.Get(1), cfg, senderAddress);
    emusim::InstallFifo(right.Get(0), cfg.line.routerQueuePackets);
    emusim::InstallFifo(right.Get(1), cfg.line.hostQueuePackets);
    stream += reverse->AssignStreams(stream);
    stream += internet.AssignStreams(nodes, stream);

    emusim::AssignAddress(left.Get(0), "192.168.1.0", "0.0.0.2");   // sender
    emusim::AssignAddress(left.Get(1), "192.168.1.0", "0.0.0.1");   // router, toward the sender
    emusim::AssignAddress(middle.Get(0), "192.168.2.0", "0.0.0.1"); // router, toward router2
    emusim::AssignAddress(middle.Get(1), "192.168.2.0", "0.0.0.2"); // router2, toward the router
    emusim::AssignAddress(right.Get(0), "192.168.3.0", "0.0.0.1");  // router2, toward the receiver
    emusim::AssignAddress(right.Get(1), "192.168.3.0", "0.0.0.2");  // receiver
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 1026;
    auto server = CreateObject<TcpBlastServer>();
    server->SetAttribute("Port", UintegerValue(port));
    receiver->AddApplication(server);
    auto client = CreateObject<TcpBlastClient>();
    client->SetAttribute("Remote", AddressValue(InetSocketAddress(receiverAddress, port)));
    client->SetAttribute("Writes", UintegerValue(cfg.blast.writes));
    client->SetAttribute("WriteSize", UintegerValue(cfg.blast.writeSize));
    sender->AddApplication(client);
    client->TraceConnectWithoutContext("Done", MakeCallback(+[](Time) { Simulator::Stop(); }));
    // the sender's TCP events and the data the lossy link drops (tcp-event-trace.h)
    Ptr<TcpEventTrace> eventTrace;
    if (!cfg.blast.traceFile.empty())
    {
        eventTrace = CreateObject<TcpEventTrace>();
        eventTrace->Open(cfg.blast.traceFile);
        eventTrace->WatchRouterQueue(forward);
        client->TraceConnectWithoutContext("Socket",
                                           MakeCallback(&TcpEventTrace::WatchSocket, eventTrace));
    }

    Simulator::Stop(Seconds(cfg.blast.maxSimTimeS));
    Simulator::Run();

    // The congestion control new sockets of the sender got: the variant asked for, or the
    // run is not what it claims to be.
    TypeIdValue socketType;
    sender->GetObject<TcpL4Protocol>()->GetAttribute("SocketType", socketType);

    std::string status = "ok";
    if (client->IsAborted())
    {
        status = "aborted"; // TCP gave up: DataRetries retransmissions of one segment
    }
    else if (!client->IsFinished())
    {
        status = "timeout"; // the cap ended the transfer: the numbers are lower bounds
    }
    // Linux's own congestion control: the algorithm the connection ran
    const std::string linuxFacts = emusim::LinuxRunFacts(client, status);
    const double elapsedS = client->GetElapsed().GetSeconds();
    const uint64_t delivered = server->GetBytesReceived();
    std::ostringstream json;
    json << "{\"status\": \"" << status << "\", \"metrics\": {"
         << "\"elapsed_s\": " << FormatNumber(elapsedS) << ", \"writes\": " << cfg.blast.writes
         << ", \"write_size_B\": " << cfg.blast.writeSize
         << ", \"payload_bytes\": " << cfg.blast.writes * cfg.blast.writeSize
         << ", \"bytes_delivered\": " << delivered
         << ", \"goodput_Bps\": " << FormatNumber(elapsedS > 0 ? delivered / elapsedS : 0.0, 3)
         << ", \"packets_sent\": " << client->GetDataSegmentsSent()
         << ", \"retransmissions\": " << client->GetRetransmissions()
         << ", \"rto_timeouts\": " << client->GetTimeouts()
         << ", \"fast_recoveries\": " << client->GetFastRecoveries()
         << LinkCounters(forward, "forward") << LinkCounters(reverse, "reverse")
         << "}, \"ns3\": {\"version\": \"3.44\", \"seed\": " << cfg.out.seed
         << ", \"run\": " << cfg.out.run
         << ", \"simulated_s\": " << FormatNumber(Simulator::Now().GetSeconds())
         << ", \"congestion_control\": \"" << socketType.Get().GetName() << "\"" << linuxFacts
         << "}}\n";
    Simulator::Destroy();
    if (eventTrace)
    {
        eventTrace->Dispose(); // flushes the trace file
    }
    emusim::WriteResult(json.str(), cfg.out.output);
    return 0;
}
