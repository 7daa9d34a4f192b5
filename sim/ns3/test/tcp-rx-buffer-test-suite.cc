/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TestSuite "emusim-tcp-rx-buffer": the receiver's hot path that libemusim-ns3 defines in place
 * of ns-3 3.44's, TcpRxBuffer::Add (sim/ns3/model/tcp-rx-buffer-hot-paths.cc;
 * docs/ns3-hot-paths.md). Each case is a sequence of segments worked by hand from what Add
 * documents: data is stored once (overlaps trimmed), RCV.NXT advances over the data in order,
 * data out of order makes a SACK block (RFC 2018: the block holding the newest segment first).
 * EMUSIM_NS3_TX_BUFFER=check runs the wheel's original beside each call.
 */

#include "ns3/packet.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-rx-buffer.h"
#include "ns3/test.h"

using namespace ns3;

namespace
{

constexpr uint32_t kMss = 1000; // bytes per segment in these cases
const SequenceNumber32 kIrs{1}; // the first data byte

SequenceNumber32
Seg(uint32_t k) // the first byte of segment k, counted from 1
{
    return kIrs + (k - 1) * kMss;
}

/// Adds `bytes` bytes starting at seq.
bool
AddAt(Ptr<TcpRxBuffer> buffer, SequenceNumber32 seq, uint32_t bytes)
{
    TcpHeader header;
    header.SetSequenceNumber(seq);
    return buffer->Add(Create<Packet>(bytes), header);
}

/// The SACK list as [first segment, last segment] pairs (whole segments only).
std::string
Blocks(Ptr<TcpRxBuffer> buffer)
{
    std::string out;
    for (const auto& [first, second] : buffer->GetSackList())
    {
        out += "[" + std::to_string((first - kIrs) / kMss + 1) + "," +
               std::to_string((second - kIrs) / kMss) + "]";
    }
    return out;
}

Ptr<TcpRxBuffer>
EmptyBuffer()
{
    auto buffer = CreateObject<TcpRxBuffer>(kIrs.GetValue());
    buffer->SetMaxBufferSize(100 * kMss);
    return buffer;
}

} // namespace

/// Segments out of order: each is stored and makes a SACK block, the newest first; a segment
/// that fills the hole releases the data behind it and clears the blocks below RCV.NXT.
class TcpRxBufferOutOfOrderTestCase : public TestCase
{
  public:
    TcpRxBufferOutOfOrderTestCase()
        : TestCase("Add out of order: SACK blocks, and a filled hole releases the data behind it")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = EmptyBuffer();
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(1), kMss), true, "in order");
        NS_TEST_ASSERT_MSG_EQ(buffer->NextRxSequence(), Seg(2), "RCV.NXT past segment 1");
        NS_TEST_ASSERT_MSG_EQ(buffer->Available(), kMss, "segment 1 readable");
        NS_TEST_ASSERT_MSG_EQ(Blocks(buffer), "", "no block");

        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(3), kMss), true, "segment 3, beyond a hole");
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(4), kMss), true, "segment 4, next to it");
        NS_TEST_ASSERT_MSG_EQ(Blocks(buffer), "[3,4]", "one block, 3-4");
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(6), kMss), true, "segment 6, beyond another");
        NS_TEST_ASSERT_MSG_EQ(Blocks(buffer), "[6,6][3,4]", "the newest block first");
        NS_TEST_ASSERT_MSG_EQ(buffer->NextRxSequence(), Seg(2), "RCV.NXT at the hole");
        NS_TEST_ASSERT_MSG_EQ(buffer->Available(), kMss, "still segment 1 only");
        NS_TEST_ASSERT_MSG_EQ(buffer->Size(), 4 * kMss, "four segments held");

        // the first hole filled: 2, 3 and 4 in order behind segment 1
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(2), kMss), true, "segment 2");
        NS_TEST_ASSERT_MSG_EQ(buffer->NextRxSequence(), Seg(5), "RCV.NXT at the second hole");
        NS_TEST_ASSERT_MSG_EQ(buffer->Available(), 4 * kMss, "segments 1-4 readable");
        NS_TEST_ASSERT_MSG_EQ(Blocks(buffer), "[6,6]", "block 3-4 cleared");
        // read them: segment 6 stays out of order
        NS_TEST_ASSERT_MSG_EQ(buffer->Extract(10 * kMss)->GetSize(), 4 * kMss, "four read");
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(5), kMss), true, "segment 5");
        NS_TEST_ASSERT_MSG_EQ(buffer->NextRxSequence(), Seg(7), "RCV.NXT past segment 6");
        NS_TEST_ASSERT_MSG_EQ(buffer->Available(), 2 * kMss, "segments 5 and 6 readable");
        NS_TEST_ASSERT_MSG_EQ(Blocks(buffer), "", "no block left");
    }
};

