/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The TCP receiver's hot path as emusim's own code: a definition of ns-3 3.44's
 * TcpRxBuffer::Add, written here to 3.44's behaviour without its walks from the start of the
 * buffer. docs/ns3-hot-paths.md says why this works, on which wheel, and how the differential
 * mode checks it; EMUSIM_NS3_TX_BUFFER (ns3-hot-paths-mode.h) selects it with the sender's.
 *
 * Why: the receiver keeps its out-of-order data in a map by sequence number. 3.44's Add walks
 * that map from its first entry twice per segment received: to trim the new segment against the
 * data it overlaps, and to advance RCV.NXT. Behind a hole at 800 Mb/s the map holds thousands of
 * segments, and Add with the map's iteration was a quarter of a CUBIC run (perf;
 * docs/multiflow.md, "Cost").
 *
 * How: TcpSocketBase::ReceivedData calls Add through the wheel's PLT, so the definition below takes
 * the call, as for the sender's functions (tcp-tx-buffer-hot-paths.cc, which also checks at load
 * that the wheel is the one these were written for). The private functions Add calls,
 * UpdateSackList and ClearSackList, are the wheel's own: they are exported, and they do not walk
 * the data.
 *
 * Same behaviour: every step of 3.44 is kept, in the same order (the same trimming of the new
 * segment, the same entries erased, the same SACK-list updates, RCV.NXT advanced entry by entry,
 * each advance traced). The walks start where they can first change something: the map's entries
 * do not overlap (Add trims every segment against them, and Extract splits an entry in place), so
 * an entry that ends at or before the segment's first byte changes nothing, nor does an entry
 * that starts below RCV.NXT in the second walk.
 */

#include "ns3-hot-paths-mode.h"

#include "ns3/abort.h"
#include "ns3/packet.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-rx-buffer.h"

#include <sstream>
#include <string>

namespace
{

using emusim::hotpaths::CurrentMode;
using emusim::hotpaths::Mode;
using emusim::hotpaths::Original;

constexpr const char* kAddSymbol = "_ZN3ns311TcpRxBuffer3AddENS_3PtrINS_6PacketEEERKNS_9TcpHeaderE";

using AddFn = bool (*)(ns3::TcpRxBuffer*, ns3::Ptr<ns3::Packet>, const ns3::TcpHeader&);

} // namespace

