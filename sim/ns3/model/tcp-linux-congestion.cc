/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Linux 6.1's congestion-control modules behind ns-3's TcpCongestionOps; the header says which
 * ns-3 call is which kernel hook.
 */

#include "tcp-linux-congestion.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-state.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpLinuxCongestion");
NS_OBJECT_ENSURE_REGISTERED(TcpLinuxCongestion);

namespace
{

/// Linux's infinite slow start threshold, in segments (TCP_INFINITE_SSTHRESH, tcp.h)
constexpr uint32_t LINUX_INFINITE_SSTHRESH = 0x7fffffff;
/// TCP_ECN_OK (include/net/tcp.h)
constexpr uint8_t LINUX_ECN_OK = 1;
/// TCP_ECN_DEMAND_CWR (include/net/tcp.h:383): the receiver sets ECE on its ACKs
constexpr uint8_t LINUX_ECN_DEMAND_CWR = 4;
/// icsk_ack.pending (include/net/inet_connection_sock.h:173-176): a delayed ACK is waiting; an
/// ACK goes out now
constexpr uint8_t LINUX_ICSK_ACK_TIMER = 2;
constexpr uint8_t LINUX_ICSK_ACK_NOW = 16;
/// TSQ's default pacing shift: sk_pacing_rate >> 10 is about 1 ms (net/core/sock.c sock_init_data)
constexpr uint8_t LINUX_PACING_SHIFT = 10;
/// SK_PACING_NEEDED (include/net/sock.h, enum sk_pacing): the module asks TCP to pace
constexpr uint32_t SK_PACING_NEEDED = 1;
/// TCP_ESTABLISHED (include/net/tcp_states.h)
constexpr uint8_t LINUX_TCP_ESTABLISHED = 1;
/// The Linux events ns-3 passes with the same numbers (TCP_CA_EVENT_*, tcp.h:1028-1035)
constexpr int LINUX_LAST_CA_EVENT = TcpSocketState::CA_EVENT_ECN_IS_CE;
/// enum tcp_ca_ack_event_flags (include/net/tcp.h): CA_ACK_SLOWPATH, CA_ACK_WIN_UPDATE
constexpr uint32_t CA_ACK_SLOWPATH_FLAG = 1U << 0;
constexpr uint32_t CA_ACK_WIN_UPDATE_FLAG = 1U << 1;
/// CA_ACK_ECE (include/net/tcp.h:1041): the ACK carries ECE
constexpr uint32_t CA_ACK_ECE_FLAG = 1U << 2;

/// ns-3's receiver states in which its ACKs carry ECE: Linux's TCP_ECN_DEMAND_CWR
bool
DemandsCwr(TcpSocketState::EcnState_t state)
{
    return state == TcpSocketState::ECN_CE_RCVD || state == TcpSocketState::ECN_SENDING_ECE;
}

uint32_t
RandomU32(void* context)
{
    auto* random = static_cast<UniformRandomVariable*>(context);
    return random->GetInteger(0, std::numeric_limits<uint32_t>::max());
}

void
Warn(void* /* context */, const char* file, int line, const char* condition)
{
    NS_LOG_WARN("Linux module: WARN_ON(" << condition << ") at " << file << ":" << line);
}

/// The tcb whose connection runs module code now: __tcp_send_ack sends its ACK.
TcpSocketState* g_sendAckTcb = nullptr;

/// Makes a connection's tcb the one __tcp_send_ack reaches while a hook runs.
class AckScope
{
  public:
    /// @param tcb the connection running module code
    explicit AckScope(Ptr<TcpSocketState> tcb)
    {
        g_sendAckTcb = PeekPointer(tcb);
    }

    ~AckScope()
    {
        g_sendAckTcb = nullptr;
    }

    AckScope(const AckScope&) = delete;
    AckScope& operator=(const AckScope&) = delete;
};

void
SendAck(void* /* context */, int ece)
{
    if (g_sendAckTcb != nullptr && !g_sendAckTcb->m_sendEmptyPacketCallback.IsNull())
    {
        g_sendAckTcb->m_sendEmptyPacketCallback(ece ? TcpHeader::ACK | TcpHeader::ECE
                                                    : TcpHeader::ACK);
    }
}

} // namespace

