/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Linux 6.1's delivery-rate sampler (net/ipv4/tcp_rate.c) and its pacing clock (the earliest
 * departure time, tcp_wstamp_ns: net/ipv4/tcp_output.c), written here from Debian's
 * linux-source-6.1 (6.1.192) with file:line at each rule, for the congestion controls that
 * replace the window logic with cong_control (tcp_bbr.c). TcpLinuxSocket keeps one of each;
 * docs/linux-cc.md, "cong_control: the rate sampler and the pacing clock".
 */

#ifndef EMUSIM_TCP_LINUX_RATE_H
#define EMUSIM_TCP_LINUX_RATE_H

#include "../linux/linux-cc.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief What tcp_rate_skb_sent keeps in a segment when it is sent (TCP_SKB_CB(skb)->tx,
 * include/net/tcp.h:918-931), for the rate sample of the ACK that delivers it.
 */
struct TcpLinuxTxRate
{
    uint64_t firstTxMstampUs{0};   //!< tx.first_tx_mstamp: start of the send phase, µs
    uint64_t deliveredMstampUs{0}; //!< tx.delivered_mstamp: delivered_mstamp at the send, µs
    uint32_t delivered{0};         //!< tx.delivered: tp->delivered at the send
    bool isAppLimited{false};      //!< tx.is_app_limited
    /// tx.delivered_mstamp != 0: not yet counted by a sample (tcp_rate_skb_delivered clears it
    /// when the segment is SACKed, so that its cumulative ACK does not count it again). Kept
    /// apart because the simulator's clock, unlike the kernel's, starts at 0.
    bool pending{false};
};

/**
 * @brief Linux 6.1's delivery-rate estimator, net/ipv4/tcp_rate.c, per connection.
 *
 * - **A send** (tcp_rate_skb_sent, :40-70): with nothing out (packets_out 0, before this
 *   segment counts), the send phase and delivered_mstamp restart at the send's time; the
 *   segment keeps first_tx_mstamp, delivered_mstamp, delivered and whether the connection is
 *   application-limited (tp->app_limited != 0).
 * - **Each segment an ACK newly delivers** (tcp_rate_skb_delivered, :80-114; called for SACKed
 *   segments by tcp_sacktag_one and tcp_shifted_skb, tcp_input.c:1462, 1753, then for
 *   cumulatively acknowledged ones by tcp_clean_rtx_queue, :3385): the first one, and any
 *   sent after the one chosen so far (tcp_skb_sent_after: a later send time, or the same µs
 *   and a later end sequence, include/net/tcp.h:1205-1208), gives the sample's
 *   prior_delivered, prior_mstamp, is_app_limited, is_retrans, last_end_seq; the send phase
 *   is from that segment's first_tx_mstamp to its send, which becomes the connection's
 *   first_tx_mstamp. A SACKed segment is then marked counted.
 * - **The sample** (tcp_rate_gen, :117-191, at the end of tcp_ack, tcp_input.c:4030-4033):
 *   app_limited is cleared once delivered has passed it; delivered_mstamp is now if the ACK
 *   delivered anything; acked_sacked and losses are the ACK's; without a chosen segment
 *   delivered and interval_us are -1; else delivered = tp->delivered - prior_delivered and
 *   interval_us = max(send phase, now - prior_mstamp), or -1 if that is below min_rtt.
 * - **Application-limited** (tcp_rate_check_app_limited, :194-208, on every application
 *   write, net/ipv4/tcp.c:1268): less than a segment unsent, nothing of the socket's in the
 *   host's queues, the window not full and every lost segment retransmitted: app_limited =
 *   delivered + packets in flight, or 1. It starts at ~0U (tcp_init_sock, net/ipv4/tcp.c:438),
 *   so the first flight's samples are application-limited.
 */
class TcpLinuxRateSampler
{
  public:
    /**
     * @brief tcp_rate_skb_sent: a data segment (or a retransmission) goes out.
     * @param tx the segment's rate record
     * @param sentUs its send time (the skb's timestamp), µs
     * @param packetsOut segments out before it (tp->packets_out; a retransmission counts)
     * @param delivered tp->delivered now
     */
    void SkbSent(TcpLinuxTxRate& tx, uint64_t sentUs, uint32_t packetsOut, uint32_t delivered);

    /**
     * @brief Start the sample of an ACK (struct rate_sample rs = { .prior_delivered = 0 } and
     * rs.prior_in_flight, tcp_ack, tcp_input.c:3889, 3943).
     * @param priorInFlight tcp_packets_in_flight before the ACK is processed
     */
    void StartAck(uint32_t priorInFlight);

    /**
     * @brief tcp_rate_skb_delivered: a segment the ACK newly delivers.
     * @param tx the segment's rate record
     * @param sentUs its (last) send time, µs
     * @param endSeq its end sequence number
     * @param retransmitted whether it was retransmitted (TCPCB_RETRANS)
     * @param sacked whether it is SACKed by this ACK (TCPCB_SACKED_ACKED)
     */
    void SkbDelivered(TcpLinuxTxRate& tx,
                      uint64_t sentUs,
                      uint32_t endSeq,
                      bool retransmitted,
                      bool sacked);

