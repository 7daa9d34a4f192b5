# The ns-3 backend's input, params and resources functions (ns3.smk), and what the other
# stages ask of it: a scenario's runs and traces, the measured delay its runs read.
import json
import os
import sys
from pathlib import Path

from emusim.infra import archive as run_archive
from emusim.infra import code_identity
from emusim import workloads
from emusim.inputs import tcp_profiles
from emusim.backends.ns3 import build as ns3build
from emusim.backends.ns3 import command as ns3mod
from emusim.infra.runjson import run_path

# Every executable of the ns-3 build: one program per sim/ns3/programs/NAME.cc, and the test
# runner (emusim.backends.ns3.build.PROGRAMS, the one list); a scenario runs the program that
# builds its topology (`ns3_program`).
NS3_PROGRAMS = [f"build/ns3/{name}" for name in ns3build.PROGRAMS]


def ns3_program(name):
    """The ns-3 program that builds scenario `name`'s topology (three hosts or four)."""
    return f"build/ns3/{ns3mod.program_name(SCENARIOS[name])}"


NS3_RUNTIME_MIN = 10
"""Every ns-3 run but a workload's own estimate takes at most a minute at paper scale."""


def ns3_runtime_min(name):
    """Minutes a cluster job of one ns-3 run of scenario `name` may take (the SLURM profile's
    `runtime`; docs/cluster.md): the workload's estimate (a multi-flow run's from its measured
    cost, emusim.workloads.multiflow), at least NS3_RUNTIME_MIN."""
    settings = SCENARIOS[name].settings
    return workloads.of(settings).ns3_runtime_min(settings, NS3_RUNTIME_MIN)


def ns3_run_paths(name):
    """Every ns-3 run JSON of a scenario (emusim.backends.ns3.command.run_paths: deterministic
    points once, see config ns3; none of a point whose TCP variant ns-3 lacks)."""
    repeat = config.get("ns3", {}).get("repeat_deterministic", False)
    return ns3mod.run_paths(RESULTS, SCENARIOS[name], repeat)


def ns3_traces(name):
    """Whether the ns-3 program of scenario `name` writes the TCP event trace: it takes
    --traceFile (sim/ns3/programs/NAME.cc: testbed-2001 and lossy-link do)."""
    program = ns3mod.program_name(SCENARIOS[name])
    return "traceFile" in Path(f"sim/ns3/programs/{program}.cc").read_text()


def trace_paths():
    """The traced runs: repetition 1 of each traced point, every ns-3 profile of the scenario."""
    if "ns3" not in BACKENDS:
        return []
    return [
        f"{RESULTS}/traces/{name}/{profile}/{point.id}/run1.{ext}"
        for name in config.get("traces", {}).get("points", {})
        if name in SCENARIOS and ns3_traces(name)
        for point in trace_points(name)
        for profile in SCENARIOS[name].profiles
        for ext in ("csv.gz", "json")
    ]


# The one-way delay fitted from the hardware's ping sweep, for a scenario with `delay: measured`
# (the emulation's batches and the router-forwarding study's model runs read it too).
def _ns3_delay_input(wildcards):
    measured = SCENARIOS[wildcards.scenario].settings["topology"]["delay"] == "measured"
    return [f"{RESULTS}/delay/one_way_delay.json"] if measured else []


def _measured_delay_us():
    path = f"{RESULTS}/delay/one_way_delay.json"
    with open(path) as f:
        return json.load(f)["one_way_delay_us"]


def _ns3_archived(wildcards):
    """The archived run that rule ns3_restore writes for this run, when the archive holds one
    made by the command ns3_run would run now and by this checkout's code (docs/archive.md);
    otherwise a path that does not exist, so that ns3_run simulates it (a stale one: the log
    says why). A run whose command needs the measured delay is
    simulated while that delay is not yet measured."""
    w = wildcards
    relative = run_path("", "ns3", w.scenario, w.profile, w.point, int(w.rep))
    missing = f"{PREFIX}logs/not-archived/{relative}"
    if ARCHIVE is None:
        return missing
    archived = run_archive.archive_path(ARCHIVE, SCALE, relative)
    delay_known = all(os.path.exists(p) for p in _ns3_delay_input(wildcards))
    if not (archived.exists() and delay_known):
        return missing
    ok, why = run_archive.matches(archived, _ns3_run(wildcards)["cmd"], ARCHIVE)
    if not ok:
        print(f"archive not used: {why}", file=sys.stderr)
    return str(archived) if ok else missing


def _ns3_run(wildcards):
    """Command and identity of one ns-3 run (computed when the job is scheduled)."""
    s = SCENARIOS[wildcards.scenario]
    point = s.point(wildcards.point)
    profile = tcp_profiles.get(wildcards.profile)
    measured = _measured_delay_us() if _ns3_delay_input(wildcards) else None
    delay_us = s.one_way_delay_us(measured)
    rep = int(wildcards.rep)
    cmd = ns3mod.command(ns3_program(s.name), s, point, profile, rep, delay_us)
    meta = {
        "scenario": s.name,
        "backend": "ns3",
        "profile": profile.name,
        "point": point.id,
        "params": point.values,
        "repetition": rep,
        "seed": ns3mod.rng_seed(s.name, point.id),
        # No git revision or interpreter path here: params are compared between runs, and a
        # new commit must not redo every run. runjson records the revision when it runs.
        "provenance": {
            "scale": SCALE,
            "one_way_delay_us": delay_us,
            "command": cmd,
            "dropper_impl": "ns3::DropperQueueDisc",
            # the code that makes the run (emusim.infra.code_identity), for the archive
            "code_identity": code_identity.current("ns3")["digest"],
        },
    }
    return {"cmd": cmd, "meta": json.dumps(meta, sort_keys=True)}
