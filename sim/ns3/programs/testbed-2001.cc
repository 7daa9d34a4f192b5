/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The 2001 report's testbed in ns-3: one run of one workload, written as one JSON object.
 *
 *   Madrid (sender)          Dublin (router)                 Prague (receiver)
 *   192.168.1.2  ---------  192.168.1.1 | 192.168.2.1  --------  192.168.2.2
 *                 100 Mb/s               [dropper+FIFO]  100 Mb/s
 *
 * Every parameter comes from the command line; the Python side (src/emusim/backends/ns3/command.py)
 * derives them from the scenario file and documents each choice. TCP attributes are set the ns-3
 * way, e.g. --ns3::TcpSocket::SegmentSize=1448.
 *
 * Workloads: tcp (the blast test), udp (the UDP blast test), ping (ICMP echo sweep point).
 */

#include "../helper/linux-run-facts.h"
#include "../helper/run-arguments.h"
#include "../helper/run-output.h"
#include "../helper/three-host-line-helper.h"
#include "../model/blast-apps.h"
#include "../model/dropper-queue-disc.h"
#include "../model/tcp-event-trace.h"
#include "../model/udp-sink.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-apps-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <sstream>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("Testbed2001");

namespace
{

/// Everything one run needs, from the command line.
struct RunConfig
{
    std::string workload{"tcp"};  //!< tcp, udp or ping
    uint32_t pings{10};           //!< echo requests (ping)
    uint32_t pingSize{56};        //!< ICMP payload bytes (ping -s)
    double pingIntervalS{1.0};    //!< seconds between echo requests
    uint32_t udpInFlight{32};     //!< UDP sender's send-buffer depth in datagrams
    double freezePeriodS{0};      //!< what-if: the receiver's link freezes this often (0: never)
    double freezeS{0};            //!< what-if: for this long each time
    emusim::BlastArguments blast; //!< TCP writes or UDP datagrams, the time cap, the TCP trace
    emusim::LineArguments line;   //!< the links, queues and dropper
    emusim::RunArguments out;     //!< seed, run and output
};

using emusim::FormatNumber;

/// Steps in which a freeze's channel delay counts down, s
constexpr double FREEZE_STEP_S = 10e-6;

/**
 * What-if: the emulator's stalls in the simulator (docs/variants.md, "The slow cycle"). The
 * emulation's ACKs stop for 2-5 ms every 128-140 ms with nothing dropped; here the receiver's
 * link holds whatever it carries, both ways, from k × period to k × period + length and
 * delivers it at the freeze's end, in order: a frame sent at t during a freeze gets the channel
 * delay base + (end - t), set in 10 us steps (so it arrives up to 10 us after the end). Each
 * freeze schedules the next one at its end.
 * \param ch the receiver's channel
 * \param baseDelay the channel's own delay
 * \param start this freeze's start
 * \param period the freezes' period
 * \param length each freeze's length
 */
void
Freeze(Ptr<PointToPointChannel> ch, Time baseDelay, Time start, Time period, Time length)
{
    for (Time t = start; t < start + length; t += Seconds(FREEZE_STEP_S))
    {
        const Time delay = baseDelay + start + length - t;
        Simulator::Schedule(t - Simulator::Now(),
                            [ch, delay]() { ch->SetAttribute("Delay", TimeValue(delay)); });
    }
    Simulator::Schedule(start + length - Simulator::Now(), [=]() {
        ch->SetAttribute("Delay", TimeValue(baseDelay));
        Freeze(ch, baseDelay, start + period, period, length);
    });
}

} // namespace

