// A bulk TCP transfer over one lossy 100 Mb/s link, written against ns-3's public API only, so
// that it builds against any ns-3 release: benchmarks/ns3_builds.sh times it against the pip
// wheel and against Debian's binary build of ns-3 to compare what each build costs per packet.
//
//   n0 ---- 100 Mb/s, 10 ms, ErrorRate of the packets at n1 ---- n1
//
// Arguments: --bytes (transfer size), --loss (packet error rate at n1), --cc (the TypeId of
// the congestion control). Prints the bytes received and the simulated end time.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include <cstdio>
using namespace ns3;
int main(int argc, char** argv)
{
    uint64_t bytes = 200000000;
    double loss = 0.01;
    std::string cc = "ns3::TcpNewReno";
    CommandLine cmd;
    cmd.AddValue("bytes", "bytes", bytes);
    cmd.AddValue("loss", "loss", loss);
    cmd.AddValue("cc", "cc", cc);
    cmd.Parse(argc, argv);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(cc));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    NodeContainer n;
    n.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("10ms"));
    NetDeviceContainer d = p2p.Install(n);
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetAttribute("ErrorRate", DoubleValue(loss));
    em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
    d.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    InternetStackHelper st;
    st.Install(n);
    Ipv4AddressHelper a;
    a.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer i = a.Assign(d);
    BulkSendHelper bs("ns3::TcpSocketFactory", InetSocketAddress(i.GetAddress(1), 9));
    bs.SetAttribute("MaxBytes", UintegerValue(bytes));
    ApplicationContainer s = bs.Install(n.Get(0));
    PacketSinkHelper ps("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
    ApplicationContainer r = ps.Install(n.Get(1));
    Simulator::Run();
    printf("rx=%lu t=%.6f\n", (unsigned long)DynamicCast<PacketSink>(r.Get(0))->GetTotalRx(), Simulator::Now().GetSeconds());
    Simulator::Destroy();
}
