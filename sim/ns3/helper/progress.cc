/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "progress.h"

#include "ns3/simulator.h"

#include <ctime>
#include <iomanip>
#include <iostream>

namespace ns3
{
namespace emusim
{

namespace
{
void
Report(const std::string& program, Time total, Time every)
{
    const double cpuS = static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
    std::cerr << program << ": " << std::fixed << std::setprecision(0)
              << Simulator::Now().GetSeconds() << " of " << total.GetSeconds() << " simulated s, "
              << cpuS << " CPU-s" << std::endl;
    if (Simulator::Now() + every < total)
    {
        Simulator::Schedule(every, &Report, program, total, every);
    }
}
} // namespace

void
ReportProgress(const std::string& program, Time total, Time every)
{
    Simulator::Schedule(every, &Report, program, total, every);
}

} // namespace emusim
} // namespace ns3
