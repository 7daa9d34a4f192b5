"""Linux hosts as a run sees them: commands started on a role's host and their output, whatever
carries them. The emulation carries them into a network namespace of the VM
(emusim.backends.mininet.network), the testbed over SSH (emusim.backends.testbed.execute):
each implements `Hosts`, and everything a run does on the hosts (emusim.workloads.run_one, the
workloads' `run_linux`) is written once against it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from typing import Protocol

from emusim.linux.blast_output import last_json, parse_netstat

READY = "READY"
"""What a blast tool's server prints when it listens (emu/blast)."""


class HostError(RuntimeError):
    """A command on a host failed, printed no result or did not end in time; the message names
    the command's role and what it is."""


class Process(Protocol):
    """A command running on a host."""

    def readline(self, timeout_s: float) -> str:
        """Its next line of output ('' at its end); raises when none comes in time."""

    def finish(self, timeout_s: float, check: bool = True) -> subprocess.CompletedProcess:
        """Wait for its end and return its exit status and output; raises when it does not
        end in time or (with `check`) exits non-zero."""

    def kill(self) -> None:
        """Stop it."""


class Hosts(Protocol):
    """The hosts of one run (roles sender, router, receiver, …) and how commands reach them."""

    port: int
    """The port the workloads' servers listen on."""
    margin_s: float
    """How much longer than its own time limit a workload's command may take."""
    window_clamp: str | None
    """The receiver's TCP window clamp (a profile's TCP_WINDOW_CLAMP), None for none."""
    warmed: set[str]
    """The workloads that have warmed these hosts up (a workload's own first-run marker)."""
    default_congestion_control: str | None
    """The congestion control a connection uses unless it sets one (a profile's sysctl), None
    where nothing is checked: the hosts' own."""

    def address(self, role: str) -> str:
        """The address the sender reaches the role's host at."""

    def tool(self, name: str) -> str:
        """The path of one of the project's tools (emu/blast) on the hosts."""

    def guard_s(self, timeout_s: float) -> float:
        """A tool's own guard timeout for `timeout_s` of the hosts' clock (longer where the
        hosts' clock may jump: emusim.backends.mininet.host.patient)."""

    def start(self, role: str, argv: Sequence[str]) -> Process:
        """Start a command on the role's host and return at once."""

    def run(
        self, role: str, argv: Sequence[str], timeout_s: float, check: bool = True
    ) -> subprocess.CompletedProcess:
        """Run a command on the role's host to its end."""

    def script(self, role: str, commands: Sequence[Sequence[str]]) -> str:
        """Commands one after another in one shell on the role's host (one start), stopping at
        the first that fails; their output."""

    def set_sysctls(self, per_role: dict[str, dict[str, str | None]]) -> None:
        """Sysctls per role; None restores the value the run began with."""


class Dropper(Protocol):
    """The router's packet dropper (emusim.linux.dropper)."""

    def configure(self, dropper: dict, target: str) -> None:
        """Set its mode for the next run and reset its drop count."""

    def seen(self) -> int | None:
        """Target packets it has decided on so far (None where it does not count them)."""

    def dropped(self) -> int:
        """Packets it dropped since `configure`."""


def start_server(hosts: Hosts, role: str, argv: Sequence[str], what: str, timeout_s: float):
    """Start a server and wait for its READY line; a server that does not say it is named with
    what it printed."""
    proc = hosts.start(role, argv)
    line = proc.readline(hosts.guard_s(timeout_s))
    if not line.startswith(READY):
        done = proc.finish(10, check=False)
        raise HostError(f"{what} did not start: {line.strip()} {done.stderr.strip()}")
    return proc


def finish_json(proc: Process, what: str, timeout_s: float, ok: Sequence[int] = ()) -> dict:
    """The last JSON object a tool printed when it ends; an exit status outside `ok` (when
    given) or no result is an error that names the tool."""
    done = proc.finish(timeout_s, check=False)
    if ok and done.returncode not in ok:
        raise HostError(f"{what} failed ({done.returncode}): {done.stderr.strip()[-800:]}")
    result = last_json(done.stdout)
    if result is None:
        raise HostError(
            f"{what} printed no result (exit {done.returncode}): {done.stderr.strip()[-800:]}"
        )
    return result


def counters(hosts: Hosts, role: str, flush_metrics: bool = False) -> dict[str, int]:
    """The TCP and IP counters of the role's host (/proc/net/netstat and snmp); first flush its
    TCP metrics cache if asked, so that no run inherits a cached ssthresh or RTT."""
    cmds = [["cat", "/proc/net/netstat", "/proc/net/snmp"]]
    if flush_metrics:
        cmds.insert(0, ["ip", "tcp_metrics", "flush", "all"])
    return parse_netstat(hosts.script(role, cmds))
