/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Which definitions of ns-3's hot paths run (docs/ns3-hot-paths.md): the one switch,
 * EMUSIM_NS3_TX_BUFFER, for the sender's (tcp-tx-buffer-hot-paths.cc) and the receiver's
 * (tcp-rx-buffer-hot-paths.cc), so that the "before" of a benchmark and the differential mode
 * cover both. Defined in tcp-tx-buffer-hot-paths.cc.
 */

#ifndef EMUSIM_NS3_HOT_PATHS_MODE_H
#define EMUSIM_NS3_HOT_PATHS_MODE_H

namespace emusim::hotpaths
{

/// From EMUSIM_NS3_TX_BUFFER: "ours" (unset: the default), "ns3" (the wheel's originals only: the
/// benchmark's "before") or "check" (ours, and every call also runs the wheel's original and
/// compares: the differential mode).
enum class Mode
{
    kOurs,
    kNs3,
    kCheck,
};

/// The mode of this process, read once; a bad value ends the process (status 2).
__attribute__((visibility("hidden"))) Mode CurrentMode();

/// The wheel's definition of the mangled `symbol`, the next after libemusim-ns3 in the link order
/// (dlsym RTLD_NEXT); its absence ends the process (status 70).
__attribute__((visibility("hidden"))) void* Original(const char* symbol);

} // namespace emusim::hotpaths

#endif /* EMUSIM_NS3_HOT_PATHS_MODE_H */
