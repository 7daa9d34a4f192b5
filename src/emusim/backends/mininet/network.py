"""The Mininet backend's network: Mininet hosts in a line joined by veth links, run as root
(three hosts for the report's testbed, four with a second router: the lossy-link family).

Uses Mininet's own node and link classes (``mininet.node.Host``: a bash shell in a new network
namespace; ``mininet.link.Link``: a veth pair made directly inside the two namespaces), not
the ``Mininet`` class: there is no switch or controller, and ``Mininet.init()`` would raise
the root namespace's socket buffers and other sysctls (``fixLimits``), which a study must not
change on its host. Everything else (addresses, routes, static neighbours, tc, sysctls,
ethtool, netfilter) is set with ``ip``/``tc``/``sysctl``/``ethtool``/``iptables`` run in the
namespaces, and checked. The workloads run on its nodes through `emusim.backends.mininet.hosts`
(emusim.workloads.run_one, the same code as the testbed's).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import shlex
import subprocess
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from emusim.backends.mininet.calibration import (
    CALIBRATION_PING_COUNT,
    CALIBRATION_PING_INTERVAL_S,
    CALIBRATION_PING_SIZES,
    modelled_intercept_us,
    stack_latency_per_hop_us,
    two_point_line,
)
from emusim.backends.mininet.host import (
    COMMAND_TIMEOUT_S,
    EmuError,
    cleanup,
    import_mininet,
    patient,
    register,
    unregister,
)
from emusim.backends.mininet.hosts import NamespaceHosts
from emusim.backends.mininet.topology import (
    AQM_EGRESS,
    AQM_STAGE,
    ENV_MARK,
    LOSSY_EGRESS,
    PREFIX,
    Hop,
    Topology,
    impaired_link_commands,
    intf_name,
    node_name,
    offload_command,
    offloads_still_on,
)
from emusim.linux import tools
from emusim.linux.shaper import (
    codel_counters,
    codel_shaper_commands,
    delay_shortfall_us,
    has_sockets,
    ifb_name,
    ingress_stage_commands,
    ingress_stage_limit,
    netem_delay_arg,
    netem_delay_us,
    parse_codel,
    parse_qdisc_stats,
    shaper_commands,
)
from emusim.linux.tcp import (
    COMMON_SYSCTLS,
    RECORDED_SYSCTLS,
    TcpSetup,
    normalise_sysctl,
    route_command,
    sysctl_command,
)

# --- the network ------------------------------------------------------------------------------


@dataclass
class NetSpec:
    """What one batch's network is: topology, delay, shaper kind and TCP settings."""

    topo: Topology
    batch_id: str
    delay_us: float
    netem: bool
    tcp: TcpSetup


class CommandError(EmuError):
    pass


KERNEL_DEFAULTS = {"net.ipv4.tcp_ecn": "2", "net.ipv4.tcp_congestion_control": "cubic"}
"""Debian 6.1's values of the sysctls a run may change, for a profile that sets none."""


