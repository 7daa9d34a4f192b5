/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A TcpSocketBase that keeps what Linux 6.1's tcp_sock keeps for congestion control and
 * measures round trips and the retransmission timeout as Linux 6.1 does; written here from
 * Debian's linux-source-6.1 (6.1.192), file:line at each rule. docs/linux-cc.md.
 */

#ifndef EMUSIM_TCP_LINUX_SOCKET_H
#define EMUSIM_TCP_LINUX_SOCKET_H

#include "tcp-linux-congestion.h"
#include "tcp-linux-rate.h"
#include "tcp-linux-recovery.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-end-point.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-interface.h"
#include "ns3/queue-item.h"
#include "ns3/rtt-estimator.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/traced-callback.h"

#include <map>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * @ingroup tcp
 *
 * @brief Linux 6.1's round-trip estimator (tcp_rtt_estimator, tcp_set_rto): srtt and mdev
 * in µs, rttvar never below rto_min, the RTO rounded up to 250 Hz jiffies.
 *
 * ns-3's TcpSocketBase computes its RTO as estimate + max(granularity, 4 x variation), floored
 * at MinRto, whenever an ACK acknowledges new data (NewAck). This estimator reports
 * estimate = srtt and variation = (RTO - srtt) / 4, RTO = jiffies(srtt + rttvar) in µs, so
 * that ns-3's formula gives Linux's RTO exactly (rttvar >= rto_min > granularity).
 */
class TcpLinuxRttEstimator : public RttEstimator
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    TcpLinuxRttEstimator();

    /**
     * @brief Copy constructor.
     * @param other the estimator to copy
     */
    TcpLinuxRttEstimator(const TcpLinuxRttEstimator& other);

    /**
     * @brief An RTT sample with the connection's sequence numbers (tcp_rtt_estimator,
     * tcp_input.c:848-905; tcp_set_rto, :953-978).
     * @param rttUs the sample, µs
     * @param sndUna first unacknowledged sequence number
     * @param sndNxt next sequence number to send
     */
    void Sample(int64_t rttUs, uint32_t sndUna, uint32_t sndNxt);

    /**
     * @brief A sample without sequence numbers (mdev_max is then not renewed).
     * @param t the sample
     */
    void Measurement(Time t) override;

    Ptr<RttEstimator> Copy() const override;
    void Reset() override;

    /// @return smoothed RTT times 8, µs (tcp_sock's srtt_us)
    uint32_t GetSrttUsX8() const;
    /// @return the RTO without backoff, µs (jiffies)
    uint64_t GetRtoUs() const;

    /// The floor of rttvar, µs: rto_min, TCP_RTO_MIN = HZ/5 (include/net/tcp.h:144)
    static constexpr uint32_t RTO_MIN_US = 200000;
    /// Jiffy length at Debian's CONFIG_HZ=250, µs
    static constexpr uint32_t JIFFY_US = 4000;

  private:
    /// Expose srtt and the RTO through ns-3's estimate and variation (class comment).
    void Publish();

    uint32_t m_srttUs{0};    //!< smoothed RTT x 8, µs
    uint32_t m_mdevUs{0};    //!< mean deviation x 4, µs
    uint32_t m_mdevMaxUs{0}; //!< the largest mdev of the current window, µs
    uint32_t m_rttvarUs{0};  //!< the smoothed mdev_max, µs
    uint32_t m_rttSeq{0};    //!< snd_nxt when mdev_max was last renewed
};

