"""The 2001 report's figures, redrawn from the statistics, comparison and per-run tables.

Every ``fig…`` function takes the tables and an output path stem, writes ``{stem}.pdf`` and
``{stem}.png`` and returns their paths (emusim.plotting: colours, styles, save).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from emusim import tcptrace
from emusim.plotting import (
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
    tint,
    x_values,
)
from emusim.stats import STALL_FACTOR, stalled_runs

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
    rows = metric_rows(stats, metric, x)
    if error == "sd_pop":
        rows = rows.assign(low=rows["mean"] - rows["sd_pop"], high=rows["mean"] + rows["sd_pop"])
    else:
        rows = rows.assign(low=rows["ci95_low"], high=rows["ci95_high"])
    styles = series_styles(rows[["backend", "profile"]].itertuples(index=False), profile_order)
    with figure_style():
        fig = Figure(figsize=(6.4, 4.2), layout="constrained")
        ax = fig.add_subplot()
        for key, series in series_of(rows):
            errorbar(ax, series, styles[key], linestyle="none", markersize=4.5)
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
        return save_figure(fig, stem)


def _throughput_vs_rate(
    stats: pd.DataFrame,
    stem: str | Path,
    title: str,
    x: str,
    x_label: str,
    metric: str,
    profile_order: Sequence[str] | None,
    analytic: pd.DataFrame | None = None,
) -> list[Path]:
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


def fig4_1_random_drop(
    stats: pd.DataFrame,
    stem: str | Path,
    x: str = "drop_rate",
    metric: str = "throughput_report_Bps",
    profile_order: Sequence[str] | None = None,
    analytic: pd.DataFrame | None = None,
) -> list[Path]:
    """Figure 4.1: throughput (report accounting) vs random drop rate, per backend and profile,
    with the analytic models (``analytic``: rows of analytic.curve_rows) if given.

    Error bars span the throughput at mean elapsed time ± its population SD.
    """
    return _throughput_vs_rate(
        stats,
        stem,
        "Figure 4.1: throughput under random dropping",
        x,
        DROP_RATE_LABEL,
        metric,
        profile_order,
        analytic,
    )


def fig4_2_regular_drop(
    stats: pd.DataFrame,
    stem: str | Path,
    x: str = "drop_rate",
    metric: str = "throughput_report_Bps",
    profile_order: Sequence[str] | None = None,
    analytic: pd.DataFrame | None = None,
) -> list[Path]:
    """Figure 4.2: throughput vs the nominal drop rate (1 / cutoff) of regular dropping; the
    models are drawn at p = 1/N against the same axis."""
    return _throughput_vs_rate(
        stats,
        stem,
        "Figure 4.2: throughput under regular dropping",
        x,
        "Nominal drop rate, 1/cutoff (one packet in cutoff dropped)",
        metric,
        profile_order,
        analytic,
    )


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


def _count_label(value: object) -> str:
    """An iteration count for a tick: 10000 → 10k."""
    number = float(value)
    if number >= 1000 and number % 1000 == 0:
        return f"{number / 1000:g}k"
    return f"{number:g}"


def fig4_4_heavy_tail(
    runs: pd.DataFrame,
    stem: str | Path,
    x: str = "iterations",
    dropper_col: str = "dropper",
    metric: str = "elapsed_s",
    stall_factor: float = STALL_FACTOR,
    profile_order: Sequence[str] | None = None,
) -> list[Path]:
    """Table 4.4 as a figure: per-run elapsed time per iteration count, log scale.

    One column of panels per (backend, profile). Top: every run (a swarm, so no random
    jitter), dodged by dropper (regular, random). Bottom: the fraction of runs "stalled",
    slower than ``stall_factor`` × the fastest run of the same dropper and iteration count
    (`emusim.stats.stalled_runs`), labelled stalled/runs.
    """
    for col in (x, dropper_col, metric, "backend", "profile"):
        if col not in runs.columns:
            raise ValueError(f"per-run table lacks column {col!r}; columns: {list(runs.columns)}")
    runs = runs[runs[metric].notna()]
    pairs = list(dict.fromkeys(runs[["backend", "profile"]].itertuples(index=False, name=None)))
    styles = series_styles(pairs, profile_order)
    x_order = sorted(pd.unique(runs[x]))
    droppers = [d for d in ("regular", "random") if d in set(runs[dropper_col])]
    droppers += sorted(set(runs[dropper_col]) - set(droppers))
    stalls = stalled_runs(runs, ["backend", "profile", x, dropper_col], metric, stall_factor)
    with figure_style():
        fig = Figure(figsize=(max(5.6, 3.6 * len(pairs) + 0.8), 5.4), layout="constrained")
        axes = fig.subplots(
            2,
            len(pairs),
            sharex=True,
            sharey="row",
            squeeze=False,
            gridspec_kw={"height_ratios": [3, 1.3]},
        )
        for col, key in enumerate(pairs):
            color = styles[key]["color"]
            palette = {d: tint(color, 0.55 * i) for i, d in enumerate(droppers)}
            top, bottom = axes[0, col], axes[1, col]
            mine = runs[(runs["backend"] == key[0]) & (runs["profile"] == key[1])]
            top.set_yscale("log")
            sns.swarmplot(
                data=mine,
                x=x,
                y=metric,
                hue=dropper_col,
                order=x_order,
                hue_order=droppers,
                dodge=True,
                palette=palette,
                size=3.4,
                edgecolor="0.2",
                linewidth=0.4,
                marker=styles[key]["marker"],
                ax=top,
                legend=True,
                warn_thresh=1.0,
            )
            top.set_title(styles[key]["label"])
            top.legend(title="dropper", loc="upper left")
            top.set_xlabel("")
            top.set_ylabel("Elapsed time (s, log scale)" if col == 0 else "")
            mine_stalls = stalls[(stalls["backend"] == key[0]) & (stalls["profile"] == key[1])]
            sns.barplot(
                data=mine_stalls,
                x=x,
                y="stalled_fraction",
                hue=dropper_col,
                order=x_order,
                hue_order=droppers,
                palette=palette,
                saturation=1.0,
                edgecolor="0.2",
                linewidth=0.5,
                ax=bottom,
                legend=False,
            )
            _label_stall_bars(bottom, mine_stalls, x, dropper_col, x_order, droppers)
            bottom.set_ylim(0, 1.18)
            bottom.set_yticks([0, 0.5, 1])
            bottom.yaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=0))
            bottom.set_xticks(range(len(x_order)), labels=[_count_label(v) for v in x_order])
            bottom.set_xlabel("Iterations (writes per run)")
            bottom.set_ylabel(f"Runs > {stall_factor:g}× fastest" if col == 0 else "")
        fig.suptitle("Table 4.4: elapsed time per run with 1 packet in 6 dropped")
        return save_figure(fig, stem)


def _label_stall_bars(
    ax: Axes,
    stalls: pd.DataFrame,
    x: str,
    dropper_col: str,
    x_order: Sequence[object],
    droppers: Sequence[str],
) -> None:
    """Write stalled/runs above each bar (bars of a dodged barplot sit at i ± width)."""
    width = 0.8 / len(droppers)
    for _, row in stalls.iterrows():
        i = x_order.index(row[x])
        j = droppers.index(row[dropper_col])
        pos = i - 0.4 + width * (j + 0.5)
        ax.text(
            pos,
            row["stalled_fraction"] + 0.03,
            f"{row['stalled']}/{row['n']}",
            ha="center",
            va="bottom",
            fontsize=5.5,
            color="0.25",
        )


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
    with figure_style():
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
        return save_figure(fig, stem)


def _sequence_panel(ax: Axes, slots: pd.DataFrame, title: str) -> None:
    """Segment against transmission number for a stretch of a run; drops, retransmissions
    and retransmission-timeout waits marked."""
    t = slots["t_s"].to_numpy()
    x = np.arange(len(slots))
    new = ~slots["retransmission"].to_numpy()
    dropped = slots["dropped"].to_numpy()
    seg = slots["segment"].to_numpy()
    ax.scatter(x[new & ~dropped], seg[new & ~dropped], s=10, color="0.35", label="sent")
    ax.scatter(
        x[~new & ~dropped],
        seg[~new & ~dropped],
        s=26,
        facecolors="none",
        edgecolors="tab:blue",
        label="retransmitted",
    )
    ax.scatter(
        x[dropped & new],
        seg[dropped & new],
        s=30,
        marker="x",
        color="tab:red",
        label="dropped (slot N)",
    )
    ax.scatter(
        x[dropped & ~new],
        seg[dropped & ~new],
        s=70,
        marker="X",
        color="darkred",
        label="retransmission dropped",
    )
    gaps = np.flatnonzero(np.diff(t) > tcptrace.RTO_GAP_S)
    lift = 0.12 * (seg.max() - seg.min())
    for k, i in enumerate(gaps):
        ax.axvspan(i + 0.15, i + 0.85, color="tab:orange", alpha=0.35)
        # waits that follow each other closely (a backoff) alternate in height
        ax.annotate(
            f"RTO wait\n{(t[i + 1] - t[i]) * 1e3:.0f} ms",
            xy=(i + 0.5, seg.min() + (k % 2) * lift),
            fontsize=7,
            ha="center",
            va="bottom",
        )
    ax.set_xlabel("data packet sent (order in the stretch)")
    ax.set_ylabel("segment number")
    ax.set_title(title, fontsize=9)


def cycle_stretches(slots: pd.DataFrame, stretch: int = 60) -> dict[str, tuple[int, int]]:
    """Where a regular-dropper run's cycles are: `bad`, the `stretch` transmissions around
    its first retransmission-timeout wait (absent if it has none), and `good`, the same
    number in the middle of its longest part without a wait (absent if no part holds that
    many: a run in a bad cycle throughout waits every few dozen packets, and a stretch
    between two of its waits is still the bad cycle). Each as (first, end) indices of
    ``slots`` (tcptrace.dropper_slots), so the figure shows both cycles of the loop side by
    side, from the run itself."""
    t = slots["t_s"].to_numpy()
    waits = np.flatnonzero(np.diff(t) > tcptrace.RTO_GAP_S)
    n = len(slots)
    out: dict[str, tuple[int, int]] = {}
    if len(waits):
        lo = max(0, int(waits[0]) - stretch // 2)
        out["bad"] = (lo, min(n, lo + stretch))
    bounds = np.concatenate(([0], waits + 1, [n]))
    longest = int(np.argmax(np.diff(bounds)))
    first, last = int(bounds[longest]), int(bounds[longest + 1])
    if last - first >= stretch:
        lo = max(first, (first + last) // 2 - stretch // 2)
        out["good"] = (lo, min(last, lo + stretch))
    return out


def fig4_5_pathology(
    traces: Mapping[str, pd.DataFrame],
    slots: Mapping[str, pd.DataFrame],
    stem: str | Path,
    every_n: int = 6,
    stretch: int = 60,
) -> list[Path]:
    """The regular dropper's closed loop, per profile (keys of ``traces`` and ``slots``, from
    tcptrace.read and tcptrace.dropper_slots of the regular-dropper run): top, a bad cycle
    (around the run's first timeout) beside a good one (the middle of its longest stretch
    without a timeout; cycle_stretches); bottom, the retransmissions by their slot in the
    dropper's count: those in slot N are dropped again and wait for a timeout."""
    names = list(traces)
    parts = {name: cycle_stretches(slots[name].reset_index(drop=True), stretch) for name in names}
    columns = [(name, kind) for name in names for kind in ("bad", "good") if kind in parts[name]]
    with figure_style():
        fig = Figure(figsize=(3.6 * len(columns), 6.8), layout="constrained")
        grid = fig.add_gridspec(2, len(columns), height_ratios=[1.5, 1])
        for j, (name, kind) in enumerate(columns):
            s = slots[name].reset_index(drop=True)
            lo, hi = parts[name][kind]
            at = float(s["t_s"].iloc[lo])
            ax = fig.add_subplot(grid[0, j])
            cycle = "bad cycle" if kind == "bad" else "good cycle"
            _sequence_panel(ax, s.iloc[lo:hi], f"ns3, {name}: {cycle} at {at:.2f} s")
            if j == 0:
                ax.legend(loc="upper left", fontsize=7)
        for name in names:
            s = slots[name].reset_index(drop=True)
            first = next(j for j, (n, _) in enumerate(columns) if n == name)
            span = sum(1 for n, _ in columns if n == name)
            retx = s[s["retransmission"]]
            counts = retx["slot"].value_counts().reindex(range(1, every_n + 1), fill_value=0)
            bx = fig.add_subplot(grid[1, first : first + span])
            colors = ["tab:blue"] * (every_n - 1) + ["darkred"]
            bx.bar(counts.index, counts.to_numpy(), color=colors)
            for slot, v in counts.items():
                bx.annotate(str(int(v)), xy=(slot, v), ha="center", va="bottom", fontsize=7)
            bx.set_xticks(range(1, every_n + 1))
            bx.set_xlabel(f"slot in the dropper's count (slot {every_n} is dropped)")
            bx.set_ylabel("retransmissions")
            waits = int((np.diff(s["t_s"].to_numpy()) > tcptrace.RTO_GAP_S).sum())
            elapsed = float(traces[name]["t_s"].max())
            bx.set_title(
                f"{name}: {int(counts.iloc[-1])} retransmissions dropped,\n"
                f"{waits} RTO waits, {elapsed:.1f} s in all",
                fontsize=9,
            )
        fig.suptitle(
            f"The 1-in-{every_n} loop in ns-3: a retransmission that lands on the dropped slot "
            "waits for a timeout (bad cycle);\none that does not keeps the run at line rate "
            "(good cycle)"
        )
        return save_figure(fig, stem)


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
        traces = {Path(p).parts[-3]: tcptrace.read(p) for p in inputs["traces"]}
        slots = {k: tcptrace.dropper_slots(t, every_n) for k, t in traces.items()}
        return fig4_5_pathology(traces, slots, stem, every_n=every_n)
    if kind == "fig_ablation":
        return fig_ablation(pd.read_csv(inputs["summary"]), stem)
    raise ValueError(f"the 2001 report's study has no figure {kind!r}")
