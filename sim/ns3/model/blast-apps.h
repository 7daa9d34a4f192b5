/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The report's "blast" test (§2.1, by Bob Russell; UDP version by Chaoxing Lin) as ns-3
 * applications. The UDP version's receiver is UdpSink (udp-sink.h).
 */

#ifndef EMUSIM_BLAST_APPS_H
#define EMUSIM_BLAST_APPS_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/socket.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <string>

namespace ns3
{

class TcpLinuxSocket;

class Packet;
class TcpHeader;
class TcpSocketBase;

/**
 * \ingroup applications
 * \brief TCP blast client: N writes of S bytes, close, and wait for the server's 1-byte reply.
 *
 * The elapsed time runs from connect() to the arrival of the reply, as the report's client
 * measured it. Like a blocking write() on a Linux socket, a write waits until the send buffer
 * has room for all S bytes.
 */
class TcpBlastClient : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TcpBlastClient();
    ~TcpBlastClient() override;

    /// \return whether the reply arrived
    bool IsFinished() const;
    /// \return time from connect() to the reply
    Time GetElapsed() const;
    /// \return data segments handed to IP, retransmissions included
    uint64_t GetDataSegmentsSent() const;
    /// \return retransmitted segments
    uint64_t GetRetransmissions() const;
    /// \return retransmission timeouts (entries into the Loss state)
    uint64_t GetTimeouts() const;
    /// \return fast retransmits (entries into the Recovery state)
    uint64_t GetFastRecoveries() const;
    /// \return whether TCP gave up on the connection (DataRetries exhausted)
    bool IsAborted() const;
    /// @return the Linux congestion control the connection ran at the end (TcpLinuxSocket with
    /// TcpLinuxCongestion: a module may replace itself, dctcp by dctcp-reno), else ""
    std::string GetLinuxAlgorithm() const;
    /// @return the sender's socket when it is a TcpLinuxSocket (else null)
    Ptr<const TcpLinuxSocket> GetLinuxSocket() const;
    /**
     * @brief The socket class the profile gives bulk senders: this application's SocketType
     * default (Config::SetDefault, the command line), for programs with senders of their own.
     * @return the TypeId
     */
    static TypeId DefaultSocketType();

  private:
    void StartApplication() override;
    void StopApplication() override;
    void ConnectionSucceeded(Ptr<Socket> socket);
    void ConnectionFailed(Ptr<Socket> socket);
    void ErrorClose(Ptr<Socket> socket);
    void WriteMore(Ptr<Socket> socket, uint32_t available);
    void ReceiveReply(Ptr<Socket> socket);
    void TraceTx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> sock);
    void TraceRetransmission(Ptr<const Packet> packet,
                             const TcpHeader& header,
                             const Address& local,
                             const Address& peer,
                             Ptr<const TcpSocketBase> sock);
    void TraceCongState(TcpSocketState::TcpCongState_t oldState,
                        TcpSocketState::TcpCongState_t newState);

    /// Open the connection (after the start delay)
    void Connect();

    Address m_remote;                 //!< the server
    uint64_t m_writes;                //!< N, the number of writes
    uint32_t m_writeSize;             //!< S, bytes per write
    Ptr<Socket> m_socket;             //!< the connection
    TypeId m_socketType;              //!< class of the socket (TcpSocketBase or a subclass)
    uint64_t m_written;               //!< writes accepted by the socket so far
    Time m_start;                     //!< when connect() was called
    Time m_finish;                    //!< when the reply arrived
    bool m_finished;                  //!< whether the reply arrived
    bool m_aborted;                   //!< whether TCP gave up on the connection
    uint64_t m_dataSegments;          //!< data segments sent
    uint64_t m_retransmissions;       //!< retransmitted segments
    uint64_t m_timeouts;              //!< entries into CA_LOSS
    uint64_t m_fastRecoveries;        //!< entries into CA_RECOVERY
    TracedCallback<Time> m_doneTrace; //!< fired with the elapsed time when the reply arrives
    TracedCallback<Ptr<Socket>> m_socketTrace; //!< fired with the socket before connect()

    Time m_startDelay;      //!< from the start to connect()
    EventId m_connectEvent; //!< the delayed connect()
};

/**
 * \ingroup applications
 * \brief TCP blast server: swallow everything, and answer the client's close with one byte.
 */
class TcpBlastServer : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TcpBlastServer();
    ~TcpBlastServer() override;

    /// \return payload bytes received
    uint64_t GetBytesReceived() const;

  private:
    void StartApplication() override;
    void StopApplication() override;
    bool AcceptRequest(Ptr<Socket> socket, const Address& from);
    void Accepted(Ptr<Socket> socket, const Address& from);
    void Receive(Ptr<Socket> socket);
    void PeerClosed(Ptr<Socket> socket);
    void Reply(Ptr<Socket> socket);

    uint16_t m_port;          //!< listening port
    Ptr<Socket> m_listener;   //!< listening socket
    TypeId m_socketType;      //!< class of the socket (TcpSocketBase or a subclass)
    uint64_t m_bytesReceived; //!< payload bytes received
};

/**
 * \ingroup applications
 * \brief UDP blast sender: N datagrams of S bytes as fast as the sender's link takes them.
 *
 * A Linux UDP socket blocks when its send buffer holds as many bytes as SO_SNDBUF allows
 * and frees them when the NIC has sent the frame; ns-3's UDP socket has no such back
 * pressure. This sender keeps at most MaxInFlight datagrams between the socket and the end
 * of their transmission on the sender's device, which gives the blocking sender's pace.
 */
class UdpBlastSender : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    UdpBlastSender();
    ~UdpBlastSender() override;

    /// \return datagrams sent
    uint64_t GetSent() const;
    /// \return time from the first send to the return of the last one
    Time GetElapsed() const;
    /// Called by the sender's device when a frame has left it (PhyTxEnd).
    void FrameSent(Ptr<const Packet> packet);

  private:
    void StartApplication() override;
    void StopApplication() override;
    void SendMore();

    Address m_remote;       //!< the sink
    uint64_t m_datagrams;   //!< N
    uint32_t m_size;        //!< S, payload bytes
    uint32_t m_maxInFlight; //!< datagrams the send buffer holds
    Ptr<Socket> m_socket;   //!< the socket
    uint64_t m_sent;        //!< datagrams handed to the socket
    uint32_t m_inFlight;    //!< datagrams not yet fully transmitted
    Time m_start;           //!< first send
    Time m_lastSend;        //!< return of the last send
};

} // namespace ns3

#endif /* EMUSIM_BLAST_APPS_H */
