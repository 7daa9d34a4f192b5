"""The workloads: what a scenario's hosts do (its ``workload.kind``), found by name.

A workload is a module here, ``emusim.workloads.KIND`` (the kind with ``-`` as ``_``:
``tcp-blast`` is ``tcp_blast``), that defines ``WORKLOAD``, an instance of a `Workload`
subclass. It owns everything about its kind that is not a backend's or a study's:

- its schema fragment (the ``workload`` mapping of a scenario) and its checks of a point;
- whether its runs use TCP (a profile's and a variant's randomness act) and whether they differ
  by chance whatever the point;
- its ns-3 program and that program's workload arguments;
- how long its runs keep a link busy (the emulation's time limits);
- how its runs are compared and tabled: the metrics, the per-point table's columns.

Backends and the workflow reach a workload only through `get` (an import contract `make test`
checks): no backend compares a kind to a string. docs/adding-a-workload.md walks through one.

The kinds: ``tcp-blast`` and ``udp-blast`` (the 2001 report's blast tests), ``ping`` (its ping
sweep), ``udp-flood`` (router forwarding against payload size), ``multiflow`` (flows arriving
at and leaving one bottleneck in phases: FAST TCP's dynamics).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from emusim.core import constants, plugins
from emusim.linux.hosts import Dropper, HostError, Hosts

LINE_PROGRAMS = {False: "testbed-2001", True: "lossy-link"}
"""The ns-3 programs that build a scenario's own line of hosts, by whether it has a router2
(sim/ns3/programs; emusim.backends.ns3.command)."""


class WorkloadError(ValueError):
    """A workload module is not what the registry expects, or a kind is unknown."""


class Workload:
    """One kind of workload. A subclass sets the class attributes and overrides what differs."""

    kind: ClassVar[str]
    """Its name in scenarios (``workload.kind``)."""
    summary: ClassVar[str]
    """One line for lists (``emusim list scenarios``)."""
    schema: ClassVar[Mapping[str, Any]]
    """JSON schema of a scenario's ``workload`` mapping of this kind (``kind`` a const)."""
    tcp: ClassVar[bool] = False
    """Its runs use TCP sockets: a profile's random numbers and a variant's act on them."""
    random: ClassVar[bool] = False
    """Its runs differ by chance whatever the point (not only with a random dropper)."""
    ns3_programs: ClassVar[tuple[str, ...]] = ()
    """The ns-3 programs that run it (sim/ns3/programs): those of LINE_PROGRAMS it runs in,
    chosen by the topology, or else its own."""
    ns3_hosts: ClassVar[Mapping[str, Mapping[str, Any]] | None] = None
    """The addresses its own ns-3 program builds, per role (it takes no others); None: those
    of the three-host line (emusim.backends.ns3.command.LINE_HOSTS)."""
    ns3_own_topology: ClassVar[bool] = False
    """Its ns-3 program builds its own topology from its arguments, not the line of hosts of
    testbed-2001 (framing, delay, queues and dropper as emusim.backends.ns3.command sets
    them)."""
    timed: ClassVar[bool] = False
    """Its runs' elapsed time is what it measures: where nothing is dropped, repetitions agree
    up to noise (the testbed's consistency check, emusim.backends.testbed.checks)."""
    linux_needs: ClassVar[tuple[str, ...]] = ()
    """What its `run_linux` needs of the hosts beyond emusim.linux.hosts.Hosts (methods a
    transport may lack: the testbed's SSH hosts have no view of a router's qdisc yet)."""
    traced: ClassVar[bool] = False
    """Its TCP connection can be traced segment by segment in both backends
    (emusim.analysis.tcp_events)."""
    emulated: ClassVar[bool] = True
    """The emulation runs it (the multi-flow study runs in ns-3 only)."""
    per_point_table: ClassVar[bool] = True
    """Its scenario gets a per-point table of every backend (a time series does not)."""
    backend_metrics: ClassVar[tuple[str, ...]] = ("goodput_Bps", "elapsed_s")
    """What ns-3 and the emulation are compared on where no hardware ran it."""
    table_columns: ClassVar[Mapping[str, tuple[str, str]]] = {
        "AVG (s)": ("elapsed_s", "mean"),
        "SD (s)": ("elapsed_s", "sd_pop"),
        "MAD (s)": ("elapsed_s", "mad"),
        "Throughput (B/s)": ("throughput_report_Bps", "mean"),
    }
    """Its scenario's per-point table, each backend's columns (emusim.analysis.tables.
    side_by_side): label → (metric, statistic). By default the report's Tables 3.1, 4.1 and
    4.3: AVG, population SD and mean absolute deviation of the elapsed time, and throughput
    (the report's "Var" is the SD in Table 4.1 and the MAD in Tables 3.1, 3.2 and 4.3,
    data/reference/README.md: both are given)."""

    def hardware_metrics(self, sizes_match: bool) -> list[str]:
        """What it is compared on against the hardware's runs (results/compare): throughput,
        and the elapsed time where the transfers' sizes match the hardware's (paper scale)."""
        return ["throughput_report_Bps", *(["elapsed_s"] if sizes_match else [])]

    def check(self, settings: Mapping[str, Any]) -> str | None:
        """What is wrong with one point's settings (swept values included, which the schema
        does not see), keys and values named; None if nothing."""
        return None

    def ns3_program(self, settings: Mapping[str, Any]) -> str:
        """The ns-3 program that runs a point: the line program of its topology if the
        workload runs there, else the workload's own."""
        line = LINE_PROGRAMS["router2" in settings["topology"]["hosts"]]
        if line in self.ns3_programs:
            return line
        own = [p for p in self.ns3_programs if p not in LINE_PROGRAMS.values()]
        if not own:
            raise WorkloadError(
                f"key 'workload.kind' has value {self.kind!r}; the ns-3 program {line} "
                f"(a topology {'with' if line == LINE_PROGRAMS[True] else 'without'} router2) "
                f"runs {', '.join(kinds_in_program(line))} only"
            )
        return own[0]

    def ns3_args(
        self, settings: Mapping[str, Any], interframe_gap_ns: Callable[[float], int]
    ) -> list[str]:
        """Its ns-3 program's workload arguments for one point's settings (with
        `ns3_own_topology`, the topology's too: `interframe_gap_ns(rate_bps)` is ns-3's
        framing)."""
        raise WorkloadError(f"workload {self.kind!r} has no ns-3 program")

    def ns3_model_args(self, fit: Mapping[str, Any], settings: Mapping[str, Any]) -> list[str]:
        """Its ns-3 program's arguments of a fitted processing model (the derived backend
        ns3-model, emusim.core.backend_registry.NS3_MODEL), for one point."""
        raise WorkloadError(f"workload {self.kind!r} has no processing model in ns-3")

    def ns3_sender_rate_bps(self, settings: Mapping[str, Any]) -> float:
        """The rate of the sender's own link (a profile's pacing is relative to it)."""
        return settings["topology"]["link_rate_Mbps"] * 1e6

    def ns3_runtime_min(self, settings: Mapping[str, Any], default_min: int) -> int:
        """Minutes a cluster job of one ns-3 run may take (docs/cluster.md)."""
        return default_min

    def wire_busy_s(self, workload: Mapping[str, Any], rate_bps: float) -> float:
        """Seconds one run keeps the link busy at `rate_bps` (a lower bound of its time)."""
        return 0.0

    def run_linux(self, hosts, dropper, entry: dict, plan: dict) -> dict[str, Any]:
        """One run on Linux hosts (emusim.linux.hosts.Hosts; the dropper already configured
        for the point: run_one): {status, metrics, facts}."""
        raise WorkloadError(f"workload {self.kind!r} does not run on Linux hosts")

    def consistency_checks(
        self, metrics: Mapping[str, Any], workload: Mapping[str, Any], dropper_active: bool
    ) -> list[dict[str, Any]]:
        """What a run of it on real hosts must satisfy beyond the dropper's count: each a
        {check, …, ok} dict (emusim.backends.testbed.checks)."""
        return []


