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
 * @brief Take back a lost mark from a segment that is neither SACKed nor retransmitted (one
 * that ns-3 marked where Linux marks nothing); the buffer's lost byte count follows.
 * @param buffer the buffer
 * @param start the segment's first sequence number
 * @return whether a mark was taken back
 */
bool UnmarkSegmentLost(TcpTxBuffer& buffer, uint32_t start);

/**
 * @brief tcp_undo_cwnd_reduction's unmarking (Linux 6.1.192, net/ipv4/tcp_input.c:2545-2552):
 * no segment is lost any more; retransmitted marks stay (those are still in flight).
 * @param buffer the buffer
 * @return segments unmarked
 */
uint32_t UnmarkAllLost(TcpTxBuffer& buffer);

/**
 * @brief Buffers whose connection retransmits only segments marked lost, as Linux with RACK
 * does (tcp_xmit_retransmit_queue sends only TCPCB_LOST segments; tcp_fastretrans_alert ignores
 * do_lost under RACK, tcp_input.c:3097-3110).
 *
 * ns-3 3.44 has two more retransmissions, which these buffers do without:
 * - NextSeg's rule (3): in recovery with no unsent data, the first segment neither SACKed nor
 *   retransmitted, whether or not anything says it is lost. emusim's NextSeg
 *   (tcp-tx-buffer-hot-paths.cc) takes the call as if not in recovery.
 * - the partial ACK's "assume the next segment is lost" (ProcessAck's partial-ACK branch),
 *   unless IsRetransmittedDataAcked(ACK + one segment) says it was already retransmitted.
 *   emusim's IsRetransmittedDataAcked answers "yes". Its other caller sets
 *   TcpSocketState::m_isRetransDataAcked, which only ns-3's TcpPrrRecovery reads (not
 *   TcpLinuxPrrRecovery).
 * Both calls reach emusim's definitions through the wheel's PLT (docs/ns3-hot-paths.md).
 */
class TcpLostOnlyRetransmission
{
  public:
    /**
     * @brief Add a buffer, or take it out.
     * @param buffer the buffer
     * @param on whether it retransmits only segments marked lost
     */
    static void Set(const TcpTxBuffer* buffer, bool on);

    /**
     * @param buffer a buffer
     * @return whether it retransmits only segments marked lost
     */
    static bool IsOn(const TcpTxBuffer* buffer);
};

} // namespace ns3

#endif // EMUSIM_TCP_TX_BUFFER_MARKS_H
