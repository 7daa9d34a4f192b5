/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What a run's JSON says about Linux's own congestion control (TcpLinuxCongestion), for every
 * program whose sender is a TcpBlastClient.
 */

#ifndef EMUSIM_LINUX_RUN_FACTS_H
#define EMUSIM_LINUX_RUN_FACTS_H

#include "ns3/ptr.h"

#include <string>

namespace ns3
{

class TcpBlastClient;

namespace emusim
{

/**
 * @brief The algorithm the client's connection ran and the source it was built from, as JSON
 * members of the program's "ns3" object (", \"linux_congestion_control\": ..."); "" when the
 * connection did not run a Linux module. A module may replace itself (dctcp without ECN runs
 * dctcp-reno): then `status` becomes "other-algorithm" and a note says why (emusim.core.run_status).
 * @param client the sender
 * @param status the run's status, changed as said
 * @return the members
 */
std::string LinuxRunFacts(Ptr<const TcpBlastClient> client, std::string& status);

} // namespace emusim
} // namespace ns3

#endif /* EMUSIM_LINUX_RUN_FACTS_H */
