"""The multiflow workload (the multi-flow study, issue 9): flows that arrive and leave a shared
bottleneck.

A scenario of workload `multiflow` runs in phases of `phase_s` seconds; each flow has a
round-trip propagation delay and sends from the start of phase `start_phase` to the start of
phase `stop_phase`. The bottleneck's buffer may step from phase to phase
(`buffer_packets_by_phase`, the buffer-size experiment). The ns-3 program
sim/ns3/programs/multiflow.cc runs it and returns time series; this module turns a scenario point
into that program's arguments; the study's analysis of the series, one row per phase, is
emusim.studies.multiflow.phases. docs/multiflow.md has the design and its sources.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from emusim.core import constants
from emusim.workloads import Workload, workload_schema

SETTLED_FRACTION = 0.5
"""A phase's statistics are taken over its last half: the first half is the transient after an
arrival or departure (FAST converges within tens of RTTs, loss-based variants need longer; the
figures show the whole trajectory)."""

POLLS_PER_SAMPLE = 10
"""The queue is read this many times per throughput sample (its mean, min and max per sample)."""


@dataclass(frozen=True)
class Flow:
    """One flow: its round-trip propagation delay and the phases [start, stop) it sends in."""

    rtt_ms: float
    start_phase: int
    stop_phase: int


def flows(workload: dict[str, Any]) -> list[Flow]:
    """The workload's flows: its list, or `count` copies of one."""
    spec = workload["flows"]
    if isinstance(spec, dict):
        one = Flow(float(spec["rtt_ms"]), int(spec["start_phase"]), int(spec["stop_phase"]))
        return [one] * int(spec["count"])
    return [Flow(float(f["rtt_ms"]), int(f["start_phase"]), int(f["stop_phase"])) for f in spec]


def buffers_by_phase(settings: dict[str, Any]) -> list[int]:
    """The bottleneck buffer in packets in each phase."""
    workload = settings["workload"]
    phases = int(workload["phases"])
    steps = workload.get("buffer_packets_by_phase")
    if steps is None:
        return [int(settings["topology"]["router_queue_packets"])] * phases
    return [int(b) for b in steps]


def check(settings: dict[str, Any]) -> str | None:
    """What is wrong with a multiflow point (keys and values named), or None."""
    workload = settings["workload"]
    phases = int(workload["phases"])
    if "router2" not in settings["topology"]["hosts"]:
        return (
            "key 'topology.hosts.router2' is missing; a multiflow workload runs on the "
            "dumbbell (topology: {use: dumbbell}), whose bottleneck is router to router2"
        )
    for i, f in enumerate(flows(workload)):
        if not 0 <= f.start_phase < f.stop_phase <= phases:
            return (
                f"key 'workload.flows' flow {i + 1} has start_phase {f.start_phase} and "
                f"stop_phase {f.stop_phase}; accepted: 0 <= start_phase < stop_phase <= "
                f"phases ({phases})"
            )
    steps = workload.get("buffer_packets_by_phase")
    if steps is not None:
        if len(steps) != phases:
            return (
                f"key 'workload.buffer_packets_by_phase' has {len(steps)} entries; accepted: "
                f"one per phase ({phases})"
            )
        if any(b < a for a, b in itertools.pairwise(steps)):
            return (
                f"key 'workload.buffer_packets_by_phase' has value {steps!r}; accepted: never "
                "shrinking (a FIFO cannot drop what it already holds to shrink)"
            )
    if float(workload["sample_s"]) > float(workload["phase_s"]) * SETTLED_FRACTION:
        return (
            f"key 'workload.sample_s' has value {workload['sample_s']!r}; accepted: at most "
            f"half of phase_s ({workload['phase_s']}), so each phase has settled samples"
        )
    return None


def duration_s(workload: dict[str, Any]) -> float:
    return int(workload["phases"]) * float(workload["phase_s"])


def ns3_args(settings: dict[str, Any], interframe_gap_ns) -> list[str]:
    """The multiflow program's arguments for one point (TCP attributes aside)."""
    topo, workload = settings["topology"], settings["workload"]
    phase_s = float(workload["phase_s"])
    bottleneck_bps = round(topo["link_rate_Mbps"] * 1e6)
    access_bps = round(topo.get("access_rate_Mbps", topo["link_rate_Mbps"]) * 1e6)
    buffers = buffers_by_phase(settings)
    schedule = [
        f"{k * phase_s:g}:{b}" for k, b in enumerate(buffers) if k > 0 and b != buffers[k - 1]
    ]
    spec = [
        f"{f.rtt_ms:g}:{f.start_phase * phase_s:g}:{f.stop_phase * phase_s:g}"
        for f in flows(workload)
    ]
    sample_s = float(workload["sample_s"])
    # ns-3's CommandLine refuses an empty value: no schedule, no argument
    steps = [f"--bufferSchedule={','.join(schedule)}"] if schedule else []
    return [
        f"--bottleneckRateBps={bottleneck_bps}",
        f"--bottleneckGapNs={interframe_gap_ns(bottleneck_bps)}",
        f"--accessRateBps={access_bps}",
        f"--accessGapNs={interframe_gap_ns(access_bps)}",
        f"--bufferPackets={buffers[0]}",
        *steps,
        f"--flows={','.join(spec)}",
        f"--durationS={duration_s(workload):g}",
        f"--sampleS={sample_s:g}",
        f"--pollS={sample_s / POLLS_PER_SAMPLE:g}",
    ]


