/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Linux 6.1's own congestion-control modules as an ns-3 TcpCongestionOps: the module's C code
 * (net/ipv4/tcp_*.c of Debian's linux-source-6.1, compiled against sim/ns3/linux/shim when the
 * ns-3 part is built) runs behind this class, so that a variant runs the same algorithm in ns-3
 * as in the emulated kernel. docs/linux-cc.md.
 */

#ifndef EMUSIM_TCP_LINUX_CONGESTION_H
#define EMUSIM_TCP_LINUX_CONGESTION_H

#include "../linux/linux-cc.h"

#include "ns3/random-variable-stream.h"
#include "ns3/tcp-congestion-ops.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @brief What a socket knows of its connection that the kernel keeps in tcp_sock and ns-3's
 * TcpSocketState does not (packets out, SACKed, lost, delivered; µs RTT samples). A socket that
 * models Linux's (TcpLinuxSocket) provides it; with ns-3's TcpSocketBase the bridge derives
 * what it can from TcpSocketState (docs/linux-cc.md, "How a hook is called").
 */
class TcpLinuxFacts
{
  public:
    virtual ~TcpLinuxFacts() = default;

    /**
     * @brief Fill in the kernel's view of the connection: packets_out, sacked_out, lost_out,
     * retrans_out, max_packets_out, is_cwnd_limited, delivered, lost, delivered_mstamp,
     * srtt_us, min_rtt_us, lsndtime, app_limited.
     * @param state the state the module will see
     */
    virtual void FillLinuxState(emusim_tcp_state& state) const = 0;

    /**
     * @brief The ACK being processed, as tcp_clean_rtx_queue hands it to pkts_acked
     * (net/ipv4/tcp_input.c:3487-3494).
     * @param rttUs RTT of the last packet this ACK (S)ACKed that was never retransmitted, µs,
     * or -1
     * @param inFlightBytes mss x (delivered - delivered when that packet was sent)
     */
    virtual void LastAckSample(int32_t& rttUs, uint32_t& inFlightBytes) const = 0;

    /**
     * @brief Segments the ACK being processed newly delivered, cumulatively or by SACK
     * (tp->delivered - prior_delivered, tcp_newly_delivered, tcp_input.c:3869-3880): what
     * tcp_cong_control hands cong_avoid as acked_sacked (:3573-3588).
     * @return the segments
     */
    virtual uint32_t LastAckDelivered() const = 0;

    /**
     * @brief The rate sample of the ACK being processed (tcp_rate_gen, net/ipv4/tcp_rate.c),
     * for cong_control, once per ACK.
     * @param rs the sample
     * @return false if there is none: no data was out before the ACK (tcp_ack's no_queue,
     * tcp_input.c:3997-3998), or cong_control had it already
     */
    virtual bool TakeRateSample(emusim_rate_sample& rs) = 0;

    /**
     * @brief tp->app_limited as cong_control left it (bbr marks its PROBE_RTT rounds,
     * tcp_bbr.c:963-966).
     * @param appLimited the value
     */
    virtual void SetAppLimited(uint32_t appLimited) = 0;

    /**
     * @brief Whether the ACK being processed ends a fast recovery and starts the next: Linux
     * then enters recovery again in tcp_fastretrans_alert, before tcp_cong_control, which
     * reduces the window (tcp_cwnd_reduction) instead of growing it (tcp_input.c:3056-3080,
     * 3118-3140, 3573-3588).
     * @return true if cong_avoid does not run on this ACK
     */
    virtual bool AckRestartsRecovery() const = 0;

    /**
     * @brief Whether the ACK being processed echoes congestion: ECE on a connection that
     * negotiated ECN, not on a SYN (tcp_ecn_rcv_ecn_echo, tcp_input.c:400-405; FLAG_ECE).
     * @return true for an ECN echo
     */
    virtual bool LastAckEce() const
    {
        return false;
    }

    /**
     * @brief The module asked for an ACK of the segment being received now (ICSK_ACK_NOW:
     * dctcp on a change of CE state, tcp_dctcp.h:24-34).
     */
    virtual void AckNow()
    {
    }

    /**
     * @brief Whether the receiver holds a delayed ACK (icsk_ack.pending's ICSK_ACK_TIMER).
     * @return true if an ACK is waiting for its timer or the next segment
     */
    virtual bool DelayedAckPending() const
    {
        return false;
    }
};