namespace ns3
{

bool
TcpRxBuffer::Add(Ptr<Packet> p, const TcpHeader& tcph)
{
    static const auto original = reinterpret_cast<AddFn>(Original(kAddSymbol));
    if (CurrentMode() == Mode::kNs3)
    {
        return original(this, p, tcph);
    }

    // The differential mode (EMUSIM_NS3_TX_BUFFER=check) runs the wheel's original first on a copy
    // of this buffer. Add never changes a packet it holds (it erases entries and stores a fragment
    // of the new packet), so the copy may share them.
    Ptr<TcpRxBuffer> twin;
    bool theirs = false;
    if (CurrentMode() == Mode::kCheck)
    {
        twin = CreateObject<TcpRxBuffer>(0);
        twin->m_sackList = m_sackList;
        twin->m_nextRxSeq = m_nextRxSeq.Get();
        twin->m_finSeq = m_finSeq;
        twin->m_gotFin = m_gotFin;
        twin->m_size = m_size;
        twin->m_maxBuffer = m_maxBuffer;
        twin->m_availBytes = m_availBytes;
        twin->m_data = m_data;
        theirs = original(PeekPointer(twin), p, tcph);
    }

    bool stored = false;
    uint32_t pktSize = p->GetSize();
    SequenceNumber32 headSeq = tcph.GetSequenceNumber();
    SequenceNumber32 tailSeq = headSeq + SequenceNumber32(pktSize);

    // Trim the segment to the window: not below RCV.NXT, not beyond the buffer's first byte plus
    // its size
    if (headSeq < m_nextRxSeq)
    {
        headSeq = m_nextRxSeq;
    }
    if (!m_data.empty())
    {
        SequenceNumber32 maxSeq = m_data.begin()->first + SequenceNumber32(m_maxBuffer);
        if (maxSeq < tailSeq)
        {
            tailSeq = maxSeq;
        }
        if (tailSeq < headSeq)
        {
            headSeq = tailSeq;
        }
    }

    // Trim it against the data held: from the entry holding headSeq, or the first after it (3.44
    // walks from the first entry; those before end at or before headSeq and change nothing)
    auto i = m_data.upper_bound(headSeq);
    if (i != m_data.begin())
    {
        auto before = std::prev(i);
        if (before->first + SequenceNumber32(before->second->GetSize()) > headSeq)
        {
            i = before;
        }
    }
    while (i != m_data.end() && i->first <= tailSeq)
    {
        SequenceNumber32 lastByteSeq = i->first + SequenceNumber32(i->second->GetSize());
        if (lastByteSeq > headSeq)
        {
            if (i->first > headSeq && lastByteSeq < tailSeq)
            {
                // data held wholly inside the segment: dropped, the segment's copy is stored
                m_size -= i->second->GetSize();
                m_data.erase(i++);
                continue;
            }
            if (i->first <= headSeq)
            {
                headSeq = lastByteSeq; // the segment's head is held already
            }
            if (lastByteSeq >= tailSeq)
            {
                tailSeq = i->first; // and its tail
            }
        }
        ++i;
    }

    if (headSeq < tailSeq)
    {
        stored = true;
        uint32_t start = static_cast<uint32_t>(headSeq - tcph.GetSequenceNumber());
        auto length = static_cast<uint32_t>(tailSeq - headSeq);
        p = p->CreateFragment(start, length);
        NS_ASSERT(length == p->GetSize());
        NS_ASSERT(m_data.find(headSeq) == m_data.end());
        m_data[headSeq] = p;

        if (headSeq > m_nextRxSeq)
        {
            UpdateSackList(headSeq, tailSeq); // out of order: a SACK block
        }
        m_size += p->GetSize();

        // Advance RCV.NXT over the data now in order, entry by entry (each advance is traced and
        // clears the SACK blocks below it). 3.44 walks from the first entry and skips those below
        // RCV.NXT, the data in order not yet read: here the walk starts at RCV.NXT.
        for (auto j = m_data.lower_bound(m_nextRxSeq); j != m_data.end(); ++j)
        {
            if (j->first < m_nextRxSeq)
            {
                continue;
            }
            if (j->first > m_nextRxSeq)
            {
                break;
            }
            m_nextRxSeq = j->first + SequenceNumber32(j->second->GetSize());
            m_availBytes += j->second->GetSize();
            ClearSackList(m_nextRxSeq);
        }
        if (m_gotFin && m_nextRxSeq == m_finSeq)
        {
            ++m_nextRxSeq; // the FIN's sequence number
        }
    }

    if (CurrentMode() == Mode::kCheck)
    {
        auto describe = [](const TcpRxBuffer& buffer) {
            std::ostringstream os;
            os << "RCV.NXT " << buffer.m_nextRxSeq.Get() << " size " << buffer.m_size
               << " available " << buffer.m_availBytes << " data";
            for (const auto& [seq, packet] : buffer.m_data)
            {
                os << " [" << seq << "+" << packet->GetSize() << "]";
            }
            os << " SACK list";
            for (const auto& [first, second] : buffer.m_sackList)
            {
                os << " [" << first << ", " << second << ")";
            }
            return os.str();
        };
        std::string ours = describe(*this);
        std::string theirState = describe(*twin);
        if (stored != theirs || ours != theirState)
        {
            NS_FATAL_ERROR("TcpRxBuffer::Add("
                           << tcph.GetSequenceNumber() << "+" << pktSize
                           << ") differs from ns-3's: " << (stored ? "stored" : "not stored")
                           << ", " << ours << " against " << (theirs ? "stored" : "not stored")
                           << ", " << theirState);
        }
    }
    return stored;
}

} // namespace ns3
