/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The SACK list is reached as tcp-tx-buffer-marks.cc reaches the sender's marks: C++ checks no
 * access in an explicit template instantiation ([temp.explicit]/12), so instantiating a template
 * with a pointer to the private member hands it out through a friend function. The member is
 * that of the wheel's tcp-rx-buffer.h (3.44); a renamed member is a compile error here.
 */

#include "tcp-rx-buffer-dsack.h"

#include "ns3/abort.h"

namespace ns3
{
namespace
{

/// Hands out the member pointer M through get(Tag).
template <typename Tag, typename Tag::type M>
struct MemberOf
{
    friend typename Tag::type get(Tag)
    {
        return M;
    }
};

struct SackListOf
{
    using type = TcpOptionSack::SackList TcpRxBuffer::*;
    friend type get(SackListOf);
};

template struct MemberOf<SackListOf, &TcpRxBuffer::m_sackList>;

} // namespace

void
WithDuplicateSack(TcpRxBuffer& buffer,
                  const TcpOptionSack::SackBlock& block,
                  const std::function<void()>& send)
{
    TcpOptionSack::SackList& list = buffer.*get(SackListOf{});
    list.push_front(block);
    send();
    NS_ABORT_MSG_IF(list.empty() || list.front() != block,
                    "the receiver's SACK list changed while an ACK was written");
    list.pop_front();
}

} // namespace ns3
