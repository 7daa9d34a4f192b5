/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3 3.44's TcpYeah with the unsigned wrap of its slow start threshold corrected; why and
 * what it changes: docs/variants.md, "YeAH in ns-3".
 */

#ifndef EMUSIM_TCP_YEAH_NOWRAP_H
#define EMUSIM_TCP_YEAH_NOWRAP_H

#include "ns3/tcp-yeah.h"

namespace ns3
{

/**
 * @ingroup congestionOps
 *
 * @brief TcpYeah whose slow start threshold after a loss is never above what YeAH intends.
 *
 * TcpYeah::GetSsThresh (ns-3 3.44, tcp-yeah.cc, the last statement) returns
 *
 *     max(bytesInFlight - reduction * segmentSize, 2 * segmentSize)
 *
 * in uint32_t. The reduction is at least two segments whenever YeAH believes it competes with
 * Reno flows (m_doingRenoNow >= Rho) or its last queue estimate was two or more, so with fewer
 * than `reduction` segments in flight (a receiver-window-limited sender, or a second loss right
 * after a recovery) the subtraction wraps to nearly 2^32 and the maximum keeps the wrapped
 * value: ssThresh = 4 294 965 848 with one 1448-byte segment in flight. The comment beside it,
 * "Allow, at least, 2 segment to go out", and Linux's tcp_yeah_ssthresh (max(cwnd - reduction,
 * 2U), net/ipv4/tcp_yeah.c) say the intended value is two segments.
 *
 * What the wrap does downstream, traced in the lossy-link program (5 % loss, 10 ms, PRR,
 * pacing; docs/variants.md): TcpPrrRecovery::DoRecovery takes
 * static_cast<int>(ssThresh - bytesInFlight), which for that threshold is negative, so its send
 * count is 0 and cWnd = bytesInFlight, 0 with nothing in flight; TcpSocketBase::UpdatePacingRate
 * then computes a pacing rate of 0 bps; the next retransmission timeout's send divides by it
 * (DataRate::CalculateBytesTxTime) and the program dies with SIGFPE.
 *
 * This class returns exactly TcpYeah's threshold whenever TcpYeah's subtraction did not wrap,
 * and two segments when it did. The two cases are told apart without redoing YeAH's arithmetic:
 * a threshold that did not wrap is at most max(bytesInFlight, 2 segments); a wrapped one,
 * 2^32 - (reduction * segmentSize - bytesInFlight), is larger than that for every reduction
 * TcpYeah can compute (at most bytesInFlight / 2 or two segments). TcpYeah's bookkeeping in
 * GetSsThresh (m_fastCount, m_renoCount) and everything else of the algorithm run unchanged.
 */
class TcpYeahNoWrap : public TcpYeah
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    TcpYeahNoWrap();

    /**
     * @brief Copy constructor (used by Fork).
     * @param sock the object to copy
     */
    TcpYeahNoWrap(const TcpYeahNoWrap& sock);

    std::string GetName() const override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    Ptr<TcpCongestionOps> Fork() override;
};

} // namespace ns3

#endif /* EMUSIM_TCP_YEAH_NOWRAP_H */
