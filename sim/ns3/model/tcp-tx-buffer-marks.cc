/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The private marks are those of the wheel's tcp-tx-buffer.h and tcp-tx-item.h (3.44), reached
 * as private-member.h says.
 */

#include "tcp-tx-buffer-marks.h"

#include "tcp-tx-buffer-hints.h"

#include "private-member.h"

#include "ns3/tcp-tx-item.h"

#include <list>
#include <unordered_set>

namespace ns3
{
// the tags live beside MemberOf, whose friend get() they declare (private-member.h)
namespace private_member
{

struct SentList
{
    using type = std::list<TcpTxItem*> TcpTxBuffer::*;
    friend type get(SentList);
};

struct LostOut
{
    using type = uint32_t TcpTxBuffer::*;
    friend type get(LostOut);
};

struct RetransOut
{
    using type = uint32_t TcpTxBuffer::*;
    friend type get(RetransOut);
};

struct ItemStart
{
    using type = SequenceNumber32 TcpTxItem::*;
    friend type get(ItemStart);
};

struct ItemPacket
{
    using type = Ptr<Packet> TcpTxItem::*;
    friend type get(ItemPacket);
};

struct ItemLost
{
    using type = bool TcpTxItem::*;
    friend type get(ItemLost);
};

struct ItemSacked
{
    using type = bool TcpTxItem::*;
    friend type get(ItemSacked);
};

template struct MemberOf<SentList, &TcpTxBuffer::m_sentList>;
template struct MemberOf<LostOut, &TcpTxBuffer::m_lostOut>;
template struct MemberOf<RetransOut, &TcpTxBuffer::m_retrans>;
template struct MemberOf<ItemStart, &TcpTxItem::m_startSeq>;
template struct MemberOf<ItemPacket, &TcpTxItem::m_packet>;
template struct MemberOf<ItemLost, &TcpTxItem::m_lost>;
template struct MemberOf<ItemSacked, &TcpTxItem::m_sacked>;

} // namespace private_member

std::vector<TcpTxSegmentMarks>
GetSentMarks(const TcpTxBuffer& buffer)
{
    std::vector<TcpTxSegmentMarks> marks;
    const auto& sent = buffer.*get(private_member::SentList());
    marks.reserve(sent.size());
    for (const TcpTxItem* item : sent)
    {
        const uint32_t start = (item->*get(private_member::ItemStart())).GetValue();
        marks.push_back({start,
                         start + (item->*get(private_member::ItemPacket()))->GetSize(),
                         item->*get(private_member::ItemLost()),
                         item->m_retrans,
                         item->*get(private_member::ItemSacked())});
    }
    return marks;
}

TcpTxLossMark
MarkSegmentLost(TcpTxBuffer& buffer, uint32_t start)
{
    auto& sent = buffer.*get(private_member::SentList());
    // the segment becomes a candidate of NextSeg's rule (1), and if it was retransmitted of
    // rule (3) too (tcp-tx-buffer-hints.h)
    auto lowerCursor = [&buffer](std::list<TcpTxItem*>::const_iterator at,
                                 uint32_t start,
                                 bool wasRetransmitted) {
        if (TcpTxBufferHints* hints = TcpTxBufferHints::Find(&buffer))
        {
            hints->Lower(TcpTxBufferHints::Rule::kLost, at, SequenceNumber32(start));
            if (wasRetransmitted)
            {
                hints->Lower(TcpTxBufferHints::Rule::kUnsacked, at, SequenceNumber32(start));
            }
        }
    };
    for (auto at = sent.cbegin(); at != sent.cend(); ++at)
    {
        TcpTxItem* item = *at;
        const uint32_t itemStart = (item->*get(private_member::ItemStart())).GetValue();
        if (itemStart != start)
        {
            if (static_cast<int32_t>(itemStart - start) > 0)
            {
                break; // sorted: no segment starts there
            }
            continue;
        }
        const uint32_t size = (item->*get(private_member::ItemPacket()))->GetSize();
        if (item->*get(private_member::ItemSacked()))
        {
            return TcpTxLossMark::NONE;
        }
        if (item->*get(private_member::ItemLost()))
        {
            if (!item->m_retrans)
            {
                return TcpTxLossMark::NONE;
            }
            item->m_retrans = false; // lost again: to be retransmitted again
            buffer.*get(private_member::RetransOut()) -= size;
            lowerCursor(at, start, true);
            return TcpTxLossMark::LOST_RETRANSMIT;
        }
        item->*get(private_member::ItemLost()) = true;
        buffer.*get(private_member::LostOut()) += size;
        lowerCursor(at, start, false);
        return TcpTxLossMark::LOST;
    }
    return TcpTxLossMark::NONE;
}

bool
UnmarkSegmentLost(TcpTxBuffer& buffer, uint32_t start)
{
    for (TcpTxItem* item : buffer.*get(private_member::SentList()))
    {
        const uint32_t itemStart = (item->*get(private_member::ItemStart())).GetValue();
        if (itemStart != start)
        {
            if (static_cast<int32_t>(itemStart - start) > 0)
            {
                return false; // sorted: no segment starts there
            }
            continue;
        }
        if (!(item->*get(private_member::ItemLost())) || item->m_retrans ||
            item->*get(private_member::ItemSacked()))
        {
            return false;
        }
        item->*get(private_member::ItemLost()) = false;
        const uint32_t size = (item->*get(private_member::ItemPacket()))->GetSize();
        buffer.*get(private_member::LostOut()) -= size;
        if (TcpTxBufferHints* hints = TcpTxBufferHints::Find(&buffer))
        {
            hints->ForgetMarkedTo(); // a segment below UpdateLostCount's X may be unmarked now
        }
        return true;
    }
    return false;
}

namespace
{
/// The buffers that retransmit only segments marked lost (a simulation runs on one thread)
std::unordered_set<const TcpTxBuffer*>&
LostOnly()
{
    static std::unordered_set<const TcpTxBuffer*> buffers;
    return buffers;
}
} // namespace

void
TcpLostOnlyRetransmission::Set(const TcpTxBuffer* buffer, bool on)
{
    if (on)
    {
        LostOnly().insert(buffer);
    }
    else
    {
        LostOnly().erase(buffer);
    }
}

bool
TcpLostOnlyRetransmission::IsOn(const TcpTxBuffer* buffer)
{
    return !LostOnly().empty() && LostOnly().count(buffer) > 0;
}

uint32_t
UnmarkAllLost(TcpTxBuffer& buffer)
{
    uint32_t unmarked = 0;
    for (TcpTxItem* item : buffer.*get(private_member::SentList()))
    {
        if (item->*get(private_member::ItemLost()))
        {
            item->*get(private_member::ItemLost()) = false;
            ++unmarked;
        }
    }
    buffer.*get(private_member::LostOut()) = 0;
    if (TcpTxBufferHints* hints = TcpTxBufferHints::Find(&buffer))
    {
        hints->ForgetMarkedTo();
    }
    return unmarked;
}

} // namespace ns3
