/*
 * The TCP sender's hot paths as emusim's own code: definitions of ns-3 3.44's
 * TcpTxBuffer::NextSeg and TcpTxBuffer::CopyFromSequence (with the private functions it calls,
 * GetTransmittedSegment, GetNewSegment and GetPacketFromList), of the SACK scoreboard,
 * TcpTxBuffer::Update (with UpdateLostCount, which only Update calls), and of
 * TcpTxBuffer::IsRetransmittedDataAcked, written here to 3.44's behaviour without its linear
 * walks (the receiver's: tcp-rx-buffer-hot-paths.cc). docs/ns3-hot-paths.md says why this works, on
 * which wheel, what would break it, and how the differential mode checks it.
 *
 * Why: ns-3 3.44's NextSeg walks the whole list of segments in flight on every segment sent,
 * and GetPacketFromList asserts `list != m_sentList` on every step of its walk, a comparison of
 * two std::lists element by element. At a window of thousands of segments (the multi-flow
 * study's 800 Mb/s) those two were 66 % (FAST) and 97 % (CUBIC) of a run's time; with them
 * replaced, Update walking the list from its head for each SACK block, UpdateLostCount walking
 * back from the highest SACK and IsRetransmittedDataAcked walking it all on every ACK were most
 * of a CUBIC run (perf; docs/multiflow.md, "Cost").
 *
 * How: the pip wheel's libns3.44-internet.so exports these functions with default visibility
 * and TcpSocketBase calls NextSeg, CopyFromSequence, Update and IsRetransmittedDataAcked through
 * its PLT. libemusim-ns3.so is
 * linked before the wheel's libraries, so the dynamic linker binds those calls to the
 * definitions below. Calls inside the wheel's tcp-tx-buffer.cc bind locally (it was compiled
 * with -fno-semantic-interposition): the wheel's own CopyFromSequence keeps calling its own
 * GetTransmittedSegment, and the wheel's Update its own UpdateLostCount, which the differential
 * mode relies on; ours calls ours.
 *
 * Same behaviour: every rule, quirk and list edit of 3.44 is kept, in the same order (the same
 * splits and merges of the same items), so the outputs are byte-identical. What changes is only
 * how far a walk goes:
 * - NextSeg's rule (1) needs a segment marked lost; the buffer counts lost bytes (m_lostOut) as
 *   it marks them, so with none lost and no recovery (rule (3)) it goes straight to rule (2).
 *   The sent list is sorted: a walk stops at the highest SACKed segment, past which (1.b) fails.
 * - GetPacketFromList walks once to the segment asked for and edits the list in place, where
 *   3.44 starts its walk again from the list's head after every split or merge.
 * - Update and UpdateLostCount find their segments from the nearest known position and count
 *   the shorter side of the list (see there); IsRetransmittedDataAcked stops at the ACK.
 */

#include "ns3-hot-paths-mode.h"
#include "tcp-tx-buffer-hints.h"
#include "tcp-tx-buffer-marks.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"
#include "ns3/tcp-tx-buffer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace
{

// The wheel these definitions were written for: ns3==3.44.post0 from PyPI (pyproject.toml pins
// it), identified by its libns3.44-internet.so's GNU build-id. Another build of 3.44 may inline
// differently (then the wheel's own calls would not reach these definitions, or its TcpTxBuffer
// would differ); the programs refuse to run on it.
constexpr const char* kPinnedNs3Version = "3.44.post0";
constexpr const char* kPinnedInternetBuildId = "8fdf75f54cabbcc724c2b0e06b2e2a1cfc5b054f";

// The mangled names of the wheel's originals, found after this library (dlsym RTLD_NEXT).
constexpr const char* kNextSegSymbol =
    "_ZNK3ns311TcpTxBuffer7NextSegEPNS_14SequenceNumberIjiEES3_b";
constexpr const char* kCopyFromSequenceSymbol =
    "_ZN3ns311TcpTxBuffer16CopyFromSequenceEjRKNS_14SequenceNumberIjiEE";

constexpr const char* kUpdateSymbol =
    "_ZN3ns311TcpTxBuffer6UpdateERKNSt7__cxx114listISt4pairINS_14SequenceNumberIjiEES5_ESaIS6_"
    "EEERKNS_8CallbackIvJPNS_9TcpTxItemEEEE";

constexpr const char* kIsRetransmittedDataAckedSymbol =
    "_ZNK3ns311TcpTxBuffer24IsRetransmittedDataAckedERKNS_14SequenceNumberIjiEE";

// The wheel's functions that free segments or change marks without calling the project's code:
// defined here to call the wheel's and then tell the walk hints (tcp-tx-buffer-hints.h)
constexpr const char* kDiscardUpToSymbol =
    "_ZN3ns311TcpTxBuffer11DiscardUpToERKNS_14SequenceNumberIjiEERKNS_8CallbackIvJPNS_9TcpTxItemEE"
    "EE";
constexpr const char* kMarkHeadAsLostSymbol = "_ZN3ns311TcpTxBuffer14MarkHeadAsLostEv";
constexpr const char* kSetSentListLostSymbol = "_ZN3ns311TcpTxBuffer15SetSentListLostEb";
constexpr const char* kAddRenoSackSymbol = "_ZN3ns311TcpTxBuffer11AddRenoSackEv";
constexpr const char* kResetRenoSackSymbol = "_ZN3ns311TcpTxBuffer13ResetRenoSackEv";
constexpr const char* kResetSentListSymbol = "_ZN3ns311TcpTxBuffer13ResetSentListEv";
constexpr const char* kResetLastSegmentSentSymbol = "_ZN3ns311TcpTxBuffer20ResetLastSegmentSentEv";
constexpr const char* kDeleteRetransmittedFlagFromHeadSymbol =
    "_ZN3ns311TcpTxBuffer31DeleteRetransmittedFlagFromHeadEv";

using EditFn = void (*)(ns3::TcpTxBuffer*);
using DiscardUpToFn = void (*)(ns3::TcpTxBuffer*,
                               const ns3::SequenceNumber32&,
                               const ns3::Callback<void, ns3::TcpTxItem*>&);
using SetSentListLostFn = void (*)(ns3::TcpTxBuffer*, bool);

using NextSegFn = bool (*)(const ns3::TcpTxBuffer*,
                           ns3::SequenceNumber32*,
                           ns3::SequenceNumber32*,
                           bool);
using CopyFromSequenceFn = ns3::TcpTxItem* (*)(ns3::TcpTxBuffer*,
                                               uint32_t,
                                               const ns3::SequenceNumber32&);
using IsRetransmittedDataAckedFn = bool (*)(const ns3::TcpTxBuffer*, const ns3::SequenceNumber32&);
using UpdateFn = uint32_t (*)(ns3::TcpTxBuffer*,
                              const ns3::TcpOptionSack::SackList&,
                              const ns3::Callback<void, ns3::TcpTxItem*>&);

} // namespace

