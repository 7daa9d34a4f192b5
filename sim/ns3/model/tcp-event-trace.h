/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef EMUSIM_TCP_EVENT_TRACE_H
#define EMUSIM_TCP_EVENT_TRACE_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-item.h"
#include "ns3/sequence-number.h"
#include "ns3/tcp-socket-state.h"

#include <fstream>
#include <string>

namespace ns3
{

class Packet;
class QueueDisc;
class TcpHeader;
class Socket;
class TcpSocketBase;

/**
 * \brief Writes one TCP connection's events as CSV, for explaining a run (issue 3's traces).
 *
 * One line per event: `time_ns,event,segment,value`. `segment` is the data segment's index
 * (0 = the first SegmentSize bytes), so a drop and the transmissions of the same bytes share
 * it; -1 where no segment applies. Events:
 *
 *  - `tx`: the sender put a data segment on the wire; value 1 for a retransmission, else 0.
 *  - `drop`: the router's queue disc discarded a data segment; value 0 = the dropper, 1 = the
 *    FIFO was full, 2 = an AQM (CoDel) dropped it at dequeue.
 *  - `mark`: an AQM (CoDel) marked a data segment CE; value 0 = its sojourn exceeded the CE
 *    threshold, 1 = the control law marked it instead of dropping it.
 *  - `ack`: the sender received an ACK; segment = the ACK number's segment index, value = 1 if
 *    it acknowledged nothing new (a duplicate), else 0.
 *  - `ece`: that ACK carried ECE (ECN echo; written after its `ack` line), value 1.
 *  - `cwnd`: congestion window in bytes; `ssthresh` likewise.
 *  - `rto`: the retransmission timeout in seconds (doubles on each backoff).
 *  - `state`: congestion state entered (0 open, 1 disorder, 2 cwr, 3 recovery, 4 loss).
 *
 * ns-3's TCP starts data at sequence number 1 (the SYN takes 0).
 */
class TcpEventTrace : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TcpEventTrace();
    ~TcpEventTrace() override;

    /**
     * \brief Start writing to `path` (truncated).
     * \param path CSV file
     */
    void Open(const std::string& path);
    /// Follow the sender's socket (a TcpSocketBase); its SegmentSize sets the segment index.
    void WatchSocket(Ptr<Socket> socket);
    /// Follow the drops of the router's queue disc toward the receiver.
    void WatchRouterQueue(Ptr<QueueDisc> queueDisc);

  private:
    void DoDispose() override;
    int64_t Segment(SequenceNumber32 seq) const;
    void Write(const char* event, int64_t segment, double value);
    void Tx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> sock);
    void Rx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> sock);
    void Drop(Ptr<const QueueDiscItem> item, const char* reason);
    void DropAfterDequeue(Ptr<const QueueDiscItem> item, const char* reason);
    void Mark(Ptr<const QueueDiscItem> item, const char* reason);
    int64_t DataSegment(Ptr<const QueueDiscItem> item) const;
    void Cwnd(uint32_t oldValue, uint32_t newValue);
    void Ssthresh(uint32_t oldValue, uint32_t newValue);
    void Rto(Time oldValue, Time newValue);
    void ProbeTimer(SequenceNumber32 una, double srttS);
    void State(TcpSocketState::TcpCongState_t oldState, TcpSocketState::TcpCongState_t newState);

    std::ofstream m_out;        //!< the CSV file
    uint32_t m_segmentSize;     //!< bytes per segment
    SequenceNumber32 m_highTx;  //!< one past the highest data byte sent so far
    SequenceNumber32 m_highAck; //!< highest ACK number received so far
    bool m_anyTx;               //!< whether any data was sent yet
};

} // namespace ns3

#endif /* EMUSIM_TCP_EVENT_TRACE_H */
