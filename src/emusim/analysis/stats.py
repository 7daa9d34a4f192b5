"""Per-point statistics of the tidy per-run tables (docs/results-schema.md, "Statistics").

`summarise` turns ``results/{backend}/{scenario}.csv`` (one row per run) into the long table of
``results/stats/{scenario}.csv``: one row per scenario, backend, profile, point and metric, with
the report's population SD ("Var"), the sample SD and a Student-t 95 % interval, plus the
derived rows the report computes from mean elapsed time (throughput) and from the dropper's
counter (deviation from the ideal number of drops).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from emusim.analysis.collect import ARCHIVE_COLUMN, ID_COLUMNS, RUN_COLUMNS
from emusim.core import run_status
from emusim.core.constants import ETH_FRAME_REPORT_B, ETH_FRAME_WIRE_B
from emusim.inputs.measurements_2001 import ideal_drops, report_throughput_Bps

#: Columns of the tidy per-run table that identify a run and are never metrics.
ID_COLS = (*ID_COLUMNS, *RUN_COLUMNS, ARCHIVE_COLUMN)
#: Columns that identify one statistics row (axis columns go between ``point`` and ``metric``).
GROUP_COLS = ("scenario", "backend", "profile", "point")
#: The statistics of one metric, in the schema's column order.
STAT_COLS = (
    "n",
    "mean",
    "sd_pop",
    "sd_sample",
    "ci95_low",
    "ci95_high",
    "median",
    "min",
    "max",
    "mad",
)


def metric_columns(runs: pd.DataFrame, axis_cols: Sequence[str]) -> list[str]:
    """The numeric columns of a tidy per-run table that are metrics, in table order."""
    skip = set(ID_COLS) | set(axis_cols)
    return [
        col
        for col in runs.columns
        if col not in skip
        and pd.api.types.is_numeric_dtype(runs[col])
        and not pd.api.types.is_bool_dtype(runs[col])
    ]


def describe(values: Sequence[float] | np.ndarray | pd.Series) -> dict[str, float]:
    """n, mean, both SDs, the Student-t 95 % CI, median, min and max of one sample.

    NaNs are ignored. ``sd_pop`` is the report's "Var" of Tables 4.1 and 4.2,
    √(Σ(x−avg)²/n); ``mad``, the mean absolute deviation Σ|x−avg|/n, is its "Var" of Tables
    3.1, 3.2 and 4.3 and the "Variation" of Table 3.3 (data/reference/README.md). ``sd_sample``
    and the interval need two values and are NaN below that.
    """
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    n = x.size
    if n == 0:
        return {"n": 0, **{col: np.nan for col in STAT_COLS[1:]}}
    # Deviations from the first value (the shifted-data method): the same statistics, but
    # equal values give exactly 0 spread instead of rounding noise such as 2.8e-14.
    d = x - x[0]
    mean = float(x[0] + d.mean())
    sd_sample = float(d.std(ddof=1)) if n >= 2 else np.nan
    if n >= 2:
        half = float(sps.t.ppf(0.975, n - 1)) * sd_sample / np.sqrt(n)
        ci = (mean - half, mean + half)
    else:
        ci = (np.nan, np.nan)
    return {
        "n": n,
        "mean": mean,
        "sd_pop": float(d.std(ddof=0)),
        "sd_sample": sd_sample,
        "ci95_low": ci[0],
        "ci95_high": ci[1],
        "median": float(np.median(x)),
        "min": float(x.min()),
        "max": float(x.max()),
        "mad": float(np.abs(d - d.mean()).mean()),
    }


def drop_deviation(writes: float, drop_prob: float, mean_dropped: float) -> float:
    """(IDEAL − mean dropped) / IDEAL, the report's DEV column with its sign kept.

    The report prints |DEV|. At a drop probability of 0, IDEAL is 0: a dropper that dropped
    nothing matches it exactly (0, as the report prints); anything else is undefined (NaN).
    """
    ideal = ideal_drops(writes, drop_prob)
    if ideal == 0:
        return 0.0 if mean_dropped == 0 else np.nan
    return (ideal - mean_dropped) / ideal


def _appearance_order(runs: pd.DataFrame) -> pd.DataFrame:
    """Integer keys that sort the identifying columns in order of first appearance."""
    keys = pd.DataFrame(index=runs.index)
    for col in GROUP_COLS:
        keys[col] = pd.factorize(runs[col], sort=False)[0]
    return keys


def _derived_rows(
    measured: dict[str, dict[str, float]], drop_prob: float | None
) -> list[tuple[str, int, float]]:
    """(metric, n, mean) of the derived metrics one point's measured metrics allow."""
    rows: list[tuple[str, int, float]] = []
    elapsed, writes = measured.get("elapsed_s"), measured.get("writes")
    if elapsed and writes and elapsed["n"] > 0 and writes["n"] > 0:
        for metric, frame_b in (
            ("throughput_report_Bps", ETH_FRAME_REPORT_B),
            ("throughput_wire_Bps", ETH_FRAME_WIRE_B),
        ):
            tput = report_throughput_Bps(writes["mean"], elapsed["mean"], frame_b)
            rows.append((metric, elapsed["n"], tput))
    dropped = measured.get("packets_dropped")
    if (
        dropped
        and writes
        and drop_prob is not None
        and not np.isnan(drop_prob)
        and dropped["n"] > 0
    ):
        rows.append(
            (
                "drop_deviation",
                dropped["n"],
                drop_deviation(writes["mean"], drop_prob, dropped["mean"]),
            )
        )
    return rows


