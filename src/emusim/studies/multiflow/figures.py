"""Figures of the multi-flow dynamics study (issue 9, docs/multiflow.md), from the runs' series.

One column per TCP variant, time on the x axis, the phases' boundaries marked. Four kinds:
`throughput` (each flow's goodput), `queue` (the bottleneck queue, its per-sample range, and
n x alpha for FAST), `throughput_queue` (both, for many flows) and `buffer` (queue against the
stepping buffer, and aggregate throughput, one row pair per number of flows).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

from emusim.analysis.collect import read_runs
from emusim.analysis.plotting import figure_style, save_figure
from emusim.studies.multiflow.phases import queue_target_pkts, smooth
from emusim.workloads import multiflow as mf

KINDS = ("throughput", "queue", "throughput_queue", "buffer")


def _phase_marks(ax: Axes, settings: dict[str, Any], label: bool = False) -> None:
    """Dotted lines at the phase boundaries; phase numbers on top if `label`."""
    workload = settings["workload"]
    phase_s = float(workload["phase_s"])
    for k in range(1, int(workload["phases"])):
        ax.axvline(k * phase_s, color="0.6", lw=0.6, ls=":")
    if label:
        for k in range(int(workload["phases"])):
            ax.text(
                (k + 0.5) * phase_s, 1.0, str(k + 1), transform=ax.get_xaxis_transform(),
                ha="center", va="bottom", fontsize=7, color="0.4",
            )  # fmt: skip


def _flows_lines(ax: Axes, run: dict[str, Any], settings: dict[str, Any], legend: bool) -> None:
    series = run["series"]
    t = np.asarray(series["t_s"])
    specs = mf.flows(settings["workload"])
    cmap = plt.get_cmap("viridis", max(len(specs), 2))
    many = len(specs) > 5
    for i, (flow, rates) in enumerate(zip(specs, series["flow_Mbps"], strict=True)):
        ax.plot(
            t, smooth(rates, settings), lw=0.6 if many else 0.9, color=cmap(i),
            label=f"{flow.rtt_ms:g} ms" if not many else None,
        )  # fmt: skip
    if many:
        total = smooth(np.sum(series["flow_Mbps"], axis=0), settings)
        ax.plot(t, total, color="black", lw=0.9, label="sum")
    ax.set_ylim(bottom=0)
    if legend:
        ax.legend(
            fontsize=6, title="RTT" if not many else None, title_fontsize=6, loc="upper right"
        )


def _queue_lines(
    ax: Axes, run: dict[str, Any], settings: dict[str, Any], alpha_pkts: float | None
) -> None:
    series = run["series"]
    t = np.asarray(series["t_s"])
    ax.fill_between(
        t, series["queue_min_pkts"], series["queue_max_pkts"], color="tab:blue", alpha=0.25,
        lw=0, label="min-max per sample",
    )  # fmt: skip
    ax.plot(t, series["queue_mean_pkts"], color="tab:blue", lw=0.8, label="mean")
    ax.plot(t, series["buffer_pkts"], color="tab:red", lw=0.8, ls="--", label="buffer")
    if alpha_pkts:
        # FAST's equilibrium: alpha packets per active flow
        specs = mf.flows(settings["workload"])
        phase_s = float(settings["workload"]["phase_s"])
        active = np.array(
            [sum(f.start_phase * phase_s < x <= f.stop_phase * phase_s for f in specs) for x in t]
        )
        ax.plot(t, alpha_pkts * active, color="black", lw=0.7, ls="-.", label="n x alpha")
    ax.set_ylim(bottom=0)


def _columns(runs: Sequence[dict[str, Any]], variants: Sequence[str]) -> list[str]:
    present = {r["params"].get("variant") for r in runs}
    return [v for v in variants if v in present]


def figure(
    kind: str,
    runs: Sequence[dict[str, Any]],
    scenario,
    variants: Sequence[str],
    alpha_pkts: dict[str, float],
    stem: str | Path,
) -> list[Path]:
    """Draw one of the study's figures (`kind` in KINDS) from the scenario's runs.

    `variants` orders the columns; `alpha_pkts` gives, per variant with one (FAST), the packets
    each flow keeps queued at equilibrium, drawn as n x alpha on queue panels.
    """
    if kind not in KINDS:
        raise ValueError(f"no multiflow figure kind {kind!r}; known: {', '.join(KINDS)}")
    cols = _columns(runs, variants)
    if not cols:
        raise ValueError(f"{scenario.name}: no runs to draw")
    by = {(r["params"].get("variant"), r["params"].get("n_flows")): r for r in runs}
    if kind == "buffer":
        counts = sorted({r["params"]["n_flows"] for r in runs})
        rows = [(n, panel) for n in counts for panel in ("queue", "aggregate")]
    else:
        counts = [None]
        rows = {
            "throughput": [(None, "flows")],
            "queue": [(None, "queue")],
            "throughput_queue": [(None, "flows"), (None, "queue")],
        }[kind]
    with figure_style():
        fig, axes = plt.subplots(
            len(rows), len(cols), figsize=(2.6 * len(cols) + 0.6, 1.9 * len(rows) + 0.5),
            sharex=True, sharey="row", squeeze=False,
        )  # fmt: skip
        for j, variant in enumerate(cols):
            for i, (n, panel) in enumerate(rows):
                ax = axes[i][j]
                run = by.get((variant, n))
                if run is None:
                    ax.text(0.5, 0.5, "not run", ha="center", transform=ax.transAxes)
                    continue
                settings = scenario.point(run["point"]).settings
                if panel == "flows":
                    _flows_lines(ax, run, settings, legend=j == len(cols) - 1)
                elif panel == "queue":
                    _queue_lines(ax, run, settings, alpha_pkts.get(variant))
                else:
                    total = np.sum(run["series"]["flow_Mbps"], axis=0)
                    ax.plot(run["series"]["t_s"], smooth(total, settings), color="black", lw=0.8)
                    ax.set_ylim(bottom=0)
                _phase_marks(ax, settings, label=i == 0)
                if i == 0:
                    ax.set_title(variant, pad=12)
                if j == 0:
                    what = {
                        "flows": "goodput (Mb/s)",
                        "queue": "queue (packets)",
                        "aggregate": "aggregate (Mb/s)",
                    }[panel]
                    ax.set_ylabel(what if n is None else f"n = {n}\n{what}")
                if i == len(rows) - 1:
                    ax.set_xlabel("time (s)")
        queue_axes = [axes[i][-1] for i, (_, p) in enumerate(rows) if p == "queue"]
        if queue_axes:
            queue_axes[0].legend(fontsize=6, loc="upper right")
        fig.tight_layout()
        paths = save_figure(fig, stem)
        plt.close(fig)
    return paths


def draw(kind: str, inputs: Mapping, params: Mapping, stem: Path) -> list[Path]:
    """One of the study's figures (workflow/rules/studies/multiflow.smk): ``kind`` is
    throughput, queue, throughput_queue or buffer; the runs are the scenario's ns-3 runs."""
    scenario = params["scenario"]
    runs = read_runs(inputs["runs"])
    variants = list(dict.fromkeys(p.variant for p in scenario.points))
    alpha = {v: a for v in variants if (a := queue_target_pkts(v))}
    return figure(kind, runs, scenario, variants, alpha, stem)