/**
 * @ingroup tcp
 *
 * @brief TCP socket with the facts Linux 6.1's congestion control reads, and its RTT
 * measurement and retransmission timeout.
 *
 * What it changes in TcpSocketBase (everything else is ns-3's):
 *
 * - **RTT samples in µs from send times** (tcp_clean_rtx_queue, tcp_input.c:3316-3447;
 *   tcp_ack_update_rtt, :3165-3210). ns-3 takes them from the timestamp option, in whole
 *   milliseconds. Per ACK: seq_rtt from the lowest segment it newly acknowledges that was
 *   never retransmitted, ca_rtt from the highest; SACKed segments give sack_rtt and ca_rtt
 *   likewise; without a sample (Karn: only retransmitted data acknowledged) the timestamp echo
 *   in ms. The smoothed RTT, mdev, rttvar and the RTO are TcpLinuxRttEstimator's; the minimum
 *   RTT a windowed minimum of ca_rtt over 300 s (tcp_update_rtt_min, :3149-3163, the
 *   minmax tracker of lib/win_minmax.c taken from the source).
 * - **The handshake's RTT**: the SYN's round trip is the first sample (tcp_clean_rtx_queue's
 *   FLAG_SYN_ACKED on the client).
 * - **Facts for TcpLinuxCongestion** (TcpLinuxFacts): packets out, SACKed, lost,
 *   retransmitted, delivered (tcp_count_delivered), when delivered last grew, the ACK's
 *   in_flight sample (tcp_rate_skb_delivered's prior_delivered), the last data send in jiffies
 *   (tcp_event_data_sent), and whether the window was used: tcp_cwnd_validate's
 *   is_cwnd_limited, max_packets_out and cwnd_usage_seq (tcp_output.c:1878-1897) after each
 *   segment sent, with is_cwnd_limited = packets in flight >= cwnd (:2743).
 * - **Facts for TcpLinuxPrrRecovery** (TcpLinuxAckFacts): the ACK's delivered segments,
 *   whether it advanced snd_una, the segments it had marked lost (ns-3's scoreboard's lost count
 *   after the ACK against before it, less those the ACK acknowledged) and the packets in flight.
 * - **The receiver's ACKs** (ns-3: every DelAckCount-th segment, or after DelAckTimeout):
 *   - quick ACKs: the first data segment gives min(16, rcv_wnd / (2 rcv_mss)) credits
 *     (tcp_event_data_recv and tcp_incr_quickack, tcp_input.c:291-301, 794-830), as does data
 *     after a gap longer than the receiver's RTO; while credits last every segment is
 *     acknowledged at once (tcp_in_quickack_mode), each ACK sent spending one
 *     (tcp_dec_quickack_mode, include/net/tcp.h:364-377).
 *   - the receive window's growth: rcv_ssthresh starts at the initial window, min(the buffer's
 *     window rounded down to whole segments, 65535) (tcp_select_initial_window,
 *     tcp_output.c:205-245), and each in-order segment of 128 bytes or more raises it by
 *     max(2 rcv_mss, 2 len) while there is room and it is at most WindowGrowthLimit, giving a
 *     quick-ACK credit each time (tcp_grow_window and __tcp_grow_window, tcp_input.c:484-556).
 *     So the receiver acknowledges every segment until its window has grown, every second
 *     segment after. The advertised window is the free space, at most rcv_ssthresh
 *     (__tcp_select_window, tcp_output.c:3082-3083).
 *   - ACK on read: a full segment carrying PSH marks the ACK "pushed" (tcp_measure_rcv_mss,
 *     :227-262); when the application has read everything, a pending ACK goes out at once
 *     (__tcp_cleanup_rbuf, net/ipv4/tcp.c:1600-1617). The segment's own PSH counts
 *     (GsoPush sets it as Linux's sender does); PeerPushesEverySegment (off) takes every full
 *     segment as pushed, which acknowledges every segment.
 * - **PSH on every GSO packet** (GsoPush, off by default; on in Linux 6.1): Linux sends new data
 *   in packets of several segments that the device splits (GSO), and sets PSH on every packet
 *   of more than one segment, which the split leaves on its last segment
 *   (__tcp_transmit_skb, tcp_output.c:1287-1296; tcp_gso_segment, tcp_offload.c:205). A
 *   packet is as long as tcp_write_xmit makes it: at most half the window and no more than
 *   the window leaves (tcp_cwnd_test, tcp_output.c:2046-2066), at most tcp_tso_segs
 *   (tcp_tso_autosize, :1978-1993: sk_pacing_rate >> 10 bytes, plus 64 KiB >> (min_rtt_us >>
 *   9) while that shift is below 32, at most 64 KiB, at least tcp_min_tso_segs = 2
 *   segments), within the peer's window and the data there is (tcp_mss_split_point,
 *   :2012-2040; tcp_write_xmit, :2654-2708). Here the new segments one
 *   send of TcpSocketBase emits at one instant are cut into such packets, and the last
 *   segment of each packet of two or more carries PSH; a retransmission or a probe is a
 *   packet of its own (not modelled: retransmissions of several segments in one packet).
 *   With it, Linux's TSO deferral (tcp_tso_should_defer, tcp_output.c:2183-2293): outside
 *   Recovery and Loss, within 1 ms of the last send, new data waits for the next ACK when
 *   the room the windows leave is less than a full packet (tcp_tso_segs), less than the head
 *   skb of the write queue (64 KiB here), and less than a third of min(the peer's window,
 *   cwnd) (tcp_tso_win_divisor = 3), if the ACK of the oldest segment out is due within
 *   min(srtt / 2, 1 ms) of now; such a wait counts as cwnd-limited when the window is the
 *   tighter limit (tcp_write_xmit, :2743-2745). The receiver then acknowledges such a
 *   segment once it is read (above): in the emulation, one ACK more per loss episode than
 *   without (docs/variants.md, "Why: Linux's PSH on every GSO packet").
 * - **TCP small queues** (SmallQueues, off by default; Linux >= 3.6, always on): the socket
 *   sends no more while its packets waiting in the host (queue disc and device, until their
 *   transmission starts: the emulation's HTB hands them to the veth then, which orphans them)
 *   hold more than max(2 x the next packet's truesize, sk_pacing_rate >> 10) bytes, capped at
 *   tcp_limit_output_bytes = 1 MiB unless the socket paces, unless at most one segment is
 *   unacknowledged (tcp_small_queue_check, tcp_output.c:2528-2571; called by tcp_write_xmit,
 *   :2711, for new data and a probe's). A packet charges its truesize: 1280 bytes of
 *   fast-clone head (SKB_TRUESIZE of the kmalloc-1k head tcp_stream_alloc_skb takes for
 *   MAX_TCP_HEADER, net/ipv4/tcp.c:868-877) plus its payload, copied into a page fragment
 *   (skb_copy_to_page_nocache adds it). With GsoPush a GSO packet is one skb, as
 *   tcp_write_xmit checks it after tso_fragment: one head for all its segments, a limit of two
 *   such packets, and no check between its segments. sk_pacing_rate is tcp_update_pacing_rate's
 *   (tcp_input.c:916-946): mss x max(cwnd, packets_out) / srtt x 200 % below half ssthresh,
 *   120 % above; ns-3's own rate when ns-3 paces (TcpBbr). When a charged packet leaves
 *   (PhyTxBegin, or a drop in the queue disc or device) and the socket was held back, it sends
 *   again at once (tcp_wfree's tasklet, tcp_tsq_handler, tcp_tsq_write: tcp_output.c:1011-1045,
 *   1140-1180). Not modelled: a retransmission's doubled limit (tcp_xmit_retransmit_queue, :3419;
 *   ns-3 retransmits through the same window), a pure ACK's charge (a bulk sender sends
 *   none), and a GSO packet's release as one (each segment is released as it leaves).
 * - **RACK** (Rack, off by default; tcp_recovery.c, Linux's default tcp_recovery = 1): loss
 *   is detected by send time instead of by counting duplicate ACKs.
 *   - Send order: Linux orders two sends of the same microsecond by their end sequence
 *     (tcp_skb_sent_after, include/net/tcp.h:1205-1208), right when they come from one
 *     tcp_write_xmit call. In the simulator a paced new segment and a retransmission sent on an
 *     ACK fall in the same nanosecond whenever the pacing rate equals the bottleneck's (the ACKs
 *     come at the data's serialisation interval): a retransmission sent after a new segment of
 *     the same instant would count as sent before it and be taken for lost at that segment's
 *     SACK. On a real host the two come microseconds apart; here the tie goes by the order in
 *     which the socket sent them.
 *   - Each segment newly delivered (SACKed, or cumulatively acknowledged and neither SACKed
 *     before nor a spurious retransmission by its timestamp echo) advances RACK: rtt_us is its
 *     round trip, and mstamp / end_seq the latest send among them; a retransmission delivered
 *     sooner than min_rtt is ambiguous and skipped (tcp_rack_advance, tcp_recovery.c:118-144;
 *     called from tcp_sacktag_one, tcp_input.c:1374-1379, SACKs first, then
 *     tcp_clean_rtx_queue, :3373-3378).
 *   - On an ACK that Linux calls dubious (a duplicate, SACK information, or any state but
 *     Open: tcp_ack_is_dubious, tcp_fastretrans_alert) after RACK advanced, every segment sent
 *     before RACK's latest that is not SACKed, and not marked lost without having been
 *     retransmitted since, is lost once rtt_us + reo_wnd has passed since its send
 *     (tcp_rack_detect_loss, :58-93; marking as tcp_mark_skb_lost, tcp_input.c:1105-1128: a
 *     retransmission lost again is to be sent again). reo_wnd is 0 in Recovery and Loss, and
 *     with reordering (3) segments SACKed; min_rtt / 4 (at most srtt) otherwise
 *     (tcp_rack_reo_wnd, :5-30). The paths here do not reorder, so reord_seen stays 0 and
 *     reo_wnd_steps 1 (D-SACK's widening, tcp_rack_update_reo_wnd, needs reord_seen: not
 *     modelled).
 *   - The longest wait left arms the reordering timer, rounded up to jiffies after adding
 *     TCP_TIMEOUT_MIN_US (2 ms) and firing on the tick (:106-110); on expiry the expired
 *     segments are marked lost, recovery entered unless the connection is in it, lost
 *     segments retransmitted, and the RTO re-armed if none is pending (tcp_rack_reo_timeout,
 *     :149-167). An ACK that acknowledges data without arming it cancels it (Linux's RTO takes
 *     the timer slot back: tcp_set_xmit_timer, tcp_input.c:3267-3271, 4024-4025); the RTO
 *     cancels it. Linux shares one timer between the two; here the RTO stays as ns-3 arms it.
 *   - Recovery starts when anything is marked lost (tcp_time_to_recover's "loss is proven",
 *     tcp_input.c:2342-2355), from Open or Disorder, and from Loss when a retransmission is
 *     lost again (:3100-3106). ns-3's own triggers, the third duplicate ACK and RFC 6675's
 *     three SACKed segments above a hole, are off (ReTxThreshold is set out of reach), as
 *     Linux's are with RACK (tcp_time_to_recover, tcp_fastretrans_alert's do_lost).
 *   - Only what RACK marks lost is retransmitted (tcp_xmit_retransmit_queue): ns-3's
 *     retransmission of "the next segment" on a partial ACK in recovery and NextSeg's rule 3
 *     (any segment neither SACKed nor retransmitted, in recovery with nothing new to send) are
 *     off for this socket's buffer (TcpLostOnlyRetransmission, tcp-tx-buffer-marks.h). Entering
 *     recovery, ns-3 marks the head lost and retransmits it whatever its marks
 *     (TcpSocketBase::EnterRecovery); Linux marks nothing and sends what
 *     tcp_xmit_retransmit_queue finds, then new data (RecoveryFirstSend). At an ACK that ends
 *     one recovery and starts the next, the head is often a retransmission still in flight,
 *     which ns-3 sent again within a round trip.
 * - **Tail loss probes** (Tlp, off by default; tcp_early_retrans = 3): in Open (or CWR), with
 *   data outstanding, sending new data or an ACK that acknowledges data arms the probe timer
 *   in the RTO's place: 2 srtt, plus rto_min with one segment out (a delayed ACK) or 2 ms with
 *   more, in jiffies, or the RTO's own expiry if that is sooner (one second before any RTT
 *   sample) (tcp_schedule_loss_probe, tcp_output.c:2759-2811; called from tcp_write_xmit,
 *   :2747-2754, and tcp_set_xmit_timer, tcp_input.c:3267-3271). On expiry, unless a probe is
 *   outstanding, one new segment goes out whatever the window, if the peer's window has room,
 *   else the last segment is retransmitted; the probe's snd_nxt is kept and the RTO re-armed
 *   from now (tcp_send_loss_probe, :2830-2888). An ACK at or beyond it ends the episode; if the
 *   probe was a retransmission and the ACK goes beyond it, a loss was repaired by the probe:
 *   the window is reduced once, as in CWR (tcp_process_tlp_ack, tcp_input.c:3798-3826; without
 *   D-SACK an ACK of exactly the probe's snd_nxt that is a pure duplicate ends it without).
 *   The reordering timer, recovery and the RTO take the probe timer's place, as they take
 *   Linux's one timer slot.
 * - **Undo of a spurious timeout** (Undo, off by default): a timeout that starts a loss episode
 *   keeps the threshold it replaced (prior_ssthresh = tcp_current_ssthresh) and sets the undo
 *   marker (tcp_enter_loss and tcp_init_undo, tcp_input.c:2097-2110, 2156-2177); the first
 *   retransmission keeps its timestamp (retrans_stamp, tcp_retransmit_skb, tcp_output.c:3353-3354;
 *   not a probe's). In Loss, an ACK that advances snd_una while echoing a timestamp older than
 *   that proves the data was only delayed (tcp_packet_delayed, tcp_input.c:2424-2429): the
 *   window comes back through the module's undo_cwnd, the threshold to the kept one if higher,
 *   no segment stays marked lost and the connection is Open again (tcp_try_undo_loss and
 *   tcp_undo_cwnd_reduction, :2541-2568, 2636-2660; tcp_process_loss, :2905-2913). The stamp is
 *   cleared in Open and Disorder once nothing retransmitted is outstanding (tcp_try_to_open,
 *   :2753-2760). A recovery sets up undo as well (tcp_enter_recovery, :2876-2900, seen on the
 *   socket's own CongState trace, whoever starts it), with the same proofs: at its end an ACK
 *   whose echo is older than the first retransmission, or D-SACKs for every retransmission,
 *   undo it (tcp_try_undo_recovery, :2589-2617, TCPFULLUNDO). tcp_try_undo_partial (a delayed
 *   original filling the hole mid-recovery) is not modelled: the emulation's counters show
 *   it at 0 on the lossy cells. A timeout counts as a new episode as tcp_enter_loss does
 *   (:2166-2168) with D-SACK on; without, as TcpSocketBase recomputes ssthresh, which the
 *   results of linux-6.1-rack were made with.
 * - **D-SACK** (Dsack, off by default; tcp_dsack = 1, RFC 2883):
 *   - as a receiver (the accepting socket, which sees each segment before TcpSocketBase's
 *     ForwardUp): data wholly below rcv_nxt is reported in a D-SACK block, as is the part below
 *     rcv_nxt of a segment straddling it, or the part of an out-of-order segment already held
 *     (tcp_data_queue, tcp_input.c:5215-5245; tcp_data_queue_ofo, :4995-5010). The block goes
 *     first in the next ACK's SACK option, once (tcp_options_write, tcp_output.c:659-676); new
 *     data forgets a block not yet sent (:5169).
 *   - quick ACKs after old data, D-SACK or not: tcp_enter_quickack_mode with TCP_MAX_QUICKACKS
 *     (:5227-5231).
 *   - as a sender: the ACK's first block is a D-SACK if it starts below the ACK or lies inside
 *     the second block (tcp_check_dsack, :1260-1297); it is dubious if longer than any window
 *     offered or if more segments were D-SACKed than ever retransmitted (tcp_dsack_seen,
 *     :1009-1045). A good one counts as delivered (sack_delivered), and takes a retransmission
 *     off undo_retrans, the retransmissions of the episode not yet proven needless
 *     (tcp_retransmit_skb counts them up, :3356-3358 of tcp_output.c; tcp_sacktag_one and the
 *     "dumb counting" of forgotten data count them down, :1290-1294, 1365-1369). At 0, in
 *     Open, Disorder or Recovery, the reduction is undone (tcp_try_undo_dsack, :2620-2633,
 *     TCPDSACKUNDO), even after the recovery ended: the undo marker stays until an undo or
 *     the next episode. A D-SACK of a probe ends its episode without a reduction
 *     (FLAG_DSACK_TLP, :1021-1024, 3808-3810). The D-SACK block is taken out of the header
 *     before TcpSocketBase's scoreboard sees it: that would mark the head SACKed.
 * - **CWR entered by the congestion control** (tcp_enter_cwr, tcp_input.c:2726-2736; tcp_cdg's
 *   backoff): from Open or Disorder, when the module's hook returns (TcpLinuxCwr), the
 *   connection is in CWR with high_seq = snd_nxt, no probe episode (tlp_high_seq = 0), PRR's
 *   counts from zero and the window kept as prior_cwnd (tcp_init_cwnd_reduction, :2669-2681),
 *   nothing to undo (undo_marker = 0); prior_ssthresh is cleared whatever the state. The
 *   window is not reduced on that ACK (cong_avoid is tcp_cong_control's other branch). On each
 *   ACK after (tcp_ack, :4001-4034): the module's pkts_acked; the episode ends once snd_una is
 *   beyond high_seq, the window set to ssthresh, COMPLETE_CWR then set_state(Open)
 *   (tcp_end_cwnd_reduction, :2709-2723; tcp_fastretrans_alert, :3061-3070); anything marked
 *   lost starts recovery, from CWR without a new reduction (tcp_enter_recovery, :2894-2899),
 *   else the state stays CWR or goes to Open or Disorder (tcp_try_to_open, :2753-2768); then
 *   in CWR or Recovery PRR reduces the window by the ACK's deliveries (tcp_cwnd_reduction,
 *   TcpLinuxPrrRecovery), out of them an ACK of data grows it (tcp_cong_control, :3573-3588).
 *   TcpSocketBase ends CWR itself before PktsAcked and without set_state (its ECN path): this
 *   socket holds m_recover at the ACK's number while TcpSocketBase reads it, and ends it after.
 * - **ECN** (UseEcn; dctcp): an ACK with ECE (tcp_ecn_rcv_ecn_echo, tcp_input.c:400-405)
 *   counts what it delivers in delivered_ce (tcp_count_delivered, :413-419), gives the module's
 *   in_ack_event CA_ACK_ECE (:3835-3841) and, from Open or Disorder, enters CWR as above but
 *   with the window reduced on that ACK (tcp_try_to_open before tcp_cong_control, :2753-2763,
 *   3583-3585; TcpLinuxCongestion::EnterCwrOnEcnEcho); TcpSocketBase does not see the ECE. The
 *   next new data carries CWR (tcp_ecn_queue_cwr, tcp_ecn_send). The receiver's ECE is the
 *   module's TCP_ECN_DEMAND_CWR where the module needs ECN (dctcp's per-segment echo,
 *   tcp_dctcp.h), with the ACK it asks for at once (ICSK_ACK_NOW) and the delayed one it sends
 *   first (__tcp_send_ack); a data segment with CWR is acknowledged at once (:331-343).
 * - **F-RTO** (Frto, off by default; tcp_frto = 2, RFC 5682 with SACK): a timeout outside fast
 *   recovery starts it, with high_seq at snd_nxt (tcp_enter_loss, tcp_input.c:2185-2195). In
 *   Loss, after the timestamp's undo (above) is tried (tcp_process_loss, :2905-2960): an ACK
 *   or SACK of data below high_seq that was never retransmitted proves the timeout spurious and
 *   undoes it (step 3.b); once new data went out, a SACK or a duplicate proves the loss real
 *   (3.a); else the first ACK that advances snd_una below high_seq moves high_seq to snd_nxt and
 *   sends new data instead of retransmissions, if there is some the peer's window takes (2.b;
 *   tcp_xmit_recovery, :3851-3866). ns-3 then sends what room is left in the window from its
 *   lost segments, where Linux sends nothing more on that ACK.
 * - **The delivery-rate sampler** (TcpLinuxRateSampler, tcp_rate.c) for a congestion control
 *   with cong_control: each segment keeps its rate record when it is sent, each ACK's newly
 *   delivered segments (SACKed ones first, as tcp_sacktag_write_queue runs before
 *   tcp_clean_rtx_queue) choose the sample's start, and the sample is made once the ACK's
 *   losses are marked (tcp_rate_gen). Every application write checks for a gap in the send
 *   (tcp_rate_check_app_limited, net/ipv4/tcp.c:1268); the host's queues count as empty
 *   unless TCP small queues follow them. The SYN counts as delivered (tcp_count_delivered in
 *   tcp_clean_rtx_queue, tcp_input.c:3372-3375; :6689 on the listener), so tp->delivered is
 *   the kernel's. rs.losses is tp->lost's growth over the ACK: segments RACK marks lost, a
 *   retransmission lost again included (tcp_mark_skb_lost, tcp_notify_skb_loss_event,
 *   tcp_input.c:1100-1128); without RACK, the segments ns-3's scoreboard newly marks.
 * - **cong_control** (tcp_cong_control, tcp_input.c:3573-3581): the module's own window and
 *   pacing rate replace cong_avoid and PRR on every ACK that finds data out (:3997-3998),
 *   after the ACK's losses are found and its state changed (tcp_fastretrans_alert) and before
 *   what tcp_xmit_recovery sends (:4030-4035). TcpSocketBase calls it after ProcessAck; on an
 *   ACK that starts a recovery, TcpSocketBase::EnterRecovery sends its first segment inside
 *   ProcessAck, so the socket calls it there, before that send. At a recovery's end
 *   tcp_end_cwnd_reduction leaves such a module's window alone (:2709-2714) where
 *   TcpSocketBase sets cwnd to ssthresh, and a probe that repaired a loss reduces nothing
 *   (tcp_process_tlp_ack, :3811-3817).
 * - **The pacing clock** (TcpLinuxPacingClock): every packet's departure time and timestamp is
 *   tcp_wstamp_ns, advanced after it by its length at sk_pacing_rate when the module paces
 *   (__tcp_transmit_skb, tcp_update_skb_after_send, tcp_output.c:1202-1259); the RTT, RACK and
 *   rate samples take that timestamp. With SK_PACING_NEEDED (the module's; the emulation has
 *   no fq qdisc) no packet leaves while the clock is ahead: the window is 0 and a timer at
 *   tcp_wstamp_ns sends again (tcp_pacing_check, tcp_pace_kick); the segments of one GSO
 *   packet leave together, and the clock advances by the packet. A timeout's retransmission is
 *   not paced (tcp_retransmit_timer calls tcp_retransmit_skb directly), a probe of new data is
 *   (tcp_write_xmit). TcpSocketBase::EnterRecovery's first retransmission goes at once where
 *   Linux's tcp_xmit_retransmit_queue waits for the clock (:3386-3387): at most one packet's
 *   time early. The TSO deferral's "within 1 ms of the last send" reads the clock
 *   (tcp_tso_should_defer, :2204); TCP small queues' limit is not capped while the module
 *   paces (tcp_small_queue_check, :2535-2537); a module's min_tso_segs sizes GSO packets
 *   (tcp_tso_segs, :2003-2005).
 */
