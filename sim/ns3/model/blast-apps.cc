/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "blast-apps.h"

#include "tcp-linux-socket.h"
#include "tcp-linux22-socket.h"

#include "ns3/address-utils.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BlastApps");

NS_OBJECT_ENSURE_REGISTERED(TcpBlastClient);
NS_OBJECT_ENSURE_REGISTERED(TcpBlastServer);
NS_OBJECT_ENSURE_REGISTERED(UdpBlastSender);

// ---------------------------------------------------------------------------------------------
// TcpBlastClient

TypeId
TcpBlastClient::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpBlastClient")
            .SetParent<Application>()
            .SetGroupName("Applications")
            .AddConstructor<TcpBlastClient>()
            .AddAttribute("Remote",
                          "The server's address and port",
                          AddressValue(),
                          MakeAddressAccessor(&TcpBlastClient::m_remote),
                          MakeAddressChecker())
            .AddAttribute("Writes",
                          "Number of writes (the report's iterations)",
                          UintegerValue(100000),
                          MakeUintegerAccessor(&TcpBlastClient::m_writes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("WriteSize",
                          "Bytes per write (the report's request size)",
                          UintegerValue(1448),
                          MakeUintegerAccessor(&TcpBlastClient::m_writeSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("SocketType",
                          "Class of the TCP socket: ns3::TcpSocketBase (ns-3's) or a subclass "
                          "such as ns3::TcpLinux22Socket",
                          TypeIdValue(TcpSocketBase::GetTypeId()),
                          MakeTypeIdAccessor(&TcpBlastClient::m_socketType),
                          MakeTypeIdChecker())
            .AddAttribute("StartDelay",
                          "Time from the application's start to its connect(): a delay within "
                          "one jiffy places the connection at another phase of the hosts' "
                          "timer ticks (the elapsed time runs from connect()). A Time, not a "
                          "random variable: one would take an automatic stream and shift the "
                          "draws of every random variable made after it",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&TcpBlastClient::m_startDelay),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("Done",
                            "The server's reply arrived; the argument is the elapsed time",
                            MakeTraceSourceAccessor(&TcpBlastClient::m_doneTrace),
                            "ns3::Time::TracedCallback")
            .AddTraceSource("Socket",
                            "The socket was created; fired before connect()",
                            MakeTraceSourceAccessor(&TcpBlastClient::m_socketTrace),
                            "ns3::Socket::TracedCallback");
    return tid;
}

TcpBlastClient::TcpBlastClient()
    : m_writes(0),
      m_writeSize(0),
      m_written(0),
      m_finished(false),
      m_aborted(false),
      m_dataSegments(0),
      m_retransmissions(0),
      m_timeouts(0),
      m_fastRecoveries(0)
{
    NS_LOG_FUNCTION(this);
}

TcpBlastClient::~TcpBlastClient()
{
    NS_LOG_FUNCTION(this);
}

bool
TcpBlastClient::IsFinished() const
{
    return m_finished;
}

Time
TcpBlastClient::GetElapsed() const
{
    return (m_finished ? m_finish : Simulator::Now()) - m_start;
}

uint64_t
TcpBlastClient::GetDataSegmentsSent() const
{
    return m_dataSegments;
}

uint64_t
TcpBlastClient::GetRetransmissions() const
{
    return m_retransmissions;
}

uint64_t
TcpBlastClient::GetTimeouts() const
{
    return m_timeouts;
}

Ptr<const TcpLinuxSocket>
TcpBlastClient::GetLinuxSocket() const
{
    return DynamicCast<const TcpLinuxSocket>(m_socket);
}

std::string
TcpBlastClient::GetLinuxAlgorithm() const
{
    auto socket = DynamicCast<TcpLinuxSocket>(m_socket);
    return socket ? socket->GetLinuxAlgorithm() : "";
}

TypeId
TcpBlastClient::DefaultSocketType()
{
    TypeId::AttributeInformation info;
    NS_ABORT_UNLESS(GetTypeId().LookupAttributeByName("SocketType", &info));
    return DynamicCast<const TypeIdValue>(info.initialValue)->Get();
}

uint64_t
TcpBlastClient::GetFastRecoveries() const
{
    return m_fastRecoveries;
}

bool
TcpBlastClient::IsAborted() const
{
    return m_aborted;
}

void
TcpBlastClient::StartApplication()
{
    NS_LOG_FUNCTION(this);
    if (m_startDelay.IsStrictlyPositive())
    {
        m_connectEvent = Simulator::Schedule(m_startDelay, &TcpBlastClient::Connect, this);
        return;
    }
    Connect();
}

void
TcpBlastClient::Connect()
{
    NS_LOG_FUNCTION(this);
    m_socket = CreateTcpSocketOfType(GetNode(), m_socketType);
    auto tcp = DynamicCast<TcpSocketBase>(m_socket);
    NS_ABORT_MSG_UNLESS(tcp, "TcpBlastClient needs a TcpSocketBase");
    tcp->TraceConnectWithoutContext("Tx", MakeCallback(&TcpBlastClient::TraceTx, this));
    tcp->TraceConnectWithoutContext("Retransmission",
                                    MakeCallback(&TcpBlastClient::TraceRetransmission, this));
    tcp->TraceConnectWithoutContext("CongState",
                                    MakeCallback(&TcpBlastClient::TraceCongState, this));
    m_socket->Bind();
    m_socket->SetConnectCallback(MakeCallback(&TcpBlastClient::ConnectionSucceeded, this),
                                 MakeCallback(&TcpBlastClient::ConnectionFailed, this));
    m_socket->SetRecvCallback(MakeCallback(&TcpBlastClient::ReceiveReply, this));
    m_socket->SetCloseCallbacks(MakeNullCallback<void, Ptr<Socket>>(),
                                MakeCallback(&TcpBlastClient::ErrorClose, this));
    m_socketTrace(m_socket);
    m_start = Simulator::Now();
    m_socket->Connect(m_remote);
}

void
TcpBlastClient::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_connectEvent.Cancel();
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
    }
}

void
TcpBlastClient::ConnectionSucceeded(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    socket->SetSendCallback(MakeCallback(&TcpBlastClient::WriteMore, this));
    WriteMore(socket, socket->GetTxAvailable());
}

void
TcpBlastClient::ConnectionFailed(Ptr<Socket> socket)
{
    NS_FATAL_ERROR("TcpBlastClient: the connection to the server failed");
}

void
TcpBlastClient::ErrorClose(Ptr<Socket> /* socket */)
{
    // ns-3 closes the connection after DataRetries retransmissions of one segment.
    m_aborted = true;
    Simulator::Stop();
}

void
TcpBlastClient::WriteMore(Ptr<Socket> socket, uint32_t /* available */)
{
    // A blocking write() of S bytes returns once all S fit in the send buffer.
    while (m_written < m_writes && socket->GetTxAvailable() >= m_writeSize)
    {
        int sent = socket->Send(Create<Packet>(m_writeSize));
        NS_ABORT_MSG_IF(sent != static_cast<int>(m_writeSize), "a write was not accepted whole");
        ++m_written;
    }
    if (m_written == m_writes)
    {
        socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        socket->ShutdownSend(); // the client's close(): FIN after the data
        ++m_written;            // past m_writes: closed
    }
}

void
TcpBlastClient::ReceiveReply(Ptr<Socket> socket)
{
    Ptr<Packet> packet;
    while ((packet = socket->Recv()))
    {
        if (packet->GetSize() > 0 && !m_finished)
        {
            m_finished = true;
            m_finish = Simulator::Now();
            m_doneTrace(m_finish - m_start);
        }
    }
}

void
TcpBlastClient::TraceTx(Ptr<const Packet> packet,
                        const TcpHeader& /* header */,
                        Ptr<const TcpSocketBase> /* sock */)
{
    if (packet->GetSize() > 0)
    {
        ++m_dataSegments;
    }
}

void
TcpBlastClient::TraceRetransmission(Ptr<const Packet> /* packet */,
                                    const TcpHeader& /* header */,
                                    const Address& /* local */,
                                    const Address& /* peer */,
                                    Ptr<const TcpSocketBase> /* sock */)
{
    ++m_retransmissions;
}

void
TcpBlastClient::TraceCongState(TcpSocketState::TcpCongState_t oldState,
                               TcpSocketState::TcpCongState_t newState)
{
    if (newState == TcpSocketState::CA_LOSS && oldState != TcpSocketState::CA_LOSS)
    {
        ++m_timeouts;
    }
    if (newState == TcpSocketState::CA_RECOVERY && oldState != TcpSocketState::CA_RECOVERY)
    {
        ++m_fastRecoveries;
    }
}

// ---------------------------------------------------------------------------------------------
// TcpBlastServer

TypeId
TcpBlastServer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpBlastServer")
                            .SetParent<Application>()
                            .SetGroupName("Applications")
                            .AddConstructor<TcpBlastServer>()
                            .AddAttribute("Port",
                                          "Listening port (the report's blast server used 1026)",
                                          UintegerValue(1026),
                                          MakeUintegerAccessor(&TcpBlastServer::m_port),
                                          MakeUintegerChecker<uint16_t>())
                            .AddAttribute("SocketType",
                                          "Class of the TCP socket: ns3::TcpSocketBase (ns-3's) "
                                          "or a subclass such as ns3::TcpLinux22Socket",
                                          TypeIdValue(TcpSocketBase::GetTypeId()),
                                          MakeTypeIdAccessor(&TcpBlastServer::m_socketType),
                                          MakeTypeIdChecker());
    return tid;
}

