"""The ns-3 backend's facts: its programs, a scenario's runs and traces, the measured delay a
run reads, and the command and identity of one run."""

from __future__ import annotations

import json
import os
import sys

from emusim import workloads
from emusim.backends.ns3 import build as ns3build
from emusim.backends.ns3 import command as ns3mod
from emusim.backends.ns3 import run_identity
from emusim.core.paths import REPO_ROOT
from emusim.infra import archive as run_archive
from emusim.infra import code_identity
from emusim.infra.runjson import run_path
from emusim.inputs import fitted_delay, tcp_profiles
from emusim.pipeline.setup import Setup, trace_points

RUNTIME_MIN = 10
"""Every ns-3 run but a workload's own estimate takes at most a minute at paper scale."""


def programs() -> list[str]:
    """Every executable of the ns-3 build: one program per sim/ns3/programs/NAME.cc, and the
    test runner (emusim.backends.ns3.build.PROGRAMS, the one list)."""
    return [f"build/ns3/{name}" for name in ns3build.PROGRAMS]


def program(setup: Setup, name: str) -> str:
    """The ns-3 program that builds scenario `name`'s topology (three hosts or four)."""
    return f"build/ns3/{ns3mod.program_name(setup.scenarios[name])}"


def runtime_min(setup: Setup, name: str) -> int:
    """Minutes a cluster job of one ns-3 run of scenario `name` may take (the SLURM profile's
    `runtime`; docs/cluster.md): the workload's estimate (a multi-flow run's from its measured
    cost, emusim.workloads.multiflow), at least RUNTIME_MIN."""
    settings = setup.scenarios[name].settings
    return workloads.of(settings).ns3_runtime_min(settings, RUNTIME_MIN)


def run_paths(setup: Setup, name: str) -> list:
    """Every ns-3 run JSON of a scenario (emusim.backends.ns3.command.run_paths: deterministic
    points once, see config ns3; none of a point whose TCP variant ns-3 lacks)."""
    repeat = setup.section("ns3").get("repeat_deterministic", False)
    return ns3mod.run_paths(setup.results, setup.scenarios[name], repeat)


def all_run_paths(setup: Setup) -> list:
    """Every ns-3 run of every scenario, when ns-3 runs (each a target of `all`, so that a
    deleted run is redone even when the tables built from it are still there)."""
    if "ns3" not in setup.backends:
        return []
    return [p for n in setup.scenarios for p in run_paths(setup, n)]


def traces(setup: Setup, name: str) -> bool:
    """Whether the ns-3 program of scenario `name` writes the TCP event trace: it takes
    --traceFile (sim/ns3/programs/NAME.cc: testbed-2001 and lossy-link do)."""
    source = (
        REPO_ROOT / "sim" / "ns3" / "programs" / f"{ns3mod.program_name(setup.scenarios[name])}.cc"
    )
    return "traceFile" in source.read_text()


def trace_paths(setup: Setup) -> list[str]:
    """The traced runs: repetition 1 of each traced point, every ns-3 profile of the scenario."""
    if "ns3" not in setup.backends:
        return []
    return [
        f"{setup.results}/traces/{name}/{profile}/{point.id}/run1.{ext}"
        for name in setup.section("traces").get("points", {})
        if name in setup.scenarios and traces(setup, name)
        for point in trace_points(setup, name)
        for profile in setup.scenarios[name].profiles
        for ext in ("csv.gz", "json")
    ]


def delay_input(setup: Setup, name: str) -> list[str]:
    """The fitted one-way delay's file, for a scenario with `delay: measured` (its ns-3 runs,
    the emulation's batches and the router-forwarding study's model runs read it)."""
    return (
        [fitted_delay.path(setup.results)]
        if fitted_delay.is_measured(setup.scenarios[name])
        else []
    )


def run(setup: Setup, scenario: str, profile: str, point: str, rep: int) -> dict:
    """Command and identity of one ns-3 run (computed when the job is scheduled): {"cmd": the
    command, "meta": the run JSON's identity as JSON text}."""
    s = setup.scenarios[scenario]
    the_point = s.point(point)
    the_profile = tcp_profiles.get(profile)
    delay_file = delay_input(setup, scenario)
    measured = fitted_delay.read_us(delay_file[0]) if delay_file else None
    delay_us = s.one_way_delay_us(measured)
    cmd = ns3mod.command(program(setup, s.name), s, the_point, the_profile, rep, delay_us)
    meta = run_identity.run_meta(
        "ns3", s, the_point, the_profile, rep, setup.scale, delay_us, cmd,
        # the code that makes the run (emusim.infra.code_identity), for the archive
        code_identity=code_identity.current("ns3")["digest"],
    )  # fmt: skip
    return {"cmd": cmd, "meta": json.dumps(meta, sort_keys=True)}


def archived(setup: Setup, scenario: str, profile: str, point: str, rep: int) -> str:
    """The archived run that rule ns3_restore writes for this run, when the archive holds one
    made by the command ns3_run would run now and by this checkout's code (docs/archive.md);
    otherwise a path that does not exist, so that ns3_run simulates it (a stale one: the log
    says why). A run whose command needs the measured delay is simulated while that delay is
    not yet measured."""
    relative = run_path("", "ns3", scenario, profile, point, rep)
    missing = f"{setup.prefix}logs/not-archived/{relative}"
    if setup.archive is None:
        return missing
    kept = run_archive.archive_path(setup.archive, setup.scale, relative)
    delay_known = all(os.path.exists(p) for p in delay_input(setup, scenario))
    if not (kept.exists() and delay_known):
        return missing
    ok, why = run_archive.matches(
        kept, run(setup, scenario, profile, point, rep)["cmd"], setup.archive
    )
    if not ok:
        print(f"archive not used: {why}", file=sys.stderr)
    return str(kept) if ok else missing


def trace_tmp(trace_gz: str) -> str:
    """Where a traced run writes its trace before it is compressed to `trace_gz`."""
    return trace_gz[: -len(".gz")] + ".tmp"
