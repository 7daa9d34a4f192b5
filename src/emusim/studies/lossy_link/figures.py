"""The lossy-link family's figures (issue 8): goodput per TCP variant against loss and delay,
and ns-3 against Mininet per cell. Styles and save: emusim.analysis.plotting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from emusim.analysis import tcp_events
from emusim.analysis.compare import axis_values
from emusim.analysis.plotting import (
    PROFILE_LINESTYLES,
    PROFILE_MARKERS,
    backend_color,
    figure_style,
    metric_rows,
    save_figure,
    wrap,
    x_values,
)
from emusim.core.constants import TCP_WRITE_SIZE_B

# --- the lossy-link family (issue 8) ------------------------------------------------------------

GOODPUT_LABEL = "Goodput (10⁶ B/s, payload delivered / completion time)"
LOSS_LABEL = "Random loss per direction on the impaired link"


def variant_styles(variants: Sequence[str]) -> dict[str, dict[str, object]]:
    """Colour, marker and line style per TCP variant, by its place in ``variants`` (the
    registry's order), so a variant looks the same in every panel and figure."""
    palette = sns.color_palette("tab20", n_colors=20)
    return {
        name: {
            "color": palette[(2 * i) % 20 if i < 10 else (2 * i + 1) % 20],
            "marker": PROFILE_MARKERS[i % len(PROFILE_MARKERS)],
            "linestyle": PROFILE_LINESTYLES[(i // len(PROFILE_MARKERS)) % 3],
            "label": name,
        }
        for i, name in enumerate(variants)
    }


def _partial_cells(compare: pd.DataFrame | None, backend: str) -> set[str]:
    """Points whose runs on `backend` hit the cap or were aborted (their goodput is a lower
    bound or missing), from the ns-3-against-Mininet table's status."""
    if compare is None or compare.empty:
        return set()
    status = compare["status"].fillna("").astype(str)
    hit = status.str.contains(f"{backend}: (?:timeout|aborted)", regex=True)
    return set(compare.loc[hit, "point"])


def fig_lossy_goodput(
    stats: pd.DataFrame,
    stem: str | Path,
    variants: Sequence[str],
    compare: pd.DataFrame | None = None,
    backends: Sequence[str] = ("ns3", "mininet"),
    metric: str = "goodput_Bps",
) -> list[Path]:
    """Goodput against loss: a panel per one-way delay (columns) and backend (rows), a line
    per TCP variant. Log scale: goodput falls by orders of magnitude with loss. A hollow
    marker is a point where some run hit the cap (its goodput a lower bound)."""
    rows = metric_rows(stats, metric, "loss")
    rows = rows.assign(
        delay_ms=x_values(rows, "delay_ms"), variant=axis_values(rows["point"], "variant")
    )
    shown = [b for b in backends if b in set(rows["backend"])]
    if not shown:
        raise ValueError(f"no {metric} rows of backends {list(backends)} in the statistics")
    delays = sorted(rows["delay_ms"].dropna().unique())
    styles = variant_styles(list(variants) + sorted(set(rows["variant"]) - set(variants)))
    with figure_style():
        width = max(6.4, 2.6 * len(delays) + 1.8)
        fig = Figure(figsize=(width, 2.5 * len(shown) + 0.9), layout="constrained")
        axes = fig.subplots(len(shown), len(delays), sharex=True, sharey=True, squeeze=False)
        for r, backend in enumerate(shown):
            partial = _partial_cells(compare, backend)
            for c, delay in enumerate(delays):
                ax = axes[r][c]
                mine = rows[(rows["backend"] == backend) & (rows["delay_ms"] == delay)]
                for variant, series in mine.groupby("variant", sort=False):
                    style = {k: v for k, v in styles[variant].items() if k != "label"}
                    ax.plot(series["x_values"], series["mean"] / 1e6, label=variant, **style)
                    cut = series[series["point"].isin(partial)]
                    ax.plot(cut["x_values"], cut["mean"] / 1e6, linestyle="none", marker="o",
                            markersize=7, mfc="none", color="0.2")  # fmt: skip
                ax.set_yscale("log")
                ax.set_title(f"{backend}, {delay:g} ms each way")
                if r == len(shown) - 1:
                    ax.set_xlabel(LOSS_LABEL)
            axes[r][0].set_ylabel(GOODPUT_LABEL if r == 0 else "Goodput (10⁶ B/s)")
        handles = {}
        for ax in axes.flat:
            for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
                handles.setdefault(label, h)
        order = [v for v in styles if v in handles]
        fig.legend([handles[v] for v in order], order, loc="outside right upper", title="variant")
        fig.suptitle("Goodput per TCP variant (○: a run hit the cap)")
        return save_figure(fig, stem)


def fig_lossy_ns3_vs_mininet(
    compare: pd.DataFrame,
    stem: str | Path,
    variants: Sequence[str],
    metric: str = "goodput_Bps",
    reference: str = "mininet",
    other: str = "ns3",
) -> list[Path]:
    """ns-3 against Mininet per TCP variant: one panel each, every (delay, loss) cell a point
    at (ns-3's goodput, Mininet's), the diagonal where they agree; colour says the loss, the
    marker the delay. A variant one backend lacks says so in its panel."""
    rows = compare[compare["metric"] == metric].copy()
    rows["variant"] = axis_values(rows["point"], "variant")
    names = [v for v in variants if v in set(rows["variant"])]
    names += sorted(set(rows["variant"]) - set(names))
    losses = sorted(x_values(rows, "loss").dropna().unique())
    delays = sorted(x_values(rows, "delay_ms").dropna().unique())
    colors = dict(zip(losses, sns.color_palette("viridis", n_colors=len(losses)), strict=True))
    markers = dict(zip(delays, PROFILE_MARKERS, strict=False))
    finite = rows[[reference, other]].to_numpy(dtype=float)
    finite = finite[np.isfinite(finite) & (finite > 0)] / 1e6
    lo, hi = (finite.min() / 1.5, finite.max() * 1.5) if finite.size else (0.01, 100)
    ncols = min(6, max(1, len(names)))
    nrows = -(-len(names) // ncols)
    with figure_style():
        fig = Figure(figsize=(2.1 * ncols + 1.6, 2.1 * nrows + 0.6), layout="constrained")
        axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
        for ax, variant in zip(axes.flat, names, strict=False):
            mine = rows[rows["variant"] == variant]
            ax.plot([lo, hi], [lo, hi], color="0.6", linewidth=0.8)
            both = mine[np.isfinite(mine[reference]) & np.isfinite(mine[other])]
            for cell in both.itertuples():
                ax.plot(getattr(cell, other) / 1e6, getattr(cell, reference) / 1e6,
                        linestyle="none", marker=markers[float(cell.delay_ms)],
                        color=colors[float(cell.loss)])  # fmt: skip
            if both.empty:
                why = mine["status"].iloc[0] if len(mine) else "no cells"
                ax.text(0.5, 0.5, wrap(why, 28), transform=ax.transAxes, ha="center",
                        va="center", fontsize=6.5, color="0.3")  # fmt: skip
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
            ax.set_title(variant)
        for ax in list(axes.flat)[len(names) :]:
            ax.set_visible(False)
        for ax in axes[-1]:
            ax.set_xlabel(f"{other} goodput (10⁶ B/s)")
        for ax in axes[:, 0]:
            ax.set_ylabel(f"{reference} goodput (10⁶ B/s)")
        handles = [
            Line2D([], [], color=colors[v], marker="o", linestyle="none") for v in losses
        ] + [Line2D([], [], color="0.3", marker=markers[d], linestyle="none") for d in delays]
        labels = [f"loss {v:g}" for v in losses] + [f"delay {d:g} ms" for d in delays]
        fig.legend(handles, labels, loc="outside right upper")
        fig.suptitle(f"{other} against {reference} per TCP variant (diagonal: equal goodput)")
        return save_figure(fig, stem)


TRACE_BACKENDS = {"ns3": "ns-3", "mininet": "emulation (Linux 6.1)"}


def fig_lossy_traces(traces: Mapping[str, pd.DataFrame], stem: Path, point: str) -> list[Path]:
    """One cell traced in both backends (emusim.analysis.tcp_events's CSV), overlaid: every data
    segment sent against time, retransmissions marked, and the timeouts (top); the congestion window
    in segments (bottom)."""
    with figure_style():
        fig = Figure(figsize=(7.2, 6.0), layout="constrained")
        top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))
        for backend, trace in traces.items():
            color = backend_color(backend)
            label = TRACE_BACKENDS.get(backend, backend)
            tx = trace[trace["event"] == "tx"]
            first = tx[tx["value"] == 0]
            again = tx[tx["value"] == 1]
            top.plot(first["t_s"], first["segment"], ",", color=color, label=f"{label}: sent")
            top.plot(
                again["t_s"], again["segment"], "x", ms=3, color=color, alpha=0.8,
                label=f"{label}: retransmitted ({len(again)})",
            )  # fmt: skip
            timeouts = tcp_events.timeouts(trace)
            for t in timeouts["t_s"]:
                top.axvline(t, color=color, lw=0.4, alpha=0.35)
            cwnd = trace[trace["event"] == "cwnd"]  # bytes; every profile's MSS is 1448 B
            bottom.step(
                cwnd["t_s"], cwnd["value"] / TCP_WRITE_SIZE_B, where="post", color=color, lw=0.8,
                label=f"{label}: {len(timeouts)} timeouts",
            )  # fmt: skip
        top.set_ylabel("Data segment sent")
        top.legend(loc="upper left", fontsize="small", markerscale=3)
        top.set_title(wrap(f"lossy-link {point}: both backends traced", 90), fontsize="medium")
        bottom.set_ylabel("cwnd (segments)")
        bottom.set_xlabel("Time since the SYN (s; the emulation's in dilated guest time)")
        bottom.legend(loc="upper right", fontsize="small")
        return save_figure(fig, stem)


def draw(kind: str, inputs: Mapping, params: Mapping, stem: Path) -> list[Path]:
    """One of the study's figures (workflow/rules/studies/lossy_link.smk): ``goodput`` (a panel
    per delay, a line per variant, a row per backend), ``ns3_vs_mininet``, or ``traces`` (one
    cell traced in both backends); ``params`` names the scenario and the variants in the
    registry's order, or the traced point."""
    if kind == "traces":
        traces = {b: tcp_events.read(inputs[b]) for b in TRACE_BACKENDS if b in inputs}
        return fig_lossy_traces(traces, stem, params["point"])
    variants = params["variants"]
    compare = pd.read_csv(inputs["compare"])
    if kind == "goodput":
        stats = pd.read_csv(inputs[f"stats_{params['scenario']}"])
        return fig_lossy_goodput(stats, stem, variants, compare)
    if kind == "ns3_vs_mininet":
        return fig_lossy_ns3_vs_mininet(compare, stem, variants)
    raise ValueError(f"the lossy-link study has no figure kind {kind!r}")