TypeId
TcpLinuxCongestion::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpLinuxCongestion")
            .SetParent<TcpCongestionOps>()
            .SetGroupName("Internet")
            .AddConstructor<TcpLinuxCongestion>()
            .AddAttribute("Algorithm",
                          "The Linux congestion control to run, by the name its module "
                          "registers (cubic, westwood, ...; TcpLinuxCongestion::Available)",
                          StringValue("cubic"),
                          MakeStringAccessor(&TcpLinuxCongestion::m_algorithm),
                          MakeStringChecker())
            .AddAttribute("ModuleParameters",
                          "Kernel-wide module parameters, module.parameter=value separated "
                          "by ';' (as /sys/module/MODULE/parameters/PARAMETER), set when a "
                          "connection starts",
                          StringValue(""),
                          MakeStringAccessor(&TcpLinuxCongestion::m_moduleParameters),
                          MakeStringChecker());
    return tid;
}

TcpLinuxCongestion::TcpLinuxCongestion()
    : TcpCongestionOps(),
      m_random(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

TcpLinuxCongestion::TcpLinuxCongestion(const TcpLinuxCongestion& other)
    : TcpCongestionOps(other),
      m_algorithm(other.m_algorithm),
      m_moduleParameters(other.m_moduleParameters),
      m_state(other.m_state),
      m_started(other.m_started),
      m_peerTsOffset(other.m_peerTsOffset),
      m_random(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
    if (other.m_cc != nullptr)
    {
        // a copy of a started connection would share what its init allocated (cdg's gradient
        // window), which both would release; Linux copies only listeners, whose congestion
        // control has not started (tcp_create_openreq_child)
        NS_ABORT_MSG_IF(other.m_started && emusim_cc_has(other.m_cc, EMUSIM_CC_RELEASE),
                        "ns3::TcpLinuxCongestion: a started " << other.GetAlgorithm()
                                                              << " connection cannot be copied");
        emusim_cc_host host = Host();
        m_cc = emusim_cc_clone(other.m_cc, &host);
        NS_ABORT_MSG_IF(m_cc == nullptr, "out of memory copying a Linux congestion control");
    }
}

TcpLinuxCongestion::~TcpLinuxCongestion()
{
    if (m_cc != nullptr)
    {
        if (m_started && emusim_cc_has(m_cc, EMUSIM_CC_RELEASE))
        {
            // tcp_cleanup_congestion_control (tcp_cong.c:221-228): what init allocated
            emusim_cc_release(m_cc, &m_state);
        }
        emusim_cc_free(m_cc);
    }
}

emusim_cc_host
TcpLinuxCongestion::Host()
{
    return emusim_cc_host{PeekPointer(m_random), &RandomU32, &SendAck, &Warn};
}

emusim_cc*
TcpLinuxCongestion::Connection()
{
    if (m_cc == nullptr)
    {
        emusim_cc_host host = Host();
        m_cc = emusim_cc_new(m_algorithm.c_str(), &host);
        if (m_cc == nullptr)
        {
            std::ostringstream names;
            for (const auto& name : Available())
            {
                names << " " << name;
            }
            NS_FATAL_ERROR("ns3::TcpLinuxCongestion::Algorithm is '"
                           << m_algorithm << "': no Linux module registered it; built from "
                           << emusim_cc_source_version() << ":" << names.str());
        }
    }
    return m_cc;
}

std::string
TcpLinuxCongestion::GetName() const
{
    return "linux-" + GetAlgorithm();
}

std::string
TcpLinuxCongestion::GetAlgorithm() const
{
    return m_cc != nullptr ? emusim_cc_name(m_cc) : m_algorithm;
}

void
TcpLinuxCongestion::SetFacts(TcpLinuxFacts* facts)
{
    m_facts = facts;
}

void
TcpLinuxCongestion::SetCwr(TcpLinuxCwr* socket)
{
    m_cwr = socket;
}

int64_t
TcpLinuxCongestion::AssignStreams(int64_t stream)
{
    m_random->SetStream(stream);
    return 1;
}

void
TcpLinuxCongestion::Load(Ptr<const TcpSocketState> tcb)
{
    const uint32_t mss = tcb->m_segmentSize;
    emusim_tcp_state& s = m_state;
    s.now_ns = Simulator::Now().GetNanoSeconds();
    s.snd_una = tcb->m_lastAckedSeq.GetValue();
    s.snd_nxt = tcb->m_highTxMark.Get().GetValue();
    s.mss_cache = mss;
    s.snd_cwnd = std::max<uint32_t>(1, tcb->m_cWnd / mss);
    const uint32_t ssthresh = tcb->m_ssThresh;
    s.snd_ssthresh = ssthresh == std::numeric_limits<uint32_t>::max()
                         ? LINUX_INFINITE_SSTHRESH
                         : std::max<uint32_t>(1, ssthresh / mss);
    s.ca_state = tcb->m_congState;
    s.sk_state = LINUX_TCP_ESTABLISHED;
    s.rcv_tsval = tcb->m_rcvTimestampValue + m_peerTsOffset;
    s.rcv_tsecr = tcb->m_rcvTimestampEchoReply;
    s.ecn_flags = tcb->m_ecnState != TcpSocketState::ECN_DISABLED ? LINUX_ECN_OK : 0;
    if (DemandsCwr(tcb->m_ecnState))
    {
        s.ecn_flags |= LINUX_ECN_DEMAND_CWR;
    }
    s.ack_pending = 0;
    s.pacing_rate = tcb->m_pacingRate.Get().GetBitRate() / 8;
    s.max_pacing_rate = tcb->m_maxPacingRate.GetBitRate() / 8;
    s.pacing_shift = LINUX_PACING_SHIFT;
    if (m_facts != nullptr)
    {
        m_facts->FillLinuxState(s);
    }
    else
    {
        // what TcpSocketState has: windows in bytes, a smoothed RTT, ns-3's cwnd-limited flag
        s.packets_out = (tcb->m_bytesInFlight + mss - 1) / mss;
        s.max_packets_out = s.packets_out;
        s.is_cwnd_limited = tcb->m_isCwndLimited;
        s.srtt_us = static_cast<uint32_t>(tcb->m_srtt.Get().GetMicroSeconds() * 8);
        s.min_rtt_us = tcb->m_minRtt == Time::Max()
                           ? 0
                           : static_cast<uint32_t>(tcb->m_minRtt.GetMicroSeconds());
    }
    m_loadedCwnd = s.snd_cwnd;
    m_loadedSsthresh = s.snd_ssthresh;
    m_loadedPacingRate = s.pacing_rate;
}

void
TcpLinuxCongestion::SampleFromNs3(Ptr<const TcpSocketState> tcb,
                                  const TcpRateOps::TcpRateConnection& rc,
                                  const TcpRateOps::TcpRateSample& rs,
                                  emusim_rate_sample& sample)
{
    // ns-3's TcpRateLinux follows tcp_rate.c in bytes and marks an invalid sample with
    // m_delivered -1 (no timing) or a zero interval (shorter than min_rtt); Linux's is -1
    const uint32_t mss = tcb->m_segmentSize;
    sample.delivered = rs.m_delivered < 0 ? -1 : rs.m_delivered / static_cast<int32_t>(mss);
    sample.interval_us = rs.m_delivered < 0 || rs.m_interval.IsZero()
                             ? -1
                             : static_cast<long>(rs.m_interval.GetMicroSeconds());
    sample.prior_delivered = rs.m_priorDelivered / mss;
    sample.prior_mstamp = static_cast<uint64_t>(rs.m_priorTime.GetMicroSeconds());
    sample.snd_interval_us = static_cast<uint32_t>(rs.m_sendElapsed.GetMicroSeconds());
    sample.rcv_interval_us = static_cast<uint32_t>(rs.m_ackElapsed.GetMicroSeconds());
    sample.rtt_us = tcb->m_lastRtt.Get().IsZero()
                        ? -1
                        : static_cast<long>(tcb->m_lastRtt.Get().GetMicroSeconds());
    sample.losses = static_cast<int>(rs.m_bytesLoss / mss);
    sample.acked_sacked = rs.m_ackedSacked / mss;
    sample.prior_in_flight = rs.m_priorInFlight / mss;
    sample.is_app_limited = rs.m_isAppLimited;
    m_ns3Lost += static_cast<uint32_t>(sample.losses);
    m_state.delivered = static_cast<uint32_t>(rc.m_delivered / mss);
    m_state.delivered_mstamp = static_cast<uint64_t>(rc.m_deliveredTime.GetMicroSeconds());
    m_state.app_limited = rc.m_appLimited == 0 ? 0 : std::max<uint32_t>(1, rc.m_appLimited / mss);
    m_state.lost = m_ns3Lost;
}

void
TcpLinuxCongestion::Store(Ptr<TcpSocketState> tcb)
{
    const uint32_t mss = tcb->m_segmentSize;
    const emusim_tcp_state& s = m_state;
    // write back only what the module changed, so that ns-3's sub-segment bytes survive a hook
    // that left the window alone
    if (s.snd_cwnd != m_loadedCwnd)
    {
        tcb->m_cWnd = static_cast<uint32_t>(
            std::min<uint64_t>(uint64_t{s.snd_cwnd} * mss, std::numeric_limits<uint32_t>::max()));
    }
    if (s.snd_ssthresh != m_loadedSsthresh)
    {
        tcb->m_ssThresh =
            s.snd_ssthresh >= LINUX_INFINITE_SSTHRESH
                ? std::numeric_limits<uint32_t>::max()
                : static_cast<uint32_t>(std::min<uint64_t>(uint64_t{s.snd_ssthresh} * mss,
                                                           std::numeric_limits<uint32_t>::max()));
    }
    if (s.pacing_rate != m_loadedPacingRate)
    {
        tcb->m_pacingRate = DataRate(s.pacing_rate * 8);
    }
    // on ns-3's own socket, a module that asks TCP to pace (SK_PACING_NEEDED) gets ns-3's
    // pacing at its rate; TcpLinuxSocket paces by Linux's clock instead (tcp-linux-rate.h)
    if (m_facts == nullptr && s.pacing_status == SK_PACING_NEEDED && !tcb->m_pacing)
    {
        tcb->m_pacing = true;
    }
    if (s.cwr_requested)
    {
        // tcp_enter_cwr from the hook: the module's side is done, the threshold written above;
        // the socket's side now, before anything else happens on this ACK (TcpLinuxCwr)
        m_state.cwr_requested = 0;
        NS_ABORT_MSG_IF(m_cwr == nullptr,
                        "ns3::TcpLinuxCongestion: Linux's "
                            << GetAlgorithm()
                            << " enters CWR itself (tcp_enter_cwr), which only TcpLinuxSocket "
                               "carries out (ns-3's TcpSocketBase enters CWR on ECN alone, in "
                               "a private step): give the sender ns3::TcpLinuxSocket");
        m_cwr->EnterLinuxCwr(m_state.prior_cwnd);
    }
}

void
TcpLinuxCongestion::Init(Ptr<TcpSocketState> tcb)
{
    // ns-3 calls this when the socket is created; Linux initialises the algorithm when the
    // connection is established (StartConnection)
    NS_LOG_FUNCTION(this << tcb);
}

void
TcpLinuxCongestion::StartConnection(Ptr<TcpSocketState> tcb)
{
    NS_LOG_FUNCTION(this << tcb);
    if (m_started)
    {
        return;
    }
    m_started = true;
    if (!m_moduleParameters.empty())
    {
        SetModuleParameters(m_moduleParameters);
    }
    emusim_cc* cc = Connection();
    // the peer's timestamps carry its own random offset (tcp_timestamps = 1: secure_tcp_ts_off,
    // net/core/secure_seq.c), which ns-3's do not
    m_peerTsOffset = RandomU32(PeekPointer(m_random));
    Load(tcb);
    // tcp_init_sock: no clamp on cwnd (tcp.c); counters start at zero
    m_state.snd_cwnd_clamp = std::numeric_limits<uint32_t>::max();
    m_state.snd_cwnd_cnt = 0;
    AckScope scope(tcb);
    emusim_cc_init(cc, &m_state);
    Store(tcb);
    NS_LOG_DEBUG("Linux " << GetAlgorithm() << " initialised, cwnd " << m_state.snd_cwnd);
}

emusim_cc*
TcpLinuxCongestion::Started(Ptr<const TcpSocketState> tcb)
{
    if (!m_started)
    {
        StartConnection(ConstCast<TcpSocketState>(tcb));
    }
    return Connection();
}

uint32_t
TcpLinuxCongestion::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t /* bytesInFlight */)
{
    NS_LOG_FUNCTION(this << tcb);
    emusim_cc* cc = Started(tcb);
    Load(tcb);
    // tcp_init_cwnd_reduction and tcp_enter_loss save the window and clear the counter first
    m_state.prior_cwnd = m_state.snd_cwnd;
    m_state.snd_cwnd_cnt = 0;
    const bool entering = m_recoveryFrom >= 0;
    if (entering)
    {
        // ssthresh sees the state Recovery is entered from (CongestionStateSet)
        m_state.ca_state = static_cast<uint8_t>(m_recoveryFrom);
    }
    uint32_t ssthresh = emusim_cc_ssthresh(cc, &m_state);
    if (entering)
    {
        // tcp_init_cwnd_reduction has set the threshold when tcp_enter_recovery calls
        // tcp_set_ca_state, whose hook may set it again (dctcp_react_to_loss)
        m_recoveryFrom = -1;
        m_state.snd_ssthresh = ssthresh;
        emusim_cc_set_state(cc, &m_state, TcpSocketState::CA_RECOVERY);
        ssthresh = m_state.snd_ssthresh;
    }
    // the threshold is the caller's to set (tcb is const here); a module that changed the
    // window in ssthresh (none of 6.1's does) would be seen at the next hook
    if (ssthresh >= LINUX_INFINITE_SSTHRESH)
    {
        return std::numeric_limits<uint32_t>::max();
    }
    return static_cast<uint32_t>(std::min<uint64_t>(uint64_t{ssthresh} * tcb->m_segmentSize,
                                                    std::numeric_limits<uint32_t>::max()));
}

