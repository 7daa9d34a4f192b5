"""The 2001 report's figures of throughput against the drop rate: Figures 4.1 and 4.2 (with
the Mathis and PFTK models), 4.3 (random against regular dropping), 5.1 (experiment against
simulation) and 5.2 (their relative difference).

Each ``fig…`` function takes the tables and an output path stem, writes ``{stem}.pdf`` and
``{stem}.png`` and returns their paths (emusim.analysis.plotting: colours, styles, save);
``figures.draw`` calls them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from emusim.analysis.plotting import (
    DROP_RATE_LABEL,
    METRIC_LABELS,
    THROUGHPUT_LABEL,
    errorbar,
    figure_style,
    metric_rows,
    save_figure,
    series_of,
    series_styles,
    throughput_band,
    x_values,
)


def _throughput_vs_rate(
    stats: pd.DataFrame,
    stem: str | Path,
    x: str = "drop_rate",
    metric: str = "throughput_report_Bps",
    profile_order: Sequence[str] | None = None,
    analytic: pd.DataFrame | None = None,
    *,
    title: str,
    x_label: str,
) -> list[Path]:
    """Throughput (report accounting) against a drop rate, per backend and profile, with the
    analytic models (``analytic``: rows of analytic.curve_rows) if given: Figures 4.1 and 4.2.

    Error bars span the throughput at mean elapsed time ± its population SD.
    """
    rows = throughput_band(stats, x, metric)
    styles = series_styles(rows[["backend", "profile"]].itertuples(index=False), profile_order)
    with figure_style():
        fig = Figure(figsize=(6.4, 4.2), layout="constrained")
        ax = fig.add_subplot()
        for key, series in series_of(rows):
            errorbar(ax, series, styles[key], scale=1e6)
        if analytic is not None:
            _analytic_curves(ax, analytic, x_max=float(rows["x_values"].max()))
        ax.set_xlabel(x_label)
        ax.set_ylabel(THROUGHPUT_LABEL)
        ax.set_ylim(bottom=0)
        ax.set_xlim(left=0)
        ax.set_title(title)
        ax.legend(loc="upper right", title="error bars: elapsed ± population SD")
        return save_figure(fig, stem)


ANALYTIC_STYLES = {"Mathis": {"linestyle": ":", "color": "0.15"}, "PFTK": {"linestyle": "--"}}


def _analytic_curves(ax: Axes, curves: pd.DataFrame, x_max: float) -> None:
    """The models' throughput against the loss event rate p (the study's `analytic`), as thin
    lines; PFTK in grey shades per profile, Mathis dotted. The y range stays the data's."""
    ylim = ax.get_ylim()
    shades = ["0.35", "0.6", "0.75"]
    for i, ((model, profile), rows) in enumerate(
        curves[curves["p"] <= x_max * 1.02].groupby(["model", "profile"], sort=False)
    ):
        style = {"color": shades[i % len(shades)], **ANALYTIC_STYLES.get(model, {})}
        ax.plot(
            rows["p"],
            rows["throughput_report_Bps"] / 1e6,
            linewidth=1.0,
            label=f"{model} model, {profile}",
            **style,
        )
    ax.set_ylim(ylim)


fig4_1_random_drop = partial(
    _throughput_vs_rate,
    title="Figure 4.1: throughput under random dropping",
    x_label=DROP_RATE_LABEL,
)
"""Figure 4.1: throughput vs random drop rate (`_throughput_vs_rate`)."""

fig4_2_regular_drop = partial(
    _throughput_vs_rate,
    title="Figure 4.2: throughput under regular dropping",
    x_label="Nominal drop rate, 1/cutoff (one packet in cutoff dropped)",
)
"""Figure 4.2: throughput vs the nominal drop rate (1 / cutoff) of regular dropping; the models
are drawn at p = 1/N against the same axis (`_throughput_vs_rate`)."""


