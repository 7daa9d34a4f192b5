/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Walk hints of a TcpTxBuffer (tcp-tx-buffer-hints.h).
 */

#include "tcp-tx-buffer-hints.h"

#include "ns3/tcp-tx-buffer.h"

#include <unordered_map>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TcpTxBufferHints);

namespace
{
/// Each buffer's hints, found without GetObject's walk over the aggregate's type ids. An entry
/// leaves with its hints, which die with their buffer (a simulation runs on one thread).
std::unordered_map<const TcpTxBuffer*, TcpTxBufferHints*>&
HintsOf()
{
    static std::unordered_map<const TcpTxBuffer*, TcpTxBufferHints*> hints;
    return hints;
}
} // namespace

TypeId
TcpTxBufferHints::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpTxBufferHints")
                            .SetParent<Object>()
                            .SetGroupName("Internet")
                            .AddConstructor<TcpTxBufferHints>();
    return tid;
}

TcpTxBufferHints::TcpTxBufferHints() = default;

TcpTxBufferHints::~TcpTxBufferHints()
{
    auto found = HintsOf().find(m_buffer);
    if (found != HintsOf().end() && found->second == this)
    {
        HintsOf().erase(found);
    }
}

TcpTxBufferHints&
TcpTxBufferHints::Of(const TcpTxBuffer* buffer)
{
    if (TcpTxBufferHints* found = Find(buffer))
    {
        return *found;
    }
    Ptr<TcpTxBufferHints> hints = CreateObject<TcpTxBufferHints>();
    hints->m_buffer = buffer;
    // aggregated, so that the buffer's end frees them (and the entry above) with it
    const_cast<TcpTxBuffer*>(buffer)->AggregateObject(hints);
    HintsOf()[buffer] = PeekPointer(hints);
    return *hints;
}

TcpTxBufferHints*
TcpTxBufferHints::Find(const TcpTxBuffer* buffer)
{
    auto& all = HintsOf();
    auto found = all.find(buffer);
    return found == all.end() ? nullptr : found->second;
}

const TcpTxBufferHints::Cursor&
TcpTxBufferHints::GetCursor(Rule rule) const
{
    return m_walks[static_cast<std::size_t>(rule)].cursor;
}

void
TcpTxBufferHints::SetCursor(Rule rule, Position at, SequenceNumber32 seq, bool atEnd)
{
    Cursor& cursor = m_walks[static_cast<std::size_t>(rule)].cursor;
    cursor.valid = true;
    cursor.atEnd = atEnd;
    cursor.at = at;
    cursor.seq = seq;
}

void
TcpTxBufferHints::Lower(Rule rule, Position at, SequenceNumber32 seq)
{
    Walk& walk = m_walks[static_cast<std::size_t>(rule)];
    // at or after an end cursor's seq, a segment is walked over from the end back (NextSeg)
    if (walk.cursor.valid && seq < walk.cursor.seq)
    {
        walk.pending.push_back(Finger{at, seq});
    }
}

std::vector<TcpTxBufferHints::Finger>&
TcpTxBufferHints::Pending(Rule rule)
{
    return m_walks[static_cast<std::size_t>(rule)].pending;
}

void
TcpTxBufferHints::Remember(Position at, SequenceNumber32 seq)
{
    for (std::size_t i = 0; i < m_fingerCount; i++)
    {
        if (m_fingers[i].at == at)
        {
            m_fingers[i].seq = seq;
            return;
        }
    }
    m_fingers[m_nextFinger] = Finger{at, seq};
    m_nextFinger = (m_nextFinger + 1) % kFingers;
    if (m_fingerCount < kFingers)
    {
        m_fingerCount++;
    }
}

const TcpTxBufferHints::MarkedTo&
TcpTxBufferHints::GetMarkedTo() const
{
    return m_markedTo;
}

void
TcpTxBufferHints::SetMarkedTo(Position at, SequenceNumber32 seq)
{
    m_markedTo = MarkedTo{true, at, seq};
}

void
TcpTxBufferHints::ForgetMarkedTo()
{
    m_markedTo.valid = false;
}

void
TcpTxBufferHints::Forget()
{
    for (Walk& walk : m_walks)
    {
        walk.cursor.valid = false;
        walk.pending.clear();
    }
    m_fingerCount = 0;
    m_nextFinger = 0;
    m_markedTo.valid = false;
}

void
TcpTxBufferHints::DropBelow(SequenceNumber32 head)
{
    for (Walk& walk : m_walks)
    {
        if (walk.cursor.valid && !walk.cursor.atEnd && walk.cursor.seq < head)
        {
            walk.cursor.valid = false; // a walk from the head: nothing is pending
            walk.pending.clear();
        }
        std::size_t kept = 0;
        for (const Finger& pending : walk.pending)
        {
            if (pending.seq >= head)
            {
                walk.pending[kept++] = pending;
            }
        }
        walk.pending.resize(kept);
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m_fingerCount; i++)
    {
        if (m_fingers[i].seq >= head)
        {
            m_fingers[kept++] = m_fingers[i];
        }
    }
    m_fingerCount = kept;
    m_nextFinger = kept % kFingers;
    if (m_markedTo.valid && m_markedTo.seq < head)
    {
        m_markedTo.valid = false;
    }
}

} // namespace ns3
