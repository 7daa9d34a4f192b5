"""What the Mininet backend configures, as data and pure command builders (no root needed).

Everything here is computed from the scenario and the TCP profile and checked by unit tests
against hand-computed values; `emusim.mininet_net` runs the commands in the hosts' network
namespaces. docs/mininet.md explains each choice.

- Names: every node and interface of a batch carries the project prefix ``emsim`` and a
  4-hex batch id (``emsim3f9as-eth0``, at most 15 characters), so `cleanup` can find what a
  killed batch left behind and never touches anything else.
- Shaper: the link rate counts Ethernet's 38 bytes per frame beyond the IP packet. A qdisc on a
  veth sees the IP packet plus the 14-byte MAC header, so the shaper adds the other
  24 bytes (preamble and SFD 8, FCS 4, inter-frame gap 12): a 1500-byte IP packet costs
  1538 byte-times. With netem (delay) the shaper is netem's own ``rate RATE 24`` (24: its
  packet overhead), which releases a packet at the end of its transmission time as a real
  link delivers its last bit; without netem it is HTB (``overhead 24``) with a pfifo of the
  queue length. A host's egress is HTB even with netem, so that a full queue holds its sockets
  back, and its link's netem sits on the router's ingress (`ingress_stage_commands`).
- Delay: the report's model has one echo hop take (L + 26) / rate + d / 2 for an IP packet
  of L bytes (L = size + 28). netem's rate releases a packet (L + 14 + 24) / rate after it
  starts, 12 byte-times (the inter-frame gap) later than the model's last bit, so each link
  direction gets netem delay d / 2 − 12 / rate (ns-3's channel delay is d / 2 + 24 / rate for
  the same reason, with PPP's framing), less the emulator's own per-hop latency measured by
  the batch's calibration (`calibration`).
- Dropper: netfilter rules with xt_statistic exactly as spec/drop-decision.md says, in the
  router's mangle POSTROUTING chain (after routing, right before the device queue: where the
  report's hook in dev_queue_xmit and the kernel module's NF_INET_POST_ROUTING hook act).
- TCP: `LINUX_TCP` maps each parameter of config/tcp_profiles.yaml's ``linux-2.2`` and
  ``linux-6.1`` to the sysctls, route attributes and socket options of a modern kernel, or
  says why it cannot. A point's TCP variant sets the sender socket's congestion control
  (TCP_CONGESTION), which the blast tool reads back (emusim.variants).
- A fourth host (`router2`, the lossy-link family): a line of four namespaces; the link
  between the routers loses packets at random in each direction (netem ``loss`` on both of its
  egresses, before their queues) and its delay is applied on the next egress in each
  direction, where no queue builds (`impaired_link_commands` says why that is the same).
"""

from __future__ import annotations

import ipaddress
import itertools
import json
import math
import os
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from emusim import constants, profiles
from emusim.drop_decision import cutoff_from_rate

# --- names ------------------------------------------------------------------------------------

PREFIX = "emsim"
"""Every node and interface name of the Mininet backend starts with this."""

ENV_MARK = "EMUSIM_MININET_BATCH"
"""Environment variable carried by every process a batch starts in a namespace (its value is
the batch's prefix), so `cleanup` finds the processes of a killed batch."""

ROLES = {"sender": "s", "router": "r", "router2": "q", "receiver": "c"}
"""Node name suffix of each role of the scenario's topology (router2: a second router)."""

IFNAMSIZ = 15


def new_batch_id() -> str:
    """Four random hex digits: unique enough among the batches of one machine at a time."""
    return os.urandom(2).hex()


def node_name(batch_id: str, role: str) -> str:
    """``emsim<id><s|r|c>``: at most 10 characters, so ``<node>-eth<N>`` fits IFNAMSIZ."""
    name = f"{PREFIX}{batch_id}{ROLES[role]}"
    if len(name) + len("-eth0") > IFNAMSIZ:
        raise ValueError(f"node name {name!r} too long for interface names")
    return name


def intf_name(node: str, port: int) -> str:
    return f"{node}-eth{port}"


# --- topology ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hop:
    """One node of the line: its role, its interface names' keys and addresses, left to right
    (a router has two: toward the sender, toward the receiver)."""

    role: str
    devs: tuple[str, ...]
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class Topology:
    """The hosts of a scenario in a line, sender first: three (the report's testbed) or four
    (with router2), one /24 per link."""

    sender: str
    router_in: str
    router_out: str
    receiver: str
    rate_bps: int
    router_queue: int
    host_queue: int
    prefix_len: int = 24
    router2_in: str | None = None
    router2_out: str | None = None

    @classmethod
    def from_settings(cls, topo: dict) -> Topology:
        hosts = topo["hosts"]
        routers = {}
        for role in ("router", "router2"):
            if role not in hosts:
                continue
            addresses = hosts[role]["addresses"]
            if len(addresses) != 2:
                raise ValueError(
                    f"key 'topology.hosts.{role}.addresses' has value {addresses!r}; the "
                    "Mininet backend needs two addresses (toward the sender, toward the receiver)"
                )
            routers[role] = addresses
        t = cls(
            sender=hosts["sender"]["address"],
            router_in=routers["router"][0],
            router_out=routers["router"][1],
            receiver=hosts["receiver"]["address"],
            rate_bps=round(float(topo["link_rate_Mbps"]) * 1_000_000),
            router_queue=int(topo["router_queue_packets"]),
            host_queue=int(topo["host_queue_packets"]),
            router2_in=routers.get("router2", (None, None))[0],
            router2_out=routers.get("router2", (None, None))[1],
        )
        for (a, key_a), (b, key_b) in t.links():
            na = ipaddress.ip_interface(f"{a}/{t.prefix_len}").network
            if b not in [str(h) for h in na.hosts()]:
                raise ValueError(
                    f"topology: {key_a} and {key_b} ({a}, {b}) are not in one "
                    f"/{t.prefix_len}: the Mininet backend joins each pair by one link"
                )
        return t

    def hops(self) -> list[Hop]:
        """The nodes of the line, sender first."""
        line = [
            Hop("sender", ("sender",), (self.sender,)),
            Hop("router", ("router_in", "router_out"), (self.router_in, self.router_out)),
        ]
        if self.router2_in is not None:
            line.append(
                Hop(
                    "router2",
                    ("router2_in", "router2_out"),
                    (self.router2_in, str(self.router2_out)),
                )
            )
        return [*line, Hop("receiver", ("receiver",), (self.receiver,))]

    def links(self) -> list[tuple[tuple[str, str], tuple[str, str]]]:
        """Each link as ((address, device key) of its left end, (the same) of its right end)."""
        line = self.hops()
        return [
            ((left.addresses[-1], left.devs[-1]), (right.addresses[0], right.devs[0]))
            for left, right in itertools.pairwise(line)
        ]

    def routers(self) -> list[str]:
        return [hop.role for hop in self.hops() if hop.role.startswith("router")]


