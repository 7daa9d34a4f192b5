"""One run on Linux hosts, the same for the emulation and the testbed: the dropper set, the
point's workload run on the hosts (its `run_linux`, emusim.workloads), the dropper's count.
Each backend brings its transport (`emusim.linux.hosts.Hosts`: namespaces in the VM, SSH) and
its dropper, and keeps its own checks around the run (the emulation's clock, the testbed's
consistency).
"""

from __future__ import annotations

from typing import Any

from emusim import workloads
from emusim.linux.hosts import Dropper, HostError, Hosts


def plan_entry(point, repetition: int, path, **extra: Any) -> dict[str, Any]:
    """A plan's entry for one run of a point (emusim.inputs.scenario.Point): what the hosts need to
    run it and where its result goes; a backend adds what only it needs."""
    return {
        "point": point.id,
        "params": point.values,
        "repetition": repetition,
        "workload": point.workload,
        "dropper": point.dropper,
        "dropper_target": point.dropper_target,
        **extra,
        "path": str(path),
    }


def run_meta(plan: dict, entry: dict, backend: str, profile: str) -> dict[str, Any]:
    """The fields of a run's JSON that say which run it is (docs/results-schema.md); the
    backend adds its provenance."""
    return {
        "scenario": plan["scenario"],
        "backend": backend,
        "profile": profile,
        "point": entry["point"],
        "params": entry["params"],
        "repetition": entry["repetition"],
        "seed": None,
    }


def run_one(hosts: Hosts, dropper: Dropper, entry: dict, plan: dict) -> dict[str, Any]:
    """One run: the dropper configured for the point, its workload on the hosts, and the
    target packets the dropper decided on (the count its drops are binomial in).

    Returns {status, metrics, facts} (facts: what the backend records under its own name)."""
    workload = workloads.get(entry["workload"]["kind"])
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
