/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What every emusim program does with its result: one JSON object, numbers formatted the same
 * way each time, written whole or not at all.
 */

#ifndef EMUSIM_RUN_OUTPUT_H
#define EMUSIM_RUN_OUTPUT_H

#include "ns3/abort.h"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

namespace ns3
{
namespace emusim
{

/**
 * \brief A number for JSON, reproducibly: fixed notation with `digits` decimals.
 * \param value the number
 * \param digits decimals after the point
 * \return its text
 */
inline std::string
FormatNumber(double value, int digits = 9)
{
    std::ostringstream os;
    os << std::setprecision(digits) << std::fixed << value;
    return os.str();
}

/**
 * \brief Write `json` to `path` ("" or "-": stdout) through a temporary file and a rename, so
 * a killed run leaves no half file behind.
 * \param json the result, one JSON object and a newline
 * \param path where it goes
 */
inline void
WriteResult(const std::string& json, const std::string& path)
{
    if (path.empty() || path == "-")
    {
        std::cout << json;
        return;
    }
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        out << json;
        NS_ABORT_MSG_UNLESS(out.good(), "cannot write " << tmp);
    }
    NS_ABORT_MSG_IF(std::rename(tmp.c_str(), path.c_str()) != 0,
                    "cannot rename " << tmp << " to " << path);
}

} // namespace emusim
} // namespace ns3

#endif /* EMUSIM_RUN_OUTPUT_H */
