/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Where the sender's walks may start (docs/ns3-hot-paths.md, "Walk hints"): positions in a
 * TcpTxBuffer's sent list that the project's NextSeg, Update and UpdateLostCount
 * (tcp-tx-buffer-hot-paths.cc) remember between calls, so that under heavy loss (thousands of
 * segments in flight, many of them lost and retransmitted) a call does not walk again over what
 * the last one passed.
 *
 * A hint only says where a walk starts, never what it finds: a call's answer is the one a walk
 * from the head gives (the differential mode compares every answer with the wheel's). A hint
 * never points at a segment the list has freed: every function that frees segments or changes
 * marks is the project's, or is the wheel's called through a definition of the project's that
 * then tells the hints (DiscardUpTo, SetSentListLost, MarkHeadAsLost, ...).
 */

#ifndef EMUSIM_TCP_TX_BUFFER_HINTS_H
#define EMUSIM_TCP_TX_BUFFER_HINTS_H

#include "ns3/object.h"
#include "ns3/sequence-number.h"

#include <array>
#include <cstddef>
#include <list>
#include <vector>

namespace ns3
{

class TcpTxBuffer;
class TcpTxItem;

/**
 * @ingroup tcp
 *
 * @brief Walk hints of one TcpTxBuffer, aggregated to it (so that they die with it).
 */
class TcpTxBufferHints : public Object
{
  public:
    /// A position in the sent list (TcpTxBuffer::PacketList, private there)
    using Position = std::list<TcpTxItem*>::const_iterator;

    /// The segments NextSeg looks for (RFC 6675 as 3.44 applies it)
    enum class Rule
    {
        kLost = 0,     //!< rule (1): marked lost, neither retransmitted nor SACKed
        kUnsacked = 1, //!< rule (3): neither retransmitted nor SACKed
    };

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    TcpTxBufferHints();
    ~TcpTxBufferHints() override;

    /**
     * @param buffer a buffer
     * @return its hints, made and aggregated to it at the first call
     */
    static TcpTxBufferHints& Of(const TcpTxBuffer* buffer);

    /**
     * @param buffer a buffer
     * @return its hints, or nullptr if no call made any
     */
    static TcpTxBufferHints* Find(const TcpTxBuffer* buffer);

    /// A rule's cursor: no segment before it is a candidate of the rule, but those pending.
    /// Invalid: start at the head (and nothing is pending).
    struct Cursor
    {
        bool valid{false};    //!< whether the cursor says anything
        bool atEnd{false};    //!< the cursor was the list's end
        Position at;          //!< where (unless atEnd)
        SequenceNumber32 seq; //!< the segment's first byte; atEnd: the end of the data sent then
    };

    /// A segment seen by an earlier call
    struct Finger
    {
        Position at;          //!< the segment
        SequenceNumber32 seq; //!< its first byte when it was remembered
    };

    static constexpr std::size_t kFingers = 8; //!< fingers kept (2 per SACK block, 4 blocks)

    /**
     * @param rule a rule of NextSeg
     * @return its cursor
     */
    const Cursor& GetCursor(Rule rule) const;

    /**
     * @brief Set a rule's cursor.
     * @param rule the rule
     * @param at where (a segment), or the list's end if atEnd
     * @param seq the segment's first byte, or the end of the data sent if atEnd
     * @param atEnd whether the cursor is the list's end
     */
    void SetCursor(Rule rule, Position at, SequenceNumber32 seq, bool atEnd);

    /**
     * @brief The segment at `at` became a candidate of `rule`: if it lies before the rule's
     * cursor, it is pending, and NextSeg looks at it first.
     * @param rule the rule
     * @param at the segment
     * @param seq its first byte
     */
    void Lower(Rule rule, Position at, SequenceNumber32 seq);

    /**
     * @param rule a rule
     * @return the rule's pending candidates (each may have stopped being one since)
     */
    std::vector<Finger>& Pending(Rule rule);

    /**
     * @brief Remember a segment to start later walks from.
     * @param at the segment
     * @param seq its first byte
     */
    void Remember(Position at, SequenceNumber32 seq);

    /**
     * @brief Call `visit` with every segment the hints hold a position of (both rules' cursors
     * that are not at the end, and the fingers in use): where a walk may start.
     * @param visit called with a Position
     */
    template<typename Visit>
    void ForEachPosition(Visit visit) const
    {
        for (const Walk& walk : m_walks)
        {
            if (walk.cursor.valid && !walk.cursor.atEnd)
            {
                visit(walk.cursor.at);
            }
        }
        for (std::size_t i = 0; i < m_fingerCount; i++)
        {
            visit(m_fingers[i].at);
        }
    }

    /// UpdateLostCount's last X: every segment after the head up to it is SACKed or lost.
    struct MarkedTo
    {
        bool valid{false};    //!< whether it says anything
        Position at;          //!< X
        SequenceNumber32 seq; //!< X's first byte
    };

    /// @return what UpdateLostCount left marked
    const MarkedTo& GetMarkedTo() const;

    /**
     * @brief UpdateLostCount marked every segment after the head up to `at`.
     * @param at its X
     * @param seq X's first byte
     */
    void SetMarkedTo(Position at, SequenceNumber32 seq);

    /// A lost mark was taken back: forget what UpdateLostCount left marked.
    void ForgetMarkedTo();

    /// Forget every position: the list was edited where the hints cannot follow.
    void Forget();

    /**
     * @brief The segments before `head` were freed (DiscardUpTo): forget the positions there. A
     * head segment trimmed in place started before `head` too.
     * @param head the new first unacknowledged byte
     */
    void DropBelow(SequenceNumber32 head);

  private:
    /// A rule's cursor and pending candidates
    struct Walk
    {
        Cursor cursor;               //!< the cursor
        std::vector<Finger> pending; //!< candidates before the cursor
    };

    const TcpTxBuffer* m_buffer{nullptr};   //!< whose hints these are
    std::array<Walk, 2> m_walks;            //!< NextSeg's, per Rule
    std::array<Finger, kFingers> m_fingers; //!< Update's fingers
    std::size_t m_fingerCount{0};           //!< fingers in use
    std::size_t m_nextFinger{0};            //!< the one to replace next
    MarkedTo m_markedTo;                    //!< UpdateLostCount's last X
};

} // namespace ns3

#endif /* EMUSIM_TCP_TX_BUFFER_HINTS_H */