namespace emusim::hotpaths
{

Mode
CurrentMode()
{
    static const Mode mode = [] {
        const char* v = std::getenv("EMUSIM_NS3_TX_BUFFER");
        if (v == nullptr || *v == '\0' || std::strcmp(v, "ours") == 0)
        {
            return Mode::kOurs;
        }
        if (std::strcmp(v, "ns3") == 0)
        {
            return Mode::kNs3;
        }
        if (std::strcmp(v, "check") == 0)
        {
            return Mode::kCheck;
        }
        std::fprintf(stderr, "emusim: EMUSIM_NS3_TX_BUFFER=%s: expected ours, ns3 or check\n", v);
        std::fflush(stderr);
        _exit(2);
    }();
    return mode;
}

void*
Original(const char* symbol)
{
    void* fn = dlsym(RTLD_NEXT, symbol);
    if (fn == nullptr)
    {
        std::fprintf(stderr,
                     "emusim: no ns-3 definition of %s after libemusim-ns3 in the link order\n",
                     symbol);
        std::fflush(stderr);
        _exit(70);
    }
    return fn;
}

} // namespace emusim::hotpaths

namespace
{

using emusim::hotpaths::CurrentMode;
using emusim::hotpaths::Mode;
using emusim::hotpaths::Original;

/// The GNU build-id of the loaded object whose base address is `base`, in hex ("" if none).
std::string
BuildIdOf(const void* base)
{
    struct Search
    {
        const void* base;
        std::string id;
    } search{base, ""};

    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            auto* s = static_cast<Search*>(data);
            if (reinterpret_cast<const void*>(info->dlpi_addr) != s->base)
            {
                return 0;
            }
            for (int i = 0; i < info->dlpi_phnum; i++)
            {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_NOTE)
                {
                    continue;
                }
                auto p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
                const char* end = p + ph.p_memsz;
                while (p + sizeof(ElfW(Nhdr)) <= end)
                {
                    auto nh = reinterpret_cast<const ElfW(Nhdr)*>(p);
                    const char* name = p + sizeof(ElfW(Nhdr));
                    const char* desc = name + ((nh->n_namesz + 3) & ~3U);
                    if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                        std::memcmp(name, "GNU", 4) == 0)
                    {
                        std::ostringstream hex;
                        for (uint32_t k = 0; k < nh->n_descsz; k++)
                        {
                            char byte[3];
                            std::snprintf(byte,
                                          sizeof(byte),
                                          "%02x",
                                          static_cast<unsigned char>(desc[k]));
                            hex << byte;
                        }
                        s->id = hex.str();
                        return 1;
                    }
                    p = desc + ((nh->n_descsz + 3) & ~3U);
                }
            }
            return 1;
        },
        &search);
    return search.id;
}

/// The ns3 wheel's version from the dist-info beside the library (site-packages/ns3/lib64/..),
/// or "unknown".
std::string
WheelVersionBeside(const std::string& libraryPath)
{
    std::string dir = libraryPath.substr(0, libraryPath.rfind('/')); // .../ns3/lib64
    std::string pattern = dir + "/../../ns3-*.dist-info/METADATA";
    glob_t found;
    std::string version = "unknown";
    if (glob(pattern.c_str(), 0, nullptr, &found) == 0 && found.gl_pathc > 0)
    {
        if (FILE* f = std::fopen(found.gl_pathv[0], "r"))
        {
            char line[256];
            while (std::fgets(line, sizeof(line), f) != nullptr)
            {
                if (std::strncmp(line, "Version: ", 9) == 0)
                {
                    version = std::string(line + 9);
                    version.erase(version.find_last_not_of("\r\n") + 1);
                    break;
                }
            }
            std::fclose(f);
        }
    }
    globfree(&found);
    return version;
}

/// At load, before any program runs: refuse an ns-3 other than the pinned wheel.
__attribute__((constructor)) void
CheckPinnedNs3()
{
    CurrentMode(); // a bad EMUSIM_NS3_TX_BUFFER stops the program here, not at its first send
    void* original = Original(kNextSegSymbol);
    Dl_info where{};
    if (dladdr(original, &where) == 0 || where.dli_fname == nullptr)
    {
        std::fprintf(stderr, "emusim: cannot tell which library defines ns-3's TcpTxBuffer\n");
        std::fflush(stderr);
        _exit(70);
    }
    std::string id = BuildIdOf(where.dli_fbase);
    if (id != kPinnedInternetBuildId)
    {
        std::fprintf(stderr,
                     "emusim: libemusim-ns3 replaces functions of ns-3's TcpTxBuffer and "
                     "TcpRxBuffer (sim/ns3/model/tcp-*-buffer-hot-paths.cc) and was "
                     "written for ns3 %s (libns3.44-internet.so build-id %s); this program runs "
                     "%s, ns3 %s, build-id %s. Install the pinned wheel (make setup, or pip "
                     "install ns3==%s) and rebuild (python -m emusim.backends.ns3.build).\n",
                     kPinnedNs3Version,
                     kPinnedInternetBuildId,
                     where.dli_fname,
                     WheelVersionBeside(where.dli_fname).c_str(),
                     id.empty() ? "none" : id.c_str(),
                     kPinnedNs3Version);
        std::fflush(stderr);
        _exit(70);
    }
}

} // namespace