def access_rate_bps(settings: dict[str, Any]) -> float:
    topo = settings["topology"]
    return topo.get("access_rate_Mbps", topo["link_rate_Mbps"]) * 1e6


def payload_capacity_Mbps(link_rate_Mbps: float) -> float:
    """Goodput of back-to-back full segments at the bottleneck: rate x 1448 / 1538."""
    return link_rate_Mbps * constants.TCP_WRITE_SIZE_B / constants.ETH_FRAME_WIRE_B


# --- the workload --------------------------------------------------------------------------------

FLOW_FIELDS_SCHEMA = {
    "rtt_ms": {"type": "number", "minimum": 0, "maximum": 10000},
    "start_phase": {"type": "integer", "minimum": 0},
    "stop_phase": {"type": "integer", "minimum": 1},
}
"""A flow's round-trip propagation delay and the phases [start_phase, stop_phase) it sends in."""

WALL_S_PER_SIM_S_800MBPS = 21.6
"""What one ns-3 run costs (docs/multiflow.md, "Cost"): 21.6 s of wall time per simulated
second for FAST with 3 flows at 800 Mb/s, growing roughly as the rate squared."""

LOSS_BASED_FACTOR = 6.7
"""The loss-based variants cost 6.7 times FAST (CUBIC 1.2 s against FAST 0.18 s per simulated
second at 20 Mb/s)."""


class Multiflow(Workload):
    kind = "multiflow"
    summary = "long-lived TCP flows arriving at and leaving one bottleneck in phases"
    # a list of flows, or `count` identical ones
    schema: ClassVar[Mapping[str, Any]] = workload_schema(
        kind,
        ["phases", "phase_s", "sample_s", "flows"],
        {
            "phases": {"type": "integer", "minimum": 1, "maximum": 1000},
            "phase_s": {"type": "number", "exclusiveMinimum": 0},
            "sample_s": {"type": "number", "exclusiveMinimum": 0},
            # the bottleneck's buffer in each phase (one entry per phase, never shrinking);
            # without it, topology.router_queue_packets throughout
            "buffer_packets_by_phase": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "integer", "minimum": 1, "maximum": 1000000},
            },
            "flows": {
                "oneOf": [
                    {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 250,
                        "items": {
                            "type": "object",
                            "required": ["rtt_ms", "start_phase", "stop_phase"],
                            "properties": FLOW_FIELDS_SCHEMA,
                            "additionalProperties": False,
                        },
                    },
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["count", "rtt_ms", "start_phase", "stop_phase"],
                        "properties": {
                            "count": {"type": "integer", "minimum": 1, "maximum": 250},
                            **FLOW_FIELDS_SCHEMA,
                        },
                    },
                ]
            },
        },
    )
    tcp = True
    ns3_programs = ("multiflow",)
    ns3_own_topology = True
    # scenarios/topologies/dumbbell.yaml: sender k is 10.1.k.2, the first is named here
    ns3_hosts: ClassVar[Mapping[str, Mapping[str, Any]] | None] = {
        "sender": {"address": "10.1.1.2"},
        "router": {"addresses": ["10.1.1.1", "10.0.0.1"]},
        "router2": {"addresses": ["10.0.0.2", "10.2.0.1"]},
        "receiver": {"address": "10.2.0.2"},
    }
    # only ns-3 runs it (docs/multiflow.md): nothing to compare it with
    emulated = False
    # its metrics are time series: its table is per phase (its study's)
    per_point_table = False

    def check(self, settings: Mapping[str, Any]) -> str | None:
        return check(dict(settings))

    def ns3_args(
        self, settings: Mapping[str, Any], interframe_gap_ns: Callable[[float], int]
    ) -> list[str]:
        return ns3_args(dict(settings), interframe_gap_ns)

    def ns3_sender_rate_bps(self, settings: Mapping[str, Any]) -> float:
        # the senders pace at their own (access) link's rate
        return access_rate_bps(dict(settings))

    def ns3_runtime_min(self, settings: Mapping[str, Any], default_min: int) -> int:
        """Twice what the measured cost implies, with the loss-based variants' factor, so that
        a paper-scale run is not killed."""
        rate_factor = (settings["topology"]["link_rate_Mbps"] / 800) ** 2
        wall_s = duration_s(settings["workload"]) * WALL_S_PER_SIM_S_800MBPS * rate_factor
        return max(default_min, math.ceil(2 * wall_s * LOSS_BASED_FACTOR / 60))


WORKLOAD = Multiflow()
