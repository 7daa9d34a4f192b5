/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The UDP sink of emusim's programs: the receiver of the report's UDP blast (testbed-2001) and
 * of the router-forwarding study's flood (emu/blast/udpblast.c's `recv`).
 */

#ifndef EMUSIM_UDP_SINK_H
#define EMUSIM_UDP_SINK_H

#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/socket.h"

namespace ns3
{

/**
 * \ingroup applications
 * \brief UDP sink: count the datagrams that arrive on one port, their payload bytes, and the
 * times of the first and the last arrival.
 *
 * testbed-2001 (UdpBlastSender) reads the count; router-forwarding (UdpFloodSender) all of
 * it. It keeps no packet and answers nothing, so what it counts does not change the run.
 */
class UdpSink : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    UdpSink();
    ~UdpSink() override;

    /// \return datagrams received
    uint64_t GetReceived() const;
    /// \return payload bytes received
    uint64_t GetBytes() const;
    /// \return time from the first arrival to the last (0 before the second)
    Time GetElapsed() const;

  private:
    void StartApplication() override;
    void StopApplication() override;
    /**
     * \brief Read every datagram waiting on the socket.
     * \param socket the socket
     */
    void Receive(Ptr<Socket> socket);

    uint16_t m_port;      //!< listening port
    Ptr<Socket> m_socket; //!< the socket
    uint64_t m_received;  //!< datagrams received
    uint64_t m_bytes;     //!< payload bytes received
    Time m_first;         //!< first arrival
    Time m_last;          //!< last arrival
};

} // namespace ns3

#endif /* EMUSIM_UDP_SINK_H */
