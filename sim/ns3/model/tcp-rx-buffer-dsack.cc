/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The SACK list is the private member of the wheel's tcp-rx-buffer.h (3.44), reached as
 * private-member.h says.
 */

#include "tcp-rx-buffer-dsack.h"

#include "private-member.h"

#include "ns3/abort.h"

namespace ns3
{
// the tags live beside MemberOf, whose friend get() they declare (private-member.h)
namespace private_member
{

struct SackListOf
{
    using type = TcpOptionSack::SackList TcpRxBuffer::*;
    friend type get(SackListOf);
};

template struct MemberOf<SackListOf, &TcpRxBuffer::m_sackList>;

} // namespace private_member

void
WithDuplicateSack(TcpRxBuffer& buffer,
                  const TcpOptionSack::SackBlock& block,
                  const std::function<void()>& send)
{
    TcpOptionSack::SackList& list = buffer.*get(private_member::SackListOf{});
    list.push_front(block);
    send();
    NS_ABORT_MSG_IF(list.empty() || list.front() != block,
                    "the receiver's SACK list changed while an ACK was written");
    list.pop_front();
}

} // namespace ns3
