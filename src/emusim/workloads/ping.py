"""The ping workload: ``count`` ICMP echoes of ``request_size_B`` bytes, ``interval_s`` apart
(the 2001 report's ping sweep, its Table 3.3 and the one-way delay of §3.2). Its metric is each
echo's round-trip time (docs/results-schema.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from emusim.linux import tools
from emusim.linux.hosts import Dropper, Hosts
from emusim.workloads import LINE_PROGRAMS, Workload, workload_schema


class Ping(Workload):
    kind = "ping"
    summary = "ICMP echoes of one size, a fixed interval apart"
    schema: ClassVar[Mapping[str, Any]] = workload_schema(
        kind,
        ["count", "interval_s"],
        {
            "count": {"type": "integer", "minimum": 1},
            "interval_s": {"type": "number", "exclusiveMinimum": 0},
            "request_size_B": {"type": "integer", "minimum": 0, "maximum": 65507},
        },
    )
    ns3_programs = (LINE_PROGRAMS[False],)
    # Table 3.3: per request size, the mean RTT, its population SD and its mean absolute
    # deviation (the report's "Variation")
    table_columns: ClassVar[Mapping[str, tuple[str, str]]] = {
        "AVG (µs)": ("rtt_us", "mean"),
        "SD (µs)": ("rtt_us", "sd_pop"),
        "MAD (µs)": ("rtt_us", "mad"),
    }

    def hardware_metrics(self, sizes_match: bool) -> list[str]:
        return ["rtt_us"]

    def check(self, settings: Mapping[str, Any]) -> str | None:
        if "request_size_B" not in settings["workload"]:
            return "key 'workload.request_size_B' is missing (or sweep it)"
        return None

    def ns3_args(
        self, settings: Mapping[str, Any], interframe_gap_ns: Callable[[float], int]
    ) -> list[str]:
        w = settings["workload"]
        return [
            "--workload=ping",
            f"--pings={w['count']}",
            f"--pingSize={w['request_size_B']}",
            f"--pingIntervalS={w['interval_s']}",
        ]

    def run_linux(self, hosts: Hosts, dropper: Dropper, entry: dict, plan: dict) -> dict:
        w = entry["workload"]
        count, size, interval_s = int(w["count"]), int(w["request_size_B"]), float(w["interval_s"])
        rtts = tools.ping(hosts, size, count, interval_s)
        out = {
            "status": "ok",
            "metrics": {
                "rtt_us": [round(x, 3) for x in rtts],
                "request_size_B": size,
                "packets_dropped": dropper.dropped(),
            },
            "facts": {},
        }
        if len(rtts) < count:
            out["facts"]["echoes_lost"] = count - len(rtts)
        return out

    def consistency_checks(
        self, metrics: Mapping[str, Any], workload: Mapping[str, Any], dropper_active: bool
    ) -> list[dict[str, Any]]:
        # with nothing dropped, every echo comes back
        if dropper_active:
            return []
        count, got = int(workload["count"]), len(metrics["rtt_us"])
        return [{"check": "echoes", "expected": count, "received": got, "ok": got == count}]


WORKLOAD = Ping()
