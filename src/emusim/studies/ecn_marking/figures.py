"""The ecn-marking study's figure: per TCP variant, ns-3's and Mininet's goodput and the
fraction of packets the bottleneck's queue marked CE, side by side."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from emusim.analysis.plotting import backend_color, figure_style, save_figure

PANELS = {
    "goodput_Bps": ("Goodput (10⁶ B/s)", 1e-6),
    "link_ce_fraction_forward": ("Packets marked CE at the bottleneck (%)", 100.0),
}
"""What each panel shows: the comparison's metric, its axis label and the scale to it."""

BACKENDS = ("ns3", "mininet")


def draw(kind: str, inputs, params, stem: Path) -> list[Path]:
    if kind != "goodput_marks":
        raise ValueError(f"the ecn-marking study has no figure kind {kind!r}")
    compare = pd.read_csv(inputs["compare"])
    variants = [v for v in params["variants"] if v in set(compare["variant"])]
    width = 0.38
    with figure_style():
        fig = Figure(figsize=(7.5, 3.4), layout="constrained")
        for ax, (metric, (label, scale)) in zip(fig.subplots(1, 2), PANELS.items(), strict=True):
            rows = compare[compare["metric"] == metric].set_index("variant")
            x = np.arange(len(variants))
            for i, backend in enumerate(BACKENDS):
                values = [
                    rows.at[v, backend] * scale if v in rows.index else np.nan for v in variants
                ]
                ax.bar(
                    x + (i - 0.5) * width, values, width,
                    color=backend_color(backend), label=backend,
                )  # fmt: skip
            ax.set_xticks(x, variants)
            ax.set_ylabel(label)
        fig.axes[0].legend()
        fig.suptitle(params["title"])
        return save_figure(fig, stem)
