/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "run-arguments.h"

#include "ns3/abort.h"
#include "ns3/rng-seed-manager.h"

namespace ns3
{
namespace emusim
{

void
AddLineArguments(CommandLine& cmd, LineArguments& line, bool dropper)
{
    cmd.AddValue("linkRateBps", "link rate in bit/s", line.linkRateBps);
    cmd.AddValue("interframeGapNs", "per-frame overhead time in ns", line.interframeGapNs);
    cmd.AddValue("channelDelayNs", "delay per link in ns", line.channelDelayNs);
    cmd.AddValue("routerQueuePackets", "routers' FIFO limit", line.routerQueuePackets);
    cmd.AddValue("hostQueuePackets", "hosts' FIFO limit", line.hostQueuePackets);
    if (dropper)
    {
        cmd.AddValue("dropMode", "off, random or regular", line.dropMode);
        cmd.AddValue("cutoff", "random mode: drop when r < cutoff", line.cutoff);
        cmd.AddValue("everyN", "regular mode: drop every N-th target packet", line.everyN);
        cmd.AddValue("target", "dropper target address", line.target);
    }
}

void
AddBlastArguments(CommandLine& cmd, BlastArguments& blast)
{
    cmd.AddValue("writes", "TCP writes (or UDP datagrams)", blast.writes);
    cmd.AddValue("writeSize", "bytes per write or datagram", blast.writeSize);
    cmd.AddValue("maxSimTimeS", "cap on simulated seconds", blast.maxSimTimeS);
    cmd.AddValue("traceFile", "TCP event trace CSV", blast.traceFile);
}

void
AddRunArguments(CommandLine& cmd, RunArguments& run)
{
    cmd.AddValue("seed", "RngSeed", run.seed);
    cmd.AddValue("run", "RngRun", run.run);
    cmd.AddValue("output", "JSON output path (- for stdout)", run.output);
}

void
CheckDropper(const LineArguments& line)
{
    NS_ABORT_MSG_UNLESS(line.dropMode == "off" || line.dropMode == "random" ||
                            line.dropMode == "regular",
                        "--dropMode must be off, random or regular, not " << line.dropMode);
    NS_ABORT_MSG_IF(line.cutoff > 65535, "--cutoff must be at most 65535");
}

void
SeedStreams(const RunArguments& run)
{
    RngSeedManager::SetSeed(run.seed);
    RngSeedManager::SetRun(run.run);
}

} // namespace emusim
} // namespace ns3
