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
  queue length.
- Delay: the report's model has one echo hop take (L + 26) / rate + d / 2 for an IP packet
  of L bytes (L = size + 28). netem's rate releases a packet (L + 14 + 24) / rate after it
  starts, 12 byte-times (the inter-frame gap) later than the model's last bit, so each link
  direction gets netem delay d / 2 − 12 / rate (ns-3's channel delay is d / 2 + 24 / rate for
  the same reason, with PPP's framing).
- Dropper: netfilter rules with xt_statistic exactly as spec/drop-decision.md says, in the
  router's mangle POSTROUTING chain (after routing, right before the device queue: where the
  report's hook in dev_queue_xmit and the kernel module's NF_INET_POST_ROUTING hook act).
- TCP: `LINUX_TCP` maps each parameter of config/tcp_profiles.yaml's ``linux-2.2`` to the
  sysctls, route attributes and socket options of a modern kernel, or says why it cannot.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from emusim import constants, profiles
from emusim.ns3 import cutoff_from_rate

# --- names ------------------------------------------------------------------------------------

PREFIX = "emsim"
"""Every node and interface name of the Mininet backend starts with this."""

ENV_MARK = "EMUSIM_MININET_BATCH"
"""Environment variable carried by every process a batch starts in a namespace (its value is
the batch's prefix), so `cleanup` finds the processes of a killed batch."""

ROLES = {"sender": "s", "router": "r", "receiver": "c"}
"""Node name suffix of each role of the scenario's topology."""

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
class Topology:
    """The three hosts and two links of a scenario, with /24 subnets per link."""

    sender: str
    router_in: str
    router_out: str
    receiver: str
    rate_bps: int
    router_queue: int
    host_queue: int
    prefix_len: int = 24

    @classmethod
    def from_settings(cls, topo: dict) -> Topology:
        hosts = topo["hosts"]
        router = hosts["router"]["addresses"]
        if len(router) != 2:
            raise ValueError(
                f"key 'topology.hosts.router.addresses' has value {router!r}; the Mininet "
                "backend needs two addresses (toward the sender, toward the receiver)"
            )
        t = cls(
            sender=hosts["sender"]["address"],
            router_in=router[0],
            router_out=router[1],
            receiver=hosts["receiver"]["address"],
            rate_bps=round(float(topo["link_rate_Mbps"]) * 1_000_000),
            router_queue=int(topo["router_queue_packets"]),
            host_queue=int(topo["host_queue_packets"]),
        )
        for a, b, what in (
            (t.sender, t.router_in, "sender and router_in"),
            (t.router_out, t.receiver, "router_out and receiver"),
        ):
            na = ipaddress.ip_interface(f"{a}/{t.prefix_len}").network
            if b not in [str(h) for h in na.hosts()]:
                raise ValueError(
                    f"topology: {what} ({a}, {b}) are not in one /{t.prefix_len}: the Mininet "
                    "backend joins each pair by one link"
                )
        return t


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


def netem_delay_us(one_way_delay_us: float, rate_bps: float) -> float:
    """netem delay per link direction: d / 2 − 12 byte-times (see the module docstring)."""
    delay = one_way_delay_us / 2 - byte_time_us(constants.ETH_INTERFRAME_GAP_B, rate_bps)
    return max(delay, 0.0)


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
``linux-2.2`` covers every parameter of config/tcp_profiles.yaml's profile (a test checks it)
plus the modern features 2.2 lacked; ``linux-default`` is the kernel as shipped."""

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

THROUGHPUT_TOLERANCE = (0.95, 1.005)
"""The self-check's TCP blast must reach this fraction of the line-rate limit."""

DELAY_TOLERANCE_US = 10.0
DELAY_TOLERANCE_REL = 0.15
"""The fitted one-way delay may differ from the configured one by the larger of these."""


def line_rate_fraction(writes: int, elapsed_s: float, rate_bps: float) -> float:
    """Throughput as a fraction of the most the link allows, in the report's accounting:
    throughput_report_Bps = 1526 × writes / elapsed (emusim.stats) against its limit at line
    rate, rate/8 × 1526/1538 (each write is one 1538-byte-time frame). Equal to the wire
    throughput (1538 × writes / elapsed) over rate/8."""
    report_bps = constants.ETH_FRAME_REPORT_B * writes / elapsed_s
    limit = rate_bps / 8 * constants.ETH_FRAME_REPORT_B / constants.ETH_FRAME_WIRE_B
    return report_bps / limit


def delay_ok(fitted_us: float, configured_us: float) -> bool:
    tol = max(DELAY_TOLERANCE_US, DELAY_TOLERANCE_REL * configured_us)
    return abs(fitted_us - configured_us) <= tol