# --- shaper -----------------------------------------------------------------------------------

ETH_HEADER_B = 14
"""MAC header: part of the length a qdisc sees on an Ethernet (veth) device."""

QDISC_OVERHEAD_B = constants.ETH_FRAME_WIRE_B - constants.IP_MTU_B - ETH_HEADER_B
"""24: what the shaper adds per packet to the length the qdisc sees (IP + 14): preamble and
SFD 8, FCS 4, inter-frame gap 12. 1514 + 24 = 1538 byte-times per full frame."""

HTB_BURST_FRAMES = 2
"""HTB's bucket holds two full frames: it absorbs timer lateness without letting bursts through
(a link that has been idle may start one frame at once, as a real one does)."""


def byte_time_us(n_bytes: float, rate_bps: float) -> float:
    return n_bytes * 8 * 1e6 / rate_bps


def netem_delay_us(one_way_delay_us: float, rate_bps: float, stack_us: float = 0.0) -> float:
    """netem delay per link direction: d / 2 − 12 byte-times (see the module docstring), less
    ``stack_us``, the emulator's own latency per hop (`calibration`); never below 0."""
    return max(_nominal_delay_us(one_way_delay_us, rate_bps) - stack_us, 0.0)


def _nominal_delay_us(one_way_delay_us: float, rate_bps: float) -> float:
    return one_way_delay_us / 2 - byte_time_us(constants.ETH_INTERFRAME_GAP_B, rate_bps)


def delay_shortfall_us(one_way_delay_us: float, rate_bps: float, stack_us: float) -> float:
    """What a hop's netem delay cannot take off because it would go below 0: the part of the
    emulator's own latency (and the inter-frame gap) that a hop of ``one_way_delay_us`` / 2
    cannot absorb. A delayed egress elsewhere on the path absorbs it where there is one."""
    return max(stack_us - _nominal_delay_us(one_way_delay_us, rate_bps), 0.0)


NETEM_TICK_NS = 64
"""The kernel's psched tick (PSCHED_SHIFT 6). iproute2 6.1's netem reads `delay` as whole
microseconds and sends it in these ticks, so a delay is set to 1 µs, then 64 ns."""


def netem_delay_arg(delay_us: float) -> tuple[str, float]:
    """The `delay` argument for tc and the delay netem then really applies, in µs: the
    nearest whole microsecond (tc truncates fractions), floored to 64-ns ticks."""
    whole = round(delay_us)
    ticks = whole * 1000 // NETEM_TICK_NS
    return f"{whole}us", ticks * NETEM_TICK_NS / 1000


def wire_time_us(ip_bytes: int, rate_bps: float) -> float:
    """Time an IP packet of ip_bytes occupies the link (with the 38 bytes of Ethernet)."""
    return byte_time_us(ip_bytes + ETH_HEADER_B + QDISC_OVERHEAD_B, rate_bps)