    /**
     * @brief tcp_rate_gen: the ACK's sample.
     * @param delivered tp->delivered after the ACK
     * @param newlyDelivered segments the ACK delivered (tcp_newly_delivered)
     * @param newlyLost segments marked lost while it was processed (tp->lost's growth)
     * @param nowUs tcp_mstamp, µs
     * @param minRttUs tcp_min_rtt, ~0U before any sample
     */
    void Gen(uint32_t delivered,
             uint32_t newlyDelivered,
             uint32_t newlyLost,
             uint64_t nowUs,
             uint32_t minRttUs);

    /**
     * @brief tcp_rate_check_app_limited, with its four conditions evaluated by the socket.
     * @param gap whether all four hold (less than a segment unsent, the host's queues empty,
     * cwnd not full, lost_out <= retrans_out)
     * @param delivered tp->delivered
     * @param inFlight tcp_packets_in_flight
     */
    void CheckAppLimited(bool gap, uint32_t delivered, uint32_t inFlight);

    /// @return the sample built by the last StartAck, SkbDelivered and Gen
    const emusim_rate_sample& GetSample() const;
    /// @return the sample, to fill in what tcp_ack adds (rtt_us, is_ack_delayed)
    emusim_rate_sample& Sample();
    /// @return tp->app_limited
    uint32_t GetAppLimited() const;
    /**
     * @brief tp->app_limited as a congestion control left it (bbr in PROBE_RTT).
     * @param appLimited the value
     */
    void SetAppLimited(uint32_t appLimited);
    /// @return tp->delivered_mstamp, µs
    uint64_t GetDeliveredMstampUs() const;
    /// @return tp->first_tx_mstamp, µs
    uint64_t GetFirstTxMstampUs() const;

  private:
    uint64_t m_firstTxMstampUs{0};   //!< tp->first_tx_mstamp
    uint64_t m_deliveredMstampUs{0}; //!< tp->delivered_mstamp
    uint32_t m_appLimited{~0U};      //!< tp->app_limited (tcp_init_sock: ~0U)
    emusim_rate_sample m_rs{};       //!< the ACK's sample
    bool m_chosen{false};            //!< a segment gave the sample its prior_* (rs.prior_mstamp)
};

/**
 * @brief Linux 6.1's earliest departure time, tcp_wstamp_ns, and internal pacing.
 *
 * - Every packet leaves at tcp_wstamp_ns = max(tcp_wstamp_ns, now), which is also its
 *   timestamp (skb_mstamp_ns, the RTT and rate samples' send time) (__tcp_transmit_skb,
 *   tcp_output.c:1257-1259).
 * - After it, when the socket paces (sk_pacing_status != SK_PACING_NONE), the rate is neither
 *   0 nor ~0UL and at least 10 data segments have gone out (data_segs_out, counted before:
 *   :1383-1384), tcp_wstamp_ns advances by the packet's length at sk_pacing_rate, less what
 *   the packet was late (the credit tcp_wstamp_ns - prior_wstamp, at most half its length:
 *   "OS jitter") (tcp_update_skb_after_send, :1202-1222).
 * - With SK_PACING_NEEDED (no fq qdisc: the module asked, bbr_init's cmpxchg) tcp_write_xmit
 *   and tcp_xmit_retransmit_queue send nothing while tcp_wstamp_ns is ahead of the clock and
 *   arm the pacing timer for it (tcp_pacing_check, :2486-2502; tcp_pace_kick, :1190-1199,
 *   calls tcp_tsq_handler, which sends again; tcp_needs_internal_pacing,
 * include/net/tcp.h:1349-1352).
 *
 * A packet is one skb: several segments when GSO cuts new data (TcpLinuxSocket::GsoPush), its
 * length their sum. The socket hands its segments one by one: PacketStarts at the first,
 * SegmentSent after each, and the clock advances by the packet's length so far, so that after
 * the last it has advanced as Linux's after the whole skb.
 */
class TcpLinuxPacingClock
{
  public:
    /**
     * @brief A packet starts (__tcp_transmit_skb).
     * @param nowNs the clock, ns
     * @return its departure time, tcp_wstamp_ns, ns
     */
    uint64_t PacketStarts(uint64_t nowNs);

    /**
     * @brief One of its segments went out (tcp_update_skb_after_send for the packet so far).
     * @param bytes the segment's payload
     * @param paces sk_pacing_status != SK_PACING_NONE
     * @param rateBps sk_pacing_rate, bytes per second
     * @param dataSegsOut tp->data_segs_out, this segment counted
     */
    void SegmentSent(uint32_t bytes, bool paces, uint64_t rateBps, uint32_t dataSegsOut);

    /**
     * @brief tcp_pacing_check's test.
     * @param nowNs the clock, ns
     * @return whether the next packet waits for tcp_wstamp_ns
     */
    bool Holds(uint64_t nowNs) const;

    /// @return tcp_wstamp_ns, ns
    uint64_t GetWstampNs() const;

  private:
    uint64_t m_wstampNs{0};        //!< tcp_wstamp_ns
    uint64_t m_creditNs{0};        //!< the packet's tcp_wstamp_ns - prior_wstamp
    uint64_t m_packetBytes{0};     //!< the packet's length so far
    uint64_t m_packetAdvanceNs{0}; //!< what the clock has advanced for it so far
};

} // namespace ns3

#endif // EMUSIM_TCP_LINUX_RATE_H
