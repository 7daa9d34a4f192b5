"""Linux TCP settings for the study's TCP profiles: `LINUX_TCP` maps each parameter of
config/tcp_profiles.yaml's ``linux-2.2`` and ``linux-6.1`` to the sysctls, route attributes
and socket options of a modern kernel, or says why it cannot. Shared by the Mininet backend
and the testbed (which records the sysctls it ran with). A point's TCP variant sets the sender
socket's congestion control (TCP_CONGESTION), which the blast tool reads back
(emusim.inputs.variants).
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


# both profiles switch SACK and timestamps on the same way
_SACK = Mapping((_sysctl("net.ipv4.tcp_sack", "1"),), True, "tcp_sack = 1")
_TIMESTAMPS = Mapping((_sysctl("net.ipv4.tcp_timestamps", "1"),), True, "tcp_timestamps")

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
        "SACK": _SACK,
        "timestamps": _TIMESTAMPS,
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
        "TCP socket": Mapping(
            (),
            True,
            "Linux's own RTT measurement, RTO and receiver ACK policy, which ns-3's "
            "TcpLinuxSocket models (docs/linux-cc.md)",
        ),
        "loss recovery": Mapping(
            (
                _sysctl("net.ipv4.tcp_recovery", "1"),
                _sysctl("net.ipv4.tcp_early_retrans", "3"),
                _sysctl("net.ipv4.tcp_frto", "2"),
                _sysctl("net.ipv4.tcp_dsack", "1"),
            ),
            True,
            "Linux's defaults, set explicitly: RACK-TLP, F-RTO, D-SACK and the undo of spurious "
            "reductions, then PRR with SACK, each as ns-3's TcpLinuxSocket and "
            "TcpLinuxPrrRecovery run it (docs/linux-cc.md)",
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
        "SACK": _SACK,
        "timestamps": _TIMESTAMPS,
        "window scaling": Mapping(
            (_sysctl("net.ipv4.tcp_window_scaling", "1"),), True, "tcp_window_scaling = 1"
        ),
        "TCP small queues": Mapping(
            (), True, "Linux's own (tcp_limit_output_bytes and the pacing shift, defaults)"
        ),
        "PSH on GSO packets": Mapping(
            (), True, "Linux's own (__tcp_transmit_skb; the veths keep their default GSO)"
        ),
        "features ns-3 lacks": Mapping(
            (
                _sysctl("net.ipv4.tcp_ecn", "0"),
                _sysctl("net.ipv4.tcp_fastopen", "0"),
                _sysctl("net.ipv4.tcp_mtu_probing", "0"),
            ),
            False,
            "no ECN (nothing on these paths marks; a variant that needs it, `ecn: true` in "
            "config/tcp_variants.yaml, gets tcp_ecn = 1 for its runs), Fast Open or MTU "
            "probing; no fq qdisc, so only a variant that paces itself (BBR) paces",
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


def _linux_6_1_with(recovery: str, early_retrans: str, note: str) -> dict[str, Mapping]:
    """linux-6.1 with F-RTO and D-SACK off, RACK (tcp_recovery) and tail loss probes
    (tcp_early_retrans) as given: the ablation steps of its loss recovery."""
    return {
        **LINUX_TCP["linux-6.1"],
        "loss recovery": Mapping(
            (
                _sysctl("net.ipv4.tcp_recovery", recovery),
                _sysctl("net.ipv4.tcp_early_retrans", early_retrans),
                _sysctl("net.ipv4.tcp_frto", "0"),
                _sysctl("net.ipv4.tcp_dsack", "0"),
            ),
            True,
            note,
        ),
    }


LINUX_TCP["linux-6.1-rack"] = _linux_6_1_with(
    "1",
    "3",
    "RACK and tail loss probes on (their defaults), as ns-3's TcpLinuxSocket runs them "
    "(Rack, Tlp, Undo); F-RTO and D-SACK off on both sides",
)
LINUX_TCP["linux-6.1-classic"] = _linux_6_1_with(
    "0",
    "0",
    "RACK, tail loss probes, F-RTO and D-SACK off: loss found by duplicate ACKs, SACK and the "
    "timer alone, as ns-3's TcpLinuxSocket runs without them",
)
"""The ablation steps of linux-6.1's loss recovery (config/tcp_profiles.yaml)."""

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
    "net.ipv4.tcp_dsack",
    "net.ipv4.tcp_no_metrics_save",
)
"""Read back in the sender's namespace and recorded in every run's provenance."""


class ProfileError(ValueError):
    """A TCP profile the Mininet backend cannot run."""


def check_profile(name: str) -> None:
    """Refuse profiles that have no Linux meaning (ns3-default) or are unknown. Each profile of
    LINUX_TCP but linux-default is one of config/tcp_profiles.yaml (a unit test checks)."""
    if name in LINUX_TCP:
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