/// Data received twice is stored once: a duplicate is refused, a segment overlapping data held
/// keeps only its new bytes, and data held wholly inside a longer segment is replaced by it.
class TcpRxBufferOverlapTestCase : public TestCase
{
  public:
    TcpRxBufferOverlapTestCase()
        : TestCase("Add trims a segment against the data held, and refuses what it holds")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = EmptyBuffer();
        AddAt(buffer, Seg(1), kMss);
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(1), kMss), false, "a duplicate, read or not");
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(4), kMss), true, "segment 4");
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(4), kMss), false, "segment 4 again");
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(4) + 200, 300), false, "inside segment 4");
        // [2501, 3501): its last 500 bytes are segment 4's first: 500 bytes stored, and the SACK
        // block grows down to 2501
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(4) - 500, kMss), true, "before segment 4");
        NS_TEST_ASSERT_MSG_EQ(buffer->Size(), kMss + kMss + 500, "500 new bytes");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetSackListSize(), 1, "one block");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetSackList().front().first, Seg(4) - 500, "from 2501");
        NS_TEST_ASSERT_MSG_EQ(buffer->GetSackList().front().second, Seg(5), "to 4001");
        // [1001, 3001): its last 500 bytes are held: [1001, 2501) is stored, and RCV.NXT moves
        // over all the data held
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(2), 2 * kMss), true, "the hole");
        NS_TEST_ASSERT_MSG_EQ(buffer->NextRxSequence(), Seg(5), "RCV.NXT past segment 4");
        NS_TEST_ASSERT_MSG_EQ(buffer->Available(), 4 * kMss, "segments 1-4 readable");
        NS_TEST_ASSERT_MSG_EQ(buffer->Size(), 4 * kMss, "four segments held, none twice");
        NS_TEST_ASSERT_MSG_EQ(Blocks(buffer), "", "no block");

        // data held out of order, wholly inside a longer segment, is replaced by it
        auto inside = EmptyBuffer();
        AddAt(inside, Seg(3), 500);
        NS_TEST_ASSERT_MSG_EQ(inside->Size(), 500, "500 bytes at 2001");
        NS_TEST_ASSERT_MSG_EQ(AddAt(inside, Seg(2), 3 * kMss), true, "[1001, 4001)");
        NS_TEST_ASSERT_MSG_EQ(inside->Size(), 3 * kMss, "the 500 bytes replaced, not doubled");
        NS_TEST_ASSERT_MSG_EQ(inside->NextRxSequence(), Seg(1), "the hole at 1 remains");
        // 3.44 merges SACK blocks only when they touch: the block [2001, 2501) stays listed
        // beside [1001, 4001), which holds it
        NS_TEST_ASSERT_MSG_EQ(inside->GetSackListSize(), 2, "two blocks");
        NS_TEST_ASSERT_MSG_EQ(AddAt(inside, Seg(1), kMss), true, "segment 1");
        NS_TEST_ASSERT_MSG_EQ(inside->Available(), 4 * kMss, "1-4 readable");
        NS_TEST_ASSERT_MSG_EQ(inside->GetSackListSize(), 0, "both blocks cleared");
    }
};

/// The window: data beyond the first byte held plus the buffer's size is cut off; the FIN's
/// sequence number is counted once the data before it is in order.
class TcpRxBufferWindowFinTestCase : public TestCase
{
  public:
    TcpRxBufferWindowFinTestCase()
        : TestCase("Add cuts data beyond the window, and counts the FIN when the data is in")
    {
    }

  private:
    void DoRun() override
    {
        auto buffer = CreateObject<TcpRxBuffer>(kIrs.GetValue());
        buffer->SetMaxBufferSize(4 * kMss);
        AddAt(buffer, Seg(2), kMss); // out of order: the window is counted from it
        // [3001, 6001): beyond 1001 + 4000 = 5001 is cut off
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(4), 3 * kMss), true, "cut to 3001-5001");
        NS_TEST_ASSERT_MSG_EQ(buffer->Size(), 3 * kMss, "1000 + 2000 bytes");
        NS_TEST_ASSERT_MSG_EQ(Blocks(buffer), "[4,5][2,2]", "two blocks, the newest first");
        buffer->SetFinSequence(Seg(6)); // the FIN after segment 5
        NS_TEST_ASSERT_MSG_EQ(buffer->Finished(), false, "data missing");
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(3), kMss), true, "segment 3");
        NS_TEST_ASSERT_MSG_EQ(buffer->NextRxSequence(), Seg(1), "segment 1 still missing");
        NS_TEST_ASSERT_MSG_EQ(Blocks(buffer), "[2,5]", "the blocks merged");
        NS_TEST_ASSERT_MSG_EQ(AddAt(buffer, Seg(1), kMss), true, "segment 1");
        NS_TEST_ASSERT_MSG_EQ(buffer->NextRxSequence(), Seg(6) + 1, "past the FIN");
        NS_TEST_ASSERT_MSG_EQ(buffer->Finished(), true, "all data and the FIN");
        NS_TEST_ASSERT_MSG_EQ(buffer->Available(), 5 * kMss, "segments 1-5 readable");
    }
};

class TcpRxBufferTestSuite : public TestSuite
{
  public:
    TcpRxBufferTestSuite()
        : TestSuite("emusim-tcp-rx-buffer", Type::UNIT)
    {
        AddTestCase(new TcpRxBufferOutOfOrderTestCase, Duration::QUICK);
        AddTestCase(new TcpRxBufferOverlapTestCase, Duration::QUICK);
        AddTestCase(new TcpRxBufferWindowFinTestCase, Duration::QUICK);
    }
};

static TcpRxBufferTestSuite g_tcpRxBufferTestSuite;
