"""The udp-flood workload (the router-forwarding study, issue 10): UDP floods against payload
size, direct and routed.

The measurement-tool paper (``002_914fa6f1fc42fb8f.txt``) measured a Linux software router
forwarding UDP of 64 … 8192 payload bytes at 100 Mb/s, first with sender and sink directly
connected (the generator's own ceiling) and then through the router. A scenario of workload
``udp-flood`` does the same on every backend: each point is one payload size (axis
``payload_B``) and one ``path``: ``direct`` (the sink listens on the router node's own address,
one link from the sender, nothing forwarded) or ``routed`` (the sink is the receiver, beyond the
router). This module holds what every backend shares: the wire's arithmetic (a datagram's
fragments and frames, the line rate), the metrics and their definitions, and the ns-3
program's arguments, with and without the processing model. docs/router-forwarding.md states
every choice and its source.

Metrics of a run (the same names from ns-3 and from Mininet):

- ``tx_datagrams``, ``tx_s``: datagrams the sender's link took, the time from the first to the
  last; ``tx_pps`` = (tx_datagrams − 1) / tx_s.
- ``rx_datagrams``, ``rx_s``: datagrams the sink received whole, the time from the first
  arrival to the last; ``packets_per_s`` = (rx_datagrams − 1) / rx_s (the paper's packets/s).
- ``throughput_Mbps`` = packets_per_s × payload × 8 / 10⁶: UDP payload, as the paper's Mbit/s.
- ``loss`` = 1 − rx_datagrams / tx_datagrams: the paper's packet loss, of datagrams.
- ``frames_per_datagram``, ``send_errors`` (datagrams the sender's full link queue refused,
  not counted as sent), ``router_forwarded_frames``, ``router_dropped_frames`` (in the router:
  its CPU's queue, its egress queue, IP's discards), ``sink_dropped_datagrams`` (at the sink's
  full socket).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from emusim.core import constants
from emusim.core.backend_registry import NS3_MODEL
from emusim.linux.hosts import finish_json, start_server
from emusim.workloads import Workload, workload_schema

PATHS = ("direct", "routed")
"""Without the router (the generator's ceiling) and through it."""

METRICS = ("throughput_Mbps", "packets_per_s", "loss")
"""The paper's three quantities (its Figures 3, 4 and 5), the ones backends are compared on."""


MODEL_BACKEND = NS3_MODEL.name
"""The backend name of ns-3 runs with the processing model (``ns3`` is ns-3 without it)."""

UDP_HEADER_B = 8
"""UDP header bytes (RFC 768)."""

ETH_MIN_PAYLOAD_B = 46
"""Smallest payload of an Ethernet frame (64-byte frame less 14 header, 4 FCS): shorter IP
packets are padded (IEEE 802.3)."""

ETH_PER_FRAME_B = constants.ETH_FRAME_WIRE_B - constants.IP_MTU_B
"""38 byte-times per frame beyond its IP packet: preamble and SFD 8, header 14, FCS 4, gap 12."""

FRAGMENT_ALIGN_B = 8
"""Every fragment but the last carries a multiple of 8 data bytes (RFC 791)."""

PROCESSOR_QUEUE_DEFAULT = 1000
"""Linux's net.core.netdev_max_backlog default: packets a CPU's backlog holds."""


class ForwardingError(ValueError):
    """A run or a fit cannot be made as asked; the message says why."""


# --- the wire ------------------------------------------------------------------------------------


def fragments(payload_B: int, mtu_B: int = constants.IP_MTU_B) -> list[int]:
    """IP lengths of the packets one UDP datagram of ``payload_B`` bytes takes: one if it fits
    the MTU, else fragments of the largest multiple of 8 data bytes and a last one."""
    if payload_B < 0:
        raise ForwardingError(f"payload {payload_B} B: must be >= 0")
    ip_payload = payload_B + UDP_HEADER_B
    if ip_payload + constants.IP_HEADER_B <= mtu_B:
        return [ip_payload + constants.IP_HEADER_B]
    per_fragment = (mtu_B - constants.IP_HEADER_B) // FRAGMENT_ALIGN_B * FRAGMENT_ALIGN_B
    full, rest = divmod(ip_payload, per_fragment)
    sizes = [per_fragment + constants.IP_HEADER_B] * full
    return sizes + ([rest + constants.IP_HEADER_B] if rest else [])


def frames(payload_B: int, mtu_B: int = constants.IP_MTU_B) -> int:
    """Frames (IP packets) one datagram takes on the link."""
    return len(fragments(payload_B, mtu_B))


def ip_bytes(payload_B: int, mtu_B: int = constants.IP_MTU_B) -> int:
    """IP bytes of one datagram summed over its frames (what a router's per-byte cost sees)."""
    return sum(fragments(payload_B, mtu_B))


def wire_bytes(payload_B: int, mtu_B: int = constants.IP_MTU_B) -> int:
    """Byte-times one datagram occupies the Ethernet: each frame's IP packet (padded to 46),
    plus 38 (preamble and SFD, header, FCS, inter-frame gap)."""
    return sum(max(ip, ETH_MIN_PAYLOAD_B) + ETH_PER_FRAME_B for ip in fragments(payload_B, mtu_B))


def line_rate_pps(payload_B: int, rate_bps: float = constants.LINK_RATE_bps) -> float:
    """Datagrams per second a saturated link of ``rate_bps`` carries."""
    return rate_bps / 8 / wire_bytes(payload_B)


def line_rate_Mbps(payload_B: int, rate_bps: float = constants.LINK_RATE_bps) -> float:
    """UDP payload Mbit/s of a saturated link: the most a run can show."""
    return line_rate_pps(payload_B, rate_bps) * payload_B * 8 / 1e6


def flood_pace(payload_B: int, rate_bps: float, queue_packets: int) -> tuple[float, int] | None:
    """How the emulation's sender is held back for a datagram of several frames: paced at the
    line rate, at most half its link queue's frames back to back, as (datagrams per second,
    burst in datagrams). None for a datagram of one frame: the sender sends as fast as it can
    and its full link queue refuses the datagram whole (ENOBUFS). A fragmented datagram must
    not meet a full queue: the queue would refuse the fragments that do not fit and send the
    rest, which then wait out the sink's reassembly timeout (30 s) and, enough of them, fill its
    reassembly memory, which refuses every fragment after (seen: whole runs lost). The pacing
    predates the host egress's HTB (docs/mininet.md, "Backpressure"), which keeps a queued
    packet on its socket's account, so a full send buffer now blocks send() too; the pacing
    stays, as the guarantee that does not depend on how many frames the buffer admits."""
    if frames(payload_B) == 1:
        return None
    burst = max(1, queue_packets // 2 // frames(payload_B))
    return line_rate_pps(payload_B, rate_bps), burst


# --- metrics -------------------------------------------------------------------------------------


def rate(count: int, window_s: float) -> float:
    """Events per second over a window from the first event to the last: (count − 1) intervals;
    0 with fewer than two events."""
    return (count - 1) / window_s if count >= 2 and window_s > 0 else 0.0


def flood_metrics(
    payload_B: int,
    tx_datagrams: int,
    tx_s: float,
    rx_datagrams: int,
    rx_s: float,
    send_errors: int = 0,
    router_forwarded_frames: int = 0,
    router_dropped_frames: int = 0,
    sink_dropped_datagrams: int = 0,
) -> dict[str, float | int]:
    """The metrics of one run from its counts (the module docstring defines each; the ns-3
    program computes the same in C++, and a test holds the two to it)."""
    pps = rate(rx_datagrams, rx_s)
    return {
        "tx_datagrams": int(tx_datagrams),
        "rx_datagrams": int(rx_datagrams),
        "tx_s": float(tx_s),
        "rx_s": float(rx_s),
        "tx_pps": round(rate(tx_datagrams, tx_s), 3),
        "packets_per_s": round(pps, 3),
        "throughput_Mbps": round(pps * payload_B * 8 / 1e6, 6),
        "loss": 1.0 - rx_datagrams / tx_datagrams if tx_datagrams else 0.0,
        "frames_per_datagram": frames(payload_B),
        "send_errors": int(send_errors),
        "router_forwarded_frames": int(router_forwarded_frames),
        "router_dropped_frames": int(router_dropped_frames),
        "sink_dropped_datagrams": int(sink_dropped_datagrams),
    }


# --- scenarios -----------------------------------------------------------------------------------


UDP_PAYLOAD_RANGE_B = (8, 65507)
"""A flood's datagram carries its 8-byte sequence number; 65 507 B is UDP's largest payload."""


def is_flood(scenario) -> bool:
    """Whether a scenario is of the router-forwarding kind (workload udp-flood)."""
    return scenario.workload_kind == WORKLOAD.kind


def destination(path: str, topology: Mapping) -> str:
    """The sink's address: the router's on the sender's link (direct), or the receiver's."""
    hosts = topology["hosts"]
    if path == "direct":
        return hosts["router"]["addresses"][0]
    if path == "routed":
        return hosts["receiver"]["address"]
    raise ForwardingError(f"path {path!r}; accepted: {', '.join(PATHS)}")


# --- ns-3 ----------------------------------------------------------------------------------------


def ns3_workload_args(workload: Mapping) -> list[str]:
    """The router-forwarding program's workload arguments for one point."""
    return [
        "--workload=flood",
        f"--payload={int(workload['payload_B'])}",
        f"--path={workload['path']}",
        f"--durationS={workload['duration_s']}",
    ]


def ns3_model_args(fit: Mapping, payload_B: int) -> list[str]:
    """The processing model's arguments (model on) from a fit (the router-forwarding study's,
    emusim.studies.router_forwarding.fit): the generator's CPU time for one datagram of this
    size, the router's per-packet and per-byte times, its queue, and whether sender and router
    share the CPU."""
    host, router = fit["host"], fit["router"]
    costs = {
        "host.per_datagram_s": host["per_datagram_s"],
        "host.per_extra_frame_s": host["per_extra_frame_s"],
        "host.per_byte_s": host["per_byte_s"],
        "router.per_packet_s": router["per_packet_s"],
        "router.per_byte_s": router["per_byte_s"],
    }
    for name, value in costs.items():
        if value is None or not math.isfinite(value) or value < 0:
            raise ForwardingError(
                f"the processing model's fit has {name} = {value!r}; the ns-3 model needs a "
                "finite time >= 0 (was the fit possible? see its 'status')"
            )
    generator_s = (
        host["per_datagram_s"]
        + host["per_extra_frame_s"] * (frames(payload_B) - 1)
        + host["per_byte_s"] * ip_bytes(payload_B)
    )
    return [
        "--model=on",
        f"--sharedCpu={'true' if fit['shared_cpu'] else 'false'}",
        f"--generatorTimeNs={generator_s * 1e9:.3f}",
        f"--routerPerPacketNs={router['per_packet_s'] * 1e9:.3f}",
        f"--routerPerByteNs={router['per_byte_s'] * 1e9:.6f}",
        f"--processorQueuePackets={int(fit['queue_packets'])}",
    ]


# --- the workload --------------------------------------------------------------------------------


class UdpFlood(Workload):
    kind = "udp-flood"
    summary = "UDP floods of one payload size for a fixed time, direct or through the router"
    # payload_B and path are usually swept
    schema: ClassVar[Mapping[str, Any]] = workload_schema(
        kind,
        ["duration_s"],
        {
            "duration_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 3600},
            "payload_B": {"type": "integer", "minimum": 8, "maximum": 65507},
            "path": {"enum": list(PATHS)},
        },
    )
    # the router-forwarding fit reads the run-to-run spread
    random = True
    ns3_programs = ("router-forwarding",)
    backend_metrics = METRICS
    # each quantity's mean
    table_columns: ClassVar[Mapping[str, tuple[str, str]]] = {
        "Mbit/s": ("throughput_Mbps", "mean"),
        "packets/s": ("packets_per_s", "mean"),
        "loss": ("loss", "mean"),
    }

    def check(self, settings: Mapping[str, Any]) -> str | None:
        """A point needs a payload size and a path, set or swept (a swept value is not seen
        by the schema, so its range is checked here)."""
        workload = settings["workload"]
        for key in ("payload_B", "path"):
            if key not in workload:
                return f"key 'workload.{key}' is missing (or sweep {key})"
        low, high = UDP_PAYLOAD_RANGE_B
        size = workload["payload_B"]
        if not low <= size <= high:
            return (
                f"key 'workload.payload_B' has value {size!r}; accepted: a whole number of "
                f"bytes in [{low}, {high}]"
            )
        return None

    def ns3_args(
        self, settings: Mapping[str, Any], interframe_gap_ns: Callable[[float], int]
    ) -> list[str]:
        return ns3_workload_args(settings["workload"])

    def ns3_model_args(self, fit: Mapping[str, Any], settings: Mapping[str, Any]) -> list[str]:
        return ns3_model_args(fit, int(settings["workload"]["payload_B"]))

    def wire_busy_s(self, workload: Mapping[str, Any], rate_bps: float) -> float:
        return float(workload["duration_s"])

    linux_needs = ("ip_counters", "egress_qdisc", "backlog_drops", "backlog_limit")

    def run_linux(self, hosts, dropper, entry: dict, plan: dict) -> dict:
        return run_linux(hosts, entry, plan)


WORKLOAD = UdpFlood()


# --- on Linux hosts (emusim.linux.hosts) ---------------------------------------------------------
#
# The sender floods with ``udpblast flood`` (emu/blast/udpblast.c) as fast as its CPU and its
# link let it: a datagram its full link queue refuses fails with ENOBUFS (IP_RECVERR) rather
# than vanishing, as a NIC's ring refuses a frame, so what the sender counts as sent did enter
# its link; a fragmented datagram is paced at the line rate instead, so that no fragment meets a
# full queue (`flood_pace` says why). The sink is ``udpblast recv`` on the router (path
# ``direct``) or on the receiver (``routed``). Around the flood the run reads the hosts' own
# counters: IP forwarding, discards and reassembly in the router and at the sink, the router's
# egress qdisc, and the kernel's per-CPU backlog drops. Those say where a datagram was lost.

SINK_IDLE_MS = 2000
"""The sink ends this long after the last datagram if no end marker arrives."""
MARKERS = 3
"""End markers the flood sends after its last datagram, 10 ms apart."""
SLACK_S = 60.0
"""How much longer than its flood a run may take before it is an error."""
SINK_RCVBUF_B = 8 << 20
"""The sink's receive buffer (forced past net.core.rmem_max): the sink shares its CPU with the
sender and the router, and is woken for bursts; the paper's sink lost nothing, and ours should
lose nothing its buffer could have held."""
WARM_UP_S = 1.0
WARM_UP_PAYLOAD_B = 64
"""The unrecorded flood along each path before the hosts' first run (`warm_up`)."""


def _delta(after: dict[str, int], before: dict[str, int], key: str) -> int:
    return after.get(key, 0) - before.get(key, 0)


def flood(
    hosts, sink_role: str, payload: int, duration_s: float, topo: Mapping
) -> tuple[dict, dict]:
    """One flood from the sender to a sink on ``sink_role``: what the sender and the sink
    printed (udpblast's JSON)."""
    timeout_s = duration_s + SLACK_S
    pace = flood_pace(payload, topo["rate_bps"], topo["host_queue"])
    sink = start_server(
        hosts,
        sink_role,
        [
            hosts.tool("udpblast"), "recv", "-p", str(hosts.port), "-i", str(SINK_IDLE_MS),
            "-t", str(int(hosts.guard_s(timeout_s))), "-R", str(SINK_RCVBUF_B),
        ],
        "the UDP sink",
        30,
    )  # fmt: skip
    argv = [
        hosts.tool("udpblast"), "flood", "-a", hosts.address(sink_role), "-p", str(hosts.port),
        "-s", str(payload), "-d", str(round(duration_s * 1000)), "-m", str(MARKERS),
    ]  # fmt: skip
    argv += ["-r", f"{pace[0]:.3f}", "-B", str(pace[1])] if pace else ["-r", "0"]
    sender = hosts.start("sender", argv)
    return (
        finish_json(sender, "the UDP flood", hosts.guard_s(timeout_s)),
        finish_json(sink, "the UDP sink", hosts.guard_s(timeout_s)),
    )


def warm_up(hosts, topo: Mapping) -> None:
    """Before the hosts' first measured flood: WARM_UP_S of flooding along each path, not
    recorded. QEMU's software emulation translates guest code the first time it runs, so the
    first seconds of a new code path run slower than the rest (seen: the batch's first flood
    the slowest of all)."""
    if WORKLOAD.kind in hosts.warmed:
        return
    for role in ("router", "receiver"):
        flood(hosts, role, WARM_UP_PAYLOAD_B, WARM_UP_S, topo)
    hosts.warmed.add(WORKLOAD.kind)


def run_linux(hosts, entry: dict, plan: dict) -> dict:
    """One flood of the point's payload size along its path; returns the run's status,
    metrics (`flood_metrics`) and the counters behind them."""
    w = entry["workload"]
    payload, path = int(w["payload_B"]), w["path"]
    duration_s = float(w["duration_s"])
    topo = plan["topology"]
    sink_role = "router" if path == "direct" else "receiver"
    routed = path == "routed"

    warm_up(hosts, topo)
    before = {role: hosts.ip_counters(role) for role in ("router", sink_role)}
    qdisc_before = hosts.egress_qdisc() if routed else None
    backlog_before = hosts.backlog_drops()
    sent, got = flood(hosts, sink_role, payload, duration_s, topo)
    after = {role: hosts.ip_counters(role) for role in ("router", sink_role)}
    backlog = hosts.backlog_drops() - backlog_before
    forwarded = dropped = 0
    qdisc = {"packets": 0, "drops": 0}
    if routed:
        qdisc_after = hosts.egress_qdisc()
        qdisc = {k: qdisc_after[k] - qdisc_before[k] for k in qdisc}
        forwarded = qdisc["packets"]
        dropped = (
            qdisc["drops"]
            + _delta(after["router"], before["router"], "Ip.InDiscards")
            + _delta(after["router"], before["router"], "Ip.OutDiscards")
        )
    metrics = flood_metrics(
        payload,
        sent["datagrams_sent"],
        sent["elapsed_s"],
        got["datagrams_received"],
        got["elapsed_s"],
        send_errors=sent["send_errors"],
        router_forwarded_frames=forwarded,
        router_dropped_frames=dropped,
        sink_dropped_datagrams=_delta(after[sink_role], before[sink_role], "Udp.RcvbufErrors"),
    )
    metrics["packets_dropped"] = 0
    sink_after, sink_before = after[sink_role], before[sink_role]
    facts = {
        "sender_cpu_s": round(sent["cpu_user_s"] + sent["cpu_sys_s"], 6),
        "sender_cpu_fraction": round(
            (sent["cpu_user_s"] + sent["cpu_sys_s"]) / sent["elapsed_s"], 4
        )
        if sent["elapsed_s"] > 0
        else None,
        "router_ip_forwarded": _delta(after["router"], before["router"], "Ip.ForwDatagrams"),
        "router_egress_qdisc": qdisc,
        "sink_rcvbuf_errors": _delta(sink_after, sink_before, "Udp.RcvbufErrors"),
        "sink_udp_in_errors": _delta(sink_after, sink_before, "Udp.InErrors"),
        "sink_reassembly_fails": _delta(sink_after, sink_before, "Ip.ReasmFails"),
        "sink_end": got["end"],
        "sink_rcvbuf_B": got.get("rcvbuf_B"),
        "backlog_drops_kernel": backlog,
        "netdev_max_backlog": hosts.backlog_limit(),
        "host_io_irqs": sent.get("host_io_irqs", -1),
    }
    return {"status": "ok", "metrics": metrics, "facts": facts}
