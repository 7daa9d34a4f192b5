/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Linux's loss marks on ns-3 3.44's SACK scoreboard. RACK (tcp_recovery.c) marks a segment
 * lost, or a retransmission lost again, by its send time; ns-3's TcpTxBuffer keeps its marks in
 * private members with no setter for a chosen segment. These functions read and set them.
 */

#ifndef EMUSIM_TCP_TX_BUFFER_MARKS_H
#define EMUSIM_TCP_TX_BUFFER_MARKS_H

#include "ns3/sequence-number.h"
#include "ns3/tcp-tx-buffer.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup tcp
 *
 * @brief The marks of one segment in a TcpTxBuffer's sent list (TcpTxItem's flags).
 */
struct TcpTxSegmentMarks
{
    uint32_t start; //!< its first sequence number
    uint32_t end;   //!< the sequence number after its last byte
    bool lost;      //!< marked lost (TCPCB_LOST)
    bool retrans;   //!< retransmitted and not lost again (TCPCB_SACKED_RETRANS)
    bool sacked;    //!< SACKed (TCPCB_SACKED_ACKED)
};

/**
 * @brief What marking a segment lost changed.
 */
enum class TcpTxLossMark
{
    NONE,            //!< nothing: SACKed, already lost and not retransmitted, or not found
    LOST,            //!< newly lost: lost_out grew
    LOST_RETRANSMIT, //!< a retransmission lost again: retrans_out shrank
};

/**
 * @brief Every sent segment's marks, in sequence order.
 * @param buffer the buffer
 * @return the marks
 */
std::vector<TcpTxSegmentMarks> GetSentMarks(const TcpTxBuffer& buffer);

/**
 * @brief tcp_mark_skb_lost (Linux 6.1.192, net/ipv4/tcp_input.c:1105-1128) on ns-3's
 * scoreboard: a SACKed segment is left alone; one already lost and retransmitted loses its
 * retransmitted mark (it is to be sent again); any other is marked lost. The buffer's byte
 * counts (lost, retransmitted) follow, so its BytesInFlight stays consistent.
 * @param buffer the buffer
 * @param start the segment's first sequence number
 * @return what changed
 */
TcpTxLossMark MarkSegmentLost(TcpTxBuffer& buffer, uint32_t start);

/**
 * @brief tcp_undo_cwnd_reduction's unmarking (Linux 6.1.192, net/ipv4/tcp_input.c:2545-2552):
 * no segment is lost any more; retransmitted marks stay (those are still in flight).
 * @param buffer the buffer
 * @return segments unmarked
 */
uint32_t UnmarkAllLost(TcpTxBuffer& buffer);

} // namespace ns3

#endif // EMUSIM_TCP_TX_BUFFER_MARKS_H