/**
 * @brief What a socket does when a module starts a window reduction itself: Linux's
 * tcp_enter_cwr (net/ipv4/tcp_input.c:2726-2736), which tcp_cdg's backoff calls from its
 * cong_avoid. The module's side (its ssthresh, prior_cwnd, snd_cwnd_cnt, set_state(CWR)) has
 * run in the hook (sim/ns3/linux/emusim-kernel.c); the socket's is what tcp_sock keeps beyond
 * the module's view: the CWR state, high_seq, PRR's counts, tlp_high_seq, the undo marker and
 * prior_ssthresh. TcpLinuxSocket carries it out (docs/linux-cc.md, "CWR").
 */
class TcpLinuxCwr
{
  public:
    virtual ~TcpLinuxCwr() = default;

    /**
     * @brief The socket's side of tcp_enter_cwr, after the hook that called it returned.
     * @param priorCwnd the window when the module called it, segments (tp->prior_cwnd)
     */
    virtual void EnterLinuxCwr(uint32_t priorCwnd) = 0;

    /**
     * @brief tcp_cong_control's reduction on the ACK being processed, once the ACK entered CWR
     * (tcp_cwnd_reduction, tcp_input.c:3583-3585): PRR with the segments it delivered.
     */
    virtual void CwrReductionOnAck() = 0;
};

/**
 * @ingroup congestionOps
 *
 * @brief A Linux 6.1 congestion-control module (Algorithm: "cubic", "westwood", ...) run by
 * ns-3's TCP.
 *
 * Each ns-3 call is the kernel's hook at the same point of the connection:
 *
 * - StartConnection: `init` when the connection is established (tcp_init_transfer ->
 *   tcp_init_congestion_control, tcp_cong.c:211-224), its private area cleared first. ns-3 calls
 *   Init when the socket is created, before the handshake has measured the RTT or negotiated
 *   ECN, which `init` reads (hybla's rho, dctcp's ECN check): TcpLinuxSocket calls
 *   StartConnection before its first data segment, and any other hook does if it has not run.
 * - GetSsThresh: `ssthresh` where the kernel reduces the window (tcp_init_cwnd_reduction,
 *   tcp_input.c:2669-2679; tcp_enter_loss, :2156-2177), after saving cwnd as prior_cwnd and
 *   clearing snd_cwnd_cnt as those functions do.
 * - IncreaseWindow: `cong_avoid(sk, snd_una, acked)` (tcp_cong_avoid, tcp_input.c).
 * - PktsAcked: `pkts_acked` with the ACK's sample (tcp_clean_rtx_queue, :3487-3494).
 * - CongestionStateSet: `set_state` before the state changes (tcp_set_ca_state); entering
 *   Recovery from Open or Disorder, after the threshold, at the GetSsThresh that follows, as
 *   tcp_enter_recovery orders them (tcp_input.c:2894-2899).
 * - CwndEvent: `cwnd_event`; ns-3's DELAYED_ACK and NON_DELAYED_ACK events do not exist in
 *   Linux 6.1 and are not passed on.
 * - CongControl: `cong_control(sk, rs)` for a module that has it (tcp_cong_control,
 *   tcp_input.c:3573-3581), on every ACK that found data out; such a module's window is its
 *   own, so IncreaseWindow (cong_avoid) does nothing and HasCongControl tells TcpSocketBase to
 *   leave the window to it (no PRR). The sample is the socket's (TcpLinuxFacts::TakeRateSample,
 *   Linux's tcp_rate.c); on ns-3's own socket it is ns-3's TcpRateLinux sample, in segments,
 *   and the module's pacing turns on ns-3's pacing (sk_pacing_status, SK_PACING_NEEDED).
 * - A module that calls tcp_enter_cwr in a hook (cdg) has the socket enter CWR when the hook
 *   returns (TcpLinuxCwr); on a socket that cannot (ns-3's own), the run stops with an error.
 * - The destructor runs the module's `release` (tcp_cleanup_congestion_control, tcp_cong.c:
 *   221-228: cdg frees its gradient window) if its `init` ran.
 *
 * Windows are segments in Linux and bytes in ns-3: the module sees cwnd = max(1, cWnd / MSS)
 * and ssthresh = ssThresh / MSS (an ns-3 threshold of 2^32-1 bytes is Linux's infinite
 * 0x7fffffff), and a window the module changes is written back as segments x MSS. The clock the
 * module reads (jiffies at 250 Hz, tcp_mstamp in µs) is the simulator's. Random numbers come
 * from this object's stream. Module parameters are kernel-wide, as in Linux: ModuleParameters
 * sets them (as /sys/module/M/parameters/P would) when a connection starts.
 */
