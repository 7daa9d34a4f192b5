"""One run of the udp-flood workload (the router-forwarding study) in the Mininet network.

The sender floods with ``udpblast flood`` (emu/blast/udpblast.c) as fast as its CPU and its
link let it: a datagram its full link queue refuses fails with ENOBUFS (IP_RECVERR) rather than
vanishing, as a NIC's ring refuses a frame, so what the sender counts as sent did enter its
link; a fragmented datagram is paced at the line rate instead, so that no fragment meets a full
queue (emusim.workloads.udp_flood.flood_pace says why). The sink is
``udpblast recv`` on the router's node (path ``direct``) or on the receiver (``routed``).
Around the flood the run reads the namespaces' own counters: IP forwarding, discards and
reassembly in the router and at the sink (``/proc/PID/net/snmp`` of each node's shell, read
from here: no process started in the namespace), the router's egress qdisc (``tc -s``), and
the kernel's per-CPU backlog drops (``/proc/net/softnet_stat``, kernel-wide). Those say where
a datagram was lost.
"""

from __future__ import annotations

from pathlib import Path

from emusim.backends.mininet.host import PORT, patient, tool
from emusim.linux.blast_output import parse_netstat
from emusim.linux.shaper import parse_qdisc_stats
from emusim.workloads import udp_flood

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
"""The unrecorded flood along each path before a network's first run (`warm_up`)."""
BACKLOG_SYSCTL = Path("/proc/sys/net/core/netdev_max_backlog")
SOFTNET_STAT = Path("/proc/net/softnet_stat")


def _snmp(network, role: str) -> dict[str, int]:
    """The IP and UDP counters of a node's namespace, read through its shell's /proc entry."""

    pid = network.hosts[role].pid
    text = "".join(Path(f"/proc/{pid}/net/{name}").read_text() for name in ("snmp", "netstat"))
    return parse_netstat(text)


def backlog_drops() -> int:
    """Packets the kernel's per-CPU input backlogs dropped since boot (all CPUs, column 2 of
    /proc/net/softnet_stat): kernel-wide, not per namespace."""
    return sum(int(line.split()[1], 16) for line in SOFTNET_STAT.read_text().splitlines())


def backlog_limit() -> int | None:
    """net.core.netdev_max_backlog of the running kernel (kernel-wide)."""
    try:
        return int(BACKLOG_SYSCTL.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _egress_qdisc(network) -> dict[str, int]:
    text = network.run(
        "router", ["tc", "-s", "-j", "qdisc", "show", "dev", network.devs["router_out"]]
    )
    return parse_qdisc_stats(text)


def _delta(after: dict[str, int], before: dict[str, int], key: str) -> int:
    return after.get(key, 0) - before.get(key, 0)


def flood(
    network, sink_role: str, dst: str, payload: int, duration_s: float, topo: dict
) -> tuple[dict, dict]:
    """One flood from the sender to a sink on ``sink_role``: what the sender and the sink
    printed (udpblast's JSON)."""

    timeout_s = duration_s + SLACK_S
    pace = udp_flood.flood_pace(payload, topo["rate_bps"], topo["host_queue"])
    sink = network.popen(
        sink_role,
        [
            tool("udpblast"), "recv", "-p", str(PORT), "-i", str(SINK_IDLE_MS),
            "-t", str(int(patient(timeout_s))), "-R", str(SINK_RCVBUF_B),
        ],
    )  # fmt: skip
    network._wait_ready(sink, "the UDP sink")
    argv = [
        tool("udpblast"), "flood", "-a", dst, "-p", str(PORT), "-s", str(payload),
        "-d", str(round(duration_s * 1000)), "-m", str(MARKERS),
    ]  # fmt: skip
    argv += ["-r", f"{pace[0]:.3f}", "-B", str(pace[1])] if pace else ["-r", "0"]
    sender = network.popen("sender", argv)
    return (
        network._finish(sender, "the UDP flood", timeout_s),
        network._finish(sink, "the UDP sink", timeout_s),
    )


def warm_up(network, topo: dict) -> None:
    """Before a network's first measured flood: WARM_UP_S of flooding along each path, not
    recorded. QEMU's software emulation translates guest code the first time it runs, so the
    first seconds of a new code path run slower than the rest (seen: the batch's first flood
    the slowest of all)."""
    if getattr(network, "_forwarding_warm", False):
        return
    for role, dst in (("router", topo["router_in"]), ("receiver", topo["receiver"])):
        flood(network, role, dst, WARM_UP_PAYLOAD_B, WARM_UP_S, topo)
    network._forwarding_warm = True


def run(network, entry: dict, plan: dict) -> dict:
    """One flood of the point's payload size along its path; returns the run's status,
    metrics (emusim.workloads.udp_flood.flood_metrics) and the counters behind them."""
    w = entry["workload"]
    payload, path = int(w["payload_B"]), w["path"]
    duration_s = float(w["duration_s"])
    topo = plan["topology"]
    sink_role = "router" if path == "direct" else "receiver"
    dst = topo["router_in"] if path == "direct" else topo["receiver"]
    routed = path == "routed"

    warm_up(network, topo)
    before = {role: _snmp(network, role) for role in ("router", sink_role)}
    qdisc_before = _egress_qdisc(network) if routed else None
    backlog_before = backlog_drops()
    sent, got = flood(network, sink_role, dst, payload, duration_s, topo)
    after = {role: _snmp(network, role) for role in ("router", sink_role)}
    backlog = backlog_drops() - backlog_before

    forwarded = dropped = 0
    qdisc = {"packets": 0, "drops": 0}
    if routed:
        qdisc_after = _egress_qdisc(network)
        qdisc = {k: qdisc_after[k] - qdisc_before[k] for k in qdisc}
        forwarded = qdisc["packets"]
        dropped = (
            qdisc["drops"]
            + _delta(after["router"], before["router"], "Ip.InDiscards")
            + _delta(after["router"], before["router"], "Ip.OutDiscards")
        )
    metrics = udp_flood.flood_metrics(
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
        "netdev_max_backlog": backlog_limit(),
        "host_io_irqs": sent.get("host_io_irqs", -1),
    }
    return {"status": "ok", "metrics": metrics, "mininet": facts}