void
TcpLinuxCongestion::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked);
    emusim_cc* cc = Started(tcb);
    if (emusim_cc_has(cc, EMUSIM_CC_CONG_CONTROL))
    {
        return; // tcp_cong_control calls cong_control instead (tcp_input.c:3578-3581)
    }
    if (EnterCwrOnEcnEcho(tcb, cc))
    {
        return;
    }
    Load(tcb);
    // Linux grows the window by the segments this ACK newly delivered (tcp_cong_control,
    // tcp_input.c:3573-3588). ns-3 3.44's ProcessAck passes that too, except on the ACK that
    // ends fast recovery, where it passes the whole cumulative advance, segments SACKed
    // earlier included (tcp-socket-base.cc, "exiting CA_RECOVERY -> CA_OPEN"), and the one
    // that ends a timeout's recovery, where it passes the advance beyond the recovery point.
    // Right after cwnd is set to ssthresh, the first grew the window by about two segments
    // more than Linux's (docs/linux-cc.md, "The window after recovery").
    if (m_facts != nullptr && m_facts->AckRestartsRecovery())
    {
        // ns-3 ends the recovery and grows the window before the socket starts the next one
        // on the same ACK; Linux starts it first and grows nothing (TcpLinuxFacts)
        NS_LOG_DEBUG("no cong_avoid: the ACK ends a recovery and starts the next");
        return;
    }
    const uint32_t acked = m_facts != nullptr ? m_facts->LastAckDelivered() : segmentsAcked;
    AckScope scope(tcb);
    emusim_cc_cong_avoid(cc, &m_state, m_state.snd_una, acked);
    Store(tcb);
}

