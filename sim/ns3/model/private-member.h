/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * How emusim reaches a private member of one of the wheel's ns-3 classes that has no accessor
 * (the sender's segment marks, the receiver's SACK list): C++ checks no access in an explicit
 * template instantiation ([temp.explicit]/12), so instantiating MemberOf with a pointer to the
 * private member hands that pointer out through the friend function get(Tag). The members are
 * those of the wheel's 3.44 headers (docs/ns3-hot-paths.md); a renamed member is a compile
 * error, not a wrong result. Include it in one .cc file per member: each instantiation defines
 * get(Tag).
 */

#ifndef EMUSIM_PRIVATE_MEMBER_H
#define EMUSIM_PRIVATE_MEMBER_H

namespace ns3
{
namespace private_member
{

/**
 * @brief Hands out the member pointer M through get(Tag), Tag declaring `type` (the member
 * pointer's type) and `friend type get(Tag)`.
 */
template <typename Tag, typename Tag::type M>
struct MemberOf
{
    /// @return the member pointer
    friend typename Tag::type get(Tag)
    {
        return M;
    }
};

} // namespace private_member
} // namespace ns3

#endif // EMUSIM_PRIVATE_MEMBER_H
