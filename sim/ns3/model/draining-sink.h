/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A TCP sink that reads its data in pieces: the multi-flow study's receiver.
 */

#ifndef EMUSIM_DRAINING_SINK_H
#define EMUSIM_DRAINING_SINK_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/socket.h"

#include <list>

namespace ns3
{

/**
 * \ingroup applications
 * \brief Accept TCP connections on one address and read everything that arrives, counting the
 * bytes, as ns-3's PacketSink does, but at most `ReadBytes` per Recv.
 *
 * Why not PacketSink: it reads all the data in order in one Recv, and TcpRxBuffer::Extract
 * joins the segments into one packet with Packet::AddAtEnd, which writes out every byte. When
 * a retransmission fills a hole at 800 Mb/s, megabytes become readable at once, and that copy
 * took about 40 % of a CUBIC run (perf; docs/ns3-hot-paths.md). Reading in pieces within the
 * same callback leaves the socket in the same state when the callback returns (TcpSocketBase::
 * Recv changes nothing but the receive buffer), so the run is the same.
 */
class DrainingSink : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    DrainingSink();
    ~DrainingSink() override;

    /// \return the payload bytes read so far, over every connection
    uint64_t GetTotalRx() const;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void DoDispose() override;
    void Accept(Ptr<Socket> socket, const Address& from);
    void Read(Ptr<Socket> socket);

    Address m_local;                      //!< where to listen
    uint32_t m_readBytes;                 //!< the most one Recv asks for
    Ptr<Socket> m_listener;               //!< the listening socket
    std::list<Ptr<Socket>> m_connections; //!< the accepted ones
    uint64_t m_totalRx{0};                //!< payload bytes read
};

} // namespace ns3

#endif // EMUSIM_DRAINING_SINK_H