class TcpLinuxSocket : public TcpSocketBase,
                       public TcpLinuxFacts,
                       public TcpLinuxAckFacts,
                       public TcpLinuxCwr
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * @brief This object's TypeId (so that its own attributes are applied).
     * @return the TypeId
     */
    TypeId GetInstanceTypeId() const override;

    TcpLinuxSocket();

    /**
     * @brief Copy constructor (for Fork).
     * @param sock the socket to copy
     */
    TcpLinuxSocket(const TcpLinuxSocket& sock);

    /**
     * @brief The jiffy on whose tick Linux 6.1's timer wheel runs a timer armed `jiffies`
     * ahead at wheel clock `clk` (calc_wheel_index: the expiry rounded up to the level's
     * granularity, plus one).
     * @param clk the wheel's clock (jiffies) when the timer is armed
     * @param jiffies the timeout, jiffies
     * @return the jiffy at which the timer runs
     */
    static uint64_t WheelBucketJiffy(uint64_t clk, uint64_t jiffies);

    ~TcpLinuxSocket() override;

    void SetRtt(Ptr<RttEstimator> rtt) override;

    void FillLinuxState(emusim_tcp_state& state) const override;
    void LastAckSample(int32_t& rttUs, uint32_t& inFlightBytes) const override;
    uint32_t LastAckDelivered() const override;
    bool AckRestartsRecovery() const override;
    bool TakeRateSample(emusim_rate_sample& rs) override;
    void SetAppLimited(uint32_t appLimited) override;
    void LastAckForRecovery(uint32_t& newlyAckedSacked,
                            uint32_t& newlyLost,
                            bool& sndUnaAdvanced,
                            uint32_t& packetsInFlight) const override;
    bool AckTakenInCwr() const override;
    void EnterLinuxCwr(uint32_t priorCwnd) override;
    void CwrReductionOnAck() override;
    bool LastAckEce() const override;
    void AckNow() override;
    bool DelayedAckPending() const override;

    /// @return the Linux algorithm the connection runs now, "" without TcpLinuxCongestion
    std::string GetLinuxAlgorithm() const;

    /// @return segments delivered (acknowledged or SACKed) so far
    uint32_t GetDelivered() const;
    /// @return the RTT estimator's smoothed RTT times 8, µs
    uint32_t GetSrttUsX8() const;
    /// @return segments RACK marked lost, retransmissions lost again included
    uint32_t GetRackMarkedLost() const;
    /// @return times the reordering timer fired
    uint32_t GetRackReoTimeouts() const;
    /// @return recoveries whose first send was not ns-3's retransmission of the head
    uint32_t GetRecoveryEntriesRedirected() const;
    /// @return retransmissions RACK found lost again (LINUX_MIB_TCPLOSTRETRANSMIT)
    uint32_t GetRackLostRetransmits() const;
    /// @return tail loss probes sent
    uint32_t GetTlpProbes() const;
    /// @return probes that repaired a loss (the window reduced: LINUX_MIB_TCPLOSSPROBERECOVERY)
    uint32_t GetTlpRecoveries() const;
    /// @return timeouts undone (LINUX_MIB_TCPLOSSUNDO)
    uint32_t GetLossUndos() const;
    /// @return timeouts F-RTO found spurious (LINUX_MIB_TCPSPURIOUSRTOS)
    uint32_t GetSpuriousRtos() const;
    /// @return retransmission timer expiries with data outstanding (Linux's TCPTimeouts,
    /// tcp_timer.c:546: every expiry, a backed-off one too; metrics.rto_timeouts counts only
    /// the entries into Loss)
    uint32_t GetRtoExpiries() const;
    /// @return D-SACK blocks received and taken (LINUX_MIB_TCPDSACKRECV + TCPDSACKOFORECV)
    uint32_t GetDsacksReceived() const;
    /// @return reductions undone because D-SACKs covered every retransmission (TCPDSACKUNDO)
    uint32_t GetDsackUndos() const;
    /// @return fast recoveries undone at their end (LINUX_MIB_TCPFULLUNDO)
    uint32_t GetFullUndos() const;
    /// @return D-SACK blocks this socket sent as a receiver (TCPDSACKOLDSENT + TCPDSACKOFOSENT)
    uint32_t GetDsacksSent() const;
    /**
     * TracedCallback signature of ProbeTimer: the tail loss probe's timer expired.
     * @param una the first unacknowledged sequence number
     * @param srttS the smoothed RTT then, s
     */
    typedef void (*ProbeTimerCallback)(SequenceNumber32 una, double srttS);

    /// @return times TCP small queues held the socket back (TSQ_THROTTLED set)
    uint32_t GetTsqThrottles() const;
    /**
     * @brief tcp_small_queue_check's limit.
     * @return bytes of truesize the host may hold of this socket's packets
     */
    uint64_t GetTsqLimitBytes() const;
    /// @return sk_pacing_rate as tcp_update_pacing_rate sets it (or ns-3's when it paces), B/s
    uint64_t PacingRateBps() const;
    /**
     * @brief tcp_write_xmit's next packet: how many segments it takes (class comment, "PSH on
     * every GSO packet").
     * @param seq the packet's first sequence number
     * @return its segments, at least 1
     */
    uint32_t GsoSegments(SequenceNumber32 seq) const;
    /// @return tcp_tso_autosize: the segments of a full packet (tcp_tso_segs)
    uint32_t TsoAutosizeSegments() const;
    /// @return tcp_tso_should_defer: whether new data waits for the next ACK (GsoPush)
    bool TsoDefers() const;
    /// @return times new data waited so
    uint32_t GetTsoDeferrals() const;
    /// @return data segments this socket sent with PSH (GsoPush)
    uint32_t GetPushedSegments() const;
    /// @return bytes of truesize of this socket's packets the host holds now (sk_wmem_alloc - 1)
    uint64_t GetTsqChargedBytes() const;
    /**
     * @brief An skb's truesize for a segment (class comment, "TCP small queues").
     * @param payloadBytes the segment's payload
     * @return bytes
     */
    static uint32_t SkbTruesize(uint32_t payloadBytes);

    /// fast-clone head of a TCP skb: SKB_TRUESIZE(704) = 704 + 256 + 320, bytes (class comment)
    static constexpr uint32_t SKB_HEAD_TRUESIZE_B = 1280;
    /// sysctl_tcp_limit_output_bytes = 16 x 65536 (net/ipv4/tcp_ipv4.c:3353)
    static constexpr uint64_t TSQ_LIMIT_OUTPUT_B = 16 * 65536;

  protected:
    Ptr<TcpSocketBase> Fork() override;
    uint32_t SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck) override;
    void SendEmptyPacket(uint8_t flags) override;
    void EstimateRtt(const TcpHeader& tcpHeader) override;
    void ReceivedData(Ptr<Packet> packet, const TcpHeader& tcpHeader) override;
    void CompleteFork(Ptr<Packet> p,
                      const TcpHeader& tcpHeader,
                      const Address& fromAddress,
                      const Address& toAddress) override;
    uint16_t AdvertisedWindowSize(bool scale = true) const override;
    /// TcpSocketBase's, or 0 while TCP small queues hold the socket back.
    uint32_t AvailableWindow() const override;
    /**
     * @brief An application write: tcp_rate_check_app_limited first (net/ipv4/tcp.c:1268).
     * @param p the data
     * @param flags the send flags
     * @return TcpSocketBase::Send's
     */
    int Send(Ptr<Packet> p, uint32_t flags) override;
    /// ns-3's RTT history is not kept: the samples come from the segments' send times.
    void UpdateRttHistory(const SequenceNumber32& seq, uint32_t sz, bool isRetransmission) override;
    void ProcessAck(const SequenceNumber32& ackNumber,
                    bool scoreboardUpdated,
                    uint32_t currentDelivered,
                    const SequenceNumber32& oldHeadSequence,
                    bool receivedData) override;
    void ReTxTimeout() override;
    void NewAck(const SequenceNumber32& seq, bool resetRTO) override;
    void ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader) override;

  private:
    /// A data segment sent and not yet cumulatively acknowledged (the rtx queue's skb).
    struct Segment
    {
        uint32_t end;              //!< sequence number after its last byte
        uint64_t sentUs;           //!< when it was last sent, µs (skb_mstamp)
        uint32_t deliveredAtSend;  //!< delivered when it was last sent (tx.delivered)
        uint64_t sendOrder{0};     //!< the socket's count of sends when it was last sent
        bool retransmitted{false}; //!< TCPCB_RETRANS
        bool sacked{false};        //!< TCPCB_SACKED_ACKED
        TcpLinuxTxRate rate{};     //!< tcp_rate_skb_sent's record (TCP_SKB_CB(skb)->tx)
    };

    /**
     * @brief Hand the congestion control and the recovery (where they are Linux's) this
     * socket's facts, or take them back.
     * @param share false when the socket goes
     */
    void ShareFacts(bool share);
    /// The clock in µs.
    static uint64_t NowUs();
    /// tcp_cwnd_validate after a segment went out.
    void ValidateCwnd();
    /// Segments in flight as tcp_packets_in_flight counts them.
    uint32_t PacketsInFlight() const;
    /// tcp_incr_quickack: credits for immediate ACKs.
    void IncreaseQuickAcks(uint32_t receiveWindowBytes);
    /**
     * @brief tcp_grow_window for an in-order segment (tcp_input.c:521-556).
     * @param length its payload, bytes
     */
    void GrowWindow(uint32_t length);
    /// The window the receiver offers: the free space, at most rcv_ssthresh, bytes.
    uint32_t ReceiveWindow() const;
    /**
     * @brief tcp_rack_advance for a segment newly delivered.
     * @param seg the segment
     * @param nowUs the ACK's arrival, µs
     */
    void RackAdvance(const Segment& seg, uint64_t nowUs);
    /// @return tcp_rack_reo_wnd, µs
    uint32_t RackReoWindowUs() const;
    /**
     * @brief tcp_rack_detect_loss.
     * @param lostRetransmit set when a retransmission was lost again
     * @return the longest wait left before a segment counts as lost, µs (0: none)
     */
    uint32_t RackDetectLoss(bool& lostRetransmit);
    /**
     * @brief tcp_rack_mark_lost: detect if RACK advanced, and arm the reordering timer.
     * @param lostRetransmit set when a retransmission was lost again
     * @return whether the timer was armed
     */
    bool RackMarkLost(bool& lostRetransmit);
    /// tcp_rack_reo_timeout.
    void RackReoTimeout();
    /**
     * @brief tcp_schedule_loss_probe.
     * @param advancingRto from an ACK (the RTO would restart now) rather than a send
     * @return whether the probe timer was armed
     */
    bool SchedulePto(bool advancingRto);
    /// tcp_send_loss_probe.
    void SendLossProbe();
    /**
     * @brief tcp_process_tlp_ack.
     * @param ack the ACK's number
     * @param pureDuplicate a duplicate with no SACK information and no data
     */
    void ProcessTlpAck(uint32_t ack, bool pureDuplicate);
    /**
     * @brief The delay to the tick on which a timer armed `jiffies` from now runs.
     * @param jiffies the timeout, jiffies
     * @return the delay to that tick
     */
    static Time DelayToTick(uint64_t jiffies);
    /// tcp_rearm_rto from the probe: the RTO from now (a probe went out) or what is left of it
    void RearmRto(bool fromNow);
    /// TcpSocketBase armed the RTO itself (NewAck, SendDataPacket: m_rto from now, to the
    /// nanosecond): arm it from now on the wheel's tick instead, as every Linux timer runs
    void RtoOntoWheel();
    /// @return tcp_packet_delayed: the ACK echoes a timestamp older than the first retransmission
    bool PacketDelayed() const;
    /**
     * @brief tcp_try_undo_loss: undo a timeout the ACK proves spurious.
     * @param frto F-RTO proved it (never-retransmitted data acknowledged), not the timestamp
     * @return whether it was undone
     */
    bool TryUndoLoss(bool frto);
    /**
     * @brief tcp_process_loss's F-RTO steps for an ACK in Loss (RFC 5682 with SACK).
     * @param advanced whether the ACK advanced snd_una
     * @param duplicate whether it is a duplicate (no advance, no data)
     * @return whether new data is to go out instead of retransmissions (REXMIT_NEW)
     */
    bool ProcessFrto(bool advanced, bool duplicate);
    /**
     * @param state the congestion state to take it in
     * @return tcp_current_ssthresh, bytes
     */
    uint32_t CurrentSsthresh(TcpSocketState::TcpCongState_t state) const;
    /**
     * @brief Set the congestion state, telling the congestion control (tcp_set_ca_state).
     * @param state the new state
     */
    void SetCaState(TcpSocketState::TcpCongState_t state);
    /**
     * @brief The congestion state changed: on entering recovery, tcp_enter_recovery's undo
     * set-up (the socket's own trace of TcpSocketState::CongState).
     * @param previous the state before
     * @param now the state now
     */
    void CongStateChanged(TcpSocketState::TcpCongState_t previous,
                          TcpSocketState::TcpCongState_t now);
    /// tcp_init_undo, for a loss episode or a recovery that starts now.
    void InitUndo();
    /// @return tcp_may_undo: the undo marker, and D-SACKs for every retransmission or an old echo
    bool MayUndo() const;
    /**
     * @brief tcp_undo_cwnd_reduction: the window through the module's undo_cwnd, the kept
     * threshold, and the undo marker cleared.
     * @param unmarkLoss also unmark every segment marked lost
     */
    void UndoCwndReduction(bool unmarkLoss);
    /**
     * @brief tcp_try_to_open: the retransmission stamp cleared with no retransmission out;
     * outside CWR, Open, or Disorder with segments SACKed, lost or retransmitted out
     * (tcp_try_keep_open), the congestion control told of a change.
     */
    void KeepOpen();
    /**
     * @brief An ACK that came in CWR, after TcpSocketBase took it (PktsAcked, NewAck):
     * tcp_fastretrans_alert's end of the episode and its losses, then tcp_cong_control.
     * @param advanced whether it advanced snd_una
     * @param currentDelivered bytes it delivered, as ns-3 counts them
     */
    void CwrAck(bool advanced, uint32_t currentDelivered);
    /// tcp_end_cwnd_reduction and the state Open: the episode of CWR ends.
    void EndCwr();
    /// @return tcp_try_undo_dsack: undone because D-SACKs covered every retransmission
    bool TryUndoDsack();
    /**
     * @brief Whether the first SACK block is a D-SACK (tcp_check_dsack's test).
     * @param blocks the ACK's SACK blocks in the order they came
     * @param ack the ACK's number
     * @return whether it is
     */
    static bool IsDsack(const TcpOptionSack::SackList& blocks, uint32_t ack);
    /**
     * @brief tcp_check_dsack and tcp_dsack_seen for the ACK's first SACK block, and the
     * undo_retrans accounting of tcp_sacktag_one for a D-SACK of a retransmission.
     * @param blocks the ACK's SACK blocks in the order they came
     * @param ack the ACK's number
     */
    void CheckDsack(const TcpOptionSack::SackList& blocks, uint32_t ack);
    /**
     * @brief The receiver's D-SACK for a data segment (tcp_data_queue, tcp_data_queue_ofo).
     * @param seq the segment's first sequence number
     * @param end the sequence number after its last byte
     */
    void NoteDuplicate(uint32_t seq, uint32_t end);

    /**
     * @brief A segment from the IP layer: D-SACK and quick ACKs for duplicate data
     * (NoteDuplicate), then TcpSocketBase::ForwardUp.
     * @param packet the segment
     * @param header its IPv4 header
     * @param port the peer's port
     * @param incomingInterface the interface it came in on
     */
    void ForwardUpSegment(Ptr<Packet> packet,
                          Ipv4Header header,
                          uint16_t port,
                          Ptr<Ipv4Interface> incomingInterface);

    /// @return tcp_small_queue_check: whether TCP small queues hold the next segment back
    bool TsqHeld() const;
    /// @return whether the module asked TCP to pace (sk_pacing_status == SK_PACING_NEEDED)
    bool PacesInternally() const;
    /// @return sk_pacing_status != SK_PACING_NONE: the module paces, or ns-3's pacing is on
    bool Paces() const;
    /// @return tcp_pacing_check: whether the pacing clock holds the next packet back (the
    /// pacing timer is then armed)
    bool PacingHolds() const;
    /// tcp_rate_check_app_limited at an application write.
    void CheckAppLimited();
    /// tcp_rate_gen for the ACK being processed, once.
    void RateGen();
    /// The ACK starts a recovery: its sample, and a module's cong_control, before
    /// TcpSocketBase::EnterRecovery's first send.
    void RecoveryEntryCongControl();
    /**
     * @brief TcpSocketBase::ProcessAck; at a recovery's end, a module with cong_control keeps
     * its window (tcp_end_cwnd_reduction).
     * @param ackNumber the ACK's number
     * @param scoreboardUpdated whether it brought SACK information
     * @param currentDelivered bytes it delivered
     * @param oldHeadSequence snd_una before it
     * @param receivedData whether it carried data
     */
    void BaseProcessAck(const SequenceNumber32& ackNumber,
                        bool scoreboardUpdated,
                        uint32_t currentDelivered,
                        const SequenceNumber32& oldHeadSequence,
                        bool receivedData);
    /**
     * @brief ProcessAck before the ACK's rate sample (RateGen).
     * @param ackNumber the ACK's number
     * @param scoreboardUpdated whether it brought SACK information
     * @param currentDelivered bytes it delivered
     * @param oldHeadSequence snd_una before it
     * @param receivedData whether it carried data
     */
    void ProcessLinuxAck(const SequenceNumber32& ackNumber,
                         bool scoreboardUpdated,
                         uint32_t currentDelivered,
                         const SequenceNumber32& oldHeadSequence,
                         bool receivedData);
    /**
     * @brief ReceivedAck with the D-SACK block set aside (CheckDsack): its body, which
     * ReceivedAck wraps to hold m_recover in CWR and to end the ACK's rate sample.
     * @param packet the segment's payload
     * @param tcpHeader its header
     */
    void ReceivedAckWithoutDsack(Ptr<Packet> packet, const TcpHeader& tcpHeader);
    /// Follow the host's devices and queue discs, once, for TCP small queues.
    void TsqFollowHost();
    /// Stop following them.
    void TsqUnfollowHost();
    /**
     * @brief A segment left the socket (its Tx trace): charge a data segment's truesize.
     * @param packet the segment, without headers
     * @param header its TCP header
     * @param socket this socket
     */
    void TsqCharge(Ptr<const Packet> packet,
                   const TcpHeader& header,
                   Ptr<const TcpSocketBase> socket);
    /**
     * @brief A packet left the host or was dropped in it: take its charge back (tcp_wfree).
     * @param packet the packet
     */
    void TsqRelease(Ptr<const Packet> packet);
    /**
     * @brief The queue disc dropped a packet.
     * @param item the packet's item
     */
    void TsqQueueDiscDrop(Ptr<const QueueDiscItem> item);
    /// tcp_tsq_handler: send what the window allows once the host has room.
    void TsqWrite();
    /**
     * @brief Before TcpSocketBase sends a segment: whether it ends a GSO packet (GsoPush).
     * @param seq its first sequence number
     */
    void GsoBeforeSend(SequenceNumber32 seq);
    /**
     * @brief A segment left the socket (its Tx trace): PSH on the last of a GSO packet. The
     * header is the one TcpSocketBase hands to TcpL4Protocol after this trace.
     * @param packet the segment, without headers
     * @param header its TCP header
     * @param socket this socket
     */
    void GsoMarkPush(Ptr<const Packet> packet,
                     const TcpHeader& header,
                     Ptr<const TcpSocketBase> socket);

    /// The segment of m_segments holding a sequence number, or end().
    std::map<uint32_t, Segment>::const_iterator SegmentAt(uint32_t seq) const;

    bool m_cwrAckHeld{false};             //!< an ACK in CWR: m_recover held at its number
    SequenceNumber32 m_cwrHighSeq{0};     //!< high_seq while m_recover is held
    bool m_ackInCwr{false};               //!< TcpSocketBase takes an ACK that came in CWR
    bool m_enteringRecovery{false};       //!< in EnterLinuxRecovery, before its first send
    bool m_headLostBeforeRecovery{false}; //!< the head was marked lost before it
    uint32_t m_recoveryRedirected{0};     //!< recoveries begun with Linux's send, not the head

    /**
     * @brief TcpSocketBase::EnterRecovery, with its first send Linux's (RecoveryFirstSend); in
     * CWR, the reduction under way goes on into Recovery (tcp_enter_recovery).
     * @param currentDelivered bytes the ACK delivered (0 from a timer)
     */
    void EnterLinuxRecovery(uint32_t currentDelivered);
    /**
     * @brief What tcp_xmit_recovery sends first on entering recovery, where ns-3's
     * EnterRecovery retransmits the head whatever its marks.
     * @param head the head's first sequence number (EnterRecovery's choice)
     * @return the first segment marked lost and neither retransmitted nor SACKed
     * (tcp_xmit_retransmit_queue); else new data, which PRR's forced first segment lets out
     * (tcp_cwnd_reduction); else, with nothing new to send, the head as ns-3 sends it
     */
    SequenceNumber32 RecoveryFirstSend(SequenceNumber32 head);

    std::map<uint32_t, Segment> m_segments; //!< by first sequence number (32-bit, no wrap in a run)
    uint32_t m_sackedOut{0};                //!< segments of m_segments SACKed (sacked_out)
    Ptr<TcpLinuxRttEstimator> m_linuxRtt;   //!< the estimator TcpSocketBase's m_rtt points to
    bool m_synSent{false};                  //!< whether the SYN was sent
    uint64_t m_synSentUs{0};                //!< when it was last sent, µs
    bool m_synRetransmitted{false};         //!< whether it was sent more than once
    uint32_t m_delivered{0};                //!< tcp_sock.delivered
    uint32_t m_maxPacketsOut{0};            //!< tcp_sock.max_packets_out
    bool m_isCwndLimited{false};            //!< tcp_sock.is_cwnd_limited
    uint32_t m_cwndUsageSeq{0};             //!< tcp_sock.cwnd_usage_seq
    uint32_t m_lsndtimeJiffies{0};          //!< tcp_sock.lsndtime
    uint32_t m_minRttUs{0};                 //!< tcp_min_rtt, 0 before any sample
    emusim_rtt_min m_rttMin{};              //!< the windowed-minimum tracker
    bool m_peerPushes{true};                //!< the peer pushes every segment (attribute)
    uint32_t m_quickAcks{0};                //!< icsk_ack.quick: immediate ACKs left
    bool m_delackStarted{false};            //!< icsk_ack.ato != 0: data was received before
    uint32_t m_lrcvtimeJiffies{0};          //!< icsk_ack.lrcvtime
    uint32_t m_rcvMss{536};                 //!< icsk_ack.rcv_mss (TCP_MSS_DEFAULT at first)
    uint32_t m_rcvSsthresh{0};              //!< tcp_sock.rcv_ssthresh, bytes (0: no data yet)
    uint32_t m_windowGrowthLimit{0};        //!< rcv_ssthresh's growth stops above it (attribute)
    int32_t m_ackRttUs{-1};                 //!< the last ACK's ca_rtt, µs, or -1
    bool m_ackRestartsRecovery{false};      //!< the ACK ends a recovery and starts the next
    uint32_t m_ackDelivered{0};             //!< segments the last ACK delivered
    uint32_t m_ackDeliveredBytes{0};        //!< ... as ns-3's rate counts it (ProcessAck's)
    bool m_ackEce{false};                   //!< the ACK being processed echoes CE (FLAG_ECE)
    uint32_t m_deliveredCe{0};              //!< tcp_sock.delivered_ce
    bool m_queueCwr{false};                 //!< TCP_ECN_QUEUE_CWR: CWR on the next new data
    bool m_ackNow{false};                   //!< ICSK_ACK_NOW: acknowledge this segment at once
    bool m_ackAdvanced{false};              //!< whether it advanced snd_una
    uint32_t m_lostBeforeAckBytes{0};       //!< scoreboard's lost bytes before it, less acked
    uint32_t m_ackInFlightBytes{0};         //!< the last ACK's in_flight sample
    bool m_rack{false};                     //!< RACK detects losses (attribute)
    uint64_t m_rackMstampUs{0};             //!< rack.mstamp: latest send delivered, µs
    uint64_t m_rackSendOrder{0};       //!< rack.end_seq's role: the latest delivered send's order
    uint64_t m_sendCount{0};           //!< data segments sent, for sendOrder
    uint32_t m_rackRttUs{0};           //!< rack.rtt_us
    bool m_rackAdvanced{false};        //!< rack.advanced
    uint32_t m_rackReoWndSteps{1};     //!< rack.reo_wnd_steps (tcp_init_sock)
    EventId m_reoEvent;                //!< the reordering timer
    uint32_t m_rackMarkedLost{0};      //!< segments RACK marked lost
    uint32_t m_rackReoTimeouts{0};     //!< reordering timer expiries
    uint32_t m_rackLostRetransmits{0}; //!< retransmissions found lost again
    bool m_tlp{false};                 //!< tail loss probes (attribute)
    EventId m_ptoEvent;                //!< the probe timer
    uint32_t m_tlpHighSeq{0};          //!< tlp_high_seq: snd_nxt at the probe, 0: none
    bool m_tlpRetrans{false};          //!< tlp_retrans: the probe was a retransmission
    bool m_inProbe{false};             //!< sending the probe (no new probe timer)
    uint32_t m_tlpProbes{0};           //!< probes sent
    uint32_t m_tlpRecoveries{0};       //!< probes that repaired a loss
    bool m_undo{false};                //!< undo spurious timeouts (attribute)
    bool m_undoMarker{false};          //!< undo_marker is set
    uint32_t m_priorSsthresh{0};       //!< prior_ssthresh, bytes (0: none)
    uint32_t m_retransStampMs{0};      //!< retrans_stamp, timestamp units (ms; 0: none)
    uint32_t m_lossUndos{0};           //!< timeouts undone
    bool m_frtoEnabled{false};         //!< F-RTO (attribute)
    bool m_frto{false};                //!< tcp_sock.frto: F-RTO runs for this timeout
    uint32_t m_highSeq{0};             //!< tcp_sock.high_seq as F-RTO moves it
    bool m_ackOrigSackAcked{false};    //!< the ACK: FLAG_ORIG_SACK_ACKED
    bool m_ackDataSacked{false};       //!< the ACK: FLAG_DATA_SACKED
    uint32_t m_spuriousRtos{0};        //!< timeouts F-RTO undid
    uint32_t m_rtoExpiries{0};         //!< retransmission timer expiries (TCPTimeouts)
    uint32_t m_wheelRtoUid{0};         //!< the RTO event this class put on the wheel
    bool m_dsack{false};               //!< D-SACK sent and taken (attribute)
    bool m_dsackPending{false};        //!< receiver: rx_opt.dsack, a D-SACK block to send
    uint32_t m_dsackStart{0};          //!< receiver: duplicate_sack[0].start_seq
    uint32_t m_dsackEnd{0};            //!< receiver: duplicate_sack[0].end_seq
    uint32_t m_dsacksSent{0};          //!< receiver: D-SACK blocks sent
    uint32_t m_undoMarkerSeq{0};       //!< undo_marker's value: snd_una when the episode began
    int32_t m_undoRetrans{-1};         //!< undo_retrans: retransmissions not yet D-SACKed
    uint32_t m_totalRetrans{0};        //!< total_retrans: segments retransmitted, probes too
    uint32_t m_dsackDups{0};           //!< dsack_dups: segments D-SACKed so far
    bool m_smallQueues{false};         //!< TCP small queues (attribute)
    bool m_gsoPush{false};             //!< PSH on every GSO packet (attribute)
    bool m_gsoFollowing{false};        //!< the socket's own Tx trace is followed
    uint32_t m_gsoSize{0};             //!< segments of the GSO packet being sent
    uint32_t m_gsoLeft{0};             //!< of which not sent yet
    int64_t m_gsoAtNs{-1};             //!< when it began, ns
    bool m_pushNext{false};            //!< the segment being sent carries PSH
    uint32_t m_pushedSegments{0};      //!< data segments sent with PSH
    int64_t m_lastSendNs{-1};          //!< tcp_wstamp_ns after the last send, ns (-1: none)
    TcpLinuxPacingClock m_pacing;      //!< tcp_wstamp_ns
    bool m_packetStarts{true};         //!< the segment being sent starts a packet (skb)
    uint64_t m_packetStampNs{0};       //!< that packet's departure time (skb_mstamp_ns)
    uint32_t m_dataSegsOut{0};         //!< tcp_sock.data_segs_out
    mutable EventId m_paceEvent;       //!< the pacing timer (tcp_pace_kick)
    bool m_rtoSending{false};          //!< in ReTxTimeout: its retransmission is not paced
    TcpLinuxRateSampler m_rate;        //!< tcp_rate.c's state, and the ACK's sample
    bool m_rateGenPending{false};      //!< the ACK's tcp_rate_gen is still to come
    bool m_rateSampleReady{false};     //!< its sample is made and cong_control has not had it
    bool m_recoveryEntrySend{false};   //!< the next send is EnterRecovery's first
    uint32_t m_lostCount{0};           //!< tcp_sock.lost: segments marked lost, ever
    uint32_t m_lostAtAckStart{0};      //!< tcp_sock.lost when the ACK came
    mutable bool m_deferCwndLimited{false}; //!< a deferral found the window the limit
    mutable uint32_t m_tsoDeferrals{0};     //!< times new data waited for the next ACK
    bool m_tsqFollowing{false};             //!< the host's devices and queue discs are followed
    std::vector<Ptr<Object>> m_tsqSources;  //!< what is followed, to let go of it
    std::unordered_map<uint64_t, uint32_t> m_tsqCharged; //!< charge's tag -> its truesize
    uint64_t m_tsqChargedBytes{0};      //!< their sum (sk_wmem_alloc less the socket's own 1)
    mutable bool m_tsqHeld{false};      //!< TSQ_THROTTLED: held back, to send on a release
    mutable uint32_t m_tsqThrottles{0}; //!< times held back
    EventId m_tsqEvent;                 //!< the pending TsqWrite
    TracedCallback<SequenceNumber32, double> m_probeTimerTrace; //!< the probe timer expired
    uint32_t m_maxWindow{0};      //!< max_window: the largest window the peer offered
    bool m_ackDsack{false};       //!< the ACK: FLAG_DSACKING_ACK
    bool m_ackDsackTlp{false};    //!< the ACK: FLAG_DSACK_TLP
    uint32_t m_dsacksReceived{0}; //!< D-SACK blocks taken
    uint32_t m_dsackUndos{0};     //!< TCPDSACKUNDO
    uint32_t m_fullUndos{0};      //!< TCPFULLUNDO
};

} // namespace ns3

#endif // EMUSIM_TCP_LINUX_SOCKET_H
