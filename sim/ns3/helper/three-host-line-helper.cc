/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "three-host-line-helper.h"

#include "queue-setup.h"

#include "ns3/abort.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/log.h"
#include "ns3/point-to-point-helper.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ThreeHostLineHelper");

ThreeHostLineHelper::ThreeHostLineHelper(const emusim::LineArguments& line)
    : m_line(line),
      m_dropTarget(line.target.c_str())
{
}

int64_t
ThreeHostLineHelper::Install(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    NS_ABORT_MSG_IF(m_nodes.GetN() > 0, "ThreeHostLineHelper::Install: the line is built");
    m_nodes.Create(3);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(m_line.linkRateBps)));
    p2p.SetDeviceAttribute("InterframeGap", TimeValue(NanoSeconds(m_line.interframeGapNs)));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(m_line.channelDelayNs)));
    m_left = p2p.Install(GetSender(), GetRouter());
    m_right = p2p.Install(GetRouter(), GetReceiver());

    InternetStackHelper internet;
    internet.Install(m_nodes);

    InstallQueue(m_left.Get(0), m_line.hostQueuePackets, false);
    InstallQueue(m_left.Get(1), m_line.routerQueuePackets, false);
    m_dropper = DynamicCast<DropperQueueDisc>(
        InstallQueue(m_right.Get(0), m_line.routerQueuePackets, true));
    InstallQueue(m_right.Get(1), m_line.hostQueuePackets, false);

    int64_t next = stream;
    next += m_dropper->AssignStreams(next);
    next += internet.AssignStreams(m_nodes, next);

    emusim::AssignAddress(m_left.Get(0), "192.168.1.0", "0.0.0.2"); // sender
    m_routerAddress = emusim::AssignAddress(m_left.Get(1), "192.168.1.0", "0.0.0.1");
    emusim::AssignAddress(m_right.Get(0), "192.168.2.0", "0.0.0.1"); // router, toward receiver
    m_receiverAddress = emusim::AssignAddress(m_right.Get(1), "192.168.2.0", "0.0.0.2");
    return next - stream;
}

Ptr<QueueDisc>
ThreeHostLineHelper::InstallQueue(Ptr<NetDevice> device, uint32_t packets, bool dropper) const
{
    if (!dropper)
    {
        return emusim::InstallFifo(device, packets);
    }
    return emusim::InstallDropper(device,
                                  packets,
                                  m_line.dropMode,
                                  m_line.cutoff,
                                  m_line.everyN,
                                  m_dropTarget);
}

Ptr<Node>
ThreeHostLineHelper::GetSender() const
{
    return m_nodes.Get(0);
}

Ptr<Node>
ThreeHostLineHelper::GetRouter() const
{
    return m_nodes.Get(1);
}

Ptr<Node>
ThreeHostLineHelper::GetReceiver() const
{
    return m_nodes.Get(2);
}

Ptr<NetDevice>
ThreeHostLineHelper::GetSenderDevice() const
{
    return m_left.Get(0);
}

Ptr<DropperQueueDisc>
ThreeHostLineHelper::GetDropper() const
{
    return m_dropper;
}

Ipv4Address
ThreeHostLineHelper::GetRouterAddress() const
{
    return m_routerAddress;
}

Ipv4Address
ThreeHostLineHelper::GetReceiverAddress() const
{
    return m_receiverAddress;
}

} // namespace ns3