void
TcpLinuxCongestion::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked << rtt);
    emusim_cc* cc = Started(tcb);
    if (!emusim_cc_has(cc, EMUSIM_CC_PKTS_ACKED))
    {
        InAckEvent(tcb, cc, segmentsAcked);
        return;
    }
    Load(tcb);
    int32_t rttUs = -1;
    uint32_t inFlight = tcb->m_bytesInFlight;
    if (m_facts != nullptr)
    {
        m_facts->LastAckSample(rttUs, inFlight);
    }
    else if (!tcb->m_lastRtt.Get().IsZero())
    {
        rttUs = static_cast<int32_t>(tcb->m_lastRtt.Get().GetMicroSeconds());
    }
    {
        AckScope scope(tcb);
        emusim_cc_pkts_acked(cc, &m_state, segmentsAcked, rttUs, inFlight);
        Store(tcb);
    }
    InAckEvent(tcb, cc, segmentsAcked);
}

void
TcpLinuxCongestion::InAckEvent(Ptr<TcpSocketState> tcb, emusim_cc* cc, uint32_t segmentsAcked)
{
    // tcp_in_ack_event after tcp_clean_rtx_queue (tcp_input.c:3828-3845, 4006): Westwood's
    // bandwidth estimate (tcp_westwood_ack) and DCTCP's alpha (dctcp_update_alpha) are taken
    // here. Linux's flags tell its fast path (a pure advance with the window unchanged:
    // CA_ACK_WIN_UPDATE) from its slow path (CA_ACK_SLOWPATH: SACK blocks, a duplicate, a new
    // window, tcp_rcv_established's header prediction failing); ns-3 does not say which path an
    // ACK would take, so an ACK that advances nothing or comes outside Open counts as slow.
    if (!emusim_cc_has(cc, EMUSIM_CC_IN_ACK_EVENT))
    {
        return;
    }
    Load(tcb);
    // an ACK with ECE never takes the fast path (its flags fail tcp_rcv_established's header
    // prediction), and tcp_in_ack_event adds CA_ACK_ECE on the slow path (tcp_input.c:3835-3841)
    const bool ece = m_facts != nullptr && m_facts->LastAckEce();
    const bool slow = ece || segmentsAcked == 0 || tcb->m_congState != TcpSocketState::CA_OPEN;
    uint32_t flags = slow ? CA_ACK_SLOWPATH_FLAG : CA_ACK_WIN_UPDATE_FLAG;
    if (ece)
    {
        flags |= CA_ACK_ECE_FLAG;
    }
    AckScope scope(tcb);
    emusim_cc_in_ack_event(cc, &m_state, flags);
    Store(tcb);
}