class Blast(Workload):
    """A fixed number of TCP writes or UDP datagrams of one size, sent as fast as the sender can
    (the 2001 report's blast tests): the scenario's ``workload`` names the count `count_key`
    and the size `size_key`, which the line programs take as --writes and --writeSize."""

    ns3_workload: ClassVar[str]
    """The line programs' --workload (tcp or udp)."""
    count_key: ClassVar[str]
    """The ``workload`` key of how many writes or datagrams."""
    size_key: ClassVar[str]
    """The ``workload`` key of their size in bytes."""
    timed = True

    def ns3_args(
        self, settings: Mapping[str, Any], interframe_gap_ns: Callable[[float], int]
    ) -> list[str]:
        w = settings["workload"]
        return [
            f"--workload={self.ns3_workload}",
            f"--writes={w[self.count_key]}",
            f"--writeSize={w[self.size_key]}",
        ]

    def wire_busy_s(self, workload: Mapping[str, Any], rate_bps: float) -> float:
        # one full frame per write or datagram
        return full_frames_s(int(workload[self.count_key]), rate_bps)


def blast_schema(kind: str, count_key: str, size_key: str, size_max_B: int) -> dict[str, Any]:
    """The JSON schema of a `Blast`'s ``workload`` mapping: at least one write or datagram, of
    1 to `size_max_B` bytes."""
    return workload_schema(
        kind,
        [count_key, size_key],
        {
            count_key: {"type": "integer", "minimum": 1},
            size_key: {"type": "integer", "minimum": 1, "maximum": size_max_B},
        },
    )


