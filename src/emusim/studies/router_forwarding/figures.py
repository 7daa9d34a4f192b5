"""The router-forwarding study's figures (the measurement-tool paper's Figures 3, 4 and 5, and
the processing model's fit), drawn as the report's are (emusim.analysis.plotting): Figure objects,
no pyplot, the same bytes from the same tables.

Each quantity figure has two panels, without the router (``direct``) and with it (``routed``),
payload size on a log-2 axis, one line per backend (Mininet, ns-3 without the processing
model, ns-3 with it, the hardware where a testbed ran), the mean of the runs with its 95 %
interval, and the line rate for reference.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullLocator

from emusim.analysis.plotting import BACKEND_COLORS, backend_color, figure_style, save_figure
from emusim.workloads import udp_flood

#: quantity -> (metric, axis label, scale to plot, log y)
QUANTITIES = {
    "mbps": ("throughput_Mbps", "Throughput (Mbit/s of UDP payload)", 1.0, False),
    "pps": ("packets_per_s", "Datagrams received per second", 1.0, True),
    "loss": ("loss", "Datagrams lost (%)", 100.0, False),
}

#: How each backend is drawn and named (the model's runs in ns-3's colour, solid).
SERIES = {
    "hardware": {"color": BACKEND_COLORS["hardware"], "marker": "o", "linestyle": "-"},
    "mininet": {"color": BACKEND_COLORS["mininet"], "marker": "s", "linestyle": "-"},
    "ns3": {"color": BACKEND_COLORS["ns3"], "marker": "v", "linestyle": ":"},
    udp_flood.MODEL_BACKEND: {"color": BACKEND_COLORS["ns3"], "marker": "^", "linestyle": "-"},
}
LABELS = {
    "hardware": "hardware",
    "mininet": "Mininet",
    "ns3": "ns-3, no processing model",
    udp_flood.MODEL_BACKEND: "ns-3, processing model",
}
PAYLOAD_LABEL = "UDP payload (bytes)"


def _style_of(backend: str) -> dict:
    return SERIES.get(backend, {"color": backend_color(backend), "marker": "D", "linestyle": "-"})


def _payload_axis(ax, payloads) -> None:
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(payloads)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(int(p)) for p in sorted(payloads)], rotation=45)
    ax.set_xlabel(PAYLOAD_LABEL)


def _rows(stats: pd.DataFrame, metric: str) -> pd.DataFrame:
    rows = stats[stats["metric"] == metric]
    if rows.empty:
        raise ValueError(
            f"metric {metric!r} is not in the statistics table; it has "
            f"{sorted(set(stats['metric']))}"
        )
    return rows.sort_values("payload_B", kind="stable")


def fig_quantity(
    stats: pd.DataFrame,
    stem: str | Path,
    kind: str,
    link_rate_bps: float,
    scenario_label: str = "router-forwarding",
) -> list[Path]:
    """One of the paper's three figures: ``kind`` mbps, pps or loss against payload size, a
    panel per path, a line per backend with its 95 % interval, the line rate dashed."""
    metric, label, scale, log_y = QUANTITIES[kind]
    rows = _rows(stats, metric)
    payloads = sorted(int(p) for p in rows["payload_B"].unique())
    backends = [b for b in SERIES if b in set(rows["backend"])]
    backends += sorted(set(rows["backend"]) - set(backends))
    with figure_style():
        fig = Figure(figsize=(8.0, 4.0), layout="constrained")
        axes = fig.subplots(1, len(udp_flood.PATHS), sharey=True, squeeze=False)[0]
        for ax, path in zip(axes, udp_flood.PATHS, strict=True):
            if kind != "loss":
                line = [
                    udp_flood.line_rate_Mbps(p, link_rate_bps)
                    if kind == "mbps"
                    else udp_flood.line_rate_pps(p, link_rate_bps)
                    for p in payloads
                ]
                ax.plot(payloads, line, color="0.45", linestyle="--", linewidth=1.0,
                        label="line rate")  # fmt: skip
            for backend in backends:
                mine = rows[(rows["backend"] == backend) & (rows["path"] == path)]
                for profile, series in mine.groupby("profile", sort=False):
                    y = series["mean"].to_numpy(dtype=float) * scale
                    low = series["ci95_low"].to_numpy(dtype=float) * scale
                    high = series["ci95_high"].to_numpy(dtype=float) * scale
                    err = np.vstack([np.nan_to_num(y - low), np.nan_to_num(high - y)])
                    name = LABELS.get(backend, backend)
                    if mine["profile"].nunique() > 1:
                        name += f", {profile}"
                    ax.errorbar(series["payload_B"], y, yerr=err, label=name, elinewidth=0.8,
                                **_style_of(backend))  # fmt: skip
            ax.set_title("without router (direct)" if path == "direct" else "with router")
            _payload_axis(ax, payloads)
            if log_y:
                ax.set_yscale("log")
        axes[0].set_ylabel(label)
        if kind == "loss":
            axes[0].set_ylim(bottom=-2, top=max(5.0, float(np.nanmax(rows["mean"])) * 110))
        handles, labels = axes[-1].get_legend_handles_labels()
        for ax in axes[:-1]:
            for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.legend(handles, labels, loc="outside lower center", ncol=len(labels))
        fig.suptitle(f"{scenario_label}: {label.split(' (')[0].lower()} against payload size")
        return save_figure(fig, stem)


def fig_fit(fit: Mapping, stem: str | Path) -> list[Path]:
    """The processing model's fit: left, the CPU time per datagram of each setup (1 / the
    sender's pace, per size) with the fitted generator cost and generator plus router; right,
    the router's share Δ per size with its fitted cost (the shaded band: 95 % interval)."""
    from emusim.studies.router_forwarding.fit import cost_interval

    sizes = pd.DataFrame(fit["sizes"]).sort_values("payload_B")
    payloads = sizes["payload_B"].astype(int).tolist()
    grid = np.array(payloads)
    host, router = fit["host"], fit["router"]
    g = np.array([cost_interval(host, p)[0] for p in grid]) * 1e6
    r = np.array([cost_interval(router, p) for p in grid], dtype=float) * 1e6
    colors = {"direct": SERIES["mininet"]["color"], "routed": "#009E73"}
    with figure_style():
        fig = Figure(figsize=(8.0, 3.4), layout="constrained")
        left, right = fig.subplots(1, 2)
        for path in udp_flood.PATHS:
            pace = sizes[f"{path}_tx_pps"].to_numpy(dtype=float)
            bound = sizes[f"{path}_cpu_bound"].fillna(False).to_numpy(dtype=bool)
            per = 1e6 / pace
            left.plot(grid[bound], per[bound], linestyle="none", marker="o",
                      color=colors[path], label=f"{path}, held back by the CPU")  # fmt: skip
            left.plot(grid[~bound], per[~bound], linestyle="none", marker="o", mfc="none",
                      color=colors[path], label=f"{path}, at line rate")  # fmt: skip
        left.plot(grid, g, color=colors["direct"], label="fitted generator")
        left.plot(grid, g + r[:, 0], color=colors["routed"], label="fitted generator + router")
        left.set_ylabel("CPU time per datagram (µs)")
        left.set_title("each setup's pace")
        delta = sizes["delta_s"].to_numpy(dtype=float) * 1e6
        both = (
            sizes["direct_cpu_bound"].fillna(False) & sizes["routed_cpu_bound"].fillna(False)
        ).to_numpy(dtype=bool)
        right.axhline(0, color="0.6", linewidth=0.8)
        right.plot(grid[both], delta[both], linestyle="none", marker="o", color=colors["routed"],
                   label="routed − direct, fitted")  # fmt: skip
        right.plot(grid[~both], delta[~both], linestyle="none", marker="o", mfc="none",
                   color=colors["routed"], label="routed − direct, at line rate")  # fmt: skip
        right.plot(grid, r[:, 0], color=colors["routed"], label="model's router a k + b B")
        if np.isfinite(r[:, 1]).all():
            right.fill_between(grid, r[:, 1], r[:, 2], color=colors["routed"], alpha=0.2,
                               linewidth=0, label="95 % interval")  # fmt: skip
        right.set_ylabel("router's CPU time per datagram (µs)")
        right.set_title("the router's share")
        for ax in (left, right):
            _payload_axis(ax, payloads)
            ax.legend(fontsize=7)
        fig.suptitle(f"Processing model fitted to {fit['backend']} ({fit.get('status', '')})"[:110])
        return save_figure(fig, stem)


def draw(kind: str, inputs: Mapping, params: Mapping, stem: Path) -> list[Path]:
    """One of the study's figures (workflow/rules/studies/router_forwarding.smk): the fit, or
    one quantity (mbps, pps, loss) against payload size with the fit drawn where there is
    one."""
    if kind == "fit":
        return fig_fit(json.loads(Path(inputs["fit"]).read_text()), stem)
    return fig_quantity(pd.read_csv(inputs["stats"]), stem, kind, params["link_rate_bps"])