@dataclass
class Network:
    """Hosts in a line, shaped links, TCP settings; `start` builds it, `stop` removes it."""

    spec: NetSpec
    log: Callable[[str], None] = print
    hosts: dict = field(default_factory=dict)
    devs: dict = field(default_factory=dict)
    procs: list = field(default_factory=list)
    sysctls: dict = field(default_factory=dict)
    _impairment: tuple | None = None  # the impaired link's (loss, delay_ms) now
    _link_counts: dict | None = None  # its lossy egresses' counters after the last run
    stack_us: float = 0.0  # the emulator's own latency per hop (`calibrate`)
    ingress_stages: dict = field(default_factory=dict)  # router device key → its IFB's name
    host_io_sources: frozenset = frozenset()  # interrupts of the VM's 9p transports

    @property
    def env(self) -> dict[str, str]:
        env = {ENV_MARK: f"{PREFIX}{self.spec.batch_id}"}
        if self.host_io_sources:  # the blast tools count them over their measurement
            env["EMUSIM_HOST_IO_IRQS"] = " ".join(sorted(self.host_io_sources))
        return dict(os.environ, **env)

    # - running commands in a namespace -

    def run(
        self, role: str, argv: list[str], check: bool = True, timeout: float = COMMAND_TIMEOUT_S
    ) -> str:
        node = self.hosts[role]
        proc = node.popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=self.env, text=True,
        )  # fmt: skip
        try:
            out, err = proc.communicate(timeout=patient(timeout))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise CommandError(f"{role}: {' '.join(argv)} took more than {timeout} s") from None
        if check and proc.returncode != 0:
            raise CommandError(
                f"{role}: `{' '.join(argv)}` failed ({proc.returncode}): {err.strip()}"
            )
        return out

    def popen(self, role: str, argv: list[str]) -> subprocess.Popen:
        proc = self.hosts[role].popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=self.env, text=True,
        )  # fmt: skip
        self.procs.append(proc)
        return proc

    # - build and tear down -

    def script(self, role: str, commands: list[list[str]], check: bool = True) -> str:
        """Run commands one after another in one shell in the role's namespace (one process
        start instead of many: under the VM's software emulation each start is costly);
        stops at the first that fails."""
        text = "\n".join(shlex.join(argv) for argv in commands)
        return self.run(role, ["sh", "-ec", text], check=check)

    def start(self) -> None:
        Host, Link = import_mininet()
        spec, topo = self.spec, self.spec.topo
        register(spec.batch_id)
        line = topo.hops()
        for hop in line:
            self.hosts[hop.role] = Host(node_name(spec.batch_id, hop.role), inNamespace=True)
        # A node's device toward the sender is eth0, the one toward the receiver eth0 of the
        # sender and eth1 of a router.
        self.devs = {
            key: intf_name(self.hosts[hop.role].name, port)
            for hop in line
            for port, key in enumerate(hop.devs)
        }
        for (_, left), (_, right) in topo.links():
            Link(
                self.hosts[self._role_of(left)], self.hosts[self._role_of(right)],
                intfName1=self.devs[left], intfName2=self.devs[right], fast=True,
            )  # fmt: skip
        # a router's device facing a host with sockets carries that link's netem stage on its
        # ingress, through an IFB (ingress_stage_commands)
        self.ingress_stages = {}
        for (_, left), (_, right) in topo.links() if spec.netem else []:
            sockets = [has_sockets(self._role_of(key)) for key in (left, right)]
            if all(sockets):
                raise EmuError(f"{left} and {right}: a link between two hosts has no router")
            if any(sockets):
                router_dev = right if sockets[0] else left
                self.ingress_stages[router_dev] = ifb_name(self.devs[router_dev])
        if topo.aqm is not None:
            # the middle link's wire time and delay after router's CoDel queue
            # (codel_shaper_commands): on router2's ingress, as for a host's link
            self.ingress_stages[AQM_STAGE] = ifb_name(self.devs[AQM_STAGE])
        macs = {}
        for role in self.hosts:
            for link in json.loads(self.run(role, ["ip", "-j", "link", "show"])):
                macs[link["ifname"]] = link.get("address")
        p = topo.prefix_len
        # device key: (address, neighbour's address, neighbour's device key)
        ends = {}
        for (a, key_a), (b, key_b) in topo.links():
            ends[key_a] = (a, b, key_b)
            ends[key_b] = (b, a, key_a)
        self.sysctls = {}
        for hop in line:
            router = hop.role.startswith("router")
            sysctls = {x.key: x.value for x in COMMON_SYSCTLS}
            if router:
                sysctls["net.ipv4.ip_forward"] = "1"
            else:
                sysctls.update(spec.tcp.sysctls)
            self.sysctls[hop.role] = sysctls
            limit = topo.router_queue if router else topo.host_queue
            cmds = [sysctl_command(sysctls), ["ip", "link", "set", "lo", "up"]]
            for key in hop.devs:
                dev, (addr, peer, peer_key) = self.devs[key], ends[key]
                cmds += [
                    ["ip", "addr", "replace", f"{addr}/{p}", "dev", dev],
                    ["ip", "link", "set", dev, "up"],
                    offload_command(dev),
                    # permanent neighbours: no ARP exchange ever delays or adds a packet
                    ["ip", "neigh", "replace", peer, "lladdr", macs[self.devs[peer_key]],
                     "dev", dev, "nud", "permanent"],
                ]  # fmt: skip
                rate = topo.dev_rate_bps(key)
                delay = netem_delay_us(spec.delay_us, rate) if spec.netem else 0.0
                if (hop.role, key) == AQM_EGRESS and topo.aqm is not None:
                    cmds += codel_shaper_commands(dev, rate, limit, topo.aqm)
                elif spec.netem and has_sockets(hop.role):
                    # HTB holds the host's sockets back; the link's netem stage is on the
                    # router's ingress (ingress_stage_commands)
                    cmds += shaper_commands(dev, rate, limit, 0.0, False)
                else:
                    cmds += shaper_commands(dev, rate, limit, delay, spec.netem)
                if key in self.ingress_stages:
                    ifb = self.ingress_stages[key]
                    cmds += ingress_stage_commands(
                        dev, ifb, rate, self._ingress_limit(key, delay), delay
                    )
            cmds += self._routes(hop, ends)
            self.script(hop.role, cmds)
        self.verify()

    # - the emulator's own latency -

    def netem_delay(self, dev_key: str | None = None) -> float:
        """A plain egress's netem delay: the topology's, less the calibrated latency, for the
        link of device `dev_key` (None: a link at the topology's `rate_bps`, the middle one)."""
        topo = self.spec.topo
        rate = topo.rate_bps if dev_key is None else topo.dev_rate_bps(dev_key)
        return netem_delay_us(self.spec.delay_us, rate, self.stack_us)

    def reshape(self, delay_us: float | None = None) -> None:
        """Give every link direction's netem stage delay ``delay_us`` (None: each link's own
        `netem_delay`), with its rate and queue as before: a router's egress, and for a link
        from a host the IFB on the router's ingress (a host's own egress is HTB, which has no
        delay; so is router's CoDel egress, set once, whose link's stage is router2's IFB). An
        impaired link gets its point's settings again at the next run."""
        topo = self.spec.topo
        for hop in topo.hops():
            if has_sockets(hop.role):
                continue
            cmds = []
            for key in hop.devs:
                rate = topo.dev_rate_bps(key)
                delay = self.netem_delay(key) if delay_us is None else delay_us
                if (hop.role, key) != AQM_EGRESS or topo.aqm is None:
                    cmds += shaper_commands(self.devs[key], rate, topo.router_queue, delay, True)
                if key in self.ingress_stages:
                    cmds += shaper_commands(
                        self.ingress_stages[key], rate, self._ingress_limit(key, delay),
                        delay, True,
                    )  # fmt: skip
            self.script(hop.role, cmds)
        self._impairment = None

    def _ingress_limit(self, dev_key: str, delay_us: float) -> int:
        """The ingress stage's limit: the queue of the egress that feeds it (a host's, or
        router's CoDel queue for router2's stage) and the frames on the wire."""
        topo = self.spec.topo
        queue = topo.router_queue if dev_key == AQM_STAGE else topo.host_queue
        return ingress_stage_limit(queue, delay_us, topo.dev_rate_bps(dev_key))

    def calibrate(self) -> dict:
        """Measure the emulator's own latency per hop and take it off netem's delays.

        With every egress at the link's rate and netem's delay at 0, a ping sweep's intercept
        holds the modelled wire time of the headers (`modelled_intercept_us`) and what
        the emulator adds of its own: the guest's stack, veth, netem's queue and timers. That
        excess per hop is taken off each egress's delay, so the path's fitted delay is the
        configured one. This calibrates the emulator against its own target (a path of the
        configured delay), as Pantheon calibrates its emulators, never against hardware."""
        topo = self.spec.topo
        hosts = NamespaceHosts(self)
        self.reshape(0.0)
        sizes, rtts = [], []
        for size in CALIBRATION_PING_SIZES:
            got = tools.ping(hosts, size, CALIBRATION_PING_COUNT, CALIBRATION_PING_INTERVAL_S)
            sizes += [size] * len(got)
            rtts += got
        slope, intercept = two_point_line(sizes, rtts)
        links = len(topo.links())
        rates = topo.link_rates_bps()
        per_hop = stack_latency_per_hop_us(intercept, rates)
        self.stack_us = max(per_hop, 0.0)
        self.reshape()
        return {
            "method": "ping sweep over the shaped links with netem delay 0, two-point line",
            "sizes_B": list(CALIBRATION_PING_SIZES),
            "echoes": len(rtts),
            "slope_us_per_B": slope,
            "intercept_us": intercept,
            "modelled_intercept_us": modelled_intercept_us(rates),
            "links": links,
            **({"link_rates_bps": rates} if len(set(rates)) > 1 else {}),
            "stack_latency_per_hop_us": per_hop,
            "netem_delay_wanted_us": self.netem_delay(),
            "netem_delay_us": netem_delay_arg(self.netem_delay())[1],
            "uncalibrated_netem_delay_us": netem_delay_us(self.spec.delay_us, topo.rate_bps),
            "shortfall_per_hop_us": delay_shortfall_us(
                self.spec.delay_us, topo.rate_bps, self.stack_us
            ),
            "rtt_us": {
                str(z): [r for s_, r in zip(sizes, rtts, strict=True) if s_ == z]
                for z in CALIBRATION_PING_SIZES
            },
        }

    def _role_of(self, dev_key: str) -> str:
        return next(h.role for h in self.spec.topo.hops() if dev_key in h.devs)

    def _routes(self, hop: Hop, ends: dict) -> list[list[str]]:
        """Sender and receiver: a default route through their router (with the profile's
        route attributes). A router: a route to each subnet beyond its neighbours, through
        the neighbour on that side."""
        topo = self.spec.topo
        if not hop.role.startswith("router"):
            dev = hop.devs[0]
            return [route_command(ends[dev][1], self.devs[dev], self.spec.tcp.route)]
        keys = [key for link in topo.links() for _, key in link]
        subnets = [
            str(ipaddress.ip_interface(f"{a}/{topo.prefix_len}").network)
            for (a, _), _ in topo.links()
        ]
        here = [keys.index(key) // 2 for key in hop.devs]  # the links this router is on
        routes = []
        for i, subnet in enumerate(subnets):
            if i in here:
                continue
            side = hop.devs[0] if i < min(here) else hop.devs[-1]
            routes.append(
                ["ip", "route", "replace", subnet, "via", ends[side][1], "dev", self.devs[side]]
            )
        return routes

    def verify(self) -> None:
        """Read back every sysctl and every interface's offloads; raise if one is not set."""
        marker = "#emusim-dev "
        for role, sysctls in self.sysctls.items():
            cmds = [["sysctl", "-n", *sysctls]]
            for dev in self.role_devs(role):
                cmds += [["echo", marker + dev], ["ethtool", "-k", dev]]
            out = self.script(role, cmds)
            head, *blocks = out.split(marker)
            values = head.strip("\n").split("\n")
            for (key, want), got in zip(sysctls.items(), values, strict=True):
                if normalise_sysctl(got) != normalise_sysctl(want):
                    raise EmuError(
                        f"{role}: {key} reads {got!r} after setting {want!r} in its namespace "
                        "(not a per-namespace sysctl on this kernel?)"
                    )
            for block in blocks:
                dev, _, text = block.partition("\n")
                on = offloads_still_on(text)
                if on:
                    raise EmuError(f"{role}: offloads still on at {dev}: {', '.join(on)}")

    def role_devs(self, role: str) -> list[str]:
        return [self.devs[key] for hop in self.spec.topo.hops() if hop.role == role
                for key in hop.devs]  # fmt: skip

    # - the impaired link of a four-host line -

    def impair_link(self, loss: str, delay_ms: float) -> dict[str, dict[str, int]]:
        """Give the router-router2 link one point's loss and delay (tc commands of
        `impaired_link_commands`, run in the two routers' namespaces); returns the lossy
        egresses' counters as the run starts. Consecutive runs of one point (the sweep's
        order) keep the settings and take the last run's final counters: under the VM's
        software emulation every command started costs a fraction of a second."""
        if self._impairment == (loss, delay_ms) and self._link_counts is not None:
            return self._link_counts
        topo = self.spec.topo
        # per rate, the hops at it (the same arithmetic as one rate times the hops, where
        # every link has the topology's rate)
        rates = Counter(topo.link_rates_bps())
        absorb = sum(
            hops * delay_shortfall_us(self.spec.delay_us, rate, self.stack_us)
            for rate, hops in rates.items()
        )
        access = "router_in"  # router's device toward the sender: an access link
        commands = impaired_link_commands(
            topo, self.devs, loss, delay_ms, self.netem_delay(), absorb,
            self.netem_delay(access), self.ingress_stages.get(AQM_STAGE),
        )  # fmt: skip
        for role, cmds in commands.items():
            self.script(role, cmds)
        self._impairment = (loss, delay_ms)
        return self.link_counters()

    def link_counters(self) -> dict[str, dict[str, int]]:
        """Packets sent and dropped so far by the lossy egress of each direction; with
        `topology.aqm`, the forward direction's from its CoDel queue, with its marks
        (`codel_counters`: HTB above it only passes what CoDel dequeues)."""
        out = {}
        for direction, (role, key) in LOSSY_EGRESS.items():
            text = self.run(role, ["tc", "-s", "-j", "qdisc", "show", "dev", self.devs[key]])
            if (role, key) == AQM_EGRESS and self.spec.topo.aqm is not None:
                out[direction] = codel_counters(parse_codel(text))
            else:
                out[direction] = parse_qdisc_stats(text)
        self._link_counts = out
        return out

    def aqm_qdisc(self, stats: bool = False) -> dict | None:
        """The CoDel queue at `AQM_EGRESS` as the kernel holds it (``tc -j qdisc show``: its
        kind, handle, parent and options as sch_codel reports them back; with `stats`, ``-s``:
        its counters and state too), or None without `topology.aqm`."""
        if self.spec.topo.aqm is None:
            return None
        role, key = AQM_EGRESS
        argv = ["tc", *(["-s"] if stats else []), "-j", "qdisc", "show", "dev", self.devs[key]]
        return parse_codel(self.run(role, argv))

    def qdiscs(self) -> dict[str, str]:
        out = {}
        for role in self.hosts:
            ifbs = [self.ingress_stages[k] for k in self.ingress_stages if self._role_of(k) == role]
            for dev in [*self.role_devs(role), *ifbs]:
                text = self.run(role, ["tc", "qdisc", "show", "dev", dev])
                out[dev] = " | ".join(line.strip() for line in text.splitlines())
        return out

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            with contextlib.suppress(Exception):
                proc.communicate(timeout=5)
        self.procs.clear()
        for node in self.hosts.values():
            with contextlib.suppress(Exception):
                node.stop(deleteIntfs=True)
        self.hosts.clear()
        cleanup(only_dead=False, batch_id=self.spec.batch_id)
        unregister(self.spec.batch_id)

    # - facts -

    def sysctl_values(self, role: str, keys=RECORDED_SYSCTLS) -> dict[str, str]:
        out = {}
        for key in keys:
            out[key] = normalise_sysctl(self.run(role, ["sysctl", "-n", key]).strip())
        return out

    # - settings a run changes -

    def set_sysctls(self, per_role: dict[str, dict[str, str | None]]) -> None:
        """Sysctls per role (per namespace); None restores the profile's value, or the kernel's
        default where the profile sets none."""
        for role, values in per_role.items():
            want = {
                key: value or self.sysctls.get(role, {}).get(key, KERNEL_DEFAULTS[key])
                for key, value in values.items()
            }
            self.run(role, sysctl_command(want))
