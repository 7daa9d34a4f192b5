/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "draining-sink.h"

#include "ns3/address.h"
#include "ns3/packet.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DrainingSink);

TypeId
DrainingSink::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DrainingSink")
                            .SetParent<Application>()
                            .SetGroupName("Applications")
                            .AddConstructor<DrainingSink>()
                            .AddAttribute("Local",
                                          "The address to listen on",
                                          AddressValue(),
                                          MakeAddressAccessor(&DrainingSink::m_local),
                                          MakeAddressChecker())
                            .AddAttribute("ReadBytes",
                                          "The most one Recv asks for (bytes)",
                                          UintegerValue(65536),
                                          MakeUintegerAccessor(&DrainingSink::m_readBytes),
                                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

DrainingSink::DrainingSink() = default;

DrainingSink::~DrainingSink() = default;

uint64_t
DrainingSink::GetTotalRx() const
{
    return m_totalRx;
}

void
DrainingSink::StartApplication()
{
    if (m_listener)
    {
        return;
    }
    m_listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_listener->Bind(m_local) != 0, "DrainingSink: cannot bind its address");
    m_listener->Listen();
    m_listener->ShutdownSend(); // as PacketSink: the sink never sends data
    m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                  MakeCallback(&DrainingSink::Accept, this));
}

void
DrainingSink::StopApplication()
{
    for (auto& socket : m_connections)
    {
        socket->Close();
    }
    m_connections.clear();
    if (m_listener)
    {
        m_listener->Close();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeNullCallback<void, Ptr<Socket>, const Address&>());
    }
}

void
DrainingSink::DoDispose()
{
    m_listener = nullptr;
    m_connections.clear();
    Application::DoDispose();
}

void
DrainingSink::Accept(Ptr<Socket> socket, const Address&)
{
    socket->SetRecvCallback(MakeCallback(&DrainingSink::Read, this));
    m_connections.push_back(socket);
}

void
DrainingSink::Read(Ptr<Socket> socket)
{
    while (Ptr<Packet> packet = socket->Recv(m_readBytes, 0))
    {
        if (packet->GetSize() == 0)
        {
            break; // end of file
        }
        m_totalRx += packet->GetSize();
    }
}

} // namespace ns3
