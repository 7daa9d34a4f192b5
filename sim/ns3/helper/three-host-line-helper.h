/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The 2001 report's three-host line (Table 1.2) in ns-3, as testbed-2001 and router-forwarding
 * build it.
 */

#ifndef EMUSIM_THREE_HOST_LINE_HELPER_H
#define EMUSIM_THREE_HOST_LINE_HELPER_H

#include "../model/dropper-queue-disc.h"
#include "run-arguments.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup point-to-point
 *
 * \brief Builds the report's testbed: a sender, a router and a receiver on a line of two
 * point-to-point links.
 *
 *   sender                  router                        receiver
 *   192.168.1.2  -------  192.168.1.1 | 192.168.2.1  -------  192.168.2.2
 *                           [FIFO]       [dropper+FIFO]
 *
 * Both links have the same rate, interframe gap and channel delay. Every egress holds what
 * Linux's qdisc holds, the device's own queue only the frame being sent (queue-setup.h): the
 * sender's and the receiver's a FIFO of hostQueuePackets, the router's toward the sender a FIFO
 * of routerQueuePackets, and the router's toward the receiver the dropper (DropperQueueDisc)
 * in front of a FIFO of routerQueuePackets, the place of the report's hook in dev_queue_xmit.
 * The addresses are fixed; src/emusim/backends/ns3/command.py refuses a scenario whose topology
 * has others.
 */
class ThreeHostLineHelper
{
  public:
    /**
     * \brief Set up the line from its named settings (emusim::LineArguments: links, queues,
     * dropper, e.g. `ThreeHostLineHelper({.linkRateBps = 100000000, .everyN = 5})`); nothing
     * is built until Install. A dropMode other than "random" or "regular" is off.
     * \param line the settings
     */
    explicit ThreeHostLineHelper(const emusim::LineArguments& line);

    /**
     * \brief Build the line.
     *
     * In this order: the three nodes, the two links, the Internet stack on every node, the
     * egress queue discs (before the addresses: a device that gets an address without a root
     * queue disc gets ns-3's default FqCoDel), the random-variable streams (the dropper's
     * first, then the Internet stacks'), the addresses. Global routes are left to the caller
     * (Ipv4GlobalRoutingHelper::PopulateRoutingTables).
     *
     * \param stream the first random-variable stream to assign
     * \return the number of streams assigned
     */
    int64_t Install(int64_t stream);

    /// \return the sender (node 0)
    Ptr<Node> GetSender() const;
    /// \return the router (node 1)
    Ptr<Node> GetRouter() const;
    /// \return the receiver (node 2)
    Ptr<Node> GetReceiver() const;
    /// \return the sender's device, on the link to the router
    Ptr<NetDevice> GetSenderDevice() const;
    /// \return the root queue disc of the router's egress toward the receiver
    Ptr<DropperQueueDisc> GetDropper() const;
    /// \return the router's address on the sender's link, 192.168.1.1
    Ipv4Address GetRouterAddress() const;
    /// \return the receiver's address, 192.168.2.2
    Ipv4Address GetReceiverAddress() const;

  private:
    /**
     * \brief Install the queue disc of one egress: a drop-tail FIFO of `packets` packets, or
     * the dropper with this helper's settings in front of such a FIFO; either way
     * the device's own queue is shrunk to one frame (emusim::InstallFifo,
     * emusim::InstallDropper).
     * \param device the egress device
     * \param packets the FIFO's limit
     * \param dropper whether the dropper goes in front of the FIFO
     * \return the queue disc
     */
    Ptr<QueueDisc> InstallQueue(Ptr<NetDevice> device, uint32_t packets, bool dropper) const;

    emusim::LineArguments m_line;    //!< links, queues and dropper
    Ipv4Address m_dropTarget;        //!< the address whose packets the dropper considers
    NodeContainer m_nodes;           //!< sender, router, receiver
    NetDeviceContainer m_left;       //!< sender's and router's devices of the first link
    NetDeviceContainer m_right;      //!< router's and receiver's devices of the second link
    Ptr<DropperQueueDisc> m_dropper; //!< the router's egress toward the receiver
    Ipv4Address m_routerAddress;     //!< the router's address on the sender's link
    Ipv4Address m_receiverAddress;   //!< the receiver's address
};

} // namespace ns3

#endif /* EMUSIM_THREE_HOST_LINE_HELPER_H */