TcpBlastServer::TcpBlastServer()
    : m_port(0),
      m_bytesReceived(0)
{
    NS_LOG_FUNCTION(this);
}

TcpBlastServer::~TcpBlastServer()
{
    NS_LOG_FUNCTION(this);
}

uint64_t
TcpBlastServer::GetBytesReceived() const
{
    return m_bytesReceived;
}

void
TcpBlastServer::StartApplication()
{
    NS_LOG_FUNCTION(this);
    m_listener = CreateTcpSocketOfType(GetNode(), m_socketType);
    m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
    m_listener->Listen();
    m_listener->SetAcceptCallback(MakeCallback(&TcpBlastServer::AcceptRequest, this),
                                  MakeCallback(&TcpBlastServer::Accepted, this));
}

void
TcpBlastServer::StopApplication()
{
    NS_LOG_FUNCTION(this);
    if (m_listener)
    {
        m_listener->Close();
    }
}

bool
TcpBlastServer::AcceptRequest(Ptr<Socket> /* socket */, const Address& /* from */)
{
    return true;
}

void
TcpBlastServer::Accepted(Ptr<Socket> socket, const Address& /* from */)
{
    NS_LOG_FUNCTION(this << socket);
    socket->SetRecvCallback(MakeCallback(&TcpBlastServer::Receive, this));
    socket->SetCloseCallbacks(MakeCallback(&TcpBlastServer::PeerClosed, this),
                              MakeNullCallback<void, Ptr<Socket>>());
}

