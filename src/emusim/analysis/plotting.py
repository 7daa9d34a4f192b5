"""What every figure of emusim shares: one colour per backend (the registry's,
emusim.core.backend_registry), a marker and line style per profile, the Matplotlib style, and a
reproducible save.

Figures are built on `matplotlib.figure.Figure` (no pyplot, no global backend state) and saved
with fixed DPI and no creation date, so the same tables give the same bytes. A series is one
(backend, profile). Its colour says the backend (the same in every figure); its marker and line
style say the profile: profiles of one backend take the styles in ``profile_order`` (default:
alphabetical) order, so pass the study's profile list to keep a profile's style fixed across
figures that show different subsets.
"""

from __future__ import annotations

import textwrap
import zlib
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import matplotlib as mpl
import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from emusim.analysis.compare import axis_values
from emusim.core.backend_registry import BACKENDS

#: Resolution of the PNGs (dots per inch).
DPI = 200
#: Colours of the backends (Okabe–Ito, colour-blind safe); the reference is black.
BACKEND_COLORS = {name: b.color for name, b in BACKENDS.items()}
#: Colours for backends not listed above, picked by a stable hash of the name.
_SPARE_COLORS = ("#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
#: Marker and line style of a backend's first, second, … profile.
PROFILE_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
PROFILE_LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 2)))
#: Where the report's accounting counts 1526 bytes per frame (docs/results-schema.md).
THROUGHPUT_LABEL = "Throughput (10⁶ B/s, 1526 B per frame)"
DROP_RATE_LABEL = "Drop rate (fraction of packets to the receiver)"
#: How a metric is named in axis labels.
METRIC_LABELS = {
    "throughput_report_Bps": "throughput",
    "throughput_wire_Bps": "wire throughput",
    "elapsed_s": "elapsed time",
    "packets_dropped": "packets dropped",
    "rtt_us": "RTT",
}

_RC = {
    "svg.hashsalt": "emusim",
    "savefig.dpi": DPI,
    "pdf.fonttype": 42,
    "font.size": 9,
    "axes.titlesize": 10,
    "legend.fontsize": 8,
    "legend.framealpha": 0.9,
    "lines.linewidth": 1.3,
    "lines.markersize": 4,
    "errorbar.capsize": 2,
}


# --- styles ------------------------------------------------------------------------------------


def backend_color(backend: str) -> str:
    """The colour of a backend: fixed for the three known ones, a stable pick for others."""
    if backend in BACKEND_COLORS:
        return BACKEND_COLORS[backend]
    return _SPARE_COLORS[zlib.crc32(backend.encode()) % len(_SPARE_COLORS)]


def tint(color: str, amount: float) -> tuple[float, float, float]:
    """``color`` mixed with white; amount 0 is the colour, 1 is white."""
    rgb = np.array(mcolors.to_rgb(color))
    return tuple(rgb + (1.0 - rgb) * amount)


