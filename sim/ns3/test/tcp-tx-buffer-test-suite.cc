/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TestSuite "emusim-tcp-tx-buffer": the sender's hot paths that libemusim-ns3 defines in place of
 * ns-3 3.44's (sim/ns3/model/tcp-tx-buffer-hot-paths.cc; docs/ns3-hot-paths.md). Each case is a
 * sequence worked by hand from RFC 6675's NextSeg, Update and IsLost (with 3.44's quirks, named
 * where they differ from the RFC) and from the item splits and merges that 3.44's
 * CopyFromSequence documents. The test runner links libemusim-ns3 before ns-3's libraries, as the
 * programs do, so the calls below reach the project's definitions (EMUSIM_NS3_TX_BUFFER=check
 * runs the wheel's originals beside them).
 */

#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t kMss = 1000; // bytes per segment in these cases
const SequenceNumber32 kIss{1}; // the first data byte

/// A buffer holding `segments` segments of unsent data, added as one packet each.
Ptr<TcpTxBuffer>
SentBuffer(uint32_t segments, uint32_t rwnd = 1 << 20)
{
    auto buffer = CreateObject<TcpTxBuffer>(kIss.GetValue());
    buffer->SetSegmentSize(kMss);
    buffer->SetDupAckThresh(3);
    buffer->SetMaxBufferSize(1 << 24);
    buffer->SetRWndCallback(Callback<uint32_t>([rwnd]() { return rwnd; }));
    for (uint32_t i = 0; i < segments; i++)
    {
        buffer->Add(Create<Packet>(kMss));
    }
    return buffer;
}

SequenceNumber32
Seg(uint32_t k) // the first byte of segment k, counted from 1
{
    return kIss + (k - 1) * kMss;
}

void
SendSegments(Ptr<TcpTxBuffer> buffer, uint32_t from, uint32_t to)
{
    for (uint32_t k = from; k <= to; k++)
    {
        buffer->CopyFromSequence(kMss, Seg(k));
    }
}

/// A SACK option's blocks as a list, each [first segment, last segment] inclusive.
TcpOptionSack::SackList
Sacks(std::initializer_list<std::pair<uint32_t, uint32_t>> blocks)
{
    TcpOptionSack::SackList list;
    for (auto [first, last] : blocks)
    {
        list.emplace_back(Seg(first), Seg(last + 1));
    }
    return list;
}

} // namespace

/// No loss, not in recovery: NextSeg offers new data at HighData + 1 (rule 2), up to the
/// receiver's window, and nothing when the window is full.
class TcpTxBufferNewDataTestCase : public TestCase
{
  public:
    TcpTxBufferNewDataTestCase()
        : TestCase("NextSeg with nothing lost gives new data, within the receiver's window")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = SentBuffer(10, 5500); // the window holds 5.5 segments
        SequenceNumber32 seq;
        SequenceNumber32 high;
        SendSegments(buffer, 1, 5);
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, false), true, "new data to send");
        NS_TEST_ASSERT_MSG_EQ(seq, Seg(6), "HighData + 1");
        NS_TEST_ASSERT_MSG_EQ(high, Seg(6) + 500, "the window's last 500 bytes");
        buffer->CopyFromSequence(500, Seg(6));
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, false), false, "the window is full");
        NS_TEST_ASSERT_MSG_EQ(buffer->BytesInFlight(), 5500, "5.5 segments out");
    }
};

