"""The emulation's self-check as a figure (rule mininet_selfcheck; the Mininet backend's own,
in every study that runs the emulation)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from emusim.analysis.plotting import figure_style, save_figure


def fig_selfcheck(checks: pd.DataFrame, stem: str | Path) -> list[Path]:
    """The emulation's self-check, one row per batch (emusim.backends.mininet.selfcheck.table).

    Left: the loss-free TCP blast as a fraction of line rate, the tolerance shaded. Right: the
    one-way delay fitted from the batch's own ping sweep (two-point, as the report's; least
    squares) against the configured delay, whose tolerance is shaded. A failed check is red.
    """
    if checks.empty:
        raise ValueError("no batches in the self-check table")
    labels = [
        f"{r.scenario}, {r.profile} ({r.place}{', KVM' if r.kvm is True else ''})"
        for r in checks.itertuples()
    ]
    y = np.arange(len(checks))[::-1]
    bad, good = "#D55E00", "#0072B2"
    with figure_style():
        fig = Figure(figsize=(9.0, 1.2 + 0.42 * len(checks)), layout="constrained")
        left, right = fig.subplots(1, 2, sharey=True)
        for yi, r in zip(y, checks.itertuples(), strict=True):
            left.axvspan(r.line_rate_fraction_min, r.line_rate_fraction_max, color="0.9")
            failed = str(r.selfcheck).removeprefix("failed: ").split(", ")
            ok = "throughput" not in failed
            left.barh(yi, r.line_rate_fraction, color=good if ok else bad, height=0.6)
            left.text(r.line_rate_fraction, yi, f" {r.line_rate_fraction:.3f}", va="center")
            tol, conf = r.delay_tolerance_us, r.delay_configured_us
            right.fill_betweenx([yi - 0.3, yi + 0.3], conf - tol, conf + tol, color="0.85")
            right.plot([conf, conf], [yi - 0.3, yi + 0.3], color="black", linewidth=1.5)
            ok = "delay" not in failed
            right.plot(r.delay_fitted_us, yi, "o", color=good if ok else bad)
            right.plot(r.delay_fitted_least_squares_us, yi, "s", mfc="none", color="0.3")
        left.set_yticks(y, labels)
        left.set_xlim(0, 1.1)
        left.axvline(1.0, color="black", linewidth=0.8)
        left.set_xlabel("loss-free TCP throughput / line-rate limit")
        left.set_title("Throughput (tolerance shaded)")
        right.set_xscale("symlog", linthresh=10)
        right.set_xlabel("one-way delay (µs)")
        right.set_title("Fitted delay: ● two-point, □ least squares; | configured")
        fig.suptitle("Mininet self-check per batch (red: outside tolerance)")
        return save_figure(fig, stem)