bool
TcpLinuxCongestion::EnterCwrOnEcnEcho(Ptr<TcpSocketState> tcb, emusim_cc* cc)
{
    if (m_facts == nullptr || m_cwr == nullptr || !m_facts->LastAckEce() ||
        tcb->m_congState.Get() >= TcpSocketState::CA_CWR)
    {
        return false;
    }
    // tcp_enter_cwr (tcp_input.c:2726-2736): the module's threshold (dctcp: cwnd x (1 -
    // alpha / 2), dctcp_ssthresh, tcp_dctcp.c:115-122) and set_state, then the socket's side
    // (Store: TcpLinuxCwr::EnterLinuxCwr), then tcp_cwnd_reduction on this same ACK
    Load(tcb);
    {
        AckScope scope(tcb);
        emusim_cc_enter_cwr(cc, &m_state);
        Store(tcb);
    }
    m_cwr->CwrReductionOnAck();
    return true;
}

void
TcpLinuxCongestion::StoreEcnEcho(Ptr<TcpSocketState> tcb)
{
    // ns-3's receiver sets ECE on an ACK in ECN_CE_RCVD or ECN_SENDING_ECE and leaves them on
    // the sender's CWR flag (RFC 3168's echo until CWR); a module that needs ECN owns the echo
    // instead: dctcp sets or clears TCP_ECN_DEMAND_CWR by the CE state of the segment
    // (dctcp_ece_ack_cwr, tcp_dctcp.h:4-12), which Linux's ACKs carry as ECE
    // (tcp_output.c:383-384)
    const bool demand = (m_state.ecn_flags & LINUX_ECN_DEMAND_CWR) != 0;
    if (demand && !DemandsCwr(tcb->m_ecnState))
    {
        tcb->m_ecnState = TcpSocketState::ECN_CE_RCVD;
    }
    else if (!demand && DemandsCwr(tcb->m_ecnState))
    {
        tcb->m_ecnState = TcpSocketState::ECN_IDLE;
    }
    // the segment is acknowledged at once (__tcp_ack_snd_check, tcp_input.c:5662)
    if ((m_state.ack_pending & LINUX_ICSK_ACK_NOW) != 0 && m_facts != nullptr)
    {
        m_facts->AckNow();
    }
}

