"""The multi-flow study's numbers for the paper (paper/sections/multiflow.tex), from the
per-phase tables (results/multiflow/NAME.csv, emusim.studies.multiflow.phases.phase_table).

A phase is called steady when its settled half had no drops and the queue's standard deviation
was under STEADY_SD_FRACTION of its mean (or under one packet); FAST's prediction for the
buffer-size experiment is steady phases exactly where n x alpha fits in the buffer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from emusim.report import macros
from emusim.studies.multiflow.phases import queue_target_pkts
from emusim.workloads import multiflow as mf

STEADY_SD_FRACTION = 0.05
"""A queue whose settled standard deviation is under 5 % of its mean does not oscillate."""

FAST = "fast"


def steady(rows: pd.DataFrame) -> pd.Series:
    """Per phase row: no drops in the settled half and a queue that holds still."""
    calm = (rows["queue_sd_pkts"] < STEADY_SD_FRACTION * rows["queue_mean_pkts"]) | (
        rows["queue_sd_pkts"] < 1
    )
    return (rows["drops_settled"] == 0) & calm


def settled_early(rows: pd.DataFrame, phase_s: float) -> pd.Series:
    """Per phase row: every flow settled (phases.settle_time_s) before the settled half the
    statistics are taken over began, i.e. within the phase's transient."""
    return rows["settle_s"] <= mf.SETTLED_FRACTION * phase_s


