/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FAST TCP as an ns-3 congestion control; tcp-fast.h states the algorithm and its sources.
 */

#include "tcp-fast.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpFast");
NS_OBJECT_ENSURE_REGISTERED(TcpFast);

TypeId
TcpFast::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpFast")
            .SetParent<TcpNewReno>()
            .SetGroupName("Internet")
            .AddConstructor<TcpFast>()
            .AddAttribute("Alpha",
                          "Packets the flow keeps queued in the path at equilibrium",
                          UintegerValue(100),
                          MakeUintegerAccessor(&TcpFast::m_alpha),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Gamma",
                          "Slow start ends when more than Gamma packets are queued",
                          UintegerValue(100),
                          MakeUintegerAccessor(&TcpFast::m_gamma),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("UpdateWeight",
                          "Weight of the target window in the once-per-RTT update "
                          "(the papers' gamma, in (0, 1])",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&TcpFast::m_updateWeight),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddTraceSource("Update",
                            "Each once-per-RTT decision of the window rule: baseRTT, avgRTT, "
                            "the queued packets it estimated, the window before and after",
                            MakeTraceSourceAccessor(&TcpFast::m_updateTrace),
                            "ns3::TcpFast::UpdateTracedCallback");
    return tid;
}

TcpFast::TcpFast()
    : TcpNewReno(),
      m_alpha(100),
      m_gamma(100),
      m_updateWeight(0.5),
      m_baseRtt(Time::Max()),
      m_avgRtt(0.0),
      m_begSndNxt(0)
{
    NS_LOG_FUNCTION(this);
}

TcpFast::TcpFast(const TcpFast& sock)
    : TcpNewReno(sock),
      m_alpha(sock.m_alpha),
      m_gamma(sock.m_gamma),
      m_updateWeight(sock.m_updateWeight),
      m_baseRtt(sock.m_baseRtt),
      m_avgRtt(sock.m_avgRtt),
      m_begSndNxt(sock.m_begSndNxt)
{
    NS_LOG_FUNCTION(this);
}

TcpFast::~TcpFast()
{
    NS_LOG_FUNCTION(this);
}

std::string
TcpFast::GetName() const
{
    return "TcpFast";
}

Ptr<TcpCongestionOps>
TcpFast::Fork()
{
    return CopyObject<TcpFast>(this);
}

Time
TcpFast::GetBaseRtt() const
{
    return m_baseRtt;
}

Time
TcpFast::GetAvgRtt() const
{
    return Seconds(m_avgRtt);
}

double
TcpFast::QueuedPackets(double segments) const
{
    if (m_avgRtt <= 0.0 || m_baseRtt == Time::Max())
    {
        return 0.0;
    }
    return segments * (1.0 - m_baseRtt.GetSeconds() / m_avgRtt);
}

void
TcpFast::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked << rtt);

    // ns-3 passes its smoothed RTT; the estimator wants the sample itself (tcp-fast.h).
    Time sample = tcb->m_lastRtt.Get().IsZero() ? rtt : tcb->m_lastRtt.Get();
    if (sample.IsZero())
    {
        return;
    }

    m_baseRtt = std::min(m_baseRtt, sample);
    if (m_avgRtt <= 0.0)
    {
        m_avgRtt = sample.GetSeconds();
    }
    else
    {
        double segments = static_cast<double>(tcb->m_cWnd.Get()) / tcb->m_segmentSize;
        double eta = std::min(RTT_WEIGHT_WINDOW / std::max(segments, 1.0), RTT_WEIGHT_MAX);
        m_avgRtt = (1.0 - eta) * m_avgRtt + eta * sample.GetSeconds();
    }
    NS_LOG_DEBUG("sample " << sample << " baseRtt " << m_baseRtt << " avgRtt " << GetAvgRtt());
}

void
TcpFast::CongestionStateSet(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCongState_t newState)
{
    NS_LOG_FUNCTION(this << tcb << newState);
    if (newState == TcpSocketState::CA_OPEN)
    {
        m_begSndNxt = tcb->m_nextTxSequence;
    }
}

void
TcpFast::UpdateWindow(Ptr<TcpSocketState> tcb)
{
    NS_ABORT_MSG_IF(m_updateWeight <= 0.0, "TcpFast: UpdateWeight must be in (0, 1]");
    double w = static_cast<double>(tcb->m_cWnd.Get()) / tcb->m_segmentSize;
    double queued = QueuedPackets(w);
    uint32_t before = tcb->m_cWnd.Get();
    double ratio = m_baseRtt.GetSeconds() / m_avgRtt;
    double target = ratio * w + m_alpha;
    double next = std::min(2.0 * w, (1.0 - m_updateWeight) * w + m_updateWeight * target);
    next = std::max(next, 2.0);
    tcb->m_cWnd = static_cast<uint32_t>(std::lround(next * tcb->m_segmentSize));
    tcb->m_ssThresh = std::min(tcb->m_ssThresh.Get(), tcb->m_cWnd.Get());
    m_updateTrace(m_baseRtt, GetAvgRtt(), queued, before, tcb->m_cWnd.Get());
    NS_LOG_DEBUG("queued " << queued << ": window " << w << " -> " << next << " segments");
}

void
TcpFast::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked);

    bool estimated = m_avgRtt > 0.0 && m_baseRtt != Time::Max();
    double w = static_cast<double>(tcb->m_cWnd.Get()) / tcb->m_segmentSize;

    if (tcb->m_cWnd < tcb->m_ssThresh)
    {
        if (estimated && QueuedPackets(w) > m_gamma)
        {
            NS_LOG_LOGIC("slow start ends: " << QueuedPackets(w) << " packets queued");
            tcb->m_ssThresh = tcb->m_cWnd.Get();
            UpdateWindow(tcb);
            m_begSndNxt = tcb->m_nextTxSequence;
            return;
        }
        TcpNewReno::SlowStart(tcb, segmentsAcked);
        return;
    }

    if (tcb->m_lastAckedSeq < m_begSndNxt)
    {
        return; // the window changes once per RTT and is held in between
    }
    m_begSndNxt = tcb->m_nextTxSequence;
    if (estimated)
    {
        UpdateWindow(tcb);
    }
}

uint32_t
TcpFast::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    NS_LOG_FUNCTION(this << tcb << bytesInFlight);
    return std::max(tcb->m_cWnd.Get() / 2, 2 * tcb->m_segmentSize);
}

} // namespace ns3
