/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "bounded-bulk-sender.h"

#include "ns3/packet.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/tcp-tx-buffer.h"

#include <algorithm>

namespace ns3
{

BoundedBulkSender::BoundedBulkSender(Address remote, uint32_t backlogBytes)
    : m_remote(remote),
      m_backlog(backlogBytes)
{
}

void
BoundedBulkSender::SetSocketCallback(Callback<void, Ptr<Socket>> onSocket)
{
    m_onSocket = onSocket;
}

void
BoundedBulkSender::StartApplication()
{
    // ns-3's own socket, not the profile's blast socket (linux-6.1: TcpLinuxSocket): on
    // TcpLinuxSocket a 20-flow run's windows grew until ns-3 3.44's sent-list walks
    // (TcpTxBuffer::GetPacketFromList, NextSeg) took most of the time, 6 times the CPU at
    // 80 simulated seconds (bbr, 20 Mb/s). libemusim-ns3 now replaces those walks
    // (docs/ns3-hot-paths.md); moving the senders to the profile's socket changes the
    // study's results and is left to a change of its own
    m_socket =
        DynamicCast<TcpSocketBase>(Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId()));
    m_socket->Bind();
    if (!m_onSocket.IsNull())
    {
        m_onSocket(m_socket);
    }
    // the unsent data is what lies beyond the highest byte ever sent, not beyond
    // NextTxSequence: a retransmission timeout sets that back to snd_una, and measured from
    // there the socket looked full until everything was acknowledged again; meanwhile it
    // sent its real backlog and, with nothing left in flight, nothing called TopUp again
    // (a BBR flow stopped for good at 800 Mb/s: docs/multiflow.md)
    m_socket->TraceConnectWithoutContext("HighestSequence",
                                         MakeCallback(&BoundedBulkSender::HighTx, this));
    m_socket->SetConnectCallback(MakeCallback(&BoundedBulkSender::Connected, this),
                                 MakeNullCallback<void, Ptr<Socket>>());
    m_socket->SetSendCallback(MakeCallback(&BoundedBulkSender::Space, this));
    m_socket->SetDataSentCallback(MakeCallback(&BoundedBulkSender::Space, this));
    m_socket->Connect(m_remote);
}

void
BoundedBulkSender::StopApplication()
{
    m_stopped = true;
    if (m_socket)
    {
        m_socket->Close();
    }
}

void
BoundedBulkSender::HighTx(SequenceNumber32, SequenceNumber32 high)
{
    m_highTx = high;
}

void
BoundedBulkSender::Connected(Ptr<Socket>)
{
    m_connected = true;
    TopUp();
}

void
BoundedBulkSender::Space(Ptr<Socket>, uint32_t)
{
    TopUp();
}

void
BoundedBulkSender::TopUp()
{
    if (!m_connected || m_stopped)
    {
        return;
    }
    const SequenceNumber32 tail = m_socket->GetTxBuffer()->TailSequence();
    const uint32_t unsent = tail > m_highTx ? tail - m_highTx : 0;
    if (unsent >= m_backlog)
    {
        return;
    }
    const uint32_t want = std::min(m_backlog - unsent, m_socket->GetTxAvailable());
    if (want > 0)
    {
        m_socket->Send(Create<Packet>(want), 0);
    }
}

} // namespace ns3
