/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The router-forwarding study's UDP generator (emu/blast/udpblast.c's `flood` as an ns-3
 * application). Its sink, udpblast.c's `recv`, is UdpSink (udp-sink.h).
 */

#ifndef EMUSIM_FLOOD_APPS_H
#define EMUSIM_FLOOD_APPS_H

#include "router-processor.h"

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/socket.h"

namespace ns3
{

class Packet;

/**
 * \ingroup applications
 * \brief UDP flood: datagrams of one size for a fixed time, as fast as the sender can.
 *
 * Two things bound the pace. The link: like a blocking send() on a Linux socket whose
 * device queue is full, at most MaxInFlightFrames frames (fragments counted one by one) are
 * between the socket and the end of their transmission on the sender's device. And the
 * generator itself: making a datagram takes GeneratorTime of CPU time per datagram, on the
 * sender's own CPU, or on a RouterProcessor the sender shares with the router (SetCpu).
 * GeneratorTime 0 makes datagrams in no time: the link alone sets the pace.
 */
class UdpFloodSender : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    UdpFloodSender();
    ~UdpFloodSender() override;

    /**
     * \brief Make datagrams on a CPU shared with a router instead of the sender's own.
     * \param cpu the shared CPU
     */
    void SetCpu(Ptr<RouterProcessor> cpu);
    /**
     * \brief Frames (IPv4 fragments) one datagram of `payload` bytes takes on a link.
     * \param payload UDP payload bytes
     * \param mtu the link's IP MTU
     * \return 1 if it fits in one packet, else the number of fragments
     */
    static uint32_t FramesPerDatagram(uint32_t payload, uint32_t mtu);

    /// \return datagrams handed to the socket
    uint64_t GetSent() const;
    /// \return time from the first send to the last
    Time GetElapsed() const;
    /// \return frames of one datagram
    uint32_t GetFrames() const;
    /// Called by the sender's device when a frame has left it (PhyTxEnd).
    void FrameSent(Ptr<const Packet> packet);

  private:
    void StartApplication() override;
    void StopApplication() override;
    /// Make the next datagram (or end, after Duration).
    void Generate();
    /// The datagram has been made.
    void Generated();
    /// Send the datagram made, if the link has room for its frames.
    void TrySend();

    Address m_remote;           //!< the sink
    uint32_t m_size;            //!< payload bytes per datagram
    Time m_duration;            //!< how long to send
    uint32_t m_maxInFlight;     //!< frames between the socket and the end of the wire
    Time m_generatorTime;       //!< CPU time per datagram
    uint32_t m_mtu;             //!< the link's IP MTU
    Ptr<RouterProcessor> m_cpu; //!< shared CPU, or null for the sender's own
    Ptr<Socket> m_socket;       //!< the socket
    uint32_t m_frames;          //!< frames per datagram
    uint64_t m_sent;            //!< datagrams sent
    uint32_t m_inFlight;        //!< frames not yet fully transmitted
    bool m_ready;               //!< a datagram is made and waits for room on the link
    bool m_generating;          //!< a datagram is being made
    bool m_stopped;             //!< Duration is over
    Time m_start;               //!< when sending started
    Time m_end;                 //!< when sending ends
    Time m_first;               //!< first send
    Time m_last;                //!< last send
    EventId m_event;            //!< the end of the datagram being made (own CPU)
};

} // namespace ns3

#endif /* EMUSIM_FLOOD_APPS_H */
