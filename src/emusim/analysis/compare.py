"""How far each backend is from the reference: (exp − sim) / exp per point (the report's Fig 5.2).

`compare` pairs the statistics table's means point by point (docs/results-schema.md,
"Comparison"); `summarise_comparisons` condenses any number of such tables into the median and
worst |rel_diff| per scenario, backend, profile and metric (``results/compare/summary.csv``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from emusim.core.run_status import NOT_OK

log = logging.getLogger(__name__)

#: Columns of a comparison table, in the schema's order.
COMPARE_COLS = ("scenario", "backend", "profile", "point", "metric", "exp", "sim", "rel_diff")
#: Columns of the summary of comparison tables.
SUMMARY_COLS = (
    "scenario",
    "backend",
    "profile",
    "metric",
    "n_points",
    "median_abs_rel_diff",
    "max_abs_rel_diff",
    "point_of_max",
    "selfcheck",
)


def rel_diff(exp: float | np.ndarray, sim: float | np.ndarray) -> float | np.ndarray:
    """(exp − sim) / exp; NaN where exp is 0 (no relative difference to a zero reference)."""
    exp_a = np.asarray(exp, dtype=float)
    sim_a = np.asarray(sim, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(exp_a == 0, np.nan, (exp_a - sim_a) / exp_a)
    return float(out) if out.ndim == 0 else out


def _reference_means(
    stats: pd.DataFrame,
    metrics: Sequence[str],
    reference_backend: str,
    reference_profile: str | None,
) -> pd.DataFrame:
    """scenario, point, metric, exp: the reference backend's means, one profile only."""
    ref = stats[(stats["backend"] == reference_backend) & stats["metric"].isin(metrics)]
    if reference_profile is not None:
        ref = ref[ref["profile"] == reference_profile]
    profiles = list(pd.unique(ref["profile"]))
    if len(profiles) > 1:
        raise ValueError(
            f"reference backend {reference_backend!r} has profiles {profiles} in the statistics "
            "table; pass reference_profile= one of them"
        )
    return ref[["scenario", "point", "metric", "mean"]].rename(columns={"mean": "exp"})


def unmatched_points(
    stats: pd.DataFrame,
    metrics: Sequence[str],
    reference_backend: str = "hardware",
    reference_profile: str | None = None,
) -> pd.DataFrame:
    """The (backend, profile, point, metric) that one side has and the other lacks.

    Columns scenario, backend, profile, point, metric, missing_on: ``reference`` when only
    the backend measured the point, ``backend`` when only the reference did.
    """
    metrics = list(metrics)
    ref = _reference_means(stats, metrics, reference_backend, reference_profile)
    sim = stats[(stats["backend"] != reference_backend) & stats["metric"].isin(metrics)]
    keys = ["scenario", "point", "metric"]
    rows = []
    ref_keys = set(map(tuple, ref[keys].to_numpy().tolist()))
    for (backend, profile), group in sim.groupby(["backend", "profile"], sort=False):
        sim_keys = set(map(tuple, group[keys].to_numpy().tolist()))
        for key in group[keys].itertuples(index=False, name=None):
            if key not in ref_keys:
                rows.append((key[0], backend, profile, key[1], key[2], "reference"))
        for key in ref[keys].itertuples(index=False, name=None):
            if key not in sim_keys:
                rows.append((key[0], backend, profile, key[1], key[2], "backend"))
    return pd.DataFrame(
        rows, columns=["scenario", "backend", "profile", "point", "metric", "missing_on"]
    )


def compare(
    stats: pd.DataFrame,
    metrics: Sequence[str],
    reference_backend: str = "hardware",
    reference_profile: str | None = None,
) -> pd.DataFrame:
    """exp, sim and rel_diff = (exp − sim) / exp per non-reference backend, profile, point, metric.

    ``exp`` is the reference backend's mean, ``sim`` the other backend's mean. Points present
    on one side only are left out and logged as a warning (`unmatched_points` lists them).
    Rows keep the statistics table's order (backends, profiles, points as they appear).
    """
    metrics = list(metrics)
    absent = [m for m in metrics if m not in set(stats["metric"])]
    if absent:
        log.warning("metric(s) %s are not in the statistics table", absent)
    ref = _reference_means(stats, metrics, reference_backend, reference_profile)
    sim = stats[(stats["backend"] != reference_backend) & stats["metric"].isin(metrics)]
    sim = sim[["scenario", "backend", "profile", "point", "metric", "mean"]].rename(
        columns={"mean": "sim"}
    )
    # An inner merge keeps the left (backend) side's row order.
    out = sim.merge(ref, on=["scenario", "point", "metric"], how="inner", validate="m:1")
    out["rel_diff"] = rel_diff(out["exp"].to_numpy(), out["sim"].to_numpy())
    unmatched = unmatched_points(stats, metrics, reference_backend, reference_profile)
    if len(unmatched):
        log.warning(
            "%d point(s) left out of the comparison, measured on one side only:\n%s",
            len(unmatched),
            unmatched.to_string(index=False),
        )
    return out[list(COMPARE_COLS)].reset_index(drop=True)