def workload_schema(
    kind: str, required: list[str], properties: Mapping[str, Any]
) -> dict[str, Any]:
    """The JSON schema of a ``workload`` mapping of `kind`: `properties` and ``kind`` (a const)
    and nothing else, ``kind`` and `required` required."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["kind", *required],
        "properties": {"kind": {"const": kind}, **properties},
    }


def full_frames_s(frames: int, rate_bps: float) -> float:
    """Seconds `frames` full Ethernet frames keep a link of `rate_bps` busy."""
    return frames * constants.ETH_FRAME_WIRE_B * 8 / rate_bps


def module_name(kind: str) -> str:
    """The module of a kind: ``tcp-blast`` is ``emusim.workloads.tcp_blast``."""
    return f"{__name__}.{kind.replace('-', '_')}"


@cache
def registry() -> dict[str, Workload]:
    """Every workload module here, by kind, in name order."""
    found: dict[str, Workload] = {}
    for module, workload in plugins.discover(
        __name__,
        __path__,
        "WORKLOAD",
        Workload,
        WorkloadError,
        "a workload module defines WORKLOAD, an instance of a Workload subclass "
        "(emusim.workloads; docs/adding-a-workload.md)",
    ):
        if module_name(workload.kind) != module.__name__:
            raise WorkloadError(
                f"{Path(module.__file__)}: WORKLOAD.kind is {workload.kind!r}, whose module "
                f"would be {module_name(workload.kind)}: name the module after the kind"
            )
        found[workload.kind] = workload
    return found


def get(kind: str) -> Workload:
    """The workload of a kind; an unknown kind is named with the known ones."""
    try:
        return registry()[kind]
    except KeyError:
        raise WorkloadError(
            f"no workload {kind!r}; known: {', '.join(registry())} (emusim.workloads)"
        ) from None


def of(settings: Mapping[str, Any]) -> Workload:
    """The workload of a scenario's or a point's settings."""
    return get(settings["workload"]["kind"])


def kinds_in_program(program: str) -> list[str]:
    """The kinds an ns-3 program runs."""
    return [k for k, w in registry().items() if program in w.ns3_programs]


def scenario_schema(base: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario schema with each workload's fragment as one alternative of ``workload``."""
    schema = dict(base)
    schema["properties"] = {
        **base["properties"],
        "workload": {"oneOf": [w.schema for w in registry().values()]},
    }
    return schema


def run_one(hosts: Hosts, dropper: Dropper, entry: dict, plan: dict) -> dict[str, Any]:
    """One run on Linux hosts (the emulation's and the testbed's): the dropper configured for
    the point, its workload on the hosts, and the target packets the dropper decided on (the
    count its drops are binomial in).

    Returns {status, metrics, facts} (facts: what the backend records under its own name)."""
    workload = get(entry["workload"]["kind"])
    missing = [m for m in workload.linux_needs if not hasattr(hosts, m)]
    if missing:
        raise HostError(
            f"point {entry['point']}: workload {workload.kind} needs what these hosts cannot "
            f"give: {', '.join(missing)} ({type(hosts).__name__})"
        )
    dropper.configure(entry["dropper"], entry["dropper_target"])
    seen_before = dropper.seen()
    out = workload.run_linux(hosts, dropper, entry, plan)
    if seen_before is not None:
        out["facts"]["dropper_packets_seen"] = dropper.seen() - seen_before
    return out
