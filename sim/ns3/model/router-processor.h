/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A router's processing model: the CPU time forwarding costs per packet (the router-forwarding
 * study, docs/router-forwarding.md).
 */

#ifndef EMUSIM_ROUTER_PROCESSOR_H
#define EMUSIM_ROUTER_PROCESSOR_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <deque>

namespace ns3
{

/**
 * \ingroup internet
 *
 * \brief One CPU that forwards a router's packets: a single server with a bounded input queue.
 *
 * ns-3 forwards a packet in no time; a software router spends CPU time on each. A packet the
 * router is to forward waits in an input queue of at most QueuePackets packets (Linux's
 * per-CPU backlog, net.core.netdev_max_backlog) and is forwarded once the CPU has spent
 *
 *     service(L) = PerPacketTime + L x PerByteNs
 *
 * on it, L being its IP length; packets are served one at a time, in arrival order. A packet
 * that finds the queue full is dropped. Offered more than 1 / service(L) packets per second,
 * the router forwards 1 / service(L) and drops the rest once the queue has filled.
 *
 * The same CPU may also run host work (RunHostWork): the time a sender spends making each
 * datagram, when sender and router share one CPU, as every network namespace of an emulation
 * on one CPU does. Host work runs only while no packet waits (the kernel forwards in softirq
 * context, before any process runs again) and is never interrupted once started.
 */
class RouterProcessor : public Object
{
  public:
    /// What is called when a piece of work (a packet's forwarding, host work) is done.
    using Done = Callback<void>;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RouterProcessor();
    ~RouterProcessor() override;

    /**
     * \brief The CPU time forwarding one packet takes.
     * \param bytes the packet's IP length
     * \return PerPacketTime + bytes x PerByteNs (to the nearest nanosecond)
     */
    Time GetServiceTime(uint32_t bytes) const;

    /**
     * \brief Offer a packet for forwarding.
     * \param bytes the packet's IP length
     * \param done called when its service ends (then the packet goes on its way)
     * \return false if the input queue was full and the packet was dropped
     */
    bool Submit(uint32_t bytes, Done done);

    /**
     * \brief Run host work on this CPU, at a lower priority than forwarding.
     * \param duration the CPU time it takes
     * \param done called when it is done
     *
     * One piece of host work at a time: a sender asks for the next when the last is done.
     */
    void RunHostWork(Time duration, Done done);

    /// \return packets offered to the router
    uint64_t GetArrivals() const;
    /// \return packets dropped because the input queue was full
    uint64_t GetDrops() const;
    /// \return packets forwarded (whose service ended)
    uint64_t GetServed() const;
    /// \return the most packets that waited at once (the one in service not counted)
    uint32_t GetMaxWaiting() const;
    /// \return CPU time spent forwarding
    Time GetForwardingTime() const;
    /// \return CPU time spent on host work
    Time GetHostTime() const;

  protected:
    void DoDispose() override;

  private:
    /// A packet waiting for the CPU.
    struct Waiting
    {
        uint32_t bytes; //!< its IP length
        Done done;      //!< what to call when its service ends
    };

    /// Start the next piece of work if the CPU is idle: a waiting packet first.
    void StartNext();
    /// The piece of work in service is done.
    void EndService();

    Time m_perPacket;                     //!< CPU time per packet
    double m_perByteNs;                   //!< CPU time per byte of IP length, in ns
    uint32_t m_queueLimit;                //!< packets that may wait
    std::deque<Waiting> m_queue;          //!< packets waiting for the CPU
    bool m_busy;                          //!< whether the CPU is serving something
    bool m_servingPacket;                 //!< whether what it serves is a packet (else host work)
    Done m_current;                       //!< what to call when the work in service ends
    EventId m_event;                      //!< the end of the work in service
    bool m_hostPending;                   //!< whether host work waits for the CPU
    Time m_hostDuration;                  //!< how long the waiting host work takes
    Done m_hostDone;                      //!< what to call when the host work is done
    uint64_t m_arrivals;                  //!< packets offered
    uint64_t m_drops;                     //!< packets dropped at the full queue
    uint64_t m_served;                    //!< packets forwarded
    uint32_t m_maxWaiting;                //!< high-water mark of the queue
    Time m_forwardingTime;                //!< CPU time spent forwarding
    Time m_hostTime;                      //!< CPU time spent on host work
    TracedCallback<uint32_t> m_dropTrace; //!< a packet of this IP length was dropped
};

/**
 * \ingroup internet
 *
 * \brief Routing that makes every forwarded packet pass through a RouterProcessor first.
 *
 * Wraps the node's routing protocol: routes are the wrapped protocol's, and so is local
 * delivery (a packet for the node itself costs no forwarding), but a packet the wrapped
 * protocol would forward is handed to the processor, and forwarded when its service ends, or
 * dropped when the processor's queue is full.
 */
class ProcessingRouting : public Ipv4RoutingProtocol
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    ProcessingRouting();
    ~ProcessingRouting() override;

    /**
     * \brief Put a processor in front of the forwarding of `node`'s IPv4 stack.
     * \param node a node with an IPv4 stack and its routing already installed
     * \param processor the CPU that forwards
     * \return the routing protocol now installed
     */
    static Ptr<ProcessingRouting> Install(Ptr<Node> node, Ptr<RouterProcessor> processor);

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    const UnicastForwardCallback& ucb,
                    const MulticastForwardCallback& mcb,
                    const LocalDeliverCallback& lcb,
                    const ErrorCallback& ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override;
    void NotifyInterfaceDown(uint32_t interface) override;
    void NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream,
                           Time::Unit unit = Time::S) const override;

  protected:
    void DoDispose() override;

  private:
    Ptr<Ipv4RoutingProtocol> m_inner; //!< the routing protocol that decides
    Ptr<RouterProcessor> m_processor; //!< the CPU forwarded packets wait for
};

} // namespace ns3

#endif /* EMUSIM_ROUTER_PROCESSOR_H */
