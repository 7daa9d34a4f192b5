/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The command-line arguments the programs share, each declared once: the line of hosts
 * (links, queues, the dropper) that testbed-2001, router-forwarding and lossy-link build, the
 * bulk transfer that testbed-2001 and lossy-link run, and every program's seed, run and output.
 * A program adds its own (its workload's) beside them.
 * Their names are the ones sim/ns3/programs/arguments.yaml lists for each program, the table
 * the Python side (src/emusim/backends/ns3/command.py) builds its command lines against; a
 * test reads every program's --PrintHelp against it.
 */

#ifndef EMUSIM_RUN_ARGUMENTS_H
#define EMUSIM_RUN_ARGUMENTS_H

#include "ns3/command-line.h"

#include <cstdint>
#include <string>

namespace ns3
{
namespace emusim
{

/// A line of hosts: its links, its queues and the router's dropper.
struct LineArguments
{
    uint64_t linkRateBps{100000000};   //!< rate of every link
    uint64_t interframeGapNs{2880};    //!< per-frame overhead beyond ns-3's PPP header
    uint64_t channelDelayNs{37863};    //!< propagation delay per link (the Python side always
                                       //!< gives it: emusim.backends.ns3.command)
    uint32_t routerQueuePackets{100};  //!< routers' FIFOs (tx_queue_len)
    uint32_t hostQueuePackets{100};    //!< sender's and receiver's FIFOs (tx_queue_len)
    std::string dropMode{"off"};       //!< the router's dropper: off, random or regular
    uint32_t cutoff{0};                //!< random: drop when a 16-bit r < cutoff
    uint32_t everyN{0};                //!< regular: drop every N-th target packet
    std::string target{"192.168.2.2"}; //!< the address whose packets the dropper considers
};

/// A bulk transfer: how much the sender writes, how long it may take, its TCP trace.
struct BlastArguments
{
    uint64_t writes{100000};    //!< TCP writes (or UDP datagrams, where the program sends them)
    uint32_t writeSize{1448};   //!< bytes per write or datagram
    double maxSimTimeS{100000}; //!< cap on simulated time
    std::string traceFile;      //!< TCP event trace CSV ("" = none)
};

/// What every program takes: its random streams and where its JSON goes.
struct RunArguments
{
    uint64_t seed{1};   //!< RngSeed
    uint64_t run{1};    //!< RngRun
    std::string output; //!< JSON path ("" or "-": stdout)
};

/**
 * \brief Declare the line's arguments on a command line.
 * \param cmd the program's command line
 * \param line where the values go
 * \param dropper whether the program has the router's dropper (lossy-link's loss is its own)
 */
void AddLineArguments(CommandLine& cmd, LineArguments& line, bool dropper = true);

/**
 * \brief Declare the bulk transfer's arguments on a command line.
 * \param cmd the program's command line
 * \param blast where the values go (their defaults are the program's)
 */
void AddBlastArguments(CommandLine& cmd, BlastArguments& blast);

/**
 * \brief Declare the seed, run and output arguments on a command line.
 * \param cmd the program's command line
 * \param run where the values go
 */
void AddRunArguments(CommandLine& cmd, RunArguments& run);

/**
 * \brief Abort naming the argument if the dropper's settings are not valid.
 * \param line the parsed arguments
 */
void CheckDropper(const LineArguments& line);

/**
 * \brief Seed ns-3's random streams (RngSeed, RngRun) from the parsed arguments.
 * \param run the parsed arguments
 */
void SeedStreams(const RunArguments& run);

} // namespace emusim
} // namespace ns3

#endif /* EMUSIM_RUN_ARGUMENTS_H */