def fig4_3_random_vs_regular(
    random_stats: pd.DataFrame,
    regular_stats: pd.DataFrame,
    stem: str | Path,
    x: str = "drop_rate",
    metric: str = "throughput_report_Bps",
    reference_backend: str = "hardware",
    profile_order: Sequence[str] | None = None,
) -> list[Path]:
    """Figure 4.3: random and regular dropping on one plot.

    The reference backend is drawn solid, the others dashed; random dropping with filled
    markers, regular dropping with open ones.
    """
    frames = {
        "random": metric_rows(random_stats, metric, x),
        "regular": metric_rows(regular_stats, metric, x),
    }
    pairs = [
        key
        for rows in frames.values()
        for key in rows[["backend", "profile"]].itertuples(index=False)
    ]
    styles = series_styles(pairs, profile_order)
    with figure_style():
        fig = Figure(figsize=(6.4, 4.2), layout="constrained")
        ax = fig.add_subplot()
        for dropper, rows in frames.items():
            for key, series in series_of(rows):
                style = dict(styles[key])
                style["linestyle"] = "-" if key[0] == reference_backend else "--"
                style["label"] = f"{style['label']}: {dropper}"
                face = style["color"] if dropper == "random" else "white"
                ax.plot(
                    series["x_values"],
                    series["mean"] / 1e6,
                    markerfacecolor=face,
                    markeredgewidth=1.0,
                    linewidth=1.6 if key[0] == reference_backend else 1.1,
                    **style,
                )
        ax.set_xlabel("Drop rate (regular dropping: nominal, 1/cutoff)")
        ax.set_ylabel(THROUGHPUT_LABEL)
        ax.set_ylim(bottom=0)
        ax.set_xlim(left=0)
        ax.set_title("Figure 4.3: random vs regular dropping")
        ax.legend(loc="center right")
        return save_figure(fig, stem)


def fig5_1_exp_vs_sim(
    stats: pd.DataFrame,
    stem: str | Path,
    x: str = "drop_rate",
    metric: str = "throughput_report_Bps",
    reference_backend: str = "hardware",
    profile_order: Sequence[str] | None = None,
) -> list[Path]:
    """Figure 5.1: throughput vs drop rate, the reference beside each other backend.

    One panel per non-reference backend (its profiles together), the reference in each; the
    panels share their axes. Error bars as in `fig4_1_random_drop`.
    """
    rows = throughput_band(stats, x, metric)
    styles = series_styles(rows[["backend", "profile"]].itertuples(index=False), profile_order)
    ref = rows[rows["backend"] == reference_backend]
    others = [b for b in pd.unique(rows["backend"]) if b != reference_backend] or [None]
    with figure_style():
        fig = Figure(figsize=(4.2 * len(others) + 1.0, 4.2), layout="constrained")
        axes = fig.subplots(1, len(others), sharex=True, sharey=True, squeeze=False)[0]
        for ax, backend in zip(axes, others, strict=True):
            for key, series in series_of(ref):
                errorbar(ax, series, styles[key], scale=1e6)
            if backend is not None:
                for key, series in series_of(rows[rows["backend"] == backend]):
                    errorbar(ax, series, styles[key], scale=1e6)
            ax.set_title(f"{reference_backend} vs {backend}" if backend else reference_backend)
            ax.set_xlabel(DROP_RATE_LABEL)
            ax.legend(loc="upper right")
        axes[0].set_ylabel(THROUGHPUT_LABEL)
        axes[0].set_ylim(bottom=0)
        axes[0].set_xlim(left=0)
        fig.suptitle("Figure 5.1: experiment vs simulation,\nrandom dropping")
        return save_figure(fig, stem)


def fig5_2_rel_diff(
    comparison: pd.DataFrame,
    stem: str | Path,
    x: str = "drop_rate",
    metric: str = "throughput_report_Bps",
    profile_order: Sequence[str] | None = None,
) -> list[Path]:
    """Figure 5.2: (exp − sim) / exp in percent vs drop rate, per backend and profile."""
    rows = comparison[comparison["metric"] == metric]
    if rows.empty:
        raise ValueError(
            f"metric {metric!r} is not in the comparison table; it has "
            f"{sorted(set(comparison['metric']))}"
        )
    rows = rows.assign(x_values=x_values(rows, x)).sort_values("x_values", kind="stable")
    styles = series_styles(rows[["backend", "profile"]].itertuples(index=False), profile_order)
    with figure_style():
        fig = Figure(figsize=(6.4, 4.2), layout="constrained")
        ax = fig.add_subplot()
        ax.axhline(0.0, color="0.3", linewidth=0.8)
        for key, series in series_of(rows):
            ax.plot(series["x_values"], 100.0 * series["rel_diff"], **styles[key])
        ax.set_xlabel(DROP_RATE_LABEL)
        ax.set_ylabel(f"(exp − sim) / exp, {METRIC_LABELS.get(metric, metric)}")
        ax.yaxis.set_major_formatter(PercentFormatter(decimals=0))
        ax.set_xlim(left=0)
        ax.set_title("Figure 5.2: relative difference from the experiment")
        ax.legend(loc="best")
        return save_figure(fig, stem)
