/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "linux-run-facts.h"

#include "../model/blast-apps.h"
#include "../model/tcp-linux-congestion.h"
#include "../model/tcp-linux-socket.h"

#include "ns3/abort.h"

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
    // the counters of Linux's own names that the model keeps (RACK-TLP), as the emulation
    // records the kernel's (provenance.mininet.recovery_counters)
    Ptr<const TcpLinuxSocket> socket = client->GetLinuxSocket();
    NS_ABORT_MSG_UNLESS(socket, "a Linux congestion control without TcpLinuxSocket");
    facts +=
        ", \"recovery_counters\": {\"TCPLossProbes\": " + std::to_string(socket->GetTlpProbes()) +
        ", \"TCPLossProbeRecovery\": " + std::to_string(socket->GetTlpRecoveries()) +
        ", \"TCPLostRetransmit\": " + std::to_string(socket->GetRackLostRetransmits()) +
        ", \"TCPLossUndo\": " + std::to_string(socket->GetLossUndos()) +
        ", \"TCPSpuriousRTOs\": " + std::to_string(socket->GetSpuriousRtos()) +
        ", \"TCPDSACKRecv\": " + std::to_string(socket->GetDsacksReceived()) +
        ", \"TCPDSACKUndo\": " + std::to_string(socket->GetDsackUndos()) +
        ", \"TCPFullUndo\": " + std::to_string(socket->GetFullUndos()) +
        ", \"TCPTimeouts\": " + std::to_string(socket->GetRtoExpiries()) +
        ", \"rack_marked_lost\": " + std::to_string(socket->GetRackMarkedLost()) +
        ", \"rack_reorder_timeouts\": " + std::to_string(socket->GetRackReoTimeouts()) +
        ", \"recovery_entries_redirected\": " +
        std::to_string(socket->GetRecoveryEntriesRedirected()) + "}";
    // times TCP small queues held the sender back (no kernel counter has this)
    facts += ", \"tsq_throttles\": " + std::to_string(socket->GetTsqThrottles());
    // the module parameters the run set, read back (the emulation's provenance.module_parameters)
    const auto parameters = TcpLinuxCongestion::DefaultModuleParametersReadBack();
    if (!parameters.empty())
    {
        std::string items;
        for (const auto& [name, value] : parameters)
        {
            items += (items.empty() ? "\"" : ", \"") + name + "\": \"" + value + "\"";
        }
        facts += ", \"module_parameters\": {" + items + "}";
    }
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
