"""The emulation's hosts as emusim.linux.hosts.Hosts: commands started in a node's network
namespace (the node's shell, Mininet's ``Host.popen``) on the machine or the VM that runs the
batch. What runs on them is written once for the emulation and the testbed
(emusim.workloads.run_one, the workloads' ``run_linux``).
"""

from __future__ import annotations

import contextlib
import select
import subprocess
from collections.abc import Sequence
from pathlib import Path

from emusim.backends.mininet.host import PORT, patient, tool
from emusim.backends.mininet.scheduling import realtime_argv
from emusim.linux.blast_output import parse_netstat
from emusim.linux.hosts import HostError
from emusim.linux.shaper import parse_qdisc_stats

MARGIN_S = 60.0
"""How much longer than its own time limit a workload's command may take (a guard: in dilated
time every guard gets `patient`'s slack on top)."""

SOFTNET_STAT = Path("/proc/net/softnet_stat")
BACKLOG_SYSCTL = Path("/proc/sys/net/core/netdev_max_backlog")


class NamespaceProcess:
    """A command running in a node's namespace (emusim.linux.hosts.Process)."""

    def __init__(self, proc: subprocess.Popen, what: str):
        self.proc, self.what = proc, what

    def readline(self, timeout_s: float) -> str:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout_s)
        if not ready:
            raise HostError(f"{self.what}: no output within {timeout_s:g} s")
        return self.proc.stdout.readline()

    def finish(self, timeout_s: float, check: bool = True) -> subprocess.CompletedProcess:
        try:
            out, err = self.proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            raise HostError(f"{self.what} did not end within {timeout_s:g} s") from None
        done = subprocess.CompletedProcess(self.proc.args, self.proc.returncode, out, err)
        if check and done.returncode != 0:
            raise HostError(f"{self.what} failed ({done.returncode}): {err.strip()}")
        return done

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        with contextlib.suppress(ValueError, OSError):
            self.proc.communicate()


class NamespaceHosts:
    """The nodes of a running emusim.backends.mininet.network.Network."""

    port = PORT
    margin_s = MARGIN_S

    realtime_roles: frozenset[str] = frozenset()
    """Roles whose commands run at real-time priority (in the VM: emusim.backends.mininet.
    scheduling, set by the executor)."""

    def __init__(self, network):
        self.network = network
        self.warmed: set[str] = set()
        tcp = network.spec.tcp
        self.window_clamp = tcp.socket.get("TCP_WINDOW_CLAMP")
        self.default_congestion_control = tcp.sysctls.get("net.ipv4.tcp_congestion_control")

    def address(self, role: str) -> str:
        topo = self.network.spec.topo
        return {"receiver": topo.receiver, "router": topo.router_in}[role]

    def tool(self, name: str) -> str:
        return tool(name)

    def guard_s(self, timeout_s: float) -> float:
        return patient(timeout_s)

    def start(self, role: str, argv: Sequence[str]) -> NamespaceProcess:
        argv = [str(a) for a in argv]
        what = f"{role}: {argv[0]}"
        if role in self.realtime_roles:
            argv = realtime_argv(argv)
        return NamespaceProcess(self.network.popen(role, argv), what)

    def run(
        self, role: str, argv: Sequence[str], timeout_s: float, check: bool = True
    ) -> subprocess.CompletedProcess:
        return self.start(role, argv).finish(timeout_s, check)

    def script(self, role: str, commands: Sequence[Sequence[str]]) -> str:
        return self.network.script(role, [list(c) for c in commands])

    def set_sysctls(self, per_role: dict[str, dict[str, str | None]]) -> None:
        self.network.set_sysctls(per_role)

    # - what only the router-forwarding study reads (emusim.workloads.udp_flood) -

    def ip_counters(self, role: str) -> dict[str, int]:
        """The IP and UDP counters of a node's namespace, read through its shell's /proc
        entry (no process started in the namespace)."""
        pid = self.network.hosts[role].pid
        text = "".join(Path(f"/proc/{pid}/net/{name}").read_text() for name in ("snmp", "netstat"))
        return parse_netstat(text)

    def egress_qdisc(self) -> dict[str, int]:
        """The router's egress qdisc toward the receiver: packets sent and dropped."""
        dev = self.network.devs["router_out"]
        return parse_qdisc_stats(
            self.network.run("router", ["tc", "-s", "-j", "qdisc", "show", "dev", dev])
        )

    def backlog_drops(self) -> int:
        """Packets the kernel's per-CPU input backlogs dropped since boot (all CPUs, column 2
        of /proc/net/softnet_stat): kernel-wide, not per namespace."""
        return sum(int(line.split()[1], 16) for line in SOFTNET_STAT.read_text().splitlines())

    def backlog_limit(self) -> int | None:
        """net.core.netdev_max_backlog of the running kernel (kernel-wide)."""
        try:
            return int(BACKLOG_SYSCTL.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None