/// Three SACKed segments above two holes: both holes are lost (RFC 6675 IsLost with DupThresh
/// 3), rule 1 returns them in order, then rule 2 new data; once both are retransmitted and no
/// data is left, nothing (rule 3 has no candidate below the highest SACK).
class TcpTxBufferLostHolesTestCase : public TestCase
{
  public:
    TcpTxBufferLostHolesTestCase()
        : TestCase("NextSeg retransmits SACK-lost holes first, each once")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = SentBuffer(7);
        SendSegments(buffer, 1, 6);
        buffer->Update(Sacks({{3, 5}}));
        NS_TEST_ASSERT_MSG_EQ(buffer->GetSacked(), 3 * kMss, "segments 3-5 SACKed");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetLost(), 2 * kMss, "segments 1 and 2 lost");
        SequenceNumber32 seq;
        SequenceNumber32 high;
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, true), true, "a lost segment");
        NS_TEST_ASSERT_MSG_EQ(seq, Seg(1), "the first hole");
        NS_TEST_ASSERT_MSG_EQ(high, Seg(2), "one segment");
        TcpTxItem* item = buffer->CopyFromSequence(kMss, Seg(1));
        NS_TEST_ASSERT_MSG_EQ(item->IsRetrans(), true, "marked retransmitted");
        NS_TEST_ASSERT_MSG_EQ(item->GetSeqSize(), kMss, "one segment asked, one given");
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, true), true, "the second hole");
        NS_TEST_ASSERT_MSG_EQ(seq, Seg(2), "segment 2");
        buffer->CopyFromSequence(kMss, Seg(2));
        NS_TEST_ASSERT_MSG_EQ(buffer->GetRetransmitsCount(), 2 * kMss, "two retransmitted");
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, true), true, "new data");
        NS_TEST_ASSERT_MSG_EQ(seq, Seg(7), "segment 7, never sent");
        buffer->CopyFromSequence(kMss, Seg(7));
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, true),
                              false,
                              "segment 6 lies above the highest SACK: no rule applies");
        // pipe: 7 sent - 3 SACKed - 2 lost + 2 retransmitted = segments 6 and 7 and the two
        // retransmissions
        NS_TEST_ASSERT_MSG_EQ(buffer->BytesInFlight(), 4 * kMss, "pipe of four segments");
    }
};

/// One SACKed segment (below DupThresh): nothing is lost. In recovery, with no new data, rule 3
/// gives the first unSACKed segment below the highest SACK; outside recovery, nothing.
class TcpTxBufferRule3TestCase : public TestCase
{
  public:
    TcpTxBufferRule3TestCase()
        : TestCase("NextSeg's rule 3 in recovery only, below the highest SACK")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = SentBuffer(6);
        SendSegments(buffer, 1, 6);
        buffer->Update(Sacks({{5, 5}}));
        NS_TEST_ASSERT_MSG_EQ(buffer->GetLost(), 0, "one SACK marks nothing lost");
        SequenceNumber32 seq;
        SequenceNumber32 high;
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, false), false, "no rule outside");
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, true), true, "rule 3 in recovery");
        NS_TEST_ASSERT_MSG_EQ(seq, Seg(1), "the first unSACKed segment");
        buffer->CopyFromSequence(kMss, Seg(1));
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, true), true, "rule 3 again");
        NS_TEST_ASSERT_MSG_EQ(seq, Seg(2), "the next one not retransmitted");
    }
};

/// After a timeout every segment is lost (SetSentListLost): rule 1 walks from the head.
class TcpTxBufferAllLostTestCase : public TestCase
{
  public:
    TcpTxBufferAllLostTestCase()
        : TestCase("NextSeg after a timeout: every segment lost, from the head, no SACK seen")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = SentBuffer(4);
        SendSegments(buffer, 1, 4);
        buffer->SetSentListLost(true);
        NS_TEST_ASSERT_MSG_EQ(buffer->GetLost(), 4 * kMss, "all four lost");
        SequenceNumber32 seq;
        SequenceNumber32 high;
        for (uint32_t k = 1; k <= 4; k++)
        {
            NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, false), true, "lost segment");
            NS_TEST_ASSERT_MSG_EQ(seq, Seg(k), "in order");
            buffer->CopyFromSequence(kMss, Seg(k));
        }
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, false), false, "all retransmitted");
    }
};

