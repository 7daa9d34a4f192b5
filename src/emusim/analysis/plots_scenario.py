"""The figure of a scenario that no study draws (a scenario a user added): every metric that
varies against the scenario's first sweep axis, a line per backend and profile (and per value
of its other axes), mean ± population SD over the repetitions. Styles and save:
emusim.analysis.plotting.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from emusim.analysis.plotting import (
    METRIC_LABELS,
    errorbar,
    figure_style,
    save_figure,
    series_styles,
    wrap,
)

PANEL_COLUMNS = 2


def varying_metrics(stats: pd.DataFrame) -> list[str]:
    """The metrics whose means differ somewhere (a constant, such as the write size, tells
    nothing), in the order the statistics list them."""
    out = []
    for metric, rows in stats.groupby("metric", sort=False):
        means = pd.to_numeric(rows["mean"], errors="coerce").dropna()
        if means.nunique() > 1:
            out.append(str(metric))
    return out


def axis_positions(values: pd.Series) -> tuple[np.ndarray, list[str] | None]:
    """Where each value of the sweep axis sits on x: itself if every value is a number, else
    its place in order of appearance (then the tick labels are the values)."""
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.notna().all():
        return numeric.to_numpy(dtype=float), None
    labels = list(dict.fromkeys(values.astype(str)))
    return np.array([labels.index(v) for v in values.astype(str)], dtype=float), labels


def fig_scenario(
    stats: pd.DataFrame,
    stem: str | Path,
    scenario: str,
    axes: Sequence[str],
    profile_order: Sequence[str] | None = None,
) -> list[Path]:
    """A panel per varying metric of the scenario's statistics against ``axes[0]``; the other
    axes' values split the lines. Without a sweep, the x axis is the single point."""
    stats = stats.copy()
    x_axis = axes[0] if axes else "point"
    others = [a for a in axes[1:] if a in stats]
    stats["x_values"], labels = axis_positions(stats[x_axis])
    stats["low"] = stats["mean"] - stats["sd_pop"].fillna(0.0)
    stats["high"] = stats["mean"] + stats["sd_pop"].fillna(0.0)
    metrics = varying_metrics(stats) or list(dict.fromkeys(stats["metric"]))[:1]
    styles = series_styles(stats[["backend", "profile"]].itertuples(index=False), profile_order)
    ncols = min(PANEL_COLUMNS, len(metrics))
    nrows = math.ceil(len(metrics) / ncols)
    with figure_style():
        fig = Figure(figsize=(4.2 * ncols + 0.6, 3.0 * nrows + 0.8), layout="constrained")
        panels = fig.subplots(nrows, ncols, squeeze=False).ravel()
        for ax, metric in zip(panels, metrics, strict=False):
            rows = stats[stats["metric"] == metric]
            keys = ["backend", "profile", *others]
            for key, series in rows.groupby(keys, sort=False):
                backend, profile, *rest = key
                style = dict(styles[(backend, profile)])
                if rest:
                    style["label"] += ", " + ", ".join(
                        f"{a}={v}" for a, v in zip(others, rest, strict=True)
                    )
                errorbar(ax, series.sort_values("x_values"), style)
            ax.set_xlabel(x_axis)
            ax.set_ylabel(wrap(METRIC_LABELS.get(metric, metric), 30))
            if labels is not None:
                ax.set_xticks(range(len(labels)), labels)
        for ax in panels[len(metrics) :]:
            ax.set_visible(False)
        handles, names = panels[0].get_legend_handles_labels()
        fig.legend(handles, names, loc="outside lower center", ncols=min(3, len(names) or 1))
        fig.suptitle(f"{scenario}: every metric against {x_axis} (mean ± SD)")
        return save_figure(fig, stem)
