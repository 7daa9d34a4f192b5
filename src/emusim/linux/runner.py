"""What a run on Linux hosts is, the same for the emulation and the testbed: its plan's entry
and the fields of its run JSON that say which run it is. The run itself is the workload's
(emusim.workloads.run_one); each backend brings its transport (`emusim.linux.hosts.Hosts`:
namespaces in the VM, SSH) and its dropper, and keeps its own checks around the run (the
emulation's clock, the testbed's consistency).
"""

from __future__ import annotations

from typing import Any


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
