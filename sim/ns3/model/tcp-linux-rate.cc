/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Linux 6.1's delivery-rate sampler and pacing clock; tcp-linux-rate.h states each rule with
 * its source.
 */

#include "tcp-linux-rate.h"

#include <algorithm>
#include <limits>

namespace ns3
{

namespace
{

constexpr uint64_t NSEC_PER_SEC = 1000000000;
/// Data segments sent before pacing starts: "Original sch_fq does not pace first 10 MSS"
/// (tcp_update_skb_after_send, tcp_output.c:1209-1213)
constexpr uint32_t UNPACED_SEGMENTS = 10;

/// tcp_stamp_us_delta, include/net/tcp.h: t1 - t0, at least 0
uint64_t
StampDeltaUs(uint64_t t1, uint64_t t0)
{
    return t1 > t0 ? t1 - t0 : 0;
}

/// after(seq1, seq2), include/net/tcp.h: sequence order with wrap
bool
After(uint32_t seq1, uint32_t seq2)
{
    return static_cast<int32_t>(seq2 - seq1) < 0;
}

} // namespace

void
TcpLinuxRateSampler::SkbSent(TcpLinuxTxRate& tx,
                             uint64_t sentUs,
                             uint32_t packetsOut,
                             uint32_t delivered)
{
    // tcp_rate.c:58-63: with nothing out, the send phase and the delivery clock start now
    if (packetsOut == 0)
    {
        m_firstTxMstampUs = sentUs;
        m_deliveredMstampUs = sentUs;
    }
    // :65-69
    tx.firstTxMstampUs = m_firstTxMstampUs;
    tx.deliveredMstampUs = m_deliveredMstampUs;
    tx.delivered = delivered;
    tx.isAppLimited = m_appLimited != 0;
    tx.pending = true;
}

void
TcpLinuxRateSampler::StartAck(uint32_t priorInFlight)
{
    // tcp_ack: rs = { .prior_delivered = 0 } (tcp_input.c:3889), prior_in_flight (:3943);
    // rtt_us is the ACK's (tcp_ack_update_rtt), -1 until it says
    m_rs = emusim_rate_sample{};
    m_rs.prior_in_flight = priorInFlight;
    m_rs.rtt_us = -1;
    m_chosen = false;
}

void
TcpLinuxRateSampler::SkbDelivered(TcpLinuxTxRate& tx,
                                  uint64_t sentUs,
                                  uint32_t endSeq,
                                  bool retransmitted,
                                  bool sacked)
{
    // tcp_rate.c:87-88: counted already (SACKed before)
    if (!tx.pending)
    {
        return;
    }
    // :91-107: the first segment, or one sent after the one chosen so far (tcp_skb_sent_after,
    // include/net/tcp.h:1205-1208)
    const bool sentAfter = sentUs > m_firstTxMstampUs ||
                           (sentUs == m_firstTxMstampUs && After(endSeq, m_rs.last_end_seq));
    if (m_rs.prior_delivered == 0 || sentAfter)
    {
        m_rs.prior_delivered_ce = 0; // no CE marks on these paths (tx.delivered_ce)
        m_rs.prior_delivered = tx.delivered;
        m_rs.prior_mstamp = tx.deliveredMstampUs;
        m_rs.is_app_limited = tx.isAppLimited;
        m_rs.is_retrans = retransmitted;
        m_rs.last_end_seq = endSeq;
        m_firstTxMstampUs = sentUs;
        m_rs.interval_us = static_cast<long>(StampDeltaUs(m_firstTxMstampUs, tx.firstTxMstampUs));
        m_chosen = true;
    }
    // :112-113: a SACKed segment is not counted again at its cumulative ACK
    if (sacked)
    {
        tx.pending = false;
    }
}

void
TcpLinuxRateSampler::Gen(uint32_t delivered,
                         uint32_t newlyDelivered,
                         uint32_t newlyLost,
                         uint64_t nowUs,
                         uint32_t minRttUs)
{
    // tcp_rate.c:124-125: the bubble is acknowledged and gone
    if (m_appLimited != 0 && After(delivered, m_appLimited))
    {
        m_appLimited = 0;
    }
    // :131-135
    if (newlyDelivered != 0)
    {
        m_deliveredMstampUs = nowUs;
    }
    m_rs.acked_sacked = newlyDelivered;
    m_rs.losses = static_cast<int>(newlyLost);
    // :141-145: no segment with timing information (SACK reneging is not modelled)
    if (!m_chosen)
    {
        m_rs.delivered = -1;
        m_rs.interval_us = -1;
        return;
    }
    // :146-150 (delivered_ce: no CE marks)
    m_rs.delivered = static_cast<int32_t>(delivered - m_rs.prior_delivered);
    m_rs.delivered_ce = 0;
    // :157-164: the longer of the send and the ACK phase
    const auto sndUs = static_cast<uint32_t>(m_rs.interval_us);
    const auto ackUs = static_cast<uint32_t>(StampDeltaUs(nowUs, m_rs.prior_mstamp));
    m_rs.interval_us = std::max(sndUs, ackUs);
    m_rs.snd_interval_us = sndUs;
    m_rs.rcv_interval_us = ackUs;
    // :173-181: shorter than min_rtt is no sample
    if (m_rs.interval_us < static_cast<long>(minRttUs))
    {
        m_rs.interval_us = -1;
    }
    // (:183-190 keep the best sample for tcp_info only: not modelled)
}

void
TcpLinuxRateSampler::CheckAppLimited(bool gap, uint32_t delivered, uint32_t inFlight)
{
    // tcp_rate.c:198-207
    if (gap)
    {
        const uint32_t bubble = delivered + inFlight;
        m_appLimited = bubble != 0 ? bubble : 1;
    }
}

const emusim_rate_sample&
TcpLinuxRateSampler::GetSample() const
{
    return m_rs;
}

emusim_rate_sample&
TcpLinuxRateSampler::Sample()
{
    return m_rs;
}

uint32_t
TcpLinuxRateSampler::GetAppLimited() const
{
    return m_appLimited;
}

void
TcpLinuxRateSampler::SetAppLimited(uint32_t appLimited)
{
    m_appLimited = appLimited;
}

uint64_t
TcpLinuxRateSampler::GetDeliveredMstampUs() const
{
    return m_deliveredMstampUs;
}

uint64_t
TcpLinuxRateSampler::GetFirstTxMstampUs() const
{
    return m_firstTxMstampUs;
}

uint64_t
TcpLinuxPacingClock::PacketStarts(uint64_t nowNs)
{
    // __tcp_transmit_skb, tcp_output.c:1257-1258
    const uint64_t prior = m_wstampNs;
    m_wstampNs = std::max(m_wstampNs, nowNs);
    m_creditNs = m_wstampNs - prior;
    m_packetBytes = 0;
    m_packetAdvanceNs = 0;
    return m_wstampNs;
}

void
TcpLinuxPacingClock::SegmentSent(uint32_t bytes, bool paces, uint64_t rateBps, uint32_t dataSegsOut)
{
    m_packetBytes += bytes;
    // tcp_update_skb_after_send, tcp_output.c:1206-1220, for the packet's length so far
    if (!paces || rateBps == 0 || rateBps == std::numeric_limits<uint64_t>::max() ||
        dataSegsOut < UNPACED_SEGMENTS)
    {
        return;
    }
    uint64_t lenNs = m_packetBytes * NSEC_PER_SEC / rateBps;
    lenNs -= std::min(lenNs / 2, m_creditNs);
    m_wstampNs += lenNs - m_packetAdvanceNs;
    m_packetAdvanceNs = lenNs;
}

bool
TcpLinuxPacingClock::Holds(uint64_t nowNs) const
{
    // tcp_pacing_check, tcp_output.c:2493
    return m_wstampNs > nowNs;
}

uint64_t
TcpLinuxPacingClock::GetWstampNs() const
{
    return m_wstampNs;
}

} // namespace ns3
