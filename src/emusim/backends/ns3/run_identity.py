"""What an ns-3 run JSON records of the run besides its results: the scenario, point, profile,
repetition and seed, and the provenance (the command, the delay, the dropper). The generic runs
(the workflow's rule ns3_run) and the runs with the processing model (model_run) both write it.
"""

from __future__ import annotations

from emusim.backends.ns3 import command as ns3

DROPPER_IMPL = "ns3::DropperQueueDisc"
"""The queue disc that drops in every ns-3 program (sim/ns3/model/dropper-queue-disc.h)."""


def run_meta(
    backend: str,
    scenario,
    point,
    profile,
    repetition: int,
    scale: str,
    delay_us: float,
    command: list[str],
    **provenance,
) -> dict:
    """The run's identity. No git revision or interpreter path: the workflow compares these
    between runs, and a new commit must not redo every run (emusim.infra.runjson records the
    revision when the run runs). `provenance` adds the caller's own keys (the code identity,
    the fit)."""
    return {
        "scenario": scenario.name,
        "backend": backend,
        "profile": profile.name,
        "point": point.id,
        "params": point.values,
        "repetition": repetition,
        "seed": ns3.rng_seed(scenario.name, point.id),
        "provenance": {
            "scale": scale,
            "one_way_delay_us": delay_us,
            "command": command,
            "dropper_impl": DROPPER_IMPL,
            **provenance,
        },
    }
