"""The calibration ablation: how far ns-3 is from the hardware after each profile step.

Step k of the ablation (profiles.ablation) is the base profile with the target's first k
parameters. For each step this module compares ns-3's runs of a sweep with the hardware, point
by point, and reduces the comparison to the median and maximum |rel_diff| of the step.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from emusim.analysis.compare import compare, summarise_comparisons
from emusim.analysis.stats import summarise
from emusim.inputs.tcp_profiles import AblationStep

METRICS = ("throughput_report_Bps", "elapsed_s")


def step_comparison(
    runs: pd.DataFrame,
    hardware: pd.DataFrame,
    steps: Sequence[AblationStep],
    axis_cols: Sequence[str],
    drop_prob_col: str | None,
) -> pd.DataFrame:
    """Point-by-point comparison of every step's runs with the hardware, with `step` and
    `parameter` (the parameter the step added) in front. Only the hardware's points that the
    runs have are compared."""
    by_profile = {s.profile.name: s for s in steps}
    runs = runs[runs["profile"].isin(by_profile)]
    points = set(runs["point"])
    hardware = hardware[hardware["point"].isin(points)]
    stats = summarise(pd.concat([hardware, runs], ignore_index=True), axis_cols, drop_prob_col)
    table = compare(stats, METRICS)
    table.insert(0, "parameter", table["profile"].map(lambda p: by_profile[p].parameter))
    table.insert(0, "step", table["profile"].map(lambda p: by_profile[p].index))
    return table.sort_values(["step"], kind="stable").reset_index(drop=True)


def summary(comparisons: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Median and max |rel_diff| per scenario, step and metric (one row each)."""
    rows = []
    for table in comparisons:
        for (step, parameter), group in table.groupby(["step", "parameter"], sort=True):
            s = summarise_comparisons([group.drop(columns=["step", "parameter"])])
            s.insert(0, "parameter", parameter)
            s.insert(0, "step", step)
            rows.append(s)
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