class TcpLinuxCongestion : public TcpCongestionOps
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    TcpLinuxCongestion();

    /**
     * @brief Copy constructor (Fork): the same algorithm with a copy of its private state.
     * @param other the object to copy
     */
    TcpLinuxCongestion(const TcpLinuxCongestion& other);

    ~TcpLinuxCongestion() override;

    /**
     * @brief "linux-NAME", NAME the algorithm the connection runs now (a module may replace
     * itself: dctcp becomes dctcp-reno without ECN).
     * @return the name
     */
    std::string GetName() const override;

    /**
     * @brief The algorithm the connection runs now, as TCP_CONGESTION reads it in Linux.
     * @return the name
     */
    std::string GetAlgorithm() const;

    void Init(Ptr<TcpSocketState> tcb) override;

    /**
     * @brief Run the module's `init` for an established connection (once).
     * @param tcb the connection
     */
    void StartConnection(Ptr<TcpSocketState> tcb);
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
    bool HasCongControl() const override;
    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;
    Ptr<TcpCongestionOps> Fork() override;

    /**
     * @brief sk_pacing_status as the module left it: 0 SK_PACING_NONE, 1 SK_PACING_NEEDED (the
     * module asks TCP to pace itself: bbr_init, tcp_bbr.c:1077).
     * @return the status
     */
    uint32_t GetPacingStatus() const;

    /**
     * @brief The module's min_tso_segs (tcp_tso_segs, tcp_output.c:2003-2005).
     * @param tcb the connection
     * @return its value, or 0 if the module has none (or has not started)
     */
    uint32_t MinTsoSegs(Ptr<const TcpSocketState> tcb);

    /**
     * @brief The module's `undo_cwnd`: the window to restore after a spurious reduction.
     * @param tcb the connection
     * @return the window in bytes
     */
    uint32_t UndoCwnd(Ptr<TcpSocketState> tcb);

    /**
     * @brief Take the kernel's facts from a socket that keeps them (see TcpLinuxFacts).
     * @param facts the socket, or nullptr
     */
    void SetFacts(TcpLinuxFacts* facts);

    /**
     * @brief The socket that enters CWR for the module (see TcpLinuxCwr).
     * @param socket the socket, or nullptr
     */
    void SetCwr(TcpLinuxCwr* socket);

    /**
     * @brief The algorithms the modules registered, in registration order ("reno" first).
     * @return their names
     */
    static std::vector<std::string> Available();

    /**
     * @brief The Algorithm new connections get (the attribute's default: Config::SetDefault,
     * the command line).
     * @return its name
     */
    static std::string DefaultAlgorithm();

    /**
     * @brief Whether an algorithm needs ECN (TCP_CONG_NEEDS_ECN: Linux asks for ECN in the
     * SYN whatever tcp_ecn says, tcp_ecn_send_syn).
     * @param algorithm its name
     * @return true if it does
     */
    static bool NeedsEcn(const std::string& algorithm);

    /**
     * @brief Set module parameters, "module.parameter=value" separated by ';' (as writing
     * /sys/module/MODULE/parameters/PARAMETER): aborts naming the item on an unknown or
     * read-only parameter or a refused value.
     * @param assignments the parameters
     */
    static void SetModuleParameters(const std::string& assignments);

    /**
     * @brief A module parameter's value as sysfs prints it.
     * @param module e.g. "tcp_cubic"
     * @param parameter e.g. "beta"
     * @return its value; aborts if there is none
     */
    static std::string GetModuleParameter(const std::string& module, const std::string& parameter);

    /**
     * @brief The parameters the ModuleParameters attribute's default sets (Config::SetDefault,
     * the command line), each read back from its module after the run: what the run's record
     * says it ran with, as the emulation reads /sys/module back.
     * @return "module.parameter" and its value, in the attribute's order
     */
    static std::vector<std::pair<std::string, std::string>> DefaultModuleParametersReadBack();

    /**
     * @brief Assign a fixed random stream number (ns-3's AssignStreams convention).
     * @param stream first stream index to use
     * @return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

  private:
    /// The module's connection, created on first use (Algorithm is set by then).
    emusim_cc* Connection();
    /// The module's connection, its `init` run first if it has not.
    emusim_cc* Started(Ptr<const TcpSocketState> tcb);
    /**
     * @brief tcp_in_ack_event: the module's in_ack_event after an ACK's acknowledgements.
     * @param tcb the socket's state
     * @param cc the module
     * @param segmentsAcked segments the ACK newly acknowledged
     */
    void InAckEvent(Ptr<TcpSocketState> tcb, emusim_cc* cc, uint32_t segmentsAcked);

    /**
     * @brief An ACK with ECE in Open or Disorder: tcp_fastretrans_alert's tcp_try_to_open
     * enters CWR (tcp_input.c:2753-2763, 2726-2736) after tcp_in_ack_event has run the
     * module's in_ack_event (dctcp's alpha, :4006) and before tcp_cong_control, which then
     * reduces the window instead of growing it (:3583-3588).
     * @param tcb the connection
     * @param cc its module
     * @return true if the ACK entered CWR (cong_avoid does not run)
     */
    bool EnterCwrOnEcnEcho(Ptr<TcpSocketState> tcb, emusim_cc* cc);

    /**
     * @brief After cwnd_event(CA_EVENT_ECN_IS_CE or _NO_CE) on the receiver, what the module
     * set: TCP_ECN_DEMAND_CWR (ECE on the ACKs that follow, tcp_output.c:383-384) as ns-3's
     * ECN state, and ICSK_ACK_NOW as an ACK now.
     * @param tcb the connection
     */
    void StoreEcnEcho(Ptr<TcpSocketState> tcb);
    /// Fill m_state from the connection as ns-3 and the socket know it.
    void Load(Ptr<const TcpSocketState> tcb);
    /// Write back to tcb what the module changed (window, threshold, pacing).
    void Store(Ptr<TcpSocketState> tcb);
    /**
     * @brief On ns-3's own socket: the rate sample from ns-3's TcpRateLinux (bytes) in
     * segments, and the connection's delivered, delivered_mstamp, app_limited and lost.
     * @param tcb the connection
     * @param rc ns-3's connection rate
     * @param rs ns-3's sample
     * @param sample the module's sample
     */
    void SampleFromNs3(Ptr<const TcpSocketState> tcb,
                       const TcpRateOps::TcpRateConnection& rc,
                       const TcpRateOps::TcpRateSample& rs,
                       emusim_rate_sample& sample);
    /// The host callbacks the C side calls.
    emusim_cc_host Host();

    std::string m_algorithm;             //!< the algorithm asked for (attribute)
    std::string m_moduleParameters;      //!< module parameters applied at Init (attribute)
    emusim_cc* m_cc{nullptr};            //!< the module's socket and private area
    emusim_tcp_state m_state{};          //!< the connection as the module last saw it
    TcpLinuxFacts* m_facts{nullptr};     //!< the socket's facts, if it keeps them
    uint32_t m_ns3Lost{0};               //!< tp->lost on ns-3's own socket (its samples' sum)
    TcpLinuxCwr* m_cwr{nullptr};         //!< the socket that enters CWR, if it can
    Ptr<UniformRandomVariable> m_random; //!< get_random_u32's source
    bool m_started{false};               //!< whether the module's init ran
    int m_recoveryFrom{-1};              //!< Recovery entered from, until GetSsThresh; or -1
    uint32_t m_peerTsOffset{0};          //!< the peer's random timestamp offset
    uint32_t m_loadedCwnd{0};            //!< snd_cwnd given to the module by the last Load
    uint32_t m_loadedSsthresh{0};        //!< snd_ssthresh given to the module by the last Load
    uint64_t m_loadedPacingRate{0};      //!< sk_pacing_rate given by the last Load
};

} // namespace ns3

#endif /* EMUSIM_TCP_LINUX_CONGESTION_H */
