/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "tcp-event-trace.h"

#include "dropper-queue-disc.h"

#include "ns3/abort.h"
#include "ns3/codel-queue-disc.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/packet.h"
#include "ns3/queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/uinteger.h"

#include <cstring>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TcpEventTrace);

TypeId
TcpEventTrace::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpEventTrace")
                            .SetParent<Object>()
                            .SetGroupName("Internet")
                            .AddConstructor<TcpEventTrace>();
    return tid;
}

TcpEventTrace::TcpEventTrace()
    : m_segmentSize(1),
      m_highTx(0),
      m_highAck(0),
      m_anyTx(false)
{
}

TcpEventTrace::~TcpEventTrace() = default;

void
TcpEventTrace::DoDispose()
{
    if (m_out.is_open())
    {
        m_out.close();
    }
    Object::DoDispose();
}

void
TcpEventTrace::Open(const std::string& path)
{
    m_out.open(path, std::ios::out | std::ios::trunc);
    NS_ABORT_MSG_UNLESS(m_out.is_open(), "TcpEventTrace: cannot write " << path);
    m_out << "time_ns,event,segment,value\n";
}

void
TcpEventTrace::WatchSocket(Ptr<Socket> base)
{
    auto socket = DynamicCast<TcpSocketBase>(base);
    NS_ABORT_MSG_UNLESS(socket, "TcpEventTrace follows TCP sockets only");
    UintegerValue segmentSize;
    socket->GetAttribute("SegmentSize", segmentSize);
    m_segmentSize = segmentSize.Get();
    NS_ABORT_MSG_IF(m_segmentSize == 0, "TcpEventTrace: segment size 0");
    socket->TraceConnectWithoutContext("Tx", MakeCallback(&TcpEventTrace::Tx, this));
    socket->TraceConnectWithoutContext("Rx", MakeCallback(&TcpEventTrace::Rx, this));
    socket->TraceConnectWithoutContext("CongestionWindow",
                                       MakeCallback(&TcpEventTrace::Cwnd, this));
    socket->TraceConnectWithoutContext("SlowStartThreshold",
                                       MakeCallback(&TcpEventTrace::Ssthresh, this));
    socket->TraceConnectWithoutContext("RTO", MakeCallback(&TcpEventTrace::Rto, this));
    socket->TraceConnectWithoutContext("CongState", MakeCallback(&TcpEventTrace::State, this));
    // TcpLinuxSocket only (as the emulation's trace of Linux has it)
    socket->TraceConnectWithoutContext("ProbeTimer",
                                       MakeCallback(&TcpEventTrace::ProbeTimer, this));
}

void
TcpEventTrace::ProbeTimer(SequenceNumber32 una, double srttS)
{
    Write("pto", Segment(una), srttS);
}

void
TcpEventTrace::WatchRouterQueue(Ptr<QueueDisc> queueDisc)
{
    queueDisc->TraceConnectWithoutContext("DropBeforeEnqueue",
                                          MakeCallback(&TcpEventTrace::Drop, this));
    // only an AQM drops after dequeue or marks (the dropper and the FIFO never do)
    queueDisc->TraceConnectWithoutContext("DropAfterDequeue",
                                          MakeCallback(&TcpEventTrace::DropAfterDequeue, this));
    queueDisc->TraceConnectWithoutContext("Mark", MakeCallback(&TcpEventTrace::Mark, this));
}

int64_t
TcpEventTrace::Segment(SequenceNumber32 seq) const
{
    // Data starts at sequence number 1; the FIN's number is one past the last byte.
    return (static_cast<int64_t>(seq.GetValue()) - 1) / m_segmentSize;
}

void
TcpEventTrace::Write(const char* event, int64_t segment, double value)
{
    if (m_out.is_open())
    {
        m_out << Simulator::Now().GetNanoSeconds() << ',' << event << ',' << segment << ',' << value
              << '\n';
    }
}

void
TcpEventTrace::Tx(Ptr<const Packet> packet,
                  const TcpHeader& header,
                  Ptr<const TcpSocketBase> /* sock */)
{
    if (packet->GetSize() == 0)
    {
        return;
    }
    const SequenceNumber32 seq = header.GetSequenceNumber();
    const SequenceNumber32 end = seq + packet->GetSize();
    const bool retransmission = m_anyTx && seq < m_highTx;
    if (!m_anyTx || end > m_highTx)
    {
        m_highTx = end;
        m_anyTx = true;
    }
    Write("tx", Segment(seq), retransmission ? 1 : 0);
}

void
TcpEventTrace::Rx(Ptr<const Packet> /* packet */,
                  const TcpHeader& header,
                  Ptr<const TcpSocketBase> /* sock */)
{
    if (!(header.GetFlags() & TcpHeader::ACK) || !m_anyTx)
    {
        return;
    }
    const SequenceNumber32 ack = header.GetAckNumber();
    const bool duplicate = ack <= m_highAck;
    if (!duplicate)
    {
        m_highAck = ack;
    }
    Write("ack", Segment(ack), duplicate ? 1 : 0);
    if (header.GetFlags() & TcpHeader::ECE)
    {
        Write("ece", Segment(ack), 1);
    }
}

int64_t
TcpEventTrace::DataSegment(Ptr<const QueueDiscItem> item) const
{
    auto ipItem = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ipItem || ipItem->GetHeader().GetProtocol() != 6)
    {
        return -1;
    }
    Ptr<Packet> copy = ipItem->GetPacket()->Copy();
    TcpHeader tcp;
    copy->RemoveHeader(tcp);
    if (copy->GetSize() == 0)
    {
        return -1; // not a data segment
    }
    return Segment(tcp.GetSequenceNumber());
}

void
TcpEventTrace::Drop(Ptr<const QueueDiscItem> item, const char* reason)
{
    const int64_t segment = DataSegment(item);
    if (segment >= 0)
    {
        const bool dropper = std::strcmp(reason, DropperQueueDisc::DROPPER_DROP) == 0;
        Write("drop", segment, dropper ? 0 : 1);
    }
}

void
TcpEventTrace::DropAfterDequeue(Ptr<const QueueDiscItem> item, const char* /* reason */)
{
    const int64_t segment = DataSegment(item);
    if (segment >= 0)
    {
        Write("drop", segment, 2);
    }
}

void
TcpEventTrace::Mark(Ptr<const QueueDiscItem> item, const char* reason)
{
    const int64_t segment = DataSegment(item);
    if (segment >= 0)
    {
        // CoDelQueueDisc's two reasons; the threshold's is the one DCTCP is made for
        const bool threshold = std::strcmp(reason, CoDelQueueDisc::CE_THRESHOLD_EXCEEDED_MARK) == 0;
        Write("mark", segment, threshold ? 0 : 1);
    }
}

void
TcpEventTrace::Cwnd(uint32_t /* oldValue */, uint32_t newValue)
{
    Write("cwnd", -1, newValue);
}

void
TcpEventTrace::Ssthresh(uint32_t /* oldValue */, uint32_t newValue)
{
    Write("ssthresh", -1, newValue);
}

void
TcpEventTrace::Rto(Time oldValue, Time newValue)
{
    if (newValue != oldValue)
    {
        Write("rto", -1, newValue.GetSeconds());
    }
}

void
TcpEventTrace::State(TcpSocketState::TcpCongState_t /* oldState */,
                     TcpSocketState::TcpCongState_t newState)
{
    Write("state", -1, static_cast<int>(newState));
}

} // namespace ns3