/// Items split and merged as CopyFromSequence documents: application writes of 500 bytes are
/// merged into a segment, a retransmission from the middle of a segment splits it in three, and
/// a retransmission across two items of one mark merges them.
class TcpTxBufferSplitMergeTestCase : public TestCase
{
  public:
    TcpTxBufferSplitMergeTestCase()
        : TestCase(
              "CopyFromSequence merges writes into a segment and splits it for a retransmission")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = CreateObject<TcpTxBuffer>(kIss.GetValue());
        buffer->SetSegmentSize(kMss);
        buffer->SetMaxBufferSize(1 << 20);
        buffer->SetRWndCallback(Callback<uint32_t>([]() { return 1u << 20; }));
        for (int i = 0; i < 4; i++)
        {
            buffer->Add(Create<Packet>(500));
        }
        // [1, 1001) from two writes
        TcpTxItem* first = buffer->CopyFromSequence(1000, kIss);
        NS_TEST_ASSERT_MSG_EQ(first->GetSeqSize(), 1000, "two writes merged");
        NS_TEST_ASSERT_MSG_EQ(first->IsRetrans(), false, "new data");
        // [1001, 1301): the third write's first 300 bytes
        TcpTxItem* second = buffer->CopyFromSequence(300, kIss + 1000);
        NS_TEST_ASSERT_MSG_EQ(second->GetSeqSize(), 300, "a write split");
        NS_TEST_ASSERT_MSG_EQ(buffer->SizeFromSequence(kIss + 1300), 700, "700 bytes unsent");
        // the whole first segment again
        TcpTxItem* again = buffer->CopyFromSequence(1000, kIss);
        NS_TEST_ASSERT_MSG_EQ(again, first, "the same item");
        NS_TEST_ASSERT_MSG_EQ(again->IsRetrans(), true, "now retransmitted");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetRetransmitsCount(), 1000, "1000 bytes retransmitted");
        // [501, 701) from inside it: [1, 501) and [701, 1001) split off, all three retransmitted
        TcpTxItem* middle = buffer->CopyFromSequence(200, kIss + 500);
        NS_TEST_ASSERT_MSG_EQ(middle->GetSeqSize(), 200, "the piece asked for");
        NS_TEST_ASSERT_MSG_EQ(middle->IsRetrans(), true, "the mark is copied");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetRetransmitsCount(), 1000, "the count unchanged");
        // [701, 1301) across a retransmitted item and a new one: 3.44 merges them, drops the
        // retransmitted mark of [701, 1001) (300 bytes) and marks the merged 600 bytes
        TcpTxItem* across = buffer->CopyFromSequence(600, kIss + 700);
        NS_TEST_ASSERT_MSG_EQ(across->GetSeqSize(), 600, "two items merged");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetRetransmitsCount(),
                              1000 - 300 + 600,
                              "[1, 701) and [701, 1301) retransmitted");
        // ns-3's pipe counts data sent once plus retransmitted data not marked lost again
        NS_TEST_ASSERT_MSG_EQ(buffer->BytesInFlight(), 1300 + 1300, "pipe");
    }
};

/// The scoreboard (RFC 6675's Update and IsLost as 3.44 applies them): a SACK block marks the
/// segments wholly inside it, in order, each reported once to the connection; three SACKed
/// segments above a hole make the hole and every unmarked segment below it lost, and the head.
class TcpTxBufferSackBlocksTestCase : public TestCase
{
  public:
    TcpTxBufferSackBlocksTestCase()
        : TestCase("Update marks whole segments inside the blocks, in order, and the holes lost")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = SentBuffer(10);
        SendSegments(buffer, 1, 10);
        // blocks in the option's order: the newest (segment 8) first, then segments 4-5, and a
        // block from the middle of segment 2 to the end of segment 2, which covers no whole
        // segment
        std::vector<uint32_t> sizes;
        Callback<void, TcpTxItem*> sizesOf(
            [&sizes](TcpTxItem* item) { sizes.push_back(item->GetSeqSize()); });
        TcpOptionSack::SackList blocks = Sacks({{8, 8}, {4, 5}});
        blocks.emplace_back(Seg(2) + 500, Seg(3));
        NS_TEST_ASSERT_MSG_EQ(buffer->Update(blocks, sizesOf), 3 * kMss, "segments 8, 4 and 5");
        NS_TEST_ASSERT_MSG_EQ(sizes.size(), 3, "one report per segment newly SACKed");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetSacked(), 3 * kMss, "three SACKed");
        // walking down from segment 8: 8, 5 and 4 are three SACKed segments, so below segment 4
        // the unmarked segments 2 and 3 are lost, and the head, segment 1
        NS_TEST_ASSERT_MSG_EQ(buffer->GetLost(), 3 * kMss, "segments 1-3 lost");
        // segments 6 and 7 lie above the third SACKed segment: not lost (only two SACKed above)
        SequenceNumber32 seq;
        SequenceNumber32 high;
        for (uint32_t k : {1, 2, 3})
        {
            NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, true), true, "a lost segment");
            NS_TEST_ASSERT_MSG_EQ(seq, Seg(k), "the holes in order");
            buffer->CopyFromSequence(kMss, Seg(k));
        }
        NS_TEST_ASSERT_MSG_EQ(buffer->NextSeg(&seq, &high, true), true, "rule 3");
        NS_TEST_ASSERT_MSG_EQ(seq, Seg(6), "segment 6, below the highest SACK, not lost");
        // the same blocks again: nothing new, nothing reported
        sizes.clear();
        NS_TEST_ASSERT_MSG_EQ(buffer->Update(Sacks({{8, 8}, {4, 5}}), sizesOf), 0, "repeated");
        NS_TEST_ASSERT_MSG_EQ(sizes.size(), 0, "no report");
        // pipe: 10 sent - 3 SACKed - 3 lost + 3 retransmitted
        NS_TEST_ASSERT_MSG_EQ(buffer->BytesInFlight(), 7 * kMss, "pipe of seven segments");
    }
};

