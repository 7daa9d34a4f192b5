/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Where the sender's walks may start (docs/ns3-hot-paths.md, "Hints"):
 * positions in a TcpTxBuffer's sent list that the project's NextSeg and Update
 * (tcp-tx-buffer-hot-paths.cc) remember between calls, so that under heavy loss
 * (thousands of segments in flight, many of them lost and retransmitted) a call
 * does not walk again over what the last one already passed.
 *
 * A hint only says where a walk starts, never what it finds: a call's answer is
 * the same as a walk from the head (the differential mode compares every answer
 * with the wheel's). A hint must never point at a segment the list has freed;
 * every function that frees segments or changes marks behind the project's back
 * (the wheel's DiscardUpTo, SetSentListLost, MarkHeadAsLost, ...) is defined by
 * the project too, calls the wheel's and then tells the hints (Forget,
 * DropBelow).
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
 * @brief Walk hints of one TcpTxBuffer, aggregated to it (so they die with it).
 */
class TcpTxBufferHints : public Object
{
  public:
    /// A position in the sent list (TcpTxBuffer::PacketList, private there)
    using Position = std::list<TcpTxItem*>::const_iterator;

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

    /// NextSeg's rule (1): no segment before the cursor is lost and neither
    /// retransmitted nor SACKed. Invalid: start at the head.
    struct Cursor
    {
        bool valid{false};    //!< whether the cursor says anything
        bool atEnd{false};    //!< the cursor is the list's end
        Position at;          //!< where (unless atEnd)
        SequenceNumber32 seq; //!< the segment's first byte when the cursor was set
                              //!< (unless atEnd)
    };

    /// A segment seen by an earlier call, to start a walk from
    struct Finger
    {
        Position at;          //!< the segment
        SequenceNumber32 seq; //!< its first byte when it was remembered
    };

    static constexpr std::size_t kFingers = 8; //!< fingers kept (2 per SACK block, 4 blocks)

    /// @return the cursor
    const Cursor& GetCursor() const;

    /**
     * @brief Set the cursor.
     * @param at where (a segment), or the list's end if atEnd
     * @param seq the segment's first byte
     * @param atEnd whether the cursor is the list's end
     */
    void SetCursor(Position at, SequenceNumber32 seq, bool atEnd);

    /**
     * @brief A segment at `at` (first byte `seq`) became lost and not
     * retransmitted: if it lies before the cursor, it is kept among the pending
     * candidates, which NextSeg looks at first.
     * @param at the segment
     * @param seq its first byte
     */
    void Lower(Position at, SequenceNumber32 seq);

    /// @return the candidates of rule (1) before the cursor (each may have
    /// stopped being one)
    std::vector<Finger>& Pending();

    /// UpdateLostCount's last X: every segment after the head up to it is SACKed
    /// or lost.
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

    /**
     * @brief Remember a segment to start later walks from.
     * @param at the segment
     * @param seq its first byte
     */
    void Remember(Position at, SequenceNumber32 seq);

    /// @return the fingers kept (some may be unused: see FingerCount)
    const std::array<Finger, kFingers>& GetFingers() const;

    /// @return how many of the fingers are in use
    std::size_t FingerCount() const;

    /// Forget every position: the list was edited where the hints cannot follow.
    void Forget();

    /**
     * @brief The segments before `head` were freed (DiscardUpTo): forget the
     * positions there. A head segment trimmed in place started before `head` too.
     * @param head the new first unacknowledged byte
     */
    void DropBelow(SequenceNumber32 head);

  private:
    const TcpTxBuffer* m_buffer{nullptr};   //!< whose hints these are
    Cursor m_cursor;                        //!< NextSeg's cursor
    std::array<Finger, kFingers> m_fingers; //!< Update's fingers
    std::size_t m_fingerCount{0};           //!< fingers in use
    std::size_t m_nextFinger{0};            //!< the one to replace next
    std::vector<Finger> m_pending;          //!< candidates before the cursor
    MarkedTo m_markedTo;                    //!< UpdateLostCount's last X
};

} // namespace ns3

#endif /* EMUSIM_TCP_TX_BUFFER_HINTS_H */