void
TcpLinuxCongestion::CongestionStateSet(Ptr<TcpSocketState> tcb,
                                       const TcpSocketState::TcpCongState_t newState)
{
    NS_LOG_FUNCTION(this << tcb << newState);
    if (!m_started)
    {
        // ns-3 sets CA_OPEN when the handshake completes; Linux's state is Open from the
        // start and its init has not run yet (it runs before the first data)
        return;
    }
    NS_ASSERT_MSG(m_recoveryFrom < 0, "Recovery entered without its threshold (GetSsThresh)");
    if (newState == TcpSocketState::CA_RECOVERY && tcb->m_congState.Get() < TcpSocketState::CA_CWR)
    {
        // tcp_enter_recovery from Open or Disorder (tcp_input.c:2894-2899) sets the threshold
        // (tcp_init_cwnd_reduction) before tcp_set_ca_state; TcpSocketBase::EnterRecovery
        // calls this first and GetSsThresh next. The hook waits for GetSsThresh, where a module
        // whose set_state sets the threshold (dctcp_react_to_loss, tcp_dctcp.c:157-171) or
        // resets what its ssthresh reads (htcp_reset, tcp_htcp.c:268-287) acts in Linux's
        // order. From CWR no threshold follows, and the hook runs here.
        m_recoveryFrom = tcb->m_congState.Get();
        return;
    }
    emusim_cc* cc = Started(tcb);
    Load(tcb);
    if (newState == TcpSocketState::CA_LOSS)
    {
        m_state.snd_cwnd_cnt = 0; // tcp_enter_loss, tcp_input.c:2177
    }
    emusim_cc_set_state(cc, &m_state, static_cast<uint8_t>(newState));
    Store(tcb);
}