void
TcpBlastServer::Receive(Ptr<Socket> socket)
{
    Ptr<Packet> packet;
    while ((packet = socket->Recv()))
    {
        m_bytesReceived += packet->GetSize();
    }
}

void
TcpBlastServer::PeerClosed(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    // read() returned 0: the client closed. Reply once the socket has left DoPeerClose.
    Simulator::ScheduleNow(&TcpBlastServer::Reply, this, socket);
}

void
TcpBlastServer::Reply(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    socket->Send(Create<Packet>(1));
    socket->Close();
}

// ---------------------------------------------------------------------------------------------
// UdpBlastSender

TypeId
UdpBlastSender::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UdpBlastSender")
            .SetParent<Application>()
            .SetGroupName("Applications")
            .AddConstructor<UdpBlastSender>()
            .AddAttribute("Remote",
                          "The sink's address and port",
                          AddressValue(),
                          MakeAddressAccessor(&UdpBlastSender::m_remote),
                          MakeAddressChecker())
            .AddAttribute("Datagrams",
                          "Number of datagrams",
                          UintegerValue(1000000),
                          MakeUintegerAccessor(&UdpBlastSender::m_datagrams),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Size",
                          "Payload bytes per datagram",
                          UintegerValue(1472),
                          MakeUintegerAccessor(&UdpBlastSender::m_size),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MaxInFlight",
                          "Datagrams the socket's send buffer holds before send() blocks",
                          UintegerValue(32),
                          MakeUintegerAccessor(&UdpBlastSender::m_maxInFlight),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

UdpBlastSender::UdpBlastSender()
    : m_datagrams(0),
      m_size(0),
      m_maxInFlight(0),
      m_sent(0),
      m_inFlight(0)
{
    NS_LOG_FUNCTION(this);
}

UdpBlastSender::~UdpBlastSender()
{
    NS_LOG_FUNCTION(this);
}

uint64_t
UdpBlastSender::GetSent() const
{
    return m_sent;
}

Time
UdpBlastSender::GetElapsed() const
{
    return m_lastSend - m_start;
}

void
UdpBlastSender::StartApplication()
{
    NS_LOG_FUNCTION(this);
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    m_socket->Bind();
    m_socket->Connect(m_remote);
    m_start = Simulator::Now();
    SendMore();
}

void
UdpBlastSender::StopApplication()
{
    NS_LOG_FUNCTION(this);
    if (m_socket)
    {
        m_socket->Close();
    }
}

void
UdpBlastSender::SendMore()
{
    while (m_sent < m_datagrams && m_inFlight < m_maxInFlight)
    {
        m_socket->Send(Create<Packet>(m_size));
        ++m_sent;
        ++m_inFlight;
        m_lastSend = Simulator::Now();
    }
}

void
UdpBlastSender::FrameSent(Ptr<const Packet> /* packet */)
{
    if (m_inFlight > 0)
    {
        --m_inFlight;
        SendMore();
    }
}

} // namespace ns3
