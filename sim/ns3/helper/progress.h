/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Progress of a long run on standard error (which the workflow writes to the run's log, so that
 * `tail -f logs/ns3/…/run1.log` shows it): a paper-scale multi-flow run lasts up to hours.
 */

#ifndef EMUSIM_PROGRESS_H
#define EMUSIM_PROGRESS_H

#include "ns3/nstime.h"

#include <string>

namespace ns3
{
namespace emusim
{

/**
 * \brief Every `every` of simulated time until `total`, write a line to standard error: the
 * simulated seconds reached of the total and the CPU seconds the process has used. The events
 * it schedules touch nothing else, so a run's output is the same with it.
 * \param program the program's name, which starts each line
 * \param total the run's simulated time
 * \param every how often to report
 */
void ReportProgress(const std::string& program, Time total, Time every);

} // namespace emusim
} // namespace ns3

#endif // EMUSIM_PROGRESS_H