void
TcpLinuxCongestion::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
    NS_LOG_FUNCTION(this << tcb << event);
    if (event > LINUX_LAST_CA_EVENT)
    {
        return; // CA_EVENT_DELAYED_ACK and NON_DELAYED_ACK are ns-3's own
    }
    emusim_cc* cc = Started(tcb);
    Load(tcb);
    const bool ecnEvent =
        event == TcpSocketState::CA_EVENT_ECN_IS_CE || event == TcpSocketState::CA_EVENT_ECN_NO_CE;
    if (ecnEvent && m_facts != nullptr)
    {
        // dctcp sends the ACK a delayed ACK would have been with the prior CE state
        // (tcp_dctcp.h:29-32)
        m_state.ack_pending = m_facts->DelayedAckPending() ? LINUX_ICSK_ACK_TIMER : 0;
    }
    AckScope scope(tcb);
    emusim_cc_cwnd_event(cc, &m_state, static_cast<int>(event));
    Store(tcb);
    if (ecnEvent)
    {
        StoreEcnEcho(tcb);
    }
}

bool
TcpLinuxCongestion::HasCongControl() const
{
    // the module replaces cong_avoid, PRR and the pacing rate (tcp_cong_control,
    // tcp_input.c:3578-3581; tcp_end_cwnd_reduction, :2713-2714)
    return emusim_cc_has(const_cast<TcpLinuxCongestion*>(this)->Connection(),
                         EMUSIM_CC_CONG_CONTROL) != 0;
}

void
TcpLinuxCongestion::CongControl(Ptr<TcpSocketState> tcb,
                                const TcpRateOps::TcpRateConnection& rc,
                                const TcpRateOps::TcpRateSample& rs)
{
    NS_LOG_FUNCTION(this << tcb);
    emusim_cc* cc = Started(tcb);
    emusim_rate_sample sample{};
    if (m_facts != nullptr)
    {
        if (!m_facts->TakeRateSample(sample))
        {
            return;
        }
        Load(tcb);
    }
    else
    {
        Load(tcb);
        SampleFromNs3(tcb, rc, rs, sample);
    }
    AckScope scope(tcb);
    emusim_cc_cong_control(cc, &m_state, &sample);
    Store(tcb);
    if (m_facts != nullptr)
    {
        m_facts->SetAppLimited(m_state.app_limited);
    }
    NS_LOG_DEBUG("cong_control: delivered " << sample.delivered << " in " << sample.interval_us
                                            << " us, cwnd " << m_state.snd_cwnd << ", pacing "
                                            << m_state.pacing_rate << " B/s");
}

uint32_t
TcpLinuxCongestion::GetPacingStatus() const
{
    return m_state.pacing_status;
}