def series_styles(
    pairs: Iterable[tuple[str, str]],
    profile_order: Sequence[str] | None = None,
    reference_backend: str = "hardware",
) -> dict[tuple[str, str], dict[str, object]]:
    """Matplotlib keyword arguments (color, marker, linestyle, label) per (backend, profile).

    Colour is the backend's. Marker and line style follow the profile's place in
    ``profile_order`` (then the remaining profiles alphabetically), counted over all
    non-reference backends, so a profile looks the same in mininet and ns3; the reference
    backend's profiles are counted on their own, so the reference is solid with circles.
    """
    pairs = list(dict.fromkeys(tuple(pair) for pair in pairs))

    def ordered(profiles: set[str], keep_absent: bool) -> list[str]:
        # With keep_absent the whole given order counts, so a profile's place never shifts.
        given = [p for p in dict.fromkeys(profile_order or ()) if keep_absent or p in profiles]
        return given + sorted(profiles - set(given))

    ref_profiles = ordered({p for b, p in pairs if b == reference_backend}, keep_absent=False)
    other_profiles = ordered({p for b, p in pairs if b != reference_backend}, keep_absent=True)
    styles: dict[tuple[str, str], dict[str, object]] = {}
    for backend, profile in pairs:
        order = ref_profiles if backend == reference_backend else other_profiles
        i = order.index(profile)
        color = mcolors.to_rgb(backend_color(backend))
        styles[(backend, profile)] = {
            "color": tint(backend_color(backend), min(0.45, 0.2 * (i // 2))) if i > 1 else color,
            "marker": PROFILE_MARKERS[i % len(PROFILE_MARKERS)],
            "linestyle": PROFILE_LINESTYLES[i % len(PROFILE_LINESTYLES)],
            "label": f"{backend}, {profile}",
        }
    return styles


# --- helpers -----------------------------------------------------------------------------------


@contextmanager
def figure_style():
    with sns.axes_style("whitegrid"), mpl.rc_context(_RC):
        yield


def save_figure(fig: Figure, stem: str | Path) -> list[Path]:
    """Write ``{stem}.pdf`` and ``{stem}.png`` reproducibly; return their paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    pdf, png = stem.with_name(stem.name + ".pdf"), stem.with_name(stem.name + ".png")
    fig.savefig(pdf, metadata={"CreationDate": None, "ModDate": None})
    fig.savefig(png, dpi=DPI, metadata={"Software": None})
    return [pdf, png]


def x_values(frame: pd.DataFrame, x: str) -> pd.Series:
    """The sweep axis ``x`` of a table: its column, or parsed from the point ids."""
    if x in frame.columns:
        return pd.to_numeric(frame[x], errors="coerce")
    values = axis_values(frame["point"], x)
    if values.isna().all():
        raise ValueError(
            f"axis {x!r} is neither a column nor in the point ids ({list(frame['point'][:3])})"
        )
    return pd.to_numeric(values, errors="coerce")


def metric_rows(stats: pd.DataFrame, metric: str, x: str) -> pd.DataFrame:
    """The rows of one metric with the axis as column ``x_values``, sorted by it within a series."""
    rows = stats[stats["metric"] == metric]
    if rows.empty:
        raise ValueError(
            f"metric {metric!r} is not in the statistics table; it has "
            f"{sorted(set(stats['metric']))}"
        )
    return rows.assign(x_values=x_values(rows, x)).sort_values("x_values", kind="stable")


def series_of(frame: pd.DataFrame) -> Iterable[tuple[tuple[str, str], pd.DataFrame]]:
    """(backend, profile) and its rows, in order of first appearance."""
    yield from frame.groupby(["backend", "profile"], sort=False)


def throughput_band(
    stats: pd.DataFrame, x: str = "drop_rate", metric: str = "throughput_report_Bps"
) -> pd.DataFrame:
    """The throughput rows of a statistics table with ``low`` and ``high``: the throughput at
    mean elapsed time + and − its population SD (the report's Var), and the axis as ``x_values``.

    Throughput is frame bytes × writes / mean elapsed, so elapsed mean ± SD maps to
    throughput × mean / (mean ± SD): the band the report's Var spans, asymmetric as it should
    be. ``high`` is NaN where the SD reaches the mean (no finite bound).
    """
    tput = metric_rows(stats, metric, x)
    keys = ["scenario", "backend", "profile", "point"]
    elapsed = stats[stats["metric"] == "elapsed_s"][[*keys, "mean", "sd_pop"]]
    elapsed = elapsed.rename(columns={"mean": "elapsed_mean", "sd_pop": "elapsed_sd"})
    out = tput.merge(elapsed, on=keys, how="left")
    lo = out["elapsed_mean"] + out["elapsed_sd"]
    hi = (out["elapsed_mean"] - out["elapsed_sd"]).where(lambda s: s > 0)
    out["low"] = out["mean"] * out["elapsed_mean"] / lo
    out["high"] = out["mean"] * out["elapsed_mean"] / hi
    return out


def errorbar(
    ax: Axes, rows: pd.DataFrame, style: Mapping[str, object], scale: float = 1.0, **kwargs
) -> None:
    """Means with (low, high) error bars, where the rows have them."""
    y = rows["mean"].to_numpy(dtype=float) / scale
    low = rows["low"].to_numpy(dtype=float) / scale if "low" in rows else np.full_like(y, np.nan)
    high = rows["high"].to_numpy(dtype=float) / scale if "high" in rows else np.full_like(y, np.nan)
    yerr = np.vstack([np.nan_to_num(y - low), np.nan_to_num(high - y)])
    opts = {**style, **kwargs}
    ax.errorbar(rows["x_values"].to_numpy(dtype=float), y, yerr=yerr, elinewidth=0.8, **opts)


def wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(str(text), width))
