/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The socket TestSuites' network: two hosts on one point-to-point link, the receiver's side
 * dropping what an error model says.
 */

#ifndef EMUSIM_TEST_TWO_HOST_LINK_H
#define EMUSIM_TEST_TWO_HOST_LINK_H

#include "ns3/channel.h"
#include "ns3/error-model.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/ppp-header.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"

#include <string>

namespace ns3
{

/// Hosts 0 (sender) and 1 (receiver) on a 100 Mb/s link.
struct TwoHostLink
{
    NodeContainer nodes;  //!< the two hosts
    Ipv4Address receiver; //!< host 1's address
    Ptr<Channel> channel; //!< the link (its Delay may change during a run)

    /**
     * @brief Build it.
     * @param delay the link's one-way delay, e.g. "20ms"
     * @param drop what host 1's device drops on receipt
     * @param reverse what host 0's device drops on receipt (none if null)
     */
    TwoHostLink(const std::string& delay, Ptr<ErrorModel> drop, Ptr<ErrorModel> reverse = nullptr)
        : nodes(2)
    {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
        p2p.SetChannelAttribute("Delay", StringValue(delay));
        NetDeviceContainer devices = p2p.Install(nodes);
        channel = devices.Get(0)->GetChannel();
        devices.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(drop));
        if (reverse)
        {
            devices.Get(0)->SetAttribute("ReceiveErrorModel", PointerValue(reverse));
        }
        InternetStackHelper stack;
        stack.Install(nodes);
        Ipv4AddressHelper address("10.1.1.0", "255.255.255.0");
        receiver = address.Assign(devices).GetAddress(1);
    }
};

/**
 * @brief The TCP header of a packet on the link (an error model's view: PPP, IPv4, TCP).
 * @param p the packet
 * @param tcp set to its TCP header
 * @return its TCP payload, bytes, or -1 when it is not a TCP segment
 */
inline int64_t
TcpHeaderOf(Ptr<const Packet> p, TcpHeader& tcp)
{
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    c->RemoveHeader(ppp);
    Ipv4Header ip;
    c->RemoveHeader(ip);
    if (ip.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
    {
        return -1;
    }
    c->RemoveHeader(tcp);
    return c->GetSize();
}

/**
 * @brief Which data segment a packet on the link carries, counting full segments of `mss`
 * bytes from 1 after the SYN.
 * @param p the packet
 * @param mss the segment size, bytes
 * @param segment set to the 1-based segment number when it carries data
 * @return whether it is a TCP segment with data
 */
inline bool
DataSegmentOf(Ptr<const Packet> p, uint32_t mss, uint32_t& segment)
{
    TcpHeader tcp;
    if (TcpHeaderOf(p, tcp) <= 0)
    {
        return false;
    }
    segment = (tcp.GetSequenceNumber().GetValue() - 1) / mss + 1;
    return true;
}

} // namespace ns3

#endif // EMUSIM_TEST_TWO_HOST_LINK_H
