/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What TcpLinuxSocket's two source files share: sequence order and the constants of its loss
 * rules (tcp-linux-socket.cc: measurement and the receiver; tcp-linux-socket-loss.cc: RACK,
 * tail loss probes, F-RTO, D-SACK and undo).
 */

#ifndef EMUSIM_TCP_LINUX_SOCKET_DETAIL_H
#define EMUSIM_TCP_LINUX_SOCKET_DETAIL_H

#include <cstdint>

namespace ns3
{
namespace tcp_linux
{

/// Sequence order with wrap (include/net/tcp.h: before)
inline bool
Before(uint32_t seq1, uint32_t seq2)
{
    return static_cast<int32_t>(seq1 - seq2) < 0;
}

/// A duplicate-ACK threshold no connection reaches: ns-3's own loss rules off under RACK
constexpr uint32_t NO_DUPACK_THRESHOLD = 1U << 30;

} // namespace tcp_linux
} // namespace ns3

#endif // EMUSIM_TCP_LINUX_SOCKET_DETAIL_H
