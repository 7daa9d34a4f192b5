/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "linux-run-facts.h"

#include "../model/blast-apps.h"
#include "../model/tcp-linux-congestion.h"

namespace ns3
{
namespace emusim
{

std::string
LinuxRunFacts(Ptr<const TcpBlastClient> client, std::string& status)
{
    const std::string ran = client->GetLinuxAlgorithm();
    if (ran.empty())
    {
        return "";
    }
    const std::string asked = TcpLinuxCongestion::DefaultAlgorithm();
    std::string facts = ", \"linux_congestion_control\": \"" + ran + "\", \"linux_source\": \"" +
                        emusim_cc_source_version() + "\"";
    if (ran != asked)
    {
        status = "other-algorithm";
        facts += ", \"congestion_control_note\": \"the connection ran " + ran + ", not " + asked +
                 " (ECN " + (TcpLinuxCongestion::NeedsEcn(asked) ? "needed" : "not needed") +
                 "; Linux falls back from an algorithm whose needs the connection does not "
                 "meet)\"";
    }
    return facts;
}

} // namespace emusim
} // namespace ns3
