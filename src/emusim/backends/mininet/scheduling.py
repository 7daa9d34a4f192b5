"""The guest's CPU scheduling: the emulated machines share the VM's one vCPU, where on hardware
each is a computer of its own (docs/mininet.md, "One CPU for every machine").

In the VM every host, the router and the links run on one CPU, and in dilated time the guest
counts one nanosecond per instruction, so an application's work costs the guest several times
what it costs a real machine. Two things then stop the whole network for milliseconds, neither
of which can happen when the sender, the router and the receiver are separate machines:

- the sender's application wakes to refill its send buffer and runs its scheduler slice (up to a
  4-ms tick) with ksoftirqd runnable beside it; while ksoftirqd is runnable the kernel runs no
  softirq on an interrupt's exit (``ksoftirqd_running``, kernel/softirq.c:89-96, 460), so no
  packet moves anywhere: the router and the receiver are waiting for the sender's application;
- the receiving application, woken by the data, waits behind the sender's application; until
  it reads, the receiver's window would shrink, so its kernel delays the ACK
  (``__tcp_ack_snd_check``, net/ipv4/tcp_input.c: an immediate ACK needs
  ``__tcp_select_window(sk) >= tp->rcv_wnd``), and the sender's ACK clock stops.

So the guest runs what is short and another machine's at real-time priority above the
applications of the sender: every ksoftirqd thread (the network: every hop's queueing
discipline, dropper and stack) at SCHED_FIFO ``KSOFTIRQD_PRIORITY``, and every command on the
receiving host (the blast servers, the flood's sink) at SCHED_FIFO ``RECEIVER_PRIORITY``. Both
sleep as soon as their work is done, so the sender's application still has the CPU whenever no
other machine needs it. On the host (real time, several CPUs, the user's own machine) nothing
is changed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

KSOFTIRQD_PRIORITY = 50
"""SCHED_FIFO priority of the guest's ksoftirqd threads: above the receiving host's commands,
below the kernel's own real-time threads (migration, watchdog: 99)."""
RECEIVER_PRIORITY = 1
"""SCHED_FIFO priority of the commands on the receiving host: above every SCHED_OTHER task."""
REALTIME_ROLES = frozenset({"receiver"})
"""The roles whose commands run at RECEIVER_PRIORITY in the guest."""

GUEST_SCHEDULING = {
    "ksoftirqd": {"policy": "SCHED_FIFO", "priority": KSOFTIRQD_PRIORITY},
    "roles": {
        role: {"policy": "SCHED_FIFO", "priority": RECEIVER_PRIORITY}
        for role in sorted(REALTIME_ROLES)
    },
}
"""What the guest's scheduling is; part of an emulated run's key (plan.run_key), so that no run
made before or without it is restored in its place."""


def for_clock(clock: str) -> dict | None:
    """The scheduling a run with this clock had: the guest's for every VM clock, None on the
    host."""
    return None if clock == "host" else GUEST_SCHEDULING


def ksoftirqd_pids(proc: Path = Path("/proc")) -> list[int]:
    """The pids of the kernel's ksoftirqd/N threads (one per CPU)."""
    pids = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            comm = (entry / "comm").read_text().strip()
        except OSError:  # the task ended while we looked
            continue
        if comm.startswith("ksoftirqd/"):
            pids.append(int(entry.name))
    return sorted(pids)


def prioritise_softirqs(proc: Path = Path("/proc")) -> dict:
    """Put every ksoftirqd thread at SCHED_FIFO KSOFTIRQD_PRIORITY; what was done, for the
    batch's record. Raises RuntimeError when there is none (not a Linux kernel we know)."""
    pids = ksoftirqd_pids(proc)
    if not pids:
        raise RuntimeError(f"no ksoftirqd thread in {proc}: cannot give the network priority")
    for pid in pids:
        os.sched_setscheduler(pid, os.SCHED_FIFO, os.sched_param(KSOFTIRQD_PRIORITY))
    return {**GUEST_SCHEDULING, "ksoftirqd_threads": len(pids)}


def realtime_argv(argv: Sequence[str]) -> list[str]:
    """A command line that runs ``argv`` at SCHED_FIFO RECEIVER_PRIORITY (util-linux chrt)."""
    return ["chrt", "--fifo", str(RECEIVER_PRIORITY), *argv]
