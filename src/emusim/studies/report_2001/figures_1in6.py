"""The 2001 report's figures of one packet in six dropped (scenario regular-1in6): Table 4.4
as a figure (every run's elapsed time, and how many stalled) and Figure 4.5 (the regular
dropper's closed loop in ns-3, from its traced runs).

Each ``fig…`` function takes the tables and an output path stem, writes ``{stem}.pdf`` and
``{stem}.png`` and returns their paths (emusim.analysis.plotting: colours, styles, save);
``figures.draw`` calls them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from emusim.analysis import tcp_events
from emusim.analysis.plotting import figure_style, save_figure, series_styles, tint
from emusim.analysis.stats import STALL_FACTOR, stalled_runs


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
    (`emusim.analysis.stats.stalled_runs`), labelled stalled/runs.
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
            # both panels: the iteration counts along x, dodged and coloured by dropper
            by_dropper = {
                "x": x,
                "hue": dropper_col,
                "order": x_order,
                "hue_order": droppers,
                "palette": palette,
            }
            sns.swarmplot(
                data=mine,
                y=metric,
                **by_dropper,
                dodge=True,
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
                y="stalled_fraction",
                **by_dropper,
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
    gaps = np.flatnonzero(np.diff(t) > tcp_events.RTO_GAP_S)
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
    ``slots`` (tcp_events.dropper_slots), so the figure shows both cycles of the loop side by
    side, from the run itself."""
    t = slots["t_s"].to_numpy()
    waits = np.flatnonzero(np.diff(t) > tcp_events.RTO_GAP_S)
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
    tcp_events.read and tcp_events.dropper_slots of the regular-dropper run): top, a bad cycle
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
            waits = int((np.diff(s["t_s"].to_numpy()) > tcp_events.RTO_GAP_S).sum())
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
