/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of TcpYeahNoWrap (sim/ns3/model/tcp-yeah-nowrap.h) beside ns-3's TcpYeah, against
 * thresholds worked out by hand from TcpYeah::GetSsThresh (ns-3 3.44, tcp-yeah.cc):
 *
 *     n = bytesInFlight / segmentSize
 *     competing with Reno (m_doingRenoNow >= Rho):  r = max(n / 2, 2)
 *     otherwise:  r = min(max(lastQ, n / 8), max(n / 2, 2))       (lastQ = 0 when fresh)
 *     ssThresh = max(bytesInFlight - r * segmentSize, 2 * segmentSize)
 *
 * with integer halving (n >> 1, n >> 3). Rho = 0 makes a fresh object "competing" (0 >= 0),
 * the branch whose reduction is two segments even with one segment in flight. Segments are
 * 1448 bytes, the lossy-link program's.
 */

#include "../model/tcp-yeah-nowrap.h"

#include "ns3/object-factory.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstdint>

using namespace ns3;

namespace
{

constexpr uint32_t SEG = 1448; //!< segment size, bytes

/**
 * @brief A socket state with 1448-byte segments and a window of ten.
 * @return the state
 */
Ptr<TcpSocketState>
MakeState()
{
    auto tcb = CreateObject<TcpSocketState>();
    tcb->m_segmentSize = SEG;
    tcb->m_cWnd = 10 * SEG;
    tcb->m_ssThresh = 10 * SEG;
    return tcb;
}

/**
 * @brief A fresh congestion control of type T with the attribute Rho.
 * @param rho Rho (0: competing with Reno from the start)
 * @return the object
 */
template <typename T>
Ptr<T>
Make(uint32_t rho)
{
    auto cong = CreateObject<T>();
    cong->SetAttribute("Rho", UintegerValue(rho));
    return cong;
}

} // namespace

/**
 * @ingroup internet-test
 * @brief One threshold, from ns-3's TcpYeah and from TcpYeahNoWrap, against hand-worked values.
 */
class TcpYeahNoWrapSsThreshTestCase : public TestCase
{
  public:
    /**
     * @brief Constructor.
     * @param name what the case shows
     * @param rho Rho of both objects
     * @param inFlightBytes bytes in flight at the loss
     * @param yeahBytes TcpYeah's threshold, worked out by hand (wrapped where it wraps)
     * @param noWrapBytes TcpYeahNoWrap's threshold, worked out by hand
     */
    TcpYeahNoWrapSsThreshTestCase(const std::string& name,
                                  uint32_t rho,
                                  uint32_t inFlightBytes,
                                  uint32_t yeahBytes,
                                  uint32_t noWrapBytes)
        : TestCase(name),
          m_rho(rho),
          m_inFlightBytes(inFlightBytes),
          m_yeahBytes(yeahBytes),
          m_noWrapBytes(noWrapBytes)
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(Make<TcpYeah>(m_rho)->GetSsThresh(MakeState(), m_inFlightBytes),
                              m_yeahBytes,
                              "ns-3's TcpYeah");
        NS_TEST_ASSERT_MSG_EQ(Make<TcpYeahNoWrap>(m_rho)->GetSsThresh(MakeState(), m_inFlightBytes),
                              m_noWrapBytes,
                              "TcpYeahNoWrap");
    }

    uint32_t m_rho;           //!< Rho
    uint32_t m_inFlightBytes; //!< bytes in flight
    uint32_t m_yeahBytes;     //!< expected from TcpYeah
    uint32_t m_noWrapBytes;   //!< expected from TcpYeahNoWrap
};

/**
 * @ingroup internet-test
 * @brief The TypeId, the name, and a fork that keeps the correction and the attributes.
 */
class TcpYeahNoWrapTypeIdTestCase : public TestCase
{
  public:
    TcpYeahNoWrapTypeIdTestCase()
        : TestCase("TypeId ns3::TcpYeahNoWrap, a TcpYeah; Fork keeps the class and Rho")
    {
    }

