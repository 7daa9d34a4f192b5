"""What the multi-flow dynamics study adds to the workflow (workflow/rules/studies/
multiflow.smk): its per-phase tables, its four figures and its numbers. `api` is the workflow's
plug-in API (emusim.pipeline.studies.api)."""

from __future__ import annotations

from emusim.studies import scenarios_claimed
from emusim.studies.multiflow import STUDY

# The study's figures (emusim.studies.multiflow.figures): stem -> (kind, scenario, caption)
FIGURES = {
    "fig_multiflow_dynamic_i_throughput": (
        "throughput",
        "multiflow-dynamic-i",
        "FAST TCP's dynamics I: each flow's throughput as flows arrive and leave, per variant.",
    ),
    "fig_multiflow_dynamic_i_queue": (
        "queue",
        "multiflow-dynamic-i",
        "FAST TCP's dynamics I: the bottleneck's queue, and the packets each flow keeps "
        "queued, per variant.",
    ),
    "fig_multiflow_dynamic_ii": (
        "throughput_queue",
        "multiflow-dynamic-ii",
        "FAST TCP's dynamics II: throughput and queue as flows of different round-trip times "
        "arrive and leave.",
    ),
    "fig_multiflow_buffer": (
        "buffer",
        "multiflow-buffer",
        "The buffer-size experiment: FAST's queue per phase as the buffer steps, for 2 and 20 "
        "flows.",
    ),
}


def scenarios(api) -> list[str]:
    """The study's scenarios that ns-3 runs (the emulation cannot: docs/multiflow.md,
    "Mininet")."""
    if "ns3" not in api.BACKENDS:
        return []
    return [n for n in api.SCENARIOS if STUDY.claims(api.SCENARIOS[n])]


def scenario_pattern(api) -> str:
    """The phases rule's scenario wildcard: one of the study's scenarios."""
    return "|".join(scenarios(api)) or "no-multiflow-scenario"


def paper_params(api) -> dict:
    """Every scenario of the study the paper knows (run at this scale or not): its first
    point's settings, its points and its TCP variants (emusim.studies.multiflow.numbers)."""
    return {
        "scenarios": {
            name: {
                "settings": s.points[0].settings,
                "variants": list(dict.fromkeys(p.variant for p in s.points)),
                "points": [p.settings for p in s.points],
            }
            for name, s in scenarios_claimed(STUDY, api.SCENARIOS, api.SCALE).items()
        }
    }


def register(api) -> None:
    """The study's figures and hooks."""
    for stem, (kind, name, caption) in FIGURES.items():
        if name in scenarios(api):
            api.add_figure(
                "multiflow",
                stem,
                kind,
                lambda name=name: {
                    "runs": api.ns3_run_paths(name),
                    "phases": f"{api.RESULTS}/multiflow/{name}.csv",
                },
                {"scenario": api.SCENARIOS[name]},
                caption=caption,
            )
    api.register_study(
        "multiflow",
        targets=lambda: [f"{api.RESULTS}/multiflow/{n}.csv" for n in scenarios(api)],
        tables=lambda: [f"{n}-phases" for n in scenarios(api)],
        paper_inputs=lambda: {
            f"multiflow_{n}": f"{api.RESULTS}/multiflow/{n}.csv" for n in scenarios(api)
        },
        paper_params=lambda: paper_params(api),
    )
