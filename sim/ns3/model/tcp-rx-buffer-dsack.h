/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A D-SACK block (RFC 2883) in the ACKs of an ns-3 3.44 receiver. TcpSocketBase writes the SACK
 * option from its TcpRxBuffer's private SACK list (AddOptionSack), with no hook for a block of
 * its own; Linux writes its D-SACK block first, before the SACK blocks (tcp_options_write,
 * net/ipv4/tcp_output.c:659-676).
 */

#ifndef EMUSIM_TCP_RX_BUFFER_DSACK_H
#define EMUSIM_TCP_RX_BUFFER_DSACK_H

#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-rx-buffer.h"

#include <functional>

namespace ns3
{

/**
 * @brief Run `send` with `block` first in the buffer's SACK list, and take it out again.
 * @param buffer the receiver's buffer
 * @param block the D-SACK block
 * @param send what writes the ACK (TcpSocketBase::SendEmptyPacket)
 */
void WithDuplicateSack(TcpRxBuffer& buffer,
                       const TcpOptionSack::SackBlock& block,
                       const std::function<void()>& send);

} // namespace ns3

#endif // EMUSIM_TCP_RX_BUFFER_DSACK_H