  private:
    void DoRun() override
    {
        TypeId tid;
        NS_TEST_ASSERT_MSG_EQ(TypeId::LookupByNameFailSafe("ns3::TcpYeahNoWrap", &tid),
                              true,
                              "ns3::TcpYeahNoWrap is registered");
        NS_TEST_ASSERT_MSG_EQ(tid.IsChildOf(TcpYeah::GetTypeId()), true, "a TcpYeah");
        ObjectFactory factory(tid.GetName());
        Ptr<TcpYeahNoWrap> cong = factory.Create<TcpYeahNoWrap>();
        NS_TEST_ASSERT_MSG_EQ(cong->GetName(), "TcpYeahNoWrap", "name");
        UintegerValue rho;
        cong->GetAttribute("Rho", rho);
        NS_TEST_ASSERT_MSG_EQ(rho.Get(), 16U, "TcpYeah's default Rho");

        // The socket forks its congestion control: the fork must still correct the wrap.
        cong->SetAttribute("Rho", UintegerValue(0));
        Ptr<TcpYeahNoWrap> copy = DynamicCast<TcpYeahNoWrap>(cong->Fork());
        NS_TEST_ASSERT_MSG_NE(copy, nullptr, "Fork returns a TcpYeahNoWrap");
        copy->GetAttribute("Rho", rho);
        NS_TEST_ASSERT_MSG_EQ(rho.Get(), 0U, "Fork keeps Rho");
        NS_TEST_ASSERT_MSG_EQ(copy->GetSsThresh(MakeState(), SEG), 2 * SEG, "fork corrects");
    }
};

/**
 * @ingroup internet-test
 * @brief The TcpYeahNoWrap test suite.
 */
class TcpYeahNoWrapTestSuite : public TestSuite
{
  public:
    TcpYeahNoWrapTestSuite()
        : TestSuite("emusim-tcp-yeah-nowrap", Type::UNIT)
    {
        // Competing (Rho 0), one segment in flight: n = 1, r = max(0, 2) = 2;
        // 1448 - 2896 wraps to 2^32 - 1448 = 4 294 965 848 (the value the lossy-link trace
        // logged before its SIGFPE); intended max(-1448, 2896) = 2896.
        AddTestCase(new TcpYeahNoWrapSsThreshTestCase("competing, 1 segment: wraps in TcpYeah",
                                                      0,
                                                      SEG,
                                                      4294965848U,
                                                      2 * SEG),
                    Duration::QUICK);
        // Competing, one byte in flight: n = 0, r = 2; 1 - 2896 wraps to 2^32 - 2895.
        AddTestCase(new TcpYeahNoWrapSsThreshTestCase("competing, 1 byte: wraps in TcpYeah",
                                                      0,
                                                      1,
                                                      4294964401U,
                                                      2 * SEG),
                    Duration::QUICK);
        // Competing, 2 segments: r = 2, 2896 - 2896 = 0, max(0, 2896) = 2896: no wrap.
        AddTestCase(new TcpYeahNoWrapSsThreshTestCase("competing, 2 segments",
                                                      0,
                                                      2 * SEG,
                                                      2 * SEG,
                                                      2 * SEG),
                    Duration::QUICK);
        // Competing, 3 segments: r = max(1, 2) = 2, 4344 - 2896 = 1448 -> 2896.
        AddTestCase(new TcpYeahNoWrapSsThreshTestCase("competing, 3 segments",
                                                      0,
                                                      3 * SEG,
                                                      2 * SEG,
                                                      2 * SEG),
                    Duration::QUICK);
        // Competing, 100 segments: r = 50, 144 800 - 72 400 = 72 400.
        AddTestCase(new TcpYeahNoWrapSsThreshTestCase("competing, 100 segments: halved",
                                                      0,
                                                      100 * SEG,
                                                      50 * SEG,
                                                      50 * SEG),
                    Duration::QUICK);
        // Not competing (Rho 16, fresh: lastQ 0), 100 segments: r = min(max(0, 12), 50) = 12,
        // 144 800 - 17 376 = 127 424.
        AddTestCase(new TcpYeahNoWrapSsThreshTestCase("not competing, 100 segments: one eighth",
                                                      16,
                                                      100 * SEG,
                                                      88 * SEG,
                                                      88 * SEG),
                    Duration::QUICK);
        // Not competing, 1 segment: r = min(max(0, 0), 2) = 0, max(1448, 2896) = 2896.
        AddTestCase(new TcpYeahNoWrapSsThreshTestCase("not competing, 1 segment",
                                                      16,
                                                      SEG,
                                                      2 * SEG,
                                                      2 * SEG),
                    Duration::QUICK);
        AddTestCase(new TcpYeahNoWrapTypeIdTestCase, Duration::QUICK);
    }
};

/// The suite's static instance, which registers it with the TestRunner.
static TcpYeahNoWrapTestSuite g_tcpYeahNoWrapTestSuite;
