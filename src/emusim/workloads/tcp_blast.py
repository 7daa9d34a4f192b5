"""The tcp-blast workload: one TCP connection writes ``writes`` × ``write_size_B`` bytes as fast
as it can (the 2001 report's blast test, its §3.1 and chapter 4; the lossy-link family's 1 GB
transfer). Its metrics are the transfer's elapsed time and what TCP did on the way
(docs/results-schema.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from emusim.core import run_status
from emusim.linux import tools
from emusim.linux.hosts import Dropper, HostError, Hosts
from emusim.workloads import LINE_PROGRAMS, Blast, blast_schema

NS3_DEFAULT_CAP_S = 100_000.0
"""Simulated-time cap of an ns-3 run whose scenario sets no `cap_s`."""


class TcpBlast(Blast):
    kind = "tcp-blast"
    summary = "one TCP connection writes a fixed amount as fast as it can"
    ns3_workload, count_key, size_key = "tcp", "writes", "write_size_B"
    schema: ClassVar[Mapping[str, Any]] = blast_schema(kind, count_key, size_key, 65535)
    tcp = True
    ns3_programs = tuple(LINE_PROGRAMS.values())
    traced = True

    def ns3_args(
        self, settings: Mapping[str, Any], interframe_gap_ns: Callable[[float], int]
    ) -> list[str]:
        cap_s = settings.get("cap_s", NS3_DEFAULT_CAP_S)
        return [*super().ns3_args(settings, interframe_gap_ns), f"--maxSimTimeS={cap_s}"]

    def run_linux(self, hosts: Hosts, dropper: Dropper, entry: dict, plan: dict) -> dict:
        w = entry["workload"]
        cc = entry.get("congestion_control")
        args = (int(w["writes"]), int(w["write_size_B"]), plan["cap_s"], hosts.window_clamp, cc)
        if entry.get("ecn"):
            # the listener runs the algorithm too: see ecn_settings
            hosts.set_sysctls(ECN_SYSCTLS)
            try:
                res = tools.tcp_blast(hosts, *args, listener_cc=cc)
            finally:
                hosts.set_sysctls({r: dict.fromkeys(keys) for r, keys in ECN_SYSCTLS.items()})
        else:
            res = tools.tcp_blast(hosts, *args)
        status = "ok" if res["completed"] else "timeout"
        facts: dict[str, Any] = {}
        other = check_congestion_control(
            res["congestion_control"], cc or hosts.default_congestion_control, entry
        )
        if other is not None:
            status = run_status.OTHER_ALGORITHM
            facts["congestion_control_note"] = other
        if res["completed"] and res["server"]["bytes_received"] != res["payload_bytes"]:
            raise HostError(
                f"the server received {res['server']['bytes_received']} bytes of "
                f"{res['payload_bytes']}"
            )
        facts |= {k: res[k] for k in FACTS}
        facts["server"] = res["server"]
        return {"status": status, "metrics": metrics(res, dropper.dropped()), "facts": facts}


WORKLOAD = TcpBlast()


# --- on Linux hosts (emusim.linux.hosts) ---------------------------------------------------------

ECN_SYSCTLS = {"sender": {"net.ipv4.tcp_ecn": "1"}, "receiver": {"net.ipv4.tcp_ecn": "1"}}
"""The sysctls per role that let an algorithm that needs ECN (dctcp) negotiate it: ECN on at
both ends. The sender marks its SYN ECN-capable (the algorithm's INET_ECN_xmit), and a
listener accepts such a SYN only if its own congestion control needs ECN
(tcp_ecn_create_request, net/ipv4/tcp_input.c:6902-6909), otherwise dctcp falls back to
dctcp-reno (tcp_dctcp.c:108-112): the server's listener therefore runs the same algorithm,
set by socket option (a namespace's default may only name an algorithm in
tcp_allowed_congestion_control: tcp_set_default_congestion_control, tcp_cong.c:243-246)."""

FACTS = (
    "segments_sent", "snd_mss", "peer_window_B", "srtt_us", "snd_cwnd", "snd_ssthresh",
    "loss_probes", "retrans_segs_netns", "writes_done", "congestion_control", "bytes_acked",
    "host_io_irqs", "cpu_busy_fraction", "busy_us", "rwnd_limited_us", "sndbuf_limited_us",
    "recovery_counters",
)  # fmt: skip
"""What a run records of the client's TCP_INFO and the sender's counters beside its metrics."""


def bytes_delivered(res: dict) -> int:
    """Payload bytes the receiver got: all of them when the transfer completed (the server
    checks the count), else what it acknowledged by the cap (tcpi_bytes_acked counts the SYN
    as one byte)."""
    if res["completed"]:
        return int(res["payload_bytes"])
    return max(0, int(res.get("bytes_acked", 0)) - 1)


def metrics(res: dict, dropped: int) -> dict:
    """A blast's metrics (docs/results-schema.md) from its result and the dropper's count."""
    delivered = bytes_delivered(res)
    return {
        "elapsed_s": res["elapsed_s"],
        "writes": res["writes"],
        "write_size_B": res["write_size_B"],
        "payload_bytes": res["payload_bytes"],
        "bytes_delivered": delivered,
        "goodput_Bps": round(delivered / res["elapsed_s"], 3) if res["elapsed_s"] > 0 else 0.0,
        "packets_sent": res["packets_sent"],
        "retransmissions": res["retransmissions"],
        "rto_timeouts": res["rto_timeouts"],
        "fast_recoveries": res["fast_recoveries"],
        "packets_dropped": dropped,
    }


def check_congestion_control(used: str, wanted: str | None, entry: dict) -> str | None:
    """Why a run did not use the congestion control it claims (its variant's, or else the
    profile's sysctl; None: the kernel's default, nothing to check), or None if it did.

    Linux may replace an algorithm on its own: dctcp's init falls back to dctcp-reno when the
    connection did not negotiate ECN (net/ipv4/tcp_dctcp.c:108-112). Such a run is recorded
    with this reason (status `other-algorithm`) and the batch goes on."""
    if wanted is None or used == wanted:
        return None
    what = f"variant {entry['variant']}" if entry.get("variant") else "the profile"
    return (
        f"the connection ran congestion control {used!r}, not {wanted!r} of {what} "
        f"(ECN {'on' if entry.get('ecn') else 'off'}; Linux falls back from an algorithm "
        "whose needs the connection does not meet, e.g. dctcp without ECN to dctcp-reno)"
    )