def summarise_comparisons(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Per scenario, backend, profile and metric: n_points, median and max |rel_diff|, and where.

    ``n_points`` counts points with a defined rel_diff (NaN, from a zero reference, is left
    out); ``point_of_max`` is the point of the largest |rel_diff| (the first such if tied);
    ``selfcheck`` the comparison's self-check verdict (emusim.backends.mininet.selfcheck.flag),
    empty if none.
    """
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=list(SUMMARY_COLS))
    table = pd.concat(frames, ignore_index=True)
    table = table[table["rel_diff"].notna()].assign(abs_rel_diff=lambda t: t["rel_diff"].abs())
    rows = []
    keys = ["scenario", "backend", "profile", "metric"]
    if "selfcheck" not in table:
        table["selfcheck"] = ""
    for key, group in table.groupby(keys, sort=False):
        worst = group["abs_rel_diff"].to_numpy().argmax()
        verdicts = [v for v in pd.unique(group["selfcheck"].fillna("")) if v]
        rows.append(
            (
                *key,
                len(group),
                float(group["abs_rel_diff"].median()),
                float(group["abs_rel_diff"].iloc[worst]),
                group["point"].iloc[worst],
                "; ".join(verdicts),
            )
        )
    return pd.DataFrame(rows, columns=list(SUMMARY_COLS))


def axis_values(points: pd.Series | Sequence[str], name: str) -> pd.Series:
    """The value of axis ``name`` in each point id (``drop_rate=0.004+dropper=regular``).

    Numbers come back as floats, other values as strings; a point without ``name`` is NaN.
    """

    def one(point: str) -> float | str:
        for part in str(point).split("+"):
            key, sep, value = part.partition("=")
            if sep and key == name:
                try:
                    return float(value)
                except ValueError:
                    return value
        return np.nan

    index = points.index if isinstance(points, pd.Series) else None
    return pd.Series([one(p) for p in points], index=index, name=name, dtype=object).infer_objects()


# --- two backends against each other, where there is no hardware -----------------------------

#: Columns of a comparison between two backends (after the point's axis columns); each
#: backend's ``…_sd`` and ``…_n`` are the sample SD and number of its runs.
BACKEND_COMPARE_COLS = (
    "metric",
    "reference",
    "other",
    "rel_diff",
    "welch_p",
    "reference_sd",
    "other_sd",
    "reference_n",
    "other_n",
    "status",
    "selfcheck",
)


def welch_p(
    mean_a: float, sd_a: float, n_a: float, mean_b: float, sd_b: float, n_b: float
) -> float:
    """Two-sided p-value of Welch's t-test that two backends' means are equal, from each side's
    mean, sample SD and number of runs: how likely a gap this large is from the spread between
    runs alone. NaN below two runs a side, or where neither side spreads at all (the gap is then
    exact, not a draw)."""
    values = np.array([mean_a, sd_a, n_a, mean_b, sd_b, n_b], dtype=float)
    if np.isnan(values).any() or min(n_a, n_b) < 2 or sd_a == sd_b == 0:
        return np.nan
    from scipy.stats import ttest_ind_from_stats  # a second of import, for this only

    return float(ttest_ind_from_stats(mean_a, sd_a, n_a, mean_b, sd_b, n_b, equal_var=False).pvalue)


def run_status(runs: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(profile, point) → ``ok``, or the worst status among the point's runs (``timeout``:
    its numbers are lower bounds; ``aborted``, ``other-algorithm``: left out of the statistics;
    emusim.core.run_status)."""
    out: dict[tuple[str, str], str] = {}
    if runs is None or runs.empty:
        return out
    for (profile, point), group in runs.groupby(["profile", "point"], sort=False):
        statuses = set(group["status"])
        bad = [s for s in NOT_OK if s in statuses]
        out[(profile, point)] = (
            f"{bad[0]} ({int(group['status'].isin(bad).sum())} of {len(group)} runs)"
            if bad
            else "ok"
        )
    return out


def run_statuses(run_paths: Sequence[str | Path]) -> dict[str, dict[tuple[str, str], str]]:
    """backend → `run_status` of its runs, from the tidy runs tables (CSV) at `run_paths`,
    each in a folder named after its backend."""
    return {Path(p).parent.name: run_status(pd.read_csv(p)) for p in run_paths}


def design_cells(scenario) -> pd.DataFrame:
    """Every cell of a scenario's design (emusim.inputs.scenario.Scenario), the ``points`` of
    `compare_backends`: one row per profile and point, with the point's axis values."""
    return pd.DataFrame(
        [
            {"scenario": scenario.name, "profile": profile, "point": p.id, **p.values}
            for profile in scenario.profiles
            for p in scenario.points
        ]
    )


def shared_metrics(
    stats: pd.DataFrame, metrics: Sequence[str], backends: Sequence[str]
) -> list[str]:
    """`metrics` less those that a backend with results never reports: a comparison of two
    backends is on what both measure. ns-3's three-host program reports no goodput, Mininet
    does; a scenario of that program without hardware is compared on the rest, not given a
    column of empty ns-3 cells. A backend without any results (not run) removes nothing: its
    rows say so."""
    reported = {b: set(stats.loc[stats["backend"] == b, "metric"]) for b in backends}
    return [m for m in metrics if all(m in have for have in reported.values() if have)]


def compare_backends(
    stats: pd.DataFrame,
    points: pd.DataFrame,
    metrics: Sequence[str],
    reference: str,
    other: str,
    skipped: Mapping[tuple[str, str], str],
    statuses: Mapping[str, Mapping[tuple[str, str], str]],
    selfcheck: Mapping[str, str] | None = None,
    stand_ins: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Every cell of a scenario: ``reference`` against ``other`` per profile, point and metric,
    ``rel_diff = (reference − other) / reference`` (the reference plays the hardware's part).

    ``points`` has the columns profile, point and the axis columns, one row per cell of the
    design, so a cell one backend did not run still has a row. ``skipped`` maps (backend,
    point) to why that backend did not run it (a variant it lacks: ``not implemented: …``);
    ``statuses`` maps backend → (profile, point) → run status (`run_status`); ``selfcheck``
    maps a profile to the emulation's self-check verdict. ``stand_ins`` maps a point to the
    point whose ``reference`` runs stand for it (ns-3's own model of a Linux variant is compared
    with the emulation's runs of that variant: emusim.inputs.variants.stand_in_points). ``status``
    is ``ok``, or what makes the row's numbers missing or partial, per backend.
    """
    metrics = shared_metrics(stats, metrics, (reference, other))
    indexed = stats[stats["metric"].isin(metrics)].set_index(
        ["backend", "profile", "point", "metric"]
    )
    columns = {
        stat: indexed[stat] if stat in indexed else pd.Series(dtype=float)
        for stat in ("mean", "sd_sample", "n")
    }
    rows = []
    for cell in points.to_dict("records"):
        profile, point = cell["profile"], cell["point"]
        for metric in metrics:
            values, notes = {}, []
            for backend in (reference, other):
                at = (stand_ins or {}).get(point, point) if backend == reference else point
                key = (backend, profile, at, metric)
                values[backend] = {s: col.get(key, np.nan) for s, col in columns.items()}
                if (backend, at) in skipped:
                    notes.append(f"{backend}: {skipped[(backend, at)]}")
                    continue
                status = statuses.get(backend, {}).get((profile, at))
                if status is None:
                    notes.append(f"{backend}: not run")
                elif status != "ok":
                    notes.append(f"{backend}: {status}")
            ref, oth = values[reference], values[other]
            rows.append(
                {
                    **cell,
                    "metric": metric,
                    "reference": ref["mean"],
                    "other": oth["mean"],
                    "rel_diff": rel_diff(ref["mean"], oth["mean"]),
                    "welch_p": welch_p(
                        ref["mean"],
                        ref["sd_sample"],
                        ref["n"],
                        oth["mean"],
                        oth["sd_sample"],
                        oth["n"],
                    ),
                    "reference_sd": ref["sd_sample"],
                    "other_sd": oth["sd_sample"],
                    "reference_n": ref["n"],
                    "other_n": oth["n"],
                    "status": "; ".join(notes) or "ok",
                    "selfcheck": (selfcheck or {}).get(profile, ""),
                }
            )
    out = pd.DataFrame(rows, columns=[*points.columns, *BACKEND_COMPARE_COLS])
    return out.rename(
        columns={
            "reference": reference,
            "other": other,
            **{
                f"{side}_{stat}": f"{name}_{stat}"
                for side, name in (("reference", reference), ("other", other))
                for stat in ("sd", "n")
            },
        }
    )