/// 3.44's quirks of the scoreboard, kept: the highest SACK moves down to a segment newly SACKed
/// just below it, so the lost count, which walks down from the highest SACK, misses a SACKed
/// segment above; a segment marked lost by a timeout and then SACKed is no longer lost; and a
/// block above the data sent ends the update before the lost count.
class TcpTxBufferScoreboardQuirksTestCase : public TestCase
{
  public:
    TcpTxBufferScoreboardQuirksTestCase()
        : TestCase("Update keeps 3.44's highest SACK, its early return and its lost marks")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = SentBuffer(10);
        SendSegments(buffer, 1, 10);
        buffer->Update(Sacks({{10, 10}}));
        buffer->Update(Sacks({{9, 9}})); // its end is segment 10's start: the highest moves to 9
        buffer->Update(Sacks({{7, 7}}));
        // RFC 6675 would count 7, 9 and 10 above segment 6; 3.44 counts from 9 down: 9 and 7
        NS_TEST_ASSERT_MSG_EQ(buffer->GetLost(), 0, "two SACKed below the highest: none lost");
        buffer->Update(Sacks({{5, 5}}));
        // from 9 down: 9, 7, 5 are three; below 5 segments 2-4 are lost, and the head
        NS_TEST_ASSERT_MSG_EQ(buffer->GetLost(), 4 * kMss, "segments 1-4 lost, not 6 nor 8");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetSacked(), 4 * kMss, "5, 7, 9 and 10 SACKed");

        // after a timeout every segment is lost; a SACK takes its segment out of the lost count
        auto timedOut = SentBuffer(4);
        SendSegments(timedOut, 1, 4);
        timedOut->SetSentListLost(true);
        NS_TEST_ASSERT_MSG_EQ(timedOut->Update(Sacks({{3, 3}})), kMss, "segment 3");
        NS_TEST_ASSERT_MSG_EQ(timedOut->GetLost(), 3 * kMss, "1, 2 and 4 still lost");
        NS_TEST_ASSERT_MSG_EQ(timedOut->GetSacked(), kMss, "3 SACKed");

        // segments 2-4 SACKed (three: the head would be lost), but the next block starts beyond
        // the data sent: 3.44 returns there, before counting the lost segments
        auto early = SentBuffer(6);
        SendSegments(early, 1, 6);
        NS_TEST_ASSERT_MSG_EQ(early->Update(Sacks({{2, 4}, {20, 20}})), 3 * kMss, "2-4 SACKed");
        NS_TEST_ASSERT_MSG_EQ(early->GetLost(), 0, "no lost count");
        NS_TEST_ASSERT_MSG_EQ(early->Update(Sacks({{2, 4}})), 0, "nothing new: no lost count");
        NS_TEST_ASSERT_MSG_EQ(early->GetLost(), 0, "still none");
        NS_TEST_ASSERT_MSG_EQ(early->Update(Sacks({{5, 5}})), kMss, "segment 5");
        // from 5 down: 5, 4, 3; nothing unmarked between the head and 3; the head is lost
        NS_TEST_ASSERT_MSG_EQ(early->GetLost(), kMss, "the head lost");
    }
};

