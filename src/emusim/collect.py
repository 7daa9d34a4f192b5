"""Run JSONs to the tidy per-run table of docs/results-schema.md."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from emusim.scenario import Scenario

ID_COLUMNS = ["scenario", "backend", "profile", "point"]
RUN_COLUMNS = ["repetition", "seed", "status"]


def run_rows(run: dict) -> list[dict]:
    """One row per run; a list-valued metric (a ping's echoes) gives one row per element."""
    base = {k: run[k] for k in ID_COLUMNS}
    base.update(run["params"])
    base.update({k: run[k] for k in RUN_COLUMNS})
    scalars = {k: v for k, v in run["metrics"].items() if not isinstance(v, list)}
    lists = {k: v for k, v in run["metrics"].items() if isinstance(v, list)}
    if not lists:
        return [{**base, **scalars}]
    n = len(next(iter(lists.values())))
    return [
        {**base, "echo": i + 1, **scalars, **{k: v[i] for k, v in lists.items()}} for i in range(n)
    ]


def tidy(runs: Iterable[dict], scenario: Scenario) -> pd.DataFrame:
    """Rows sorted by profile, point order of the scenario, then repetition (and echo)."""
    rows = [row for run in runs for row in run_rows(run)]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    order = {p.id: i for i, p in enumerate(scenario.points)}
    frame["_order"] = frame["point"].map(order)
    sort = ["profile", "_order", "repetition"] + (["echo"] if "echo" in frame else [])
    frame = frame.sort_values(sort, kind="stable").drop(columns="_order")
    axis_cols = [c for c in scenario.axes if c in frame]
    front = ID_COLUMNS + axis_cols + RUN_COLUMNS + (["echo"] if "echo" in frame else [])
    rest = [c for c in frame.columns if c not in front]
    return frame[front + rest].reset_index(drop=True)


def read_runs(paths: Iterable[str | Path]) -> list[dict]:
    return [json.loads(Path(p).read_text()) for p in paths]