def summarise(
    runs: pd.DataFrame,
    axis_cols: Sequence[str],
    drop_prob_col: str | None = None,
) -> pd.DataFrame:
    """The long statistics table of a tidy per-run table (docs/results-schema.md).

    One row per (scenario, backend, profile, point, metric) for every numeric metric column
    present, then the derived rows (``n`` and ``mean`` only): ``throughput_report_Bps`` and
    ``throughput_wire_Bps`` where ``elapsed_s`` and ``writes`` exist, ``drop_deviation`` where
    ``packets_dropped``, ``writes`` and the column ``drop_prob_col`` (the point's drop
    probability, e.g. ``drop_rate``) exist. A timed-out run counts: its metrics are lower
    bounds, and leaving them out would bias the mean further down. An aborted run (TCP gave up
    on the connection) is left out: its transfer never finished, so it has no elapsed time.

    Scenarios, backends, profiles and points keep the order of their first appearance in
    ``runs`` (the sweep order), not lexicographic order.
    """
    axis_cols = list(axis_cols)
    missing = [c for c in (*GROUP_COLS, *axis_cols) if c not in runs.columns]
    if missing:
        raise ValueError(
            f"tidy run table lacks column(s) {missing}; it needs {list(GROUP_COLS)} and the "
            f"axis columns {axis_cols} (docs/results-schema.md)"
        )
    if drop_prob_col is not None and drop_prob_col not in runs.columns:
        raise ValueError(
            f"drop_prob_col={drop_prob_col!r} is not a column of the run table; "
            f"columns are {list(runs.columns)}"
        )
    if "status" in runs.columns:
        runs = runs[~runs["status"].isin(run_status.LEFT_OUT)]
    metrics = metric_columns(runs, axis_cols)
    order = _appearance_order(runs)
    runs = runs.assign(_order=list(zip(*(order[c] for c in GROUP_COLS), strict=True)))

    rows: list[dict[str, object]] = []
    for _, group in runs.groupby("_order", sort=True):
        first = group.iloc[0]
        ident = {col: first[col] for col in (*GROUP_COLS, *axis_cols)}
        measured = {m: describe(group[m]) for m in metrics}
        for metric, stats in measured.items():
            if stats["n"] > 0:
                rows.append({**ident, "metric": metric, **stats})
        drop_prob = float(first[drop_prob_col]) if drop_prob_col else None
        for metric, n, mean in _derived_rows(measured, drop_prob):
            rows.append({**ident, "metric": metric, "n": n, "mean": mean})

    columns = [*GROUP_COLS, *axis_cols, "metric", *STAT_COLS]
    out = pd.DataFrame(rows, columns=columns)
    out["n"] = out["n"].astype(int)
    return out.reset_index(drop=True)


STALL_FACTOR = 10.0
"""A run stalled when it took this many times the fastest run of its group (Table 4.4: most
runs take the time the link allows, a few hundreds or thousands of times longer)."""


def stalled_runs(
    runs: pd.DataFrame,
    group_cols: Sequence[str],
    metric: str = "elapsed_s",
    factor: float = STALL_FACTOR,
) -> pd.DataFrame:
    """Per group: n runs, the fastest, and how many (and what fraction) took > factor × fastest.

    The report's Table 4.4 (regular dropping at 1/6): most runs finish in the time the link
    allows, a few take hundreds or thousands of times longer. "Fastest" is the group's
    minimum, so each dropper and iteration count is judged against its own best run.
    """
    group_cols = list(group_cols)

    def one(group: pd.DataFrame) -> pd.Series:
        x = group[metric].dropna()
        fastest = float(x.min()) if len(x) else np.nan
        stalled = int((x > factor * fastest).sum())
        return pd.Series(
            {
                "n": len(x),
                f"fastest_{metric}": fastest,
                "stalled": stalled,
                "stalled_fraction": stalled / len(x) if len(x) else np.nan,
            }
        )

    out = runs.groupby(group_cols, sort=False)[[metric]].apply(one).reset_index()
    out[["n", "stalled"]] = out[["n", "stalled"]].astype(int)
    return out