def _listing(values: list[object]) -> str:
    """'a, b and c' (LaTeX text)."""
    words = [macros.text(f"{v:g}" if isinstance(v, float) else v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _range(values: pd.Series, fmt: Callable[[object], str]) -> str:
    values = values.dropna()
    if values.empty:
        return macros.NA
    low, high = fmt(values.min()), fmt(values.max())
    return low if low == high else f"{low}--{high}"


def scenario_numbers(
    name: str, phases: pd.DataFrame | None, settings: Mapping[str, Any], variants: list[str]
) -> dict:
    """Design and results of one multiflow scenario, FAST and the comparison variants (every
    variant of the scenario has its macros, n/a where it did not run: NAMEVariantJainMin,
    ...UtilisationMin, ...QueueMean, ...Drops, ...SettledPhases: the phases that settled
    within their transient, settled_early; NAMEFastSettleMaxS: the longest of FAST's settling
    times among its phases that settled)."""
    key = macros.macro_name(name)
    workload, topo = settings["workload"], settings["topology"]
    alpha = queue_target_pkts(FAST)
    rtts = sorted({f.rtt_ms for f in mf.flows(workload)})
    out = {
        f"{key}Rtts": _listing(rtts),
        f"{key}RttMin": macros.text(f"{rtts[0]:g}"),
        f"{key}RttMax": macros.text(f"{rtts[-1]:g}"),
        f"{key}Groups": macros.integer(len({f.start_phase for f in mf.flows(workload)})),
        f"{key}RateMbps": macros.text(f"{topo['link_rate_Mbps']:g}"),
        f"{key}PhaseS": macros.text(f"{workload['phase_s']:g}"),
        f"{key}Phases": macros.integer(workload["phases"]),
        f"{key}Flows": macros.integer(len(mf.flows(workload))),
        f"{key}BufferPackets": macros.integer(topo["router_queue_packets"]),
    }
    have = phases is not None and not phases.empty
    fast = phases[phases["variant"] == FAST] if have else None
    ok = fast is not None and not fast.empty
    out.update(
        {
            f"{key}FastQueuedPerFlow": _range(
                fast["queued_per_flow_pkts"], lambda v: macros.fixed(v, 0)
            )
            if ok
            else macros.NA,
            f"{key}FastSteadyPhases": macros.integer(int(steady(fast).sum()) if ok else None),
            f"{key}FastDrops": macros.integer(int(fast["drops_phase"].sum()) if ok else None),
            f"{key}FastSettleMaxS": macros.fixed(
                fast["settle_s"].max() if ok and fast["settle_s"].notna().any() else None, 1
            ),
            f"{key}FastAlpha": macros.integer(alpha),
        }
    )
    for variant in variants:
        rows = phases[phases["variant"] == variant] if have else None
        run = rows is not None and not rows.empty
        vkey = macros.macro_name(name, variant)
        out[f"{vkey}JainMin"] = macros.fixed(rows["jain_index"].min() if run else None, 3)
        out[f"{vkey}UtilisationMin"] = macros.fixed(rows["utilisation"].min() if run else None, 3)
        out[f"{vkey}QueueMean"] = macros.fixed(rows["queue_mean_pkts"].mean() if run else None, 0)
        out[f"{vkey}Drops"] = macros.integer(int(rows["drops_phase"].sum()) if run else None)
        out[f"{vkey}SettledPhases"] = macros.integer(
            int(settled_early(rows, float(workload["phase_s"])).sum()) if run else None
        )
    return out


def buffer_numbers(name: str, phases: pd.DataFrame | None) -> dict:
    """The buffer-size experiment: for FAST and each number of flows n, the buffers whose
    phase was steady and those that oscillated, and whether that is where n x alpha fits."""
    key = macros.macro_name(name)
    out: dict[str, str] = {}
    alpha = queue_target_pkts(FAST)
    if phases is None or phases.empty or "n_flows" not in phases or alpha is None:
        for n in ("Two", "Twenty"):
            for what in ("Steady", "Oscillating", "AsPredicted"):
                out[f"{key}Fast{what}{n}"] = macros.NA
        return out
    fast = phases[phases["variant"] == FAST]
    for n, word in ((2, "Two"), (20, "Twenty")):
        rows = fast[fast["n_flows"] == n]
        if rows.empty:
            for what in ("Steady", "Oscillating", "AsPredicted"):
                out[f"{key}Fast{what}{word}"] = macros.NA
            continue
        calm = steady(rows)
        fits = n * alpha <= rows["buffer_pkts"]
        as_predicted = int((calm == fits).sum())
        out[f"{key}FastSteady{word}"] = macros.text(
            ", ".join(str(int(b)) for b in rows.loc[calm, "buffer_pkts"]) or "none"
        )
        out[f"{key}FastOscillating{word}"] = macros.text(
            ", ".join(str(int(b)) for b in rows.loc[~calm, "buffer_pkts"]) or "none"
        )
        out[f"{key}FastAsPredicted{word}"] = macros.text(f"{as_predicted} of {len(rows)}")
    return out


def numbers(
    scenarios: Mapping[str, Mapping[str, Any]],
    table: Callable[[str], pd.DataFrame | None],
) -> dict[str, str]:
    """Every multiflow scenario's numbers; `scenarios` maps a name to its first point's
    `settings` and its `variants` (every scenario the paper knows, run at this scale or not),
    `table` reads ``multiflow_NAME``."""
    out: dict[str, str] = {}
    for name, spec in scenarios.items():
        phases = table(f"multiflow_{name}")
        out.update(scenario_numbers(name, phases, spec["settings"], spec["variants"]))
        steps = spec["settings"]["workload"].get("buffer_packets_by_phase")
        if steps:
            key = macros.macro_name(name)
            out[f"{key}BufferSteps"] = _listing(list(steps))
            counts = sorted({p["workload"]["flows"]["count"] for p in spec.get("points", [])})
            out[f"{key}FlowCounts"] = (
                _listing(counts).replace(" and ", " or ") if counts else macros.NA
            )
            out.update(buffer_numbers(name, phases))
    out["MultiflowSteadyPercent"] = macros.integer(STEADY_SD_FRACTION * 100)
    return out


def paper_numbers(inputs: macros.PaperInputs) -> dict[str, str]:
    """Every number of the study's section (its rules file's ``paper_params``: per scenario
    its first point's settings, its points and its variants)."""
    return numbers(inputs.params["scenarios"], inputs.table)