/// A window of 100 segments with the first lost: the block above the hole grows by one segment
/// per ACK, as in a recovery (once the block is more than half the window the project's Update
/// counts the SACKed bytes outside it instead of looking at each segment inside), then a second
/// hole is SACKed around and filled by a block that merges both.
class TcpTxBufferLargeWindowTestCase : public TestCase
{
  public:
    TcpTxBufferLargeWindowTestCase()
        : TestCase("Update on a window of 100 segments: one new segment per ACK, a hole filled")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = SentBuffer(100);
        SendSegments(buffer, 1, 100);
        uint32_t calls = 0;
        Callback<void, TcpTxItem*> count([&calls](TcpTxItem*) { calls++; });
        for (uint32_t k = 2; k <= 60; k++)
        {
            NS_TEST_ASSERT_MSG_EQ(buffer->Update(Sacks({{2, k}}), count), kMss, "one new");
        }
        NS_TEST_ASSERT_MSG_EQ(calls, 59, "each segment reported once");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetLost(), kMss, "the head only: nothing else below");
        // segment 61 lost in the network: the receiver reports 62-100 as a second block
        for (uint32_t k = 62; k <= 100; k++)
        {
            NS_TEST_ASSERT_MSG_EQ(buffer->Update(Sacks({{62, k}, {2, 60}}), count),
                                  kMss,
                                  "one new");
        }
        NS_TEST_ASSERT_MSG_EQ(calls, 98, "2-60 and 62-100");
        // three SACKed above 61 (from the update that SACKed 64 on): 61 is lost
        NS_TEST_ASSERT_MSG_EQ(buffer->GetLost(), 2 * kMss, "segments 1 and 61");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetSacked(), 98 * kMss, "98 SACKed");
        // 61 retransmitted and received: one block 2-100
        buffer->CopyFromSequence(kMss, Seg(61));
        uint32_t before = calls;
        NS_TEST_ASSERT_MSG_EQ(buffer->Update(Sacks({{2, 100}}), count), kMss, "61 SACKed");
        NS_TEST_ASSERT_MSG_EQ(calls - before, 1, "only 61 reported");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetLost(), kMss, "61 no longer lost: the head only");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetSacked(), 99 * kMss, "all but the head");
        // pipe: 100 sent - 99 SACKed - 1 lost + 1 retransmitted (61, now SACKed, still counted
        // retransmitted by 3.44)
        NS_TEST_ASSERT_MSG_EQ(buffer->BytesInFlight(), kMss, "one segment");
    }
};

/// Whether an ACK acknowledges a retransmission: the segment that ends exactly at the ACK is
/// retransmitted and not SACKed.
class TcpTxBufferRetransmittedAckedTestCase : public TestCase
{
  public:
    TcpTxBufferRetransmittedAckedTestCase()
        : TestCase("IsRetransmittedDataAcked: the segment ending at the ACK was retransmitted")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = SentBuffer(5);
        SendSegments(buffer, 1, 5);
        buffer->CopyFromSequence(kMss, Seg(2)); // segment 2 again
        NS_TEST_ASSERT_MSG_EQ(buffer->IsRetransmittedDataAcked(Seg(3)), true, "ends segment 2");
        NS_TEST_ASSERT_MSG_EQ(buffer->IsRetransmittedDataAcked(Seg(2)),
                              false,
                              "segment 1: sent once");
        NS_TEST_ASSERT_MSG_EQ(buffer->IsRetransmittedDataAcked(Seg(4)), false, "segment 3");
        NS_TEST_ASSERT_MSG_EQ(buffer->IsRetransmittedDataAcked(Seg(1)), false, "a duplicate ACK");
        NS_TEST_ASSERT_MSG_EQ(buffer->IsRetransmittedDataAcked(Seg(3) - 500),
                              false,
                              "inside segment 2: no segment ends there");
        NS_TEST_ASSERT_MSG_EQ(buffer->IsRetransmittedDataAcked(Seg(10)), false, "beyond the data");
        buffer->Update(Sacks({{2, 2}}));
        NS_TEST_ASSERT_MSG_EQ(buffer->IsRetransmittedDataAcked(Seg(3)), false, "2 is SACKed now");
    }
};

class TcpTxBufferTestSuite : public TestSuite
{
  public:
    TcpTxBufferTestSuite()
        : TestSuite("emusim-tcp-tx-buffer", Type::UNIT)
    {
        AddTestCase(new TcpTxBufferNewDataTestCase, Duration::QUICK);
        AddTestCase(new TcpTxBufferLostHolesTestCase, Duration::QUICK);
        AddTestCase(new TcpTxBufferRule3TestCase, Duration::QUICK);
        AddTestCase(new TcpTxBufferAllLostTestCase, Duration::QUICK);
        AddTestCase(new TcpTxBufferSplitMergeTestCase, Duration::QUICK);
        AddTestCase(new TcpTxBufferSackBlocksTestCase, Duration::QUICK);
        AddTestCase(new TcpTxBufferScoreboardQuirksTestCase, Duration::QUICK);
        AddTestCase(new TcpTxBufferLargeWindowTestCase, Duration::QUICK);
        AddTestCase(new TcpTxBufferRetransmittedAckedTestCase, Duration::QUICK);
    }
};

static TcpTxBufferTestSuite g_tcpTxBufferTestSuite;
