/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The drop decision of the 2001 packet dropper, specified once in spec/drop-decision.md and
 * checked against spec/drop_decision_vectors.csv by every implementation.
 */

#ifndef EMUSIM_DROPPER_DECISION_H
#define EMUSIM_DROPPER_DECISION_H

#include <cstdint>
#include <optional>
#include <string>

namespace ns3
{
namespace emusim
{

/// Largest value of the 16-bit random number and the factor of the report's cutoff.
constexpr uint32_t kRandomRange = 65535;

/**
 * \brief Random mode: drop when the 16-bit random number is below the cutoff.
 * \param cutoff floor(rate x 65535)
 * \param r uniform random number in [0, 65535]
 * \return true to drop
 */
inline bool
RandomModeDrops(uint16_t cutoff, uint16_t r)
{
    return r < cutoff;
}

/**
 * \brief Regular mode: drop the k-th target packet since the last reset when N divides k.
 * \param n drop one packet in n (0 disables dropping)
 * \param k 1-based index of the target packet since the counter was reset
 * \return true to drop
 */
inline bool
RegularModeDrops(uint32_t n, uint64_t k)
{
    return n > 0 && k % n == 0;
}

/**
 * \brief The report's generator: the low 16 bits of the cycle counter, bytes swapped.
 * \param tsc a time-stamp counter value
 * \return the 16-bit "random" number
 */
inline uint16_t
TscRandom(uint64_t tsc)
{
    const auto low = static_cast<uint16_t>(tsc & 0xffff);
    return static_cast<uint16_t>((low << 8) | (low >> 8));
}

/**
 * \brief floor(rate x 65535) on the exact decimal string, as the kernel module parses it.
 *
 * Binary floating point would turn "0.6" into 39320; the decimal digits give 39321.
 * \param rate a decimal number in [0, 1] such as "0.004" or "1"
 * \return the cutoff, or nothing when the string is not such a number
 */
inline std::optional<uint16_t>
CutoffFromDecimalRate(const std::string& rate)
{
    uint64_t integerPart = 0;
    uint64_t fraction = 0;
    uint64_t scale = 1;
    size_t i = 0;
    bool digits = false;
    for (; i < rate.size() && rate[i] >= '0' && rate[i] <= '9'; ++i)
    {
        integerPart = integerPart * 10 + (rate[i] - '0');
        digits = true;
        if (integerPart > 1)
        {
            return std::nullopt;
        }
    }
    if (i < rate.size() && rate[i] == '.')
    {
        for (++i; i < rate.size() && rate[i] >= '0' && rate[i] <= '9'; ++i)
        {
            if (scale >= 1000000000000ULL)
            {
                return std::nullopt; // more digits than any rate needs
            }
            fraction = fraction * 10 + (rate[i] - '0');
            scale *= 10;
            digits = true;
        }
    }
    if (!digits || i != rate.size() || (integerPart == 1 && fraction != 0))
    {
        return std::nullopt;
    }
    return static_cast<uint16_t>(integerPart * kRandomRange + fraction * kRandomRange / scale);
}

} // namespace emusim
} // namespace ns3

#endif /* EMUSIM_DROPPER_DECISION_H */