namespace ns3
{

bool
TcpTxBuffer::NextSeg(SequenceNumber32* seq, SequenceNumber32* seqHigh, bool isRecovery) const
{
    static const auto original = reinterpret_cast<NextSegFn>(Original(kNextSegSymbol));
    if (isRecovery && TcpLostOnlyRetransmission::IsOn(this))
    {
        isRecovery = false; // no rule (3): a modelling choice, tcp-tx-buffer-marks.h
    }
    if (CurrentMode() == Mode::kNs3)
    {
        return original(this, seq, seqHigh, isRecovery);
    }
    bool found = false;
    SequenceNumber32 foundSeq;
    SequenceNumber32 foundSeqHigh;

    // Rules (1) and (3) (RFC 6675, as 3.44 applies them): a segment neither retransmitted nor
    // SACKed, below the highest SACK once a SACK was seen; (1) takes the first one marked lost,
    // (3), in recovery only, the first one at all. 3.44 walks from the head for both on every
    // call; here each rule starts from its hints (tcp-tx-buffer-hints.h): the candidates marked
    // since its cursor passed them (pending), then a walk from the cursor. Under heavy loss most
    // of the window is lost and retransmitted, and the walk from the head passed over it on every
    // segment sent.
    using Rule = TcpTxBufferHints::Rule;
    const auto listEnd = m_sentList.cend();
    auto beyondHighestSack = [this](const TcpTxItem* item) {
        return m_sackSeen && item->m_startSeq >= m_highestSack.second; // (1.b) fails
    };
    auto isRule1 = [](const TcpTxItem* item) {
        return !item->m_retrans && !item->m_sacked && item->m_lost;
    };
    auto isRule3 = [](const TcpTxItem* item) { return !item->m_retrans && !item->m_sacked; };
    // the rule's first candidate below the highest SACK (or the list's end); the rule's cursor is
    // left where the walk stopped
    auto firstCandidate = [&](Rule rule, auto isCandidate) {
        TcpTxBufferHints& hints = TcpTxBufferHints::Of(this);
        std::vector<TcpTxBufferHints::Finger>& pending = hints.Pending(rule);
        while (!pending.empty())
        {
            auto lowest =
                std::min_element(pending.begin(), pending.end(), [](const auto& a, const auto& b) {
                    return a.seq < b.seq;
                });
            if (beyondHighestSack(*lowest->at))
            {
                return listEnd; // and so is every candidate after it, up to the cursor and on
            }
            if (isCandidate(*lowest->at))
            {
                return lowest->at; // kept: a candidate until it is retransmitted
            }
            *lowest = pending.back();
            pending.pop_back();
        }
        const TcpTxBufferHints::Cursor& cursor = hints.GetCursor(rule);
        auto it = m_sentList.cbegin();
        if (cursor.valid && !cursor.atEnd)
        {
            it = cursor.at;
        }
        else if (cursor.valid)
        {
            // the end then: back over the segments sent since
            it = listEnd;
            while (it != m_sentList.cbegin() && (*std::prev(it))->m_startSeq >= cursor.seq)
            {
                --it;
            }
        }
        for (; it != listEnd && !beyondHighestSack(*it) && !isCandidate(*it); ++it)
        {
        }
        const bool atEnd = it == listEnd;
        hints.SetCursor(rule,
                        it,
                        atEnd ? m_firstByteSeq.Get() + m_sentSize : (*it)->m_startSeq,
                        atEnd);
        return atEnd || beyondHighestSack(*it) ? listEnd : it;
    };

    if (m_lostOut > 0) // else nothing is marked lost: rule (1) cannot fire
    {
        auto first = firstCandidate(Rule::kLost, isRule1);
        if (first != listEnd)
        {
            found = true;
            foundSeq = (*first)->m_startSeq;
            foundSeqHigh = foundSeq + m_segmentSize;
        }
    }

    if (!found)
    {
        // (2) unsent data, if the receiver's window allows; else (3)
        SequenceNumber32 highData = m_firstByteSeq.Get() + m_sentSize;
        if (SizeFromSequence(highData) > 0)
        {
            // unsent data but a full window: nothing (3.44 does not fall through to rule (3))
            if (m_sentSize < m_rWndCallback())
            {
                found = true;
                foundSeq = highData;
                foundSeqHigh =
                    highData + std::min<uint32_t>(m_segmentSize, m_rWndCallback() - m_sentSize);
            }
        }
        else if (isRecovery)
        {
            auto first = firstCandidate(Rule::kUnsacked, isRule3);
            if (first != listEnd)
            {
                SequenceNumber32 seqPerRule3 = (*first)->m_startSeq;
                if (seqPerRule3.GetValue() == 0)
                {
                    // 3.44 keeps a candidate while its sequence number reads 0: the next one
                    // replaces it
                    for (auto it = std::next(first); it != listEnd && !beyondHighestSack(*it); ++it)
                    {
                        if (isRule3(*it))
                        {
                            seqPerRule3 = (*it)->m_startSeq;
                            break;
                        }
                    }
                }
                found = true;
                foundSeq = seqPerRule3;
                foundSeqHigh = seqPerRule3 + m_segmentSize;
            }
        }
    }

    if (CurrentMode() == Mode::kCheck)
    {
        SequenceNumber32 theirSeq;
        SequenceNumber32 theirSeqHigh;
        bool theirFound = original(this, &theirSeq, &theirSeqHigh, isRecovery);
        if (theirFound != found ||
            (found && (theirSeq != foundSeq || theirSeqHigh != foundSeqHigh)))
        {
            NS_FATAL_ERROR("TcpTxBuffer::NextSeg(isRecovery="
                           << isRecovery << ") differs from ns-3's: "
                           << (found ? "" : "no segment ") << foundSeq << "-" << foundSeqHigh
                           << " against " << (theirFound ? "" : "no segment ") << theirSeq << "-"
                           << theirSeqHigh << "; buffer " << *this);
        }
    }

    if (found)
    {
        *seq = foundSeq;
        *seqHigh = foundSeqHigh;
    }
    return found;
}

TcpTxItem*
TcpTxBuffer::CopyFromSequence(uint32_t numBytes, const SequenceNumber32& seq)
{
    static const auto original =
        reinterpret_cast<CopyFromSequenceFn>(Original(kCopyFromSequenceSymbol));
    if (CurrentMode() == Mode::kNs3)
    {
        return original(this, numBytes, seq);
    }
    NS_ABORT_MSG_IF(m_firstByteSeq > seq,
                    "Requested a sequence number which is not in the buffer anymore");

    // The differential mode (EMUSIM_NS3_TX_BUFFER=check) runs the wheel's original on a deep copy
    // of this buffer first.
    Ptr<TcpTxBuffer> twin;
    TcpTxItem* theirs = nullptr;
    // A copy of a list's items, up to `bytes` and one item more (the most that 3.44 touches)
    auto copyList = [](const PacketList& from, PacketList& to, uint64_t bytes) {
        uint64_t copied = 0;
        for (const TcpTxItem* item : from)
        {
            if (copied > bytes)
            {
                break;
            }
            auto copy = new TcpTxItem(*item);
            copy->m_packet = item->m_packet->Copy();
            to.push_back(copy);
            copied += item->m_packet->GetSize();
        }
    };
    if (CurrentMode() == Mode::kCheck)
    {
        twin = CreateObject<TcpTxBuffer>(m_firstByteSeq.Get().GetValue());
        copyList(m_sentList, twin->m_sentList, UINT64_MAX);
        copyList(m_appList, twin->m_appList, numBytes); // the unsent data may be megabytes
        twin->m_maxBuffer = m_maxBuffer;
        twin->m_size = m_size;
        twin->m_sentSize = m_sentSize;
        twin->m_lostOut = m_lostOut;
        twin->m_sackedOut = m_sackedOut;
        twin->m_retrans = m_retrans;
        twin->m_dupAckThresh = m_dupAckThresh;
        twin->m_segmentSize = m_segmentSize;
        twin->m_renoSack = m_renoSack;
        twin->m_sackEnabled = m_sackEnabled;
        twin->m_sackSeen = m_sackSeen;
        twin->m_highestSack = std::make_pair(twin->m_sentList.cend(), m_highestSack.second);
        twin->m_rWndCallback = m_rWndCallback;
        theirs = original(PeekPointer(twin), numBytes, seq);
    }

    TcpTxItem* outItem = nullptr;
    // Real size to extract: not beyond the end of the data
    uint32_t s = std::min(numBytes, SizeFromSequence(seq));
    if (s > 0)
    {
        SequenceNumber32 sentEnd = m_firstByteSeq.Get() + m_sentSize;
        if (sentEnd >= seq + s)
        {
            outItem = GetTransmittedSegment(s, seq); // sent before, whole
            NS_ABORT_MSG_IF(outItem->m_sacked, "retransmitting a SACKed segment " << seq);
        }
        else if (sentEnd <= seq)
        {
            NS_ABORT_MSG_UNLESS(sentEnd == seq, "Requesting a piece of new data with an hole");
            outItem = GetNewSegment(s); // never sent before
        }
        else
        {
            // Partly sent: 3.44 returns the sent part only (TcpSocketBase asks for the rest)
            return CopyFromSequence(sentEnd - seq, seq);
        }
        outItem->m_lastSent = Simulator::Now();
    }

    if (CurrentMode() == Mode::kCheck)
    {
        auto describe = [](const TcpTxItem* item) {
            std::ostringstream os;
            if (item == nullptr)
            {
                os << "none";
            }
            else
            {
                os << "[" << item->m_startSeq << "+" << item->m_packet->GetSize()
                   << " retrans=" << item->m_retrans << " lost=" << item->m_lost
                   << " sacked=" << item->m_sacked << " sent=" << item->m_lastSent << "]";
            }
            return os.str();
        };
        auto describeList = [&describe](const PacketList& list) {
            std::string out;
            for (const TcpTxItem* item : list)
            {
                out += describe(item);
            }
            return out;
        };
        // the sizes of the unsent list's first n items (the copy holds its head only)
        auto appHead = [](const PacketList& list, size_t n) {
            std::string out;
            for (auto it = list.begin(); it != list.end() && n > 0; ++it, --n)
            {
                out += std::to_string((*it)->m_packet->GetSize()) + " ";
            }
            return out;
        };
        bool same = describe(outItem) == describe(theirs) &&
                    describeList(m_sentList) == describeList(twin->m_sentList) &&
                    appHead(m_appList, twin->m_appList.size()) ==
                        appHead(twin->m_appList, twin->m_appList.size()) &&
                    m_size == twin->m_size && m_sentSize == twin->m_sentSize &&
                    m_retrans == twin->m_retrans && m_lostOut == twin->m_lostOut &&
                    m_sackedOut == twin->m_sackedOut;
        if (!same)
        {
            NS_FATAL_ERROR("TcpTxBuffer::CopyFromSequence("
                           << numBytes << ", " << seq << ") differs from ns-3's: returned "
                           << describe(outItem) << " against " << describe(theirs) << "; sent list "
                           << describeList(m_sentList) << " against "
                           << describeList(twin->m_sentList) << "; retrans " << m_retrans
                           << " against " << twin->m_retrans);
        }
    }
    return outItem;
}

namespace
{
/// Where a walk forward to the segment holding `seq` may start in a sent list: the latest of its
/// head and the positions the hints hold (both rules' cursors, Update's fingers) that starts at
/// or before `seq`. `startOf` reads a segment's first byte (TcpTxItem's is TcpTxBuffer's to read).
template <typename StartOf>
std::list<TcpTxItem*>::iterator
WalkStart(std::list<TcpTxItem*>& sent,
          const TcpTxBufferHints* hints,
          SequenceNumber32 seq,
          StartOf startOf)
{
    auto best = sent.begin();
    if (hints == nullptr || sent.empty())
    {
        return best;
    }
    SequenceNumber32 bestSeq = startOf(*best);
    auto consider = [&](TcpTxBufferHints::Position at) {
        SequenceNumber32 atSeq = startOf(*at);
        if (atSeq <= seq && atSeq > bestSeq)
        {
            best = sent.erase(at, at); // the same position, not const
            bestSeq = atSeq;
        }
    };
    hints->ForEachPosition(consider);
    return best;
}
} // namespace

TcpTxItem*
TcpTxBuffer::GetNewSegment(uint32_t numBytes)
{
    SequenceNumber32 startOfAppList = m_firstByteSeq.Get() + m_sentSize;
    TcpTxItem* item = GetPacketFromList(m_appList, startOfAppList, numBytes, startOfAppList);
    item->m_startSeq = startOfAppList;

    // The item asked for starts the application list: move it to the end of the sent list
    NS_ABORT_MSG_UNLESS(!m_appList.empty() && m_appList.front() == item,
                        "new data " << startOfAppList << " is not the head of the unsent list");
    m_appList.pop_front();
    m_sentList.push_back(item);
    m_sentSize += item->m_packet->GetSize();
    return item;
}

TcpTxItem*
TcpTxBuffer::GetTransmittedSegment(uint32_t numBytes, const SequenceNumber32& seq)
{
    NS_ABORT_MSG_IF(seq < m_firstByteSeq || numBytes > m_sentSize || m_sentList.empty(),
                    "retransmission of " << numBytes << " bytes at " << seq
                                         << " outside the sent data");

    // A retransmission that starts at a segment's start takes at most that segment and the next,
    // and the next only if it is neither SACKed nor of another lost mark (3.44's rule: a
    // retransmission does not merge segments whose flags differ).
    uint32_t s = numBytes;
    auto startOf = [](const TcpTxItem* item) { return item->m_startSeq; };
    auto first = WalkStart(m_sentList, TcpTxBufferHints::Find(this), seq, startOf);
    for (auto it = first; it != m_sentList.end(); ++it)
    {
        if ((*it)->m_startSeq > seq)
        {
            break; // sorted: no segment starts at seq
        }
        if ((*it)->m_startSeq == seq)
        {
            uint32_t size = (*it)->m_packet->GetSize();
            auto next = std::next(it);
            if (next != m_sentList.end() && !(*next)->m_sacked && (*it)->m_lost == (*next)->m_lost)
            {
                size += (*next)->m_packet->GetSize();
            }
            s = std::min(s, size);
            break;
        }
    }

    bool listEdited = false;
    TcpTxItem* item = GetPacketFromList(m_sentList, m_firstByteSeq, s, seq, &listEdited);
    if (listEdited)
    {
        // a split or a merge: a segment freed, or a part that may be lost put before a hint
        if (TcpTxBufferHints* hints = TcpTxBufferHints::Find(this))
        {
            hints->Forget();
        }
    }
    if (!item->m_retrans)
    {
        m_retrans += item->m_packet->GetSize();
        item->m_retrans = true;
    }
    return item;
}

TcpTxItem*
TcpTxBuffer::GetPacketFromList(PacketList& list,
                               const SequenceNumber32& listStartFrom,
                               uint32_t numBytes,
                               const SequenceNumber32& seq,
                               bool* listEdited) const
{
    // The item that holds seq
    auto it = list.begin();
    SequenceNumber32 beginOfCurrentPacket = listStartFrom;
    if (&list == &m_sentList && !list.empty())
    {
        // from the nearest position the hints hold (the sent list's segments start where the
        // one before ends, so a segment's first byte is where the count stands there)
        auto startOf = [](const TcpTxItem* item) { return item->m_startSeq; };
        it = WalkStart(list, TcpTxBufferHints::Find(this), seq, startOf);
        if (it != list.begin())
        {
            beginOfCurrentPacket = (*it)->m_startSeq;
        }
    }
    while (it != list.end() && seq >= beginOfCurrentPacket + (*it)->m_packet->GetSize())
    {
        beginOfCurrentPacket += (*it)->m_packet->GetSize();
        ++it;
    }
    NS_ABORT_MSG_IF(it == list.end(), "sequence " << seq << " is beyond the list");
    NS_ABORT_MSG_IF(seq < beginOfCurrentPacket, "seq < beginOfCurrentPacket: our data is before");

    // seq inside the item: split its head off, so that the item starts at seq
    if (seq > beginOfCurrentPacket)
    {
        auto firstPart = new TcpTxItem();
        SplitItems(firstPart, *it, seq - beginOfCurrentPacket);
        list.insert(it, firstPart);
        if (listEdited)
        {
            *listEdited = true;
        }
    }

    // Then make it exactly numBytes long: merge the following items into it, or split its tail
    // off; at the list's end a shorter item is returned (TcpSocketBase asked for too much)
    TcpTxItem* outItem = *it;
    while (numBytes > outItem->m_packet->GetSize())
    {
        auto next = std::next(it);
        if (next == list.end())
        {
            return outItem;
        }
        TcpTxItem* nextItem = *next;
        MergeItems(outItem, nextItem);
        list.erase(next);
        delete nextItem;
        if (listEdited)
        {
            *listEdited = true;
        }
    }
    if (numBytes < outItem->m_packet->GetSize())
    {
        auto firstPart = new TcpTxItem();
        SplitItems(firstPart, outItem, numBytes);
        list.insert(it, firstPart);
        if (listEdited)
        {
            *listEdited = true;
        }
        return firstPart;
    }
    return outItem;
}

bool
TcpTxBuffer::IsRetransmittedDataAcked(const SequenceNumber32& ack) const
{
    // TcpSocketBase asks this on every ACK (ReceivedAck and ProcessAck, through the PLT): is the
    // segment that ends at the ACK a retransmission (and not SACKed)? 3.44 walks the whole sent
    // list, copying each segment's packet pointer, and finds none on most ACKs. The list is
    // sorted, each segment starting where the one before ends, so at most one segment ends at
    // the ACK, and the walk from the head stops at the first segment that ends beyond it: on a
    // duplicate ACK that is the head.
    static const auto original =
        reinterpret_cast<IsRetransmittedDataAckedFn>(Original(kIsRetransmittedDataAckedSymbol));
    if (TcpLostOnlyRetransmission::IsOn(this))
    {
        return true; // a modelling choice, not ns-3's answer: tcp-tx-buffer-marks.h
    }
    if (CurrentMode() == Mode::kNs3)
    {
        return original(this, ack);
    }
    bool acked = false;
    for (const TcpTxItem* item : m_sentList)
    {
        SequenceNumber32 end = item->m_startSeq + item->m_packet->GetSize();
        if (end == ack)
        {
            acked = !item->m_sacked && item->m_retrans;
            break;
        }
        if (end > ack)
        {
            break;
        }
    }
    if (CurrentMode() == Mode::kCheck && original(this, ack) != acked)
    {
        NS_FATAL_ERROR("TcpTxBuffer::IsRetransmittedDataAcked("
                       << ack << ") differs from ns-3's: " << acked << " against " << !acked
                       << "; buffer " << *this);
    }
    return acked;
}

// The SACK scoreboard. 3.44's Update walks the sent list from its head for every SACK block, to
// the block's end, and UpdateLostCount walks from the highest SACKed segment back to the head:
// at a window of thousands of segments, every ACK in recovery walks the whole window two to four
// times. Ours finds a block's segments from the nearest known position (the head, the end, the
// highest SACKed segment) and learns how many of them are already SACKed from the buffer's count
// of SACKed bytes, so it looks only at the segments that change and at the shorter side of the
// list; the marks, counters, callbacks and their order are 3.44's.

uint32_t
TcpTxBuffer::Update(const TcpOptionSack::SackList& list, const Callback<void, TcpTxItem*>& sackedCb)
{
    static const auto original = reinterpret_cast<UpdateFn>(Original(kUpdateSymbol));
    if (CurrentMode() == Mode::kNs3)
    {
        return original(this, list, sackedCb);
    }

    // The differential mode (EMUSIM_NS3_TX_BUFFER=check) runs the wheel's original first, on a copy
    // of the sent list's items, with a callback that records the segments it reports SACKed (the
    // connection's own callback feeds its rate estimate: it must run once per segment, from ours).
    Ptr<TcpTxBuffer> twin;
    uint32_t theirs = 0;
    std::vector<SequenceNumber32> theirCalls;
    std::vector<SequenceNumber32> ourCalls;
    // 3.44's constructor leaves the highest SACK's iterator value-initialized (it is neither a
    // segment nor the list's end) until a SACK or a reset sets it
    const PacketList::const_iterator unset{};
    auto indexOf = [unset](const PacketList& from, PacketList::const_iterator at) {
        if (at == unset)
        {
            return int64_t{-2};
        }
        int64_t index = 0;
        for (auto it = from.cbegin(); it != from.cend(); ++it, ++index)
        {
            if (it == at)
            {
                return index;
            }
        }
        return int64_t{-1}; // the list's end
    };
    if (CurrentMode() == Mode::kCheck)
    {
        twin = CreateObject<TcpTxBuffer>(m_firstByteSeq.Get().GetValue());
        for (const TcpTxItem* item : m_sentList)
        {
            // the items copied, their packets shared: Update reads only the packets' sizes
            twin->m_sentList.push_back(new TcpTxItem(*item));
        }
        twin->m_size = m_sentSize; // Update never looks at the unsent data
        twin->m_sentSize = m_sentSize;
        twin->m_lostOut = m_lostOut;
        twin->m_sackedOut = m_sackedOut;
        twin->m_retrans = m_retrans;
        twin->m_dupAckThresh = m_dupAckThresh;
        twin->m_segmentSize = m_segmentSize;
        twin->m_renoSack = m_renoSack;
        twin->m_sackEnabled = m_sackEnabled;
        twin->m_sackSeen = m_sackSeen;
        int64_t highest = indexOf(m_sentList, m_highestSack.first);
        twin->m_highestSack =
            std::make_pair(highest == -2   ? unset
                           : highest == -1 ? twin->m_sentList.cend()
                                           : std::next(twin->m_sentList.cbegin(), highest),
                           m_highestSack.second);
        theirs = original(PeekPointer(twin),
                          list,
                          Callback<void, TcpTxItem*>([&theirCalls](TcpTxItem* item) {
                              theirCalls.push_back(item->m_startSeq);
                          }));
    }

    const auto listBegin = m_sentList.cbegin();
    const auto listEnd = m_sentList.cend();
    const SequenceNumber32 headSeq = m_firstByteSeq.Get();
    const SequenceNumber32 highData = headSeq + m_sentSize;
    auto endOf = [](const TcpTxItem* item) { return item->m_startSeq + item->m_packet->GetSize(); };

    // The first segment that starts at or after seq (the list is sorted, each segment starting
    // where the one before ends, as DiscardUpTo asserts), walked to from the nearest of the head,
    // the end, the highest SACKed segment and the positions earlier calls left (the hints: the
    // blocks of the last ACK, which this one mostly repeats, and NextSeg's cursor): a few steps
    // where 3.44 walks from the head.
    TcpTxBufferHints& hints = TcpTxBufferHints::Of(this);
    auto firstFrom = [&](SequenceNumber32 seq) {
        if (m_sentList.empty() || seq <= headSeq)
        {
            return listBegin;
        }
        if (seq >= highData)
        {
            return listEnd;
        }
        auto it = listBegin;
        bool forward = true;
        uint32_t distanceBytes = seq - headSeq;
        if (static_cast<uint32_t>(highData - seq) < distanceBytes)
        {
            it = listEnd;
            forward = false;
            distanceBytes = highData - seq;
        }
        auto consider = [&](PacketList::const_iterator at) {
            SequenceNumber32 atSeq = (*at)->m_startSeq;
            if (atSeq < headSeq || atSeq >= highData)
            {
                return;
            }
            uint32_t atDistanceBytes = atSeq >= seq ? atSeq - seq : seq - atSeq;
            if (atDistanceBytes < distanceBytes)
            {
                it = at;
                forward = atSeq < seq;
                distanceBytes = atDistanceBytes;
            }
        };
        if (m_highestSack.first != listEnd && m_highestSack.first != unset)
        {
            consider(m_highestSack.first);
        }
        hints.ForEachPosition(consider);
        if (forward)
        {
            while (it != listEnd && (*it)->m_startSeq < seq)
            {
                ++it;
            }
        }
        else
        {
            while (it != listBegin && (*std::prev(it))->m_startSeq >= seq)
            {
                --it;
            }
        }
        return it;
    };
    auto sackedBytesIn = [](PacketList::const_iterator from, PacketList::const_iterator to) {
        uint64_t bytes = 0;
        for (; from != to; ++from)
        {
            if ((*from)->m_sacked)
            {
                bytes += (*from)->m_packet->GetSize();
            }
        }
        return bytes;
    };

    uint32_t bytesSacked = 0;
    // 3.44's marking of one segment, and of the highest SACK: it moves to a segment whose end
    // reaches the highest SACKed segment's start, so also one step down, to the segment just
    // below it (kept).
    auto mark = [&](PacketList::const_iterator it) {
        TcpTxItem* item = *it;
        uint32_t size = item->m_packet->GetSize();
        if (item->m_lost)
        {
            item->m_lost = false;
            m_lostOut -= size;
        }
        item->m_sacked = true;
        m_sackedOut += size;
        bytesSacked += size;
        if (m_highestSack.first == listEnd || m_highestSack.second <= item->m_startSeq + size)
        {
            m_sackSeen = true;
            m_highestSack = std::make_pair(it, item->m_startSeq);
        }
        if (CurrentMode() == Mode::kCheck)
        {
            ourCalls.push_back(item->m_startSeq);
        }
        if (!sackedCb.IsNull())
        {
            sackedCb(item);
        }
    };

    bool listedAll = true; // 3.44 returns early, before UpdateLostCount, at a block above HighData
    for (const auto& [first, second] : list)
    {
        if (highData < first)
        {
            listedAll = false;
            break;
        }
        // 3.44 marks the segments that lie wholly inside [first, second) and are not yet SACKed,
        // in order: [lo, hi) here. A segment that straddles either edge is left alone.
        auto lo = firstFrom(first);
        auto hi = firstFrom(second);
        for (auto at : {lo, hi})
        {
            if (at != listEnd)
            {
                hints.Remember(at, (*at)->m_startSeq);
            }
        }
        if (hi != listBegin && endOf(*std::prev(hi)) > second)
        {
            --hi;
        }
        SequenceNumber32 loSeq = lo == listEnd ? highData : (*lo)->m_startSeq;
        SequenceNumber32 hiSeq = hi == listEnd ? highData : (*hi)->m_startSeq;
        if (lo == listEnd || loSeq >= hiSeq)
        {
            continue; // no segment inside the block
        }
        uint32_t insideBytes = hiSeq - loSeq;
        if (insideBytes <= m_sentSize - insideBytes)
        {
            // the block is the shorter side: look at each of its segments
            for (auto it = lo; it != hi; ++it)
            {
                if (!(*it)->m_sacked)
                {
                    mark(it);
                }
            }
            continue;
        }
        // The block is the longer side (in recovery, the block above the hole covers most of the
        // window, and one segment is new on each ACK): the SACKed bytes outside it, counted, tell
        // how many of its bytes are not yet SACKed; those are found from the block's top down
        // (where new data is SACKed) and marked in 3.44's order, from the lowest.
        uint64_t sackedOutside = sackedBytesIn(listBegin, lo) + sackedBytesIn(hi, listEnd);
        uint64_t missingBytes = insideBytes;
        if (sackedOutside <= m_sackedOut && m_sackedOut - sackedOutside <= insideBytes)
        {
            missingBytes = insideBytes - (m_sackedOut - sackedOutside);
        }
        // else the counters disagree with the marks (never in 3.44): every segment is looked at
        std::vector<PacketList::const_iterator> unsacked;
        for (auto it = hi; missingBytes > 0 && it != lo;)
        {
            --it;
            if (!(*it)->m_sacked)
            {
                unsacked.push_back(it);
                uint32_t size = (*it)->m_packet->GetSize();
                missingBytes -= std::min<uint64_t>(missingBytes, size);
            }
        }
        for (auto it = unsacked.rbegin(); it != unsacked.rend(); ++it)
        {
            mark(*it);
        }
    }

    if (listedAll)
    {
        if (bytesSacked > 0)
        {
            NS_ASSERT_MSG(m_highestSack.first != listEnd, "Buffer status: " << *this);
            UpdateLostCount();
        }
        NS_ASSERT(m_sentList.empty() || !m_sentList.front()->m_sacked);
        NS_ASSERT_MSG(m_sentSize >= m_sackedOut + m_lostOut, *this);
    }

    if (CurrentMode() == Mode::kCheck)
    {
        auto describeList = [](const PacketList& items) {
            std::ostringstream os;
            for (const TcpTxItem* item : items)
            {
                os << "[" << item->m_startSeq << "+" << item->m_packet->GetSize()
                   << " sacked=" << item->m_sacked << " lost=" << item->m_lost
                   << " retrans=" << item->m_retrans << "]";
            }
            return os.str();
        };
        auto describeCalls = [](const std::vector<SequenceNumber32>& calls) {
            std::ostringstream os;
            for (SequenceNumber32 seq : calls)
            {
                os << seq << " ";
            }
            return os.str();
        };
        auto describeState = [&indexOf](const TcpTxBuffer& buffer) {
            std::ostringstream os;
            os << "sacked " << buffer.m_sackedOut << " lost " << buffer.m_lostOut << " retrans "
               << buffer.m_retrans << " sackSeen " << buffer.m_sackSeen << " highest SACK "
               << indexOf(buffer.m_sentList, buffer.m_highestSack.first) << "@"
               << buffer.m_highestSack.second;
            return os.str();
        };
        std::ostringstream blocks;
        for (const auto& [first, second] : list)
        {
            blocks << "[" << first << ", " << second << ") ";
        }
        if (bytesSacked != theirs || ourCalls != theirCalls ||
            describeState(*this) != describeState(*twin) ||
            describeList(m_sentList) != describeList(twin->m_sentList))
        {
            NS_FATAL_ERROR("TcpTxBuffer::Update("
                           << blocks.str() << ") differs from ns-3's: " << bytesSacked
                           << " bytes SACKed against " << theirs << "; SACKed in order "
                           << describeCalls(ourCalls) << "against " << describeCalls(theirCalls)
                           << "; " << describeState(*this) << " against " << describeState(*twin)
                           << "; sent list " << describeList(m_sentList) << " against "
                           << describeList(twin->m_sentList));
        }
    }
    return bytesSacked;
}

void
TcpTxBuffer::UpdateLostCount()
{
    // RFC 6675's IsLost as 3.44 applies it: walking down from the highest SACKed segment, once
    // DupThresh SACKed segments are counted, every segment below that is neither SACKed nor lost
    // is marked lost, and the head is marked lost too (even a SACKed head: kept). 3.44 walks to the
    // head; here the walk stops where DupThresh is reached, at X, and the bytes below X not yet
    // marked are known from the buffer's counts of SACKed and lost bytes and a count of the side
    // above X, if that side is the shorter.
    const auto listBegin = m_sentList.cbegin();
    const auto listEnd = m_sentList.cend();
    auto x = m_highestSack.first;
    uint32_t sacked = 0;
    for (; x != listBegin; --x)
    {
        if ((*x)->m_sacked)
        {
            sacked++;
        }
        if (sacked >= m_dupAckThresh)
        {
            break;
        }
    }
    if (sacked < m_dupAckThresh)
    {
        return; // fewer than DupThresh SACKed segments: nothing is lost
    }

    // each segment marked here becomes a candidate of NextSeg's rule (1): a pending one, if it
    // lies before NextSeg's cursor (tcp-tx-buffer-hints.h)
    TcpTxBufferHints* hints = TcpTxBufferHints::Find(this);
    auto markLost = [this, hints](PacketList::const_iterator at) {
        TcpTxItem* item = *at;
        item->m_lost = true;
        m_lostOut += item->m_packet->GetSize();
        if (hints != nullptr)
        {
            hints->Lower(TcpTxBufferHints::Rule::kLost, at, item->m_startSeq);
        }
    };
    auto isMarked = [](const TcpTxItem* item) { return item->m_sacked || item->m_lost; };
    TcpTxItem* head = m_sentList.front();
    if (x != listBegin)
    {
        if (!isMarked(*x))
        {
            markLost(x); // only with a DupThresh of 0, where X is the highest SACK's segment
        }
        // the segments strictly between the head and X
        const auto low = std::next(listBegin);
        // Every segment after the head up to the last call's X is still marked (the hints forget
        // it when a mark is taken back or the list edited): only those above it can need a mark.
        const bool markedBelow = hints != nullptr && hints->GetMarkedTo().valid &&
                                 hints->GetMarkedTo().seq >= (*low)->m_startSeq &&
                                 hints->GetMarkedTo().seq <= (*x)->m_startSeq;
        const SequenceNumber32 highData = m_firstByteSeq.Get() + m_sentSize;
        uint32_t belowBytes = (*x)->m_startSeq - (*low)->m_startSeq;
        uint32_t aboveBytes = highData - (*x)->m_startSeq;
        uint64_t missingBytes = belowBytes;
        bool known = false;
        if (markedBelow)
        {
            for (auto it = x; it != hints->GetMarkedTo().at;)
            {
                --it;
                if (!isMarked(*it))
                {
                    markLost(it);
                }
            }
            known = true;
            missingBytes = 0;
        }
        else if (aboveBytes < belowBytes)
        {
            // marked bytes = SACKed + lost, a segment being one or the other but for the head
            // (which this function may mark lost while SACKed)
            uint64_t markedBytes = uint64_t{m_sackedOut} + m_lostOut;
            uint32_t headBytes = head->m_packet->GetSize();
            if (head->m_sacked && head->m_lost)
            {
                markedBytes -= headBytes;
            }
            uint64_t markedElsewhere = isMarked(head) ? headBytes : 0;
            for (auto it = x; it != listEnd; ++it)
            {
                if (isMarked(*it))
                {
                    markedElsewhere += (*it)->m_packet->GetSize();
                }
            }
            if (markedElsewhere <= markedBytes && markedBytes - markedElsewhere <= belowBytes)
            {
                missingBytes = belowBytes - (markedBytes - markedElsewhere);
                known = true;
            }
        }
        // down from X, until every unmarked byte is marked (when the count is known) or the head
        for (auto it = x; it != low && (!known || missingBytes > 0);)
        {
            --it;
            if (!isMarked(*it))
            {
                markLost(it);
                missingBytes -= std::min<uint64_t>(missingBytes, (*it)->m_packet->GetSize());
            }
        }
        if (hints != nullptr)
        {
            hints->SetMarkedTo(x, (*x)->m_startSeq);
        }
    }
    if (!head->m_lost)
    {
        markLost(listBegin);
    }
}

// The wheel's functions that free segments or change marks behind the walk hints: each calls the
// wheel's definition, then tells the hints (tcp-tx-buffer-hints.h). TcpSocketBase calls them
// through the PLT (docs/ns3-hot-paths.md, "Walk hints").

namespace
{
/// The hints of `buffer` forget every position (if it has any)
void
ForgetHints(const TcpTxBuffer* buffer)
{
    if (TcpTxBufferHints* hints = TcpTxBufferHints::Find(buffer))
    {
        hints->Forget();
    }
}

/// Call the wheel's `symbol` (a TcpTxBuffer member taking nothing) on `buffer`, found once into
/// `original`, then forget the hints
void
WheelThenForget(TcpTxBuffer* buffer, const char* symbol, EditFn* original)
{
    if (*original == nullptr)
    {
        *original = reinterpret_cast<EditFn>(Original(symbol));
    }
    (*original)(buffer);
    ForgetHints(buffer);
}
} // namespace

void
TcpTxBuffer::DiscardUpTo(const SequenceNumber32& seq, const Callback<void, TcpTxItem*>& beforeDelCb)
{
    static const auto original = reinterpret_cast<DiscardUpToFn>(Original(kDiscardUpToSymbol));
    original(this, seq, beforeDelCb);
    if (TcpTxBufferHints* hints = TcpTxBufferHints::Find(this))
    {
        hints->DropBelow(m_firstByteSeq.Get());
        if (!m_sentList.empty())
        {
            // a head acknowledged in part is trimmed in place: perhaps a candidate still
            for (auto rule : {TcpTxBufferHints::Rule::kLost, TcpTxBufferHints::Rule::kUnsacked})
            {
                hints->Lower(rule, m_sentList.cbegin(), m_sentList.front()->m_startSeq);
            }
        }
    }
}

void
TcpTxBuffer::SetSentListLost(bool resetSack)
{
    static const auto original =
        reinterpret_cast<SetSentListLostFn>(Original(kSetSentListLostSymbol));
    original(this, resetSack);
    ForgetHints(this);
}

/// Define TcpTxBuffer::method (a member taking nothing) as a call of the wheel's `symbol`, found
/// once, then ForgetHints: one definition for each such member below
#define EMUSIM_WHEEL_THEN_FORGET(method, symbol)                                                   \
    void TcpTxBuffer::method()                                                                     \
    {                                                                                              \
        static EditFn original = nullptr;                                                          \
        WheelThenForget(this, symbol, &original);                                                  \
    }

EMUSIM_WHEEL_THEN_FORGET(MarkHeadAsLost, kMarkHeadAsLostSymbol)
EMUSIM_WHEEL_THEN_FORGET(AddRenoSack, kAddRenoSackSymbol)
EMUSIM_WHEEL_THEN_FORGET(ResetRenoSack, kResetRenoSackSymbol)
EMUSIM_WHEEL_THEN_FORGET(ResetSentList, kResetSentListSymbol)
EMUSIM_WHEEL_THEN_FORGET(ResetLastSegmentSent, kResetLastSegmentSentSymbol)
EMUSIM_WHEEL_THEN_FORGET(DeleteRetransmittedFlagFromHead, kDeleteRetransmittedFlagFromHeadSymbol)

#undef EMUSIM_WHEEL_THEN_FORGET

} // namespace ns3