int
main(int argc, char* argv[])
{
    RunConfig cfg;
    CommandLine cmd(__FILE__);
    cmd.AddValue("workload", "tcp, udp or ping", cfg.workload);
    cmd.AddValue("pings", "echo requests", cfg.pings);
    cmd.AddValue("pingSize", "ICMP payload bytes", cfg.pingSize);
    cmd.AddValue("pingIntervalS", "seconds between echo requests", cfg.pingIntervalS);
    cmd.AddValue("udpInFlight", "UDP send-buffer depth in datagrams", cfg.udpInFlight);
    cmd.AddValue("freezePeriodS",
                 "what-if: freeze the receiver's link every this many seconds",
                 cfg.freezePeriodS);
    cmd.AddValue("freezeS", "what-if: each freeze's length in seconds", cfg.freezeS);
    emusim::AddBlastArguments(cmd, cfg.blast);
    emusim::AddLineArguments(cmd, cfg.line);
    emusim::AddRunArguments(cmd, cfg.out);
    cmd.Parse(argc, argv);

    NS_ABORT_MSG_UNLESS(cfg.workload == "tcp" || cfg.workload == "udp" || cfg.workload == "ping",
                        "--workload must be tcp, udp or ping, not " << cfg.workload);
    emusim::CheckDropper(cfg.line);
    emusim::SeedStreams(cfg.out);

    ThreeHostLineHelper line(cfg.line);
    line.Install(1000);
    Ptr<Node> sender = line.GetSender();
    Ptr<Node> receiver = line.GetReceiver();
    Ptr<DropperQueueDisc> dropper = line.GetDropper();
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    NS_ABORT_MSG_IF(cfg.freezePeriodS < 0 || cfg.freezeS < 0 ||
                        (cfg.freezePeriodS > 0 && cfg.freezeS >= cfg.freezePeriodS),
                    "--freezePeriodS=" << cfg.freezePeriodS << " --freezeS=" << cfg.freezeS
                                       << ": a freeze must be shorter than its period");
    if (cfg.freezePeriodS > 0 && cfg.freezeS > 0)
    {
        auto device = DynamicCast<PointToPointNetDevice>(receiver->GetDevice(0));
        NS_ABORT_MSG_UNLESS(device, "the receiver's first device is not point-to-point");
        auto channel = DynamicCast<PointToPointChannel>(device->GetChannel());
        TimeValue baseDelay;
        channel->GetAttribute("Delay", baseDelay);
        Freeze(channel,
               baseDelay.Get(),
               Seconds(cfg.freezePeriodS),
               Seconds(cfg.freezePeriodS),
               Seconds(cfg.freezeS));
    }

    const Ipv4Address receiverAddress = line.GetReceiverAddress();
    const uint16_t port = 1026;
    const Time maxSimTime = Seconds(cfg.blast.maxSimTimeS);

    std::ostringstream metrics;
    bool completed = true;
    Ptr<TcpBlastClient> tcpClient;
    Ptr<TcpEventTrace> eventTrace;
    Ptr<UdpBlastSender> udpSender;
    Ptr<UdpSink> udpSink;
    std::vector<double> rttsUs;

    if (cfg.workload == "tcp")
    {
        auto server = CreateObject<TcpBlastServer>();
        server->SetAttribute("Port", UintegerValue(port));
        receiver->AddApplication(server);
        tcpClient = CreateObject<TcpBlastClient>();
        tcpClient->SetAttribute("Remote", AddressValue(InetSocketAddress(receiverAddress, port)));
        tcpClient->SetAttribute("Writes", UintegerValue(cfg.blast.writes));
        tcpClient->SetAttribute("WriteSize", UintegerValue(cfg.blast.writeSize));
        sender->AddApplication(tcpClient);
        tcpClient->TraceConnectWithoutContext("Done",
                                              MakeCallback(+[](Time) { Simulator::Stop(); }));
        if (!cfg.blast.traceFile.empty())
        {
            eventTrace = CreateObject<TcpEventTrace>();
            eventTrace->Open(cfg.blast.traceFile);
            eventTrace->WatchRouterQueue(dropper);
            tcpClient->TraceConnectWithoutContext(
                "Socket",
                MakeCallback(&TcpEventTrace::WatchSocket, eventTrace));
        }
    }
    else if (cfg.workload == "udp")
    {
        udpSink = CreateObject<UdpSink>();
        udpSink->SetAttribute("Port", UintegerValue(port));
        receiver->AddApplication(udpSink);
        udpSender = CreateObject<UdpBlastSender>();
        udpSender->SetAttribute("Remote", AddressValue(InetSocketAddress(receiverAddress, port)));
        udpSender->SetAttribute("Datagrams", UintegerValue(cfg.blast.writes));
        udpSender->SetAttribute("Size", UintegerValue(cfg.blast.writeSize));
        udpSender->SetAttribute("MaxInFlight", UintegerValue(cfg.udpInFlight));
        sender->AddApplication(udpSender);
        line.GetSenderDevice()->TraceConnectWithoutContext(
            "PhyTxEnd",
            MakeCallback(&UdpBlastSender::FrameSent, udpSender));
    }
    else
    {
        // ns-3 3.44's Ping lingers 2 x max RTT after its last echo, but computes that in
        // whole milliseconds: with a sub-millisecond RTT it stops at once and the last reply
        // is lost. So it pings without a count and is stopped half an interval after the
        // last request, long after any reply on this network has arrived.
        PingHelper ping(receiverAddress);
        ping.SetAttribute("Size", UintegerValue(cfg.pingSize));
        ping.SetAttribute("Count", UintegerValue(0));
        ping.SetAttribute("Interval", TimeValue(Seconds(cfg.pingIntervalS)));
        ping.SetAttribute("VerboseMode", EnumValue(Ping::SILENT));
        ApplicationContainer apps = ping.Install(sender);
        const Time pingStop = Seconds(cfg.pingIntervalS * (cfg.pings - 0.5));
        apps.Stop(pingStop);
        Simulator::Stop(pingStop + Seconds(cfg.pingIntervalS));
        apps.Get(0)->TraceConnectWithoutContext(
            "Rtt",
            MakeBoundCallback(
                +[](std::vector<double>* out, uint16_t, Time rtt) {
                    out->push_back(rtt.GetNanoSeconds() / 1000.0);
                },
                &rttsUs));
    }

    if (cfg.workload != "ping")
    {
        Simulator::Stop(maxSimTime);
    }
    Simulator::Run();

    std::string status = "ok";
    std::string linuxFacts; // Linux's own congestion control, if it ran
    if (cfg.workload == "tcp")
    {
        completed = tcpClient->IsFinished();
        if (tcpClient->IsAborted())
        {
            status = "aborted"; // TCP gave up: DataRetries retransmissions of one segment
        }
        linuxFacts = emusim::LinuxRunFacts(tcpClient, status);
        metrics << "\"elapsed_s\": " << FormatNumber(tcpClient->GetElapsed().GetSeconds())
                << ", \"writes\": " << cfg.blast.writes
                << ", \"write_size_B\": " << cfg.blast.writeSize
                << ", \"payload_bytes\": " << cfg.blast.writes * cfg.blast.writeSize
                << ", \"packets_sent\": " << tcpClient->GetDataSegmentsSent()
                << ", \"retransmissions\": " << tcpClient->GetRetransmissions()
                << ", \"rto_timeouts\": " << tcpClient->GetTimeouts()
                << ", \"fast_recoveries\": " << tcpClient->GetFastRecoveries()
                << ", \"packets_dropped\": " << dropper->GetDroppedCount();
    }
    else if (cfg.workload == "udp")
    {
        completed = udpSender->GetSent() == cfg.blast.writes;
        metrics << "\"elapsed_s\": " << FormatNumber(udpSender->GetElapsed().GetSeconds())
                << ", \"datagrams_sent\": " << udpSender->GetSent()
                << ", \"datagrams_received\": " << udpSink->GetReceived()
                << ", \"datagrams_lost\": " << udpSender->GetSent() - udpSink->GetReceived()
                << ", \"datagram_size_B\": " << cfg.blast.writeSize
                << ", \"packets_dropped\": " << dropper->GetDroppedCount();
    }
    else
    {
        completed = rttsUs.size() == cfg.pings;
        metrics << "\"rtt_us\": [";
        for (size_t i = 0; i < rttsUs.size(); ++i)
        {
            metrics << (i ? ", " : "") << FormatNumber(rttsUs[i], 3);
        }
        metrics << "], \"request_size_B\": " << cfg.pingSize;
    }
    const double simulatedS = Simulator::Now().GetSeconds();
    Simulator::Destroy();

    if (status == "ok" && !completed)
    {
        status = "timeout";
    }
    if (eventTrace)
    {
        eventTrace->Dispose(); // flushes the trace file
    }
    std::ostringstream json;
    json << "{\"status\": \"" << status << "\", \"metrics\": {" << metrics.str()
         << "}, \"ns3\": {\"version\": \"3.44\", \"seed\": " << cfg.out.seed
         << ", \"run\": " << cfg.out.run << ", \"simulated_s\": " << FormatNumber(simulatedS)
         << linuxFacts << "}}\n";

    emusim::WriteResult(json.str(), cfg.out.output);
    return 0;
}