def shaper_commands(
    dev: str, rate_bps: int, limit_packets: int, delay_us: float, netem: bool
) -> list[list[str]]:
    """tc commands that make `dev`'s egress a link of `rate_bps` with a queue of
    `limit_packets` and `delay_us` of delay (netem), or no delay (HTB, when `netem` is False)."""
    if netem:
        return [
            [
                "tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:", "netem",
                "delay", netem_delay_arg(delay_us)[0],
                "rate", f"{rate_bps}bit", str(QDISC_OVERHEAD_B),  # netem: rate RATE PACKETOVERHEAD
                "limit", str(limit_packets),
            ]
        ]  # fmt: skip
    if delay_us > 0:
        raise ValueError("a nonzero delay needs netem")
    burst = HTB_BURST_FRAMES * constants.ETH_FRAME_WIRE_B
    return [
        ["tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "1"],
        [
            "tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb",
            "rate", f"{rate_bps}bit", "ceil", f"{rate_bps}bit",
            "overhead", str(QDISC_OVERHEAD_B), "linklayer", "ethernet",
            "burst", f"{burst}b", "cburst", f"{burst}b",
        ],
        [
            "tc", "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "pfifo",
            "limit", str(limit_packets),
        ],
    ]  # fmt: skip


# --- backpressure: an end host's link ---------------------------------------------------------


def has_sockets(role: str) -> bool:
    """Whether a role's packets come from its own sockets (the sender and receiver; a router
    only forwards). Such a host's egress must hold its senders back as a NIC's full queue does,
    which netem cannot (`ingress_stage_commands`)."""
    return not role.startswith("router")


def ifb_name(dev: str) -> str:
    """The IFB device that carries the ingress stage of ``<node>-eth<N>``: ``<node>-ifb<N>``
    (the node's prefix keeps it a batch's own; at most IFNAMSIZ like the device)."""
    node, sep, port = dev.rpartition("-eth")
    if not sep:
        raise ValueError(f"{dev!r} is not a <node>-eth<N> device")
    return f"{node}-ifb{port}"


def ingress_stage_commands(
    dev: str, ifb: str, rate_bps: int, limit_packets: int, delay_us: float
) -> list[list[str]]:
    """tc commands that give the link arriving at `dev` its serialisation and delay on the
    receiving side: every packet `dev` receives is redirected to the IFB device `ifb`, whose
    netem (`delay_us`, `rate_bps` with Ethernet's framing) releases it back into `dev`'s
    receive path.

    Why: netem orphans every packet it delays or rate-limits (`netem_enqueue` calls
    skb_orphan_partial, net/sched/sch_netem.c), so a socket whose packets wait in a netem
    egress is never blocked: a UDP sender writes at its CPU's speed and the queue drops the
    excess, and TCP Small Queues does not see the queue. A host's egress is therefore HTB at
    the link's rate (`shaper_commands` with `netem=False`), which keeps a packet charged to its
    socket until it leaves, as a NIC's queue does. HTB releases a packet when its transmission
    starts; this stage adds the transmission time (netem's rate, on packets that arrive at
    that rate, delays each by its own wire time) and the link's delay, so the packet reaches
    the router when its last bit would. The redirect turns the MAC header back on, so the IFB's
    qdisc sees IP + 14 bytes, as an egress does, and the same 24-byte overhead applies.
    `limit_packets` must hold the packets in flight: they arrive no faster than the link's
    rate, so no queue builds here beyond HTB's two-frame burst."""
    return [
        ["ip", "link", "add", ifb, "type", "ifb"],
        ["ip", "link", "set", ifb, "up"],
        ["tc", "qdisc", "replace", "dev", dev, "handle", "ffff:", "ingress"],
        [
            "tc", "filter", "add", "dev", dev, "parent", "ffff:", "protocol", "all",
            "prio", "1", "matchall", "action", "mirred", "egress", "redirect", "dev", ifb,
        ],
        *shaper_commands(ifb, rate_bps, limit_packets, delay_us, True),
    ]  # fmt: skip


def ingress_stage_limit(host_queue: int, delay_us: float, rate_bps: float) -> int:
    """The IFB netem's limit: the host's queue (what HTB may pass at once, with room to spare)
    plus the frames on the wire over the delay (`delay_line_packets`)."""
    return host_queue + delay_line_packets(delay_us, rate_bps)


# --- the impaired link of a four-host line ------------------------------------------------------


def netem_loss_percent(loss: str) -> str:
    """netem's `loss random P%` argument for a loss probability given as a decimal string:
    P = loss x 100 written exactly (tc turns the percentage into round(p x (2^32 - 1)), so the
    probability netem applies is the scenario's to within 2^-32)."""
    value = Decimal(loss)
    if not 0 <= value <= 1:
        raise ValueError(f"loss {loss!r} is outside [0, 1]")
    return format((value * 100).normalize(), "f") + "%"


def delay_line_packets(delay_us: float, rate_bps: float) -> int:
    """How many full frames a link of `rate_bps` holds in flight over `delay_us`, plus one:
    what netem's `limit` must hold beyond its queue where it delays (netem counts the packets
    it delays in its queue)."""
    return math.ceil(delay_us / wire_time_us(constants.IP_MTU_B, rate_bps)) + 1


def _netem(dev: str, rate_bps: int, limit: int, delay_us: float = 0.0, loss: str = "0"):
    argv = ["tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:", "netem"]
    argv += ["delay", netem_delay_arg(delay_us)[0]]
    argv += ["rate", f"{rate_bps}bit", str(QDISC_OVERHEAD_B), "limit", str(limit)]
    if Decimal(loss) > 0:
        argv += ["loss", "random", netem_loss_percent(loss)]
    return argv


def impaired_link_commands(
    topo: Topology,
    devs: dict[str, str],
    loss: str,
    delay_ms: float,
    base_delay_us: float = 0.0,
    absorb_us: float = 0.0,
) -> dict[str, list[list[str]]]:
    """role → the tc commands that give the router-router2 link one point's impairment.

    Loss: netem ``loss random`` on both egresses of the link (router toward router2 for data,
    router2 toward router for ACKs), with the link's rate and the router's queue: netem drops
    a lost packet on enqueue, before its queue, as ns-3's DropperQueueDisc does. Delay: netem
    ``delay`` on the next egress in each direction (router2 toward the receiver, router toward
    the sender), whose limit also holds the packets in flight. netem counts the packets it
    delays in its `limit`, so a delay on the lossy egress would shrink its 100-packet queue by
    the packets on the wire; one hop on, packets arrive no faster than the link sends them, no
    queue builds, and a constant delay there gives every packet the same arrival time as a
    delay on the link itself. `base_delay_us` is the per-link netem delay of the topology's
    own delay (`netem_delay_us`); `absorb_us` is taken off the point's delay: the emulator's
    own latency over the path's hops in one direction that their netem delays could not
    absorb (`delay_shortfall_us` per hop), so the path's one-way delay is the point's.
    """
    if topo.router2_in is None:
        raise ValueError("the impaired link joins router and router2; this topology has none")
    q, rate = topo.router_queue, topo.rate_bps
    delay_us = max(float(delay_ms) * 1000 + base_delay_us - absorb_us, 0.0)
    limit = q + delay_line_packets(delay_us, rate)
    return {
        "router": [
            _netem(devs["router_out"], rate, q, base_delay_us, loss),
            _netem(devs["router_in"], rate, limit, delay_us),
        ],
        "router2": [
            _netem(devs["router2_in"], rate, q, base_delay_us, loss),
            _netem(devs["router2_out"], rate, limit, delay_us),
        ],
    }


LOSSY_EGRESS = {"forward": ("router", "router_out"), "reverse": ("router2", "router2_in")}
"""The lossy egress of each direction of the impaired link: (role, device key)."""


def parse_qdisc_stats(tc_json: str) -> dict[str, int]:
    """Packets sent and dropped by the root qdisc in ``tc -s -j qdisc show dev X`` output."""
    for qdisc in json.loads(tc_json):
        if qdisc.get("root"):
            return {"packets": int(qdisc["packets"]), "drops": int(qdisc["drops"])}
    raise ValueError(f"no root qdisc in {tc_json[:200]!r}")


# --- offloads ---------------------------------------------------------------------------------

OFFLOADS = {
    # ethtool -K name: the line of `ethtool -k` that must then read "off"
    "tso": "tcp-segmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
    "lro": "large-receive-offload",
    "tx": "tx-checksumming",
    "rx": "rx-checksumming",
    "sg": "scatter-gather",
}
"""Offloads switched off on every interface: with them a veth carries 64 KB super-packets
and a per-packet dropper or shaper sees dozens of segments as one."""


def offload_command(dev: str) -> list[str]:
    argv = ["ethtool", "-K", dev]
    for short in OFFLOADS:
        argv += [short, "off"]
    return argv


def offloads_still_on(ethtool_k_output: str) -> list[str]:
    """The features of OFFLOADS that `ethtool -k` reports as on (or does not report)."""
    state = {}
    for line in ethtool_k_output.splitlines():
        name, sep, rest = line.strip().partition(":")
        if sep:
            state[name.strip()] = rest.split()[0] if rest.split() else ""
    return [long for long in OFFLOADS.values() if state.get(long) != "off"]


# --- dropper ----------------------------------------------------------------------------------

DROPPER_IMPLS = ("module", "netfilter", "auto")
NETFILTER_TABLE = "mangle"
NETFILTER_CHAIN = "POSTROUTING"


def netfilter_probability(rate: str) -> str:
    """p = cutoff / 65536 written so that iptables reads it back exactly (a binary fraction:
    Python's repr is exact), spec/drop-decision.md."""
    return repr(cutoff_from_rate(rate) / 65536)


def netfilter_threshold(rate: str) -> int:
    """xt_statistic's 31-bit threshold iptables computes from p: lround(p × 2^31)."""
    p = Fraction(netfilter_probability(rate))
    return round(p * 2**31)


def dropper_active(dropper: dict) -> bool:
    """Whether the point's dropper can drop anything at all."""
    mode = dropper["mode"]
    if mode == "random":
        return cutoff_from_rate(str(dropper.get("rate", "0"))) > 0
    return mode == "regular" and int(dropper.get("every_n", 0)) > 0


def netfilter_rule(dropper: dict, target: str) -> list[str] | None:
    """The iptables arguments (after ``iptables -w``) of the point's dropper rule, or None
    when the point drops nothing (mode off, rate 0, N = 0)."""
    base = ["-t", NETFILTER_TABLE, "-A", NETFILTER_CHAIN, "-d", f"{target}/32"]
    mode = dropper["mode"]
    if mode == "random":
        rate = str(dropper.get("rate", "0"))
        if cutoff_from_rate(rate) == 0:
            return None
        stat = ["--mode", "random", "--probability", netfilter_probability(rate)]
    elif mode == "regular":
        n = int(dropper.get("every_n", 0))
        if n == 0:
            return None
        stat = ["--mode", "nth", "--every", str(n), "--packet", str(n - 1)]
    else:
        return None
    return [*base, "-m", "statistic", *stat, "-j", "DROP"]


def parse_rule_packets(iptables_save: str) -> int:
    """The packet counter of the dropper's rule in ``iptables-save -c -t mangle`` output
    (the rules' ``[packets:bytes]`` prefix); 0 when there is no statistic rule."""
    total = 0
    for line in iptables_save.splitlines():
        if line.startswith("[") and f"-A {NETFILTER_CHAIN}" in line and "statistic" in line:
            total += int(line[1:].split(":", 1)[0])
    return total


def module_writes(dropper: dict, target: str) -> list[str]:
    """What to write, one write each, to /proc/dropperInfo/dropper (kernel-dropper/README.md).
    The last write binds the dropper to the writer's namespace and restarts the count."""
    mode = dropper["mode"]
    if mode == "regular":
        return ["mode regular", f"every {int(dropper.get('every_n', 0))}"]
    rate = str(dropper.get("rate", "0")) if mode == "random" else "0"
    return ["mode random", f"{module_rate(rate)} {target}"]


def module_rate(rate: str) -> str:
    """The rate as the module's parser takes it: 0, 1, or 0./1. with 1 to 9 decimals."""
    d = Decimal(rate)
    if d in (0, 1):
        return str(int(d))
    text = format(d.normalize(), "f")
    whole, _, frac = text.partition(".")
    if len(frac) > 9:
        raise ValueError(f"drop rate {rate!r} has more than 9 decimals (the module's limit)")
    return f"{whole}.{frac}"


# --- TCP --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One Linux knob: a per-namespace sysctl, a route attribute or a socket option."""

    kind: str  # "sysctl", "route", "socket"
    key: str
    value: str


@dataclass(frozen=True)
class Mapping:
    """How one profile parameter is reproduced on a modern kernel."""

    settings: tuple[Setting, ...]
    exact: bool
    note: str


def _sysctl(key: str, value: str) -> Setting:
    return Setting("sysctl", key, value)


LINUX_2_2_RCVBUF_B = 65535
"""rmem_default of 2.2 (CONFIG_SKB_LARGE); the window it advertises is half, MSS-rounded."""

LINUX_TCP: dict[str, dict[str, Mapping]] = {
    "linux-2.2": {
        "segment size": Mapping(
            (),
            True,
            "MTU 1500 on every veth and timestamps on give MSS 1448 (tcpi_snd_mss is recorded)",
        ),
        "congestion control": Mapping(
            (_sysctl("net.ipv4.tcp_congestion_control", "reno"),),
            False,
            "Reno's slow start and congestion avoidance; today's Reno counts ACKed segments "
            "(appropriate byte counting per RFC 3465 does not apply to segments), as 2.2 did",
        ),
        "loss recovery": Mapping(
            (
                _sysctl("net.ipv4.tcp_recovery", "0"),
                _sysctl("net.ipv4.tcp_early_retrans", "0"),
                _sysctl("net.ipv4.tcp_frto", "0"),
                _sysctl("net.ipv4.tcp_dsack", "0"),
            ),
            False,
            "RACK (tcp_recovery), tail loss probes and early retransmit (tcp_early_retrans), "
            "F-RTO and D-SACK postdate 2.2 and are off: loss is detected by three duplicate "
            "ACKs or the timer. Not reproducible: Linux reduces cwnd in recovery with PRR "
            "(RFC 6937) always; there is no switch back to classic fast recovery",
        ),
        "minimum RTO": Mapping(
            (Setting("route", "rto_min", "200ms"),),
            True,
            "per-route rto_min on the sender's and receiver's routes (also Linux's default)",
        ),
        "timer granularity": Mapping(
            (),
            False,
            "not reproducible: today's kernel measures RTT in microseconds and runs its timers "
            "in jiffies of its own HZ (250 in Debian's kernels), not 2.2's 10 ms ticks",
        ),
        "initial RTO": Mapping(
            (),
            False,
            "not reproducible: Linux's initial RTO is 1 s (RFC 6298) with no sysctl; matters "
            "only when the dropper drops a SYN or SYN-ACK (the SYN goes to the target)",
        ),
        "timers and timeout": Mapping(
            (),
            False,
            "not reproducible: today's kernel times TCP in microseconds and 4-ms jiffies "
            "(HZ 250) and has its own timeout and loss code (tcp_enter_loss); no sysctl "
            "turns them into 2.2's",
        ),
        "FACK retransmission": Mapping(
            (),
            False,
            "not reproducible: Linux removed FACK in 4.15 (tcp_fack is a no-op since); 6.1 "
            "marks losses with RACK and counts in flight with its own scoreboard",
        ),
        "tick phase": Mapping(
            (),
            False,
            "not applicable: a property of ns-3's 100 Hz model of 2.2's timer; the emulation's "
            "kernel has its own ticks, whose phase to a run is as unknown as the hardware's",
        ),
        "delayed-ACK timeout": Mapping(
            (),
            False,
            "not reproducible: Linux's delayed-ACK timer is adaptive between 40 ms "
            "(TCP_DELACK_MIN) and 200 ms with no sysctl; during a blast every second full "
            "segment is ACKed at once, so the timer rarely fires",
        ),
        "ACK frequency": Mapping(
            (_sysctl("net.ipv4.tcp_comp_sack_nr", "0"),),
            True,
            "Linux ACKs every second full segment, as 2.2; SACK compression (which delays "
            "SACKs) is off",
        ),
        "data retries": Mapping(
            (_sysctl("net.ipv4.tcp_retries2", "15"),),
            True,
            "tcp_retries2 = 15, also today's default (a per-namespace sysctl)",
        ),
        "initial cwnd": Mapping(
            (Setting("route", "initcwnd", "2"),),
            True,
            "per-route initcwnd on the sender's and receiver's routes",
        ),
        "initial ssthresh": Mapping(
            (_sysctl("net.ipv4.tcp_no_metrics_save", "1"),),
            True,
            "Linux starts at TCP_INFINITE_SSTHRESH too; no metrics are saved, and the metrics "
            "cache is flushed before every run, so no run inherits an ssthresh",
        ),
        "limited transmit": Mapping(
            (),
            False,
            "no switch: Linux takes SACKed and duplicate-ACKed segments out of flight and so "
            "may send new data on duplicate ACKs, much as RFC 3042 does",
        ),
        "SACK": Mapping((_sysctl("net.ipv4.tcp_sack", "1"),), True, "tcp_sack = 1"),
        "timestamps": Mapping((_sysctl("net.ipv4.tcp_timestamps", "1"),), True, "tcp_timestamps"),
        "window scaling": Mapping(
            (_sysctl("net.ipv4.tcp_window_scaling", "1"),),
            True,
            "tcp_window_scaling = 1 (scale 0 with these buffers)",
        ),
        "receive buffer": Mapping(
            (
                _sysctl("net.ipv4.tcp_rmem", f"4096 {LINUX_2_2_RCVBUF_B} {LINUX_2_2_RCVBUF_B}"),
                _sysctl("net.ipv4.tcp_moderate_rcvbuf", "0"),
                _sysctl("net.ipv4.tcp_adv_win_scale", "1"),
                Setting("socket", "TCP_WINDOW_CLAMP", "31856"),
            ),
            True,
            "2.2's 65535-byte buffer without autotuning; half of it, rounded down to whole "
            "segments, is advertised (22 x 1448 = 31856); the receiver also clamps its window "
            "to 31856 (TCP_WINDOW_CLAMP), which holds on kernels >= 6.6 whose window follows "
            "the measured truesize ratio instead of tcp_adv_win_scale",
        ),
        "send buffer": Mapping(
            (_sysctl("net.ipv4.tcp_wmem", "4096 65535 65535"),),
            False,
            "65535 bytes without autotuning; today's kernel charges each segment's truesize "
            "(about 1.5 x its payload on a veth), so the buffer holds fewer bytes than 2.2's",
        ),
        "features 2.2 did not have": Mapping(
            (
                _sysctl("net.ipv4.tcp_ecn", "0"),
                _sysctl("net.ipv4.tcp_autocorking", "0"),
                _sysctl("net.ipv4.tcp_fastopen", "0"),
                _sysctl("net.ipv4.tcp_mtu_probing", "0"),
            ),
            False,
            "no ECN, autocorking, Fast Open or MTU probing (all postdate 2.2); no pacing "
            "either (Reno without the fq qdisc does not pace)",
        ),
    },
    "linux-6.1": {
        "segment size": Mapping(
            (), True, "MTU 1500 on every veth and timestamps on give MSS 1448 (tcpi_snd_mss)"
        ),
        "congestion control": Mapping(
            (_sysctl("net.ipv4.tcp_congestion_control", "cubic"),),
            True,
            "CUBIC, Debian's default; a point's TCP variant replaces it on the sender's socket "
            "(TCP_CONGESTION), read back after the transfer",
        ),
        "loss recovery": Mapping(
            (
                _sysctl("net.ipv4.tcp_recovery", "0"),
                _sysctl("net.ipv4.tcp_early_retrans", "0"),
                _sysctl("net.ipv4.tcp_frto", "0"),
                _sysctl("net.ipv4.tcp_dsack", "0"),
            ),
            False,
            "PRR with SACK, as ns-3's TcpPrrRecovery; RACK, tail loss probes, F-RTO and D-SACK "
            "(on by default) are off because ns-3 3.44 has none of them. Linux's SACK "
            "scoreboard and its undo of spurious reductions remain its own",
        ),
        "minimum RTO": Mapping(
            (Setting("route", "rto_min", "200ms"),), True, "per-route rto_min (the default)"
        ),
        "timer granularity": Mapping(
            (), False, "Linux's own: µs RTT samples, timers in 4 ms jiffies (HZ 250)"
        ),
        "data retries": Mapping(
            (_sysctl("net.ipv4.tcp_retries2", "15"),), True, "tcp_retries2 = 15 (the default)"
        ),
        "initial cwnd": Mapping(
            (Setting("route", "initcwnd", "10"),), True, "per-route initcwnd 10 (the default)"
        ),
        "delayed-ACK timeout": Mapping(
            (), False, "Linux's own adaptive timer, 40-200 ms (no sysctl); rarely fires in bulk"
        ),
        "ACK frequency": Mapping(
            (_sysctl("net.ipv4.tcp_comp_sack_nr", "0"),),
            True,
            "every second full segment, out-of-order data at once: SACK compression (which "
            "delays SACKs, and ns-3 lacks) is off",
        ),
        "limited transmit": Mapping(
            (), False, "no switch: SACKed segments leave flight, much as RFC 3042 does"
        ),
        "receive buffer": Mapping(
            (
                _sysctl("net.ipv4.tcp_rmem", "4096 4194304 4194304"),
                _sysctl("net.ipv4.tcp_moderate_rcvbuf", "0"),
                _sysctl("net.ipv4.tcp_adv_win_scale", "1"),
                Setting("socket", "TCP_WINDOW_CLAMP", "2097152"),
            ),
            True,
            "a fixed 4 MiB buffer without autotuning, half of it offered (6.1's "
            "tcp_adv_win_scale 1); the receiver also clamps its window to 2 MiB",
        ),
        "send buffer": Mapping(
            (_sysctl("net.ipv4.tcp_wmem", "4096 4194304 4194304"),),
            False,
            "a fixed 4 MiB; Linux charges each segment's truesize, about twice its payload on "
            "a veth without offloads, so it holds about the profile's 2 MiB of payload",
        ),
        "initial RTO": Mapping((), True, "TCP_TIMEOUT_INIT, 1 s, the profile's value"),
        "initial ssthresh": Mapping(
            (_sysctl("net.ipv4.tcp_no_metrics_save", "1"),),
            True,
            "no metrics saved, the cache flushed before every run: every run starts at "
            "TCP_INFINITE_SSTHRESH",
        ),
        "SACK": Mapping((_sysctl("net.ipv4.tcp_sack", "1"),), True, "tcp_sack = 1"),
        "timestamps": Mapping((_sysctl("net.ipv4.tcp_timestamps", "1"),), True, "tcp_timestamps"),
        "window scaling": Mapping(
            (_sysctl("net.ipv4.tcp_window_scaling", "1"),), True, "tcp_window_scaling = 1"
        ),
        "TCP small queues": Mapping(
            (), True, "Linux's own (tcp_limit_output_bytes and the pacing shift, defaults)"
        ),
        "features ns-3 lacks": Mapping(
            (
                _sysctl("net.ipv4.tcp_ecn", "0"),
                _sysctl("net.ipv4.tcp_fastopen", "0"),
                _sysctl("net.ipv4.tcp_mtu_probing", "0"),
            ),
            False,
            "no ECN (nothing marks), Fast Open or MTU probing; no fq qdisc, so only a variant "
            "that paces itself (BBR) paces",
        ),
    },
    "linux-default": {
        "segment size": Mapping((), True, "MTU 1500 and timestamps (the kernel's default)"),
        "kernel defaults": Mapping(
            (),
            True,
            "nothing set: the TCP of the kernel the run happens in, as shipped (the host's "
            "kernel or Debian's in the VM; its congestion control and settings are recorded)",
        ),
    },
}
"""Per Mininet profile: profile parameter name → how it is done on a modern Linux kernel.
``linux-2.2`` and ``linux-6.1`` cover every parameter of config/tcp_profiles.yaml's profile of
that name (a test checks it) plus what ns-3 or 2.2 lacked; ``linux-default`` is the kernel as
shipped."""

MININET_PROFILES = tuple(LINUX_TCP)

COMMON_SYSCTLS = (
    _sysctl("net.ipv6.conf.all.disable_ipv6", "1"),
    _sysctl("net.ipv6.conf.default.disable_ipv6", "1"),
)
"""Every namespace: no IPv6 (no router solicitations or MLD reports on the links)."""

RECORDED_SYSCTLS = (
    "net.ipv4.tcp_congestion_control",
    "net.ipv4.tcp_sack",
    "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_window_scaling",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_recovery",
    "net.ipv4.tcp_early_retrans",
    "net.ipv4.tcp_frto",
    "net.ipv4.tcp_no_metrics_save",
)
"""Read back in the sender's namespace and recorded in every run's provenance."""


class ProfileError(ValueError):
    """A TCP profile the Mininet backend cannot run."""


def check_profile(name: str) -> None:
    """Refuse profiles that have no Linux meaning (ns3-default) or are unknown."""
    if name in LINUX_TCP and (name in profiles.registry() or name == "linux-default"):
        return
    reason = (
        "it models ns-3's TCP, not a Linux kernel's"
        if name.startswith("ns3")
        else "no such Mininet profile"
    )
    raise ProfileError(
        f"TCP profile {name!r}: {reason}; the Mininet backend runs real Linux TCP and knows "
        f"the profiles {', '.join(MININET_PROFILES)} (see docs/mininet.md)"
    )


@dataclass
class TcpSetup:
    """The Linux settings of one profile, split by where they go."""

    sysctls: dict[str, str] = field(default_factory=dict)
    route: dict[str, str] = field(default_factory=dict)
    socket: dict[str, str] = field(default_factory=dict)


def tcp_setup(profile: str) -> TcpSetup:
    check_profile(profile)
    setup = TcpSetup()
    for mapping in LINUX_TCP[profile].values():
        for s in mapping.settings:
            {"sysctl": setup.sysctls, "route": setup.route, "socket": setup.socket}[s.kind][
                s.key
            ] = s.value
    return setup


def route_command(gateway: str, dev: str, route_attrs: dict[str, str]) -> list[str]:
    argv = ["ip", "route", "replace", "default", "via", gateway, "dev", dev]
    for key, value in route_attrs.items():
        argv += [key, value]
    return argv


def sysctl_command(sysctls: dict[str, str]) -> list[str]:
    return ["sysctl", "-q", "-w", *[f"{k}={v}" for k, v in sysctls.items()]]


def normalise_sysctl(value: str) -> str:
    """Sysctl values as the kernel prints them (tabs between numbers) compare with ours."""
    return " ".join(value.split())


# --- self-check -------------------------------------------------------------------------------

THROUGHPUT_TOLERANCE = (0.995, 1.005)
"""The self-check's TCP blast must reach this fraction of the line-rate limit (within 0.5 %:
in dilated time the emulation carries 0.9875 of it with a 5 000-write blast, whose handshake
and slow start are in its time; the self-check's blast is long enough that they are not)."""

DELAY_TOLERANCE_REL = 0.05
DELAY_TOLERANCE_US = 1.0
"""The fitted one-way delay may differ from the configured one by the larger of these: 5 %,
or 1 µs, the resolution of iputils' RTTs below 1 ms (a configured delay of 0 is met by an
emulator whose own latency is below it)."""


# --- the emulator's own latency: calibration, and the clock's integrity ------------------------

CALIBRATION_PING_SIZES = (56, 256, 1408, 1472)
"""Request sizes of the calibration's ping sweep: the report's two fitting sizes (256, 1408)
and the ends of its sweep."""
CALIBRATION_PING_COUNT = 10
CALIBRATION_PING_INTERVAL_S = 0.02


def modelled_intercept_us(rate_bps: float, links: int) -> float:
    """The intercept of RTT = a·size + b that a line of ``links`` links at ``rate_bps`` with no
    delay and no latency of its own gives: an echo crosses 2·links egresses, each carrying
    the ICMP and IP headers plus Ethernet's 38 bytes on the wire."""
    ping_header_b = constants.ICMP_HEADER_B + constants.IP_HEADER_B
    return 2 * links * wire_time_us(ping_header_b, rate_bps)


def stack_latency_per_hop_us(intercept_us: float, rate_bps: float, links: int) -> float:
    """The emulator's own latency per hop (guest stack, veth, qdisc, timers), from the
    intercept of a ping sweep over the shaped links with netem's delay at 0: what the
    intercept holds beyond `modelled_intercept_us`, shared evenly over the 2·links egresses
    an echo crosses."""
    return (intercept_us - modelled_intercept_us(rate_bps, links)) / (2 * links)


def two_point_line(sizes, rtts) -> tuple[float, float]:
    """(slope, intercept) of the line through the mean RTT at the report's two fitting sizes:
    `emusim.delay.two_point_fit`'s arithmetic without numpy and pandas, which the VM would
    read over 9p at great cost (a test checks both agree)."""
    p1, p2 = constants.TWO_POINT_FIT_SIZES_B
    means = {}
    for p in (p1, p2):
        got = [r for s, r in zip(sizes, rtts, strict=True) if s == p]
        if not got:
            raise ValueError(f"two_point_line: no echo of {p} bytes came back")
        means[p] = sum(got) / len(got)
    slope = (means[p2] - means[p1]) / (p2 - p1)
    return slope, means[p1] - slope * p1


def parse_interrupts(text: str, names: set[str]) -> int:
    """The sum over CPUs of the interrupts of the named sources in /proc/interrupts (last
    column: the action's name, e.g. ``virtio0-requests``)."""
    total = 0
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 3 or fields[-1] not in names:
            continue
        total += sum(int(f) for f in fields[1:] if f.isdigit())
    return total


LINUX_RMEM_MAX_DEFAULT_B = 212992
"""net.core.rmem_max of a kernel that nobody set it on (SK_RMEM_MAX, include/net/sock.h)."""


def receive_window_scale(tcp_rmem_max_b: int, rmem_max_b: int = LINUX_RMEM_MAX_DEFAULT_B) -> int:
    """The window scale a Linux receiver offers: ilog2 of the larger of tcp_rmem[2] and
    net.core.rmem_max, less 15, within [0, 14] (tcp_select_initial_window,
    net/ipv4/tcp_output.c, 6.1). linux-2.2's profile: 2; linux-6.1's (4 MiB): 7."""
    space = min(max(tcp_rmem_max_b, rmem_max_b), 32767 << 14)  # MAX_TCP_WINDOW
    return min(max(space.bit_length() - 1 - 15, 0), 14)


def whole_segment_window_b(cap_b: int, mss_b: int, wscale: int) -> int:
    """The largest receive window up to ``cap_b`` that is a whole number of ``mss_b`` segments
    and of the window-scale unit 2^wscale (the unit a scaled window is advertised in).

    Why: a receive window that is not a whole number of segments leaves a fraction the sender
    never fills, and a window-limited Linux 6.1 transfer then runs below line rate
    deterministically; measured in the VM (dilated time, three-host line, 40 000 writes):
    23 000 B (15.9 segments) 0.9732 of line rate on both tries, 46 000 B 0.9897, against
    23 168 B (16 segments) 0.9986-0.9999 and 46 336 B (32) 0.9979-0.9999 (docs/mininet.md,
    "The self-check's window"). Linux 2.2 rounded its offered window to whole segments itself
    (__tcp_select_window, net/ipv4/tcp_output.c:444-455 of 2.2.16: "the largest window that
    is a nice multiple of mss"); 6.1 with a window scale only aligns it to 2^wscale."""
    unit = math.lcm(mss_b, 1 << wscale)
    if cap_b < unit:
        raise ValueError(f"a window of {cap_b} B holds no whole {unit}-byte unit")
    return cap_b // unit * unit


def line_rate_fraction(writes: int, elapsed_s: float, rate_bps: float) -> float:
    """Throughput as a fraction of the most the link allows, in the report's accounting:
    throughput_report_Bps = 1526 × writes / elapsed (emusim.stats) against its limit at line
    rate, rate/8 × 1526/1538 (each write is one 1538-byte-time frame). Equal to the wire
    throughput (1538 × writes / elapsed) over rate/8."""
    report_bps = constants.ETH_FRAME_REPORT_B * writes / elapsed_s
    limit = rate_bps / 8 * constants.ETH_FRAME_REPORT_B / constants.ETH_FRAME_WIRE_B
    return report_bps / limit


def delay_tolerance_us(configured_us: float) -> float:
    return max(DELAY_TOLERANCE_US, DELAY_TOLERANCE_REL * configured_us)


def delay_ok(fitted_us: float, configured_us: float) -> bool:
    return abs(fitted_us - configured_us) <= delay_tolerance_us(configured_us)


def path_delay_us(intercept_us: float, rate_bps: float, links: int) -> float:
    """One-way delay of a line of ``links`` links from the intercept of a ping sweep's line,
    in the report's accounting (§3.2: each of the 2·links serialisations of an echo carries
    54 header bytes; the inter-frame gap is inside the delay). For two links this is
    `emusim.delay.one_way_delay_us`."""
    header_us = byte_time_us(constants.PING_OVERHEAD_REPORT_B, rate_bps)
    return (intercept_us - 2 * links * header_us) / 2