uint32_t
TcpLinuxCongestion::MinTsoSegs(Ptr<const TcpSocketState> tcb)
{
    if (!m_started || !emusim_cc_has(Connection(), EMUSIM_CC_MIN_TSO_SEGS))
    {
        return 0;
    }
    Load(tcb);
    return emusim_cc_min_tso_segs(m_cc, &m_state);
}

uint32_t
TcpLinuxCongestion::UndoCwnd(Ptr<TcpSocketState> tcb)
{
    emusim_cc* cc = Started(tcb);
    Load(tcb);
    const uint32_t cwnd = emusim_cc_undo_cwnd(cc, &m_state);
    return static_cast<uint32_t>(std::min<uint64_t>(uint64_t{cwnd} * tcb->m_segmentSize,
                                                    std::numeric_limits<uint32_t>::max()));
}

Ptr<TcpCongestionOps>
TcpLinuxCongestion::Fork()
{
    return CopyObject<TcpLinuxCongestion>(this);
}

std::vector<std::string>
TcpLinuxCongestion::Available()
{
    std::string buffer(emusim_cc_available(nullptr, 0), '\0');
    emusim_cc_available(buffer.data(), buffer.size());
    buffer.resize(buffer.size() - 1);
    std::vector<std::string> names;
    std::istringstream words(buffer);
    for (std::string name; words >> name;)
    {
        names.push_back(name);
    }
    return names;
}

std::string
TcpLinuxCongestion::DefaultAlgorithm()
{
    TypeId::AttributeInformation info;
    NS_ABORT_UNLESS(GetTypeId().LookupAttributeByName("Algorithm", &info));
    return info.initialValue->SerializeToString(info.checker);
}

bool
TcpLinuxCongestion::NeedsEcn(const std::string& algorithm)
{
    const int flags = emusim_cc_flags(algorithm.c_str());
    NS_ABORT_MSG_IF(flags < 0, "no Linux congestion control '" << algorithm << "'");
    return (flags & 2) != 0; // TCP_CONG_NEEDS_ECN
}

void
TcpLinuxCongestion::SetModuleParameters(const std::string& assignments)
{
    std::istringstream items(assignments);
    for (std::string item; std::getline(items, item, ';');)
    {
        if (item.empty())
        {
            continue;
        }
        const auto dot = item.find('.');
        const auto eq = item.find('=');
        NS_ABORT_MSG_IF(dot == std::string::npos || eq == std::string::npos || dot > eq,
                        "ns3::TcpLinuxCongestion::ModuleParameters: '"
                            << item << "' is not module.parameter=value");
        const std::string module = item.substr(0, dot);
        const std::string name = item.substr(dot + 1, eq - dot - 1);
        const std::string value = item.substr(eq + 1);
        char error[256];
        NS_ABORT_MSG_IF(
            emusim_cc_set_param(module.c_str(), name.c_str(), value.c_str(), error, sizeof error) !=
                0,
            "ns3::TcpLinuxCongestion::ModuleParameters: '" << item << "': " << error);
    }
}

std::vector<std::pair<std::string, std::string>>
TcpLinuxCongestion::DefaultModuleParametersReadBack()
{
    TypeId::AttributeInformation info;
    NS_ABORT_UNLESS(GetTypeId().LookupAttributeByName("ModuleParameters", &info));
    std::istringstream items(info.initialValue->SerializeToString(info.checker));
    std::vector<std::pair<std::string, std::string>> values;
    for (std::string item; std::getline(items, item, ';');)
    {
        const auto dot = item.find('.');
        const auto eq = item.find('=');
        if (dot == std::string::npos || eq == std::string::npos || dot > eq)
        {
            continue; // SetModuleParameters refused it before the run began
        }
        const std::string module = item.substr(0, dot);
        const std::string name = item.substr(dot + 1, eq - dot - 1);
        values.emplace_back(module + "." + name, GetModuleParameter(module, name));
    }
    return values;
}

std::string
TcpLinuxCongestion::GetModuleParameter(const std::string& module, const std::string& parameter)
{
    char value[64];
    NS_ABORT_MSG_IF(emusim_cc_get_param(module.c_str(), parameter.c_str(), value, sizeof value) !=
                        0,
                    "module " << module << " has no parameter " << parameter);
    return value;
}

} // namespace ns3
