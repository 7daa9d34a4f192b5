/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TcpLinuxSocket's side of a congestion control with cong_control (tcp_bbr.c): the ACK's rate
 * sample (net/ipv4/tcp_rate.c, through TcpLinuxRateSampler), the application-limited check at
 * each write, the call before a recovery's first send, and internal pacing by the earliest
 * departure time (net/ipv4/tcp_output.c, through TcpLinuxPacingClock); tcp-linux-socket.h
 * states each rule with its source.
 */

#include "tcp-linux-socket.h"

#include "ns3/simulator.h"
#include "ns3/tcp-tx-buffer.h"

#include <algorithm>
#include <limits>

namespace ns3
{

namespace
{

/// enum sk_pacing (include/net/sock.h)
constexpr uint32_t SK_PACING_NONE = 0;
constexpr uint32_t SK_PACING_NEEDED = 1;

} // namespace

bool
TcpLinuxSocket::PacesInternally() const
{
    auto cc = DynamicCast<TcpLinuxCongestion>(m_congestionControl);
    return cc && cc->GetPacingStatus() == SK_PACING_NEEDED;
}

bool
TcpLinuxSocket::Paces() const
{
    if (m_tcb->m_pacing)
    {
        return true; // ns-3's own pacing (a stand-in profile's)
    }
    auto cc = DynamicCast<TcpLinuxCongestion>(m_congestionControl);
    return cc && cc->GetPacingStatus() != SK_PACING_NONE;
}

bool
TcpLinuxSocket::PacingHolds() const
{
    // tcp_pacing_check (tcp_output.c:2486-2502); a timeout's retransmission is not held
    if (m_rtoSending || !PacesInternally())
    {
        return false;
    }
    const auto now = static_cast<uint64_t>(Simulator::Now().GetNanoSeconds());
    if (m_gsoLeft > 0 && static_cast<int64_t>(now) == m_gsoAtNs)
    {
        return false; // the rest of a GSO packet that went out now: one skb, checked once
    }
    if (!m_pacing.Holds(now))
    {
        return false;
    }
    if (!m_paceEvent.IsPending())
    {
        // the pacing timer (hrtimer at tcp_wstamp_ns): tcp_pace_kick -> tcp_tsq_handler
        m_paceEvent = Simulator::Schedule(NanoSeconds(m_pacing.GetWstampNs() - now),
                                          &TcpLinuxSocket::TsqWrite,
                                          const_cast<TcpLinuxSocket*>(this));
    }
    return true;
}

int
TcpLinuxSocket::Send(Ptr<Packet> p, uint32_t flags)
{
    CheckAppLimited();
    return TcpSocketBase::Send(p, flags);
}

void
TcpLinuxSocket::CheckAppLimited()
{
    // tcp_rate_check_app_limited (tcp_rate.c:198-207): less than a segment not yet sent
    // (write_seq - snd_nxt), nothing of the socket's in the host's queue disc or device
    // (sk_wmem_alloc_get < SKB_TRUESIZE(1): every charged skb is larger; without TCP small
    // queues the host is not followed and counts as empty), cwnd not full, and every lost
    // segment retransmitted
    const uint32_t mss = m_tcb->m_segmentSize;
    const uint32_t inFlight = PacketsInFlight();
    const uint32_t cwnd = std::max<uint32_t>(1, m_tcb->m_cWnd / mss);
    const bool gap = m_txBuffer->SizeFromSequence(m_tcb->m_highTxMark) < mss &&
                     m_tsqChargedBytes == 0 && inFlight < cwnd &&
                     m_txBuffer->GetLost() <= m_txBuffer->GetRetransmitsCount();
    m_rate.CheckAppLimited(gap, m_delivered, inFlight);
}

void
TcpLinuxSocket::RateGen()
{
    if (!m_rateGenPending)
    {
        return;
    }
    m_rateGenPending = false;
    if (!m_rack)
    {
        // ns-3's scoreboard marked what it found lost (tcp_mark_skb_lost's count): its lost
        // bytes now against before the ACK, less those the ACK acknowledged
        const uint32_t lostNow = m_txBuffer->GetLost();
        if (lostNow > m_lostBeforeAckBytes)
        {
            m_lostCount += (lostNow - m_lostBeforeAckBytes) / m_tcb->m_segmentSize;
        }
    }
    // tcp_ack: lost = tp->lost - lost (tcp_input.c:4031), tcp_rate_gen (:4033)
    m_rate.Gen(m_delivered,
               m_ackDelivered,
               m_lostCount - m_lostAtAckStart,
               NowUs(),
               m_minRttUs == 0 ? std::numeric_limits<uint32_t>::max() : m_minRttUs);
    m_rateSampleReady = true;
}

bool
TcpLinuxSocket::TakeRateSample(emusim_rate_sample& rs)
{
    RateGen();
    if (!m_rateSampleReady)
    {
        return false;
    }
    m_rateSampleReady = false;
    rs = m_rate.GetSample();
    return true;
}

void
TcpLinuxSocket::SetAppLimited(uint32_t appLimited)
{
    m_rate.SetAppLimited(appLimited);
}

void
TcpLinuxSocket::RecoveryEntryCongControl()
{
    // Linux enters recovery in tcp_fastretrans_alert, makes the sample and runs cong_control,
    // then sends (tcp_xmit_recovery, tcp_input.c:4030-4035); TcpSocketBase::EnterRecovery
    // sends its first segment at once. From a timer (RACK's reordering timeout) there is no
    // sample and no cong_control (tcp_rack_reo_timeout, tcp_recovery.c:157-163).
    RateGen();
    if (m_rateSampleReady && m_congestionControl->HasCongControl())
    {
        m_congestionControl->CongControl(m_tcb,
                                         TcpRateOps::TcpRateConnection{},
                                         TcpRateOps::TcpRateSample{});
    }
}

} // namespace ns3
