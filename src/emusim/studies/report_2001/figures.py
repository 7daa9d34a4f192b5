"""The 2001 report's figures, redrawn from the statistics, comparison and per-run tables.

Every ``fig…`` function takes the tables and an output path stem, writes ``{stem}.pdf`` and
``{stem}.png`` and returns their paths (emusim.analysis.plotting: colours, styles, save). Here:
Figure 3.1, the calibration ablation and `draw`, the rule's entry point; the figures against the
drop rate are in `figures_drop_rate`, those of one packet in six dropped in `figures_1in6`
(both re-exported here).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from emusim.analysis import plotting, tcp_events
from emusim.studies.report_2001.figures_1in6 import (
    cycle_stretches,
    fig4_4_heavy_tail,
    fig4_5_pathology,
)
from emusim.studies.report_2001.figures_drop_rate import (
    fig4_1_random_drop,
    fig4_2_regular_drop,
    fig4_3_random_vs_regular,
    fig5_1_exp_vs_sim,
    fig5_2_rel_diff,
)

__all__ = [
    "cycle_stretches",
    "draw",
    "fig3_1_rtt_vs_size",
    "fig4_1_random_drop",
    "fig4_2_regular_drop",
    "fig4_3_random_vs_regular",
    "fig4_4_heavy_tail",
    "fig4_5_pathology",
    "fig5_1_exp_vs_sim",
    "fig5_2_rel_diff",
    "fig_ablation",
]

# --- figures -----------------------------------------------------------------------------------


def fig3_1_rtt_vs_size(
    stats: pd.DataFrame,
    stem: str | Path,
    fits: Mapping[str, tuple[float, float]] | None = None,
    x: str = "request_size_B",
    metric: str = "rtt_us",
    error: str = "sd_pop",
    profile_order: Sequence[str] | None = None,
) -> list[Path]:
    """Figure 3.1: mean RTT (± ``error``: ``sd_pop`` or ``ci95``) vs ICMP request size.

    ``fits`` maps a legend label to (slope µs/B, intercept µs); each is drawn as a line over
    the plotted sizes (the report's line through (256, 248.3) and (1408, 640.9) is one).
    """
    if error not in ("sd_pop", "ci95"):
        raise ValueError(f"error={error!r}; accepted: 'sd_pop', 'ci95'")
    rows = plotting.metric_rows(stats, metric, x)
    if error == "sd_pop":
        rows = rows.assign(low=rows["mean"] - rows["sd_pop"], high=rows["mean"] + rows["sd_pop"])
    else:
        rows = rows.assign(low=rows["ci95_low"], high=rows["ci95_high"])
    styles = plotting.series_styles(
        rows[["backend", "profile"]].itertuples(index=False), profile_order
    )
    with plotting.figure_style():
        fig = Figure(figsize=(6.4, 4.2), layout="constrained")
        ax = fig.add_subplot()
        for key, series in plotting.series_of(rows):
            plotting.errorbar(ax, series, styles[key], linestyle="none", markersize=4.5)
        sizes = np.linspace(0.0, float(rows["x_values"].max()) * 1.03, 2)
        fit_styles = ((0, (4, 2)), (0, (1, 1.5)), (0, (6, 2, 1, 2)), "-.")
        for i, (label, (slope, intercept)) in enumerate((fits or {}).items()):
            ax.plot(
                sizes,
                slope * sizes + intercept,
                color="0.35",
                linewidth=1.0,
                linestyle=fit_styles[i % len(fit_styles)],
                label=f"{label}: RTT = {slope:.4g}·size + {intercept:.4g} µs",
            )
        ax.set_xlim(0, sizes[-1])
        ax.set_xlabel("ICMP request size (bytes)")
        ax.set_ylabel("Round-trip time (µs)")
        bars = "± population SD" if error == "sd_pop" else "95 % CI"
        ax.set_title(f"Figure 3.1: RTT vs ICMP request size (mean {bars})")
        ax.legend(loc="upper left")
        return plotting.save_figure(fig, stem)


def fig_ablation(
    summary: pd.DataFrame, stem: str | Path, metric: str = "throughput_report_Bps"
) -> list[Path]:
    """The calibration ablation: median and max |rel_diff| against the hardware after each step.

    ``summary`` is ablation.summary's table. The x axis lists the parameter each step adds
    (step 0: the base profile); one colour per scenario, solid for the median, dashed for
    the maximum. A log axis: the steps span orders of magnitude.
    """
    rows = summary[summary["metric"] == metric].sort_values("step")
    if rows.empty:
        raise ValueError(f"no {metric!r} rows in the ablation summary")
    steps = rows.drop_duplicates("step")[["step", "parameter"]]
    labels = [
        "ns-3 defaults" if int(k) == 0 else f"+ {p}"
        for k, p in zip(steps["step"], steps["parameter"], strict=True)
    ]
    colors = sns.color_palette("colorblind", n_colors=max(2, rows["scenario"].nunique()))
    with plotting.figure_style():
        fig = Figure(figsize=(7.2, 4.4), layout="constrained")
        ax = fig.add_subplot()
        for color, (scenario, group) in zip(
            colors, rows.groupby("scenario", sort=False), strict=False
        ):
            for column, style, what in (
                ("median_abs_rel_diff", "-", "median"),
                ("max_abs_rel_diff", "--", "max"),
            ):
                ax.plot(
                    group["step"],
                    group[column].clip(lower=1e-4),
                    linestyle=style,
                    marker="o",
                    color=color,
                    label=f"{scenario}, {what}",
                )
        ax.set_yscale("log")
        ax.set_xticks(steps["step"].to_numpy(), labels, rotation=55, ha="right")
        ax.set_ylabel("|rel_diff| of throughput against the hardware")
        ax.axhline(0.05, color="0.5", linewidth=0.8, linestyle=":")
        ax.set_title("Calibration ablation: ns-3 defaults → linux-2.2, one parameter at a time")
        ax.legend(loc="best")
        return plotting.save_figure(fig, stem)


# --- the rule's entry point ---------------------------------------------------------------------


def draw(kind: str, inputs: Mapping, params: Mapping, stem: Path) -> list[Path]:
    """One of the study's figures (workflow/rules/studies/report_2001.smk names its inputs):
    ``kind`` is its stem, the report's numbering."""

    def stats(scenario: str) -> pd.DataFrame:
        return pd.read_csv(inputs[f"stats_{scenario}"])

    if kind == "fig3_1_rtt_vs_size":
        fits = json.loads(Path(inputs["delay"]).read_text())["fits"]
        lines = {
            "hardware two-point line (report)": (fits["two_point"]["a"], fits["two_point"]["b"]),
            "hardware least squares": (
                fits["least_squares"]["slope"],
                fits["least_squares"]["intercept"],
            ),
        }
        return fig3_1_rtt_vs_size(stats("ping-sweep"), stem, fits=lines)
    if kind == "fig4_1_random_drop":
        analytic = pd.read_csv(inputs["analytic"])
        return fig4_1_random_drop(stats("random-drop"), stem, analytic=analytic)
    if kind == "fig4_2_regular_drop":
        analytic = pd.read_csv(inputs["analytic"])
        return fig4_2_regular_drop(stats("regular-drop"), stem, analytic=analytic)
    if kind == "fig4_3_random_vs_regular":
        return fig4_3_random_vs_regular(stats("random-drop"), stats("regular-drop"), stem)
    if kind == "fig4_4_heavy_tail":
        runs = pd.concat([pd.read_csv(p) for p in inputs["runs"]], ignore_index=True)
        return fig4_4_heavy_tail(runs, stem, dropper_col="mode")
    if kind == "fig5_1_exp_vs_sim":
        return fig5_1_exp_vs_sim(stats("random-drop"), stem)
    if kind == "fig5_2_rel_diff":
        return fig5_2_rel_diff(pd.read_csv(inputs["compare"]), stem)
    if kind == "fig4_5_pathology":
        every_n = params["every_n"]
        traces = {Path(p).parts[-3]: tcp_events.read(p) for p in inputs["traces"]}
        slots = {k: tcp_events.dropper_slots(t, every_n) for k, t in traces.items()}
        return fig4_5_pathology(traces, slots, stem, every_n=every_n)
    if kind == "fig_ablation":
        return fig_ablation(pd.read_csv(inputs["summary"]), stem)
    raise ValueError(f"the 2001 report's study has no figure {kind!r}")
