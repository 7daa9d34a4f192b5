"""Run JSONs to the tidy per-run table of docs/results-schema.md."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from emusim.inputs.scenario import Scenario

ID_COLUMNS = ["scenario", "backend", "profile", "point"]
RUN_COLUMNS = ["repetition", "seed", "status"]
ARCHIVE_COLUMN = "archived_revision"
"""The git revision a run restored from the run archive was made at (docs/archive.md); the
column is there only when some run of the table was restored, and empty for the others, so a
table of runs all made now is the same with or without the archive."""


def archived_revision(run: dict) -> str | None:
    """The revision a restored run was made at; None for a run made by this workflow."""
    provenance = run.get("provenance") or {}
    if not (provenance.get("archive") or {}).get("path"):
        return None
    return str(provenance.get("git_revision", "unknown"))


RATIOS = {"link_ce_fraction_forward": ("link_ce_marks_forward", "link_packets_forward")}
"""Metrics that are one of a run's metrics over another, made here for every backend alike: the
fraction of the packets reaching the middle link's forward egress that its queue marked CE (a
queue that marks: topology.aqm, docs/ecn.md)."""


def with_ratios(metrics: dict) -> dict:
    """`metrics` and each of RATIOS whose two metrics it has (none where the denominator is 0)."""
    out = dict(metrics)
    for name, (numerator, denominator) in RATIOS.items():
        if out.get(numerator) is not None and out.get(denominator):
            out[name] = out[numerator] / out[denominator]
    return out


def run_rows(run: dict) -> list[dict]:
    """One row per run; a list-valued metric (a ping's echoes) gives one row per element."""
    base = {k: run[k] for k in ID_COLUMNS}
    base.update(run["params"])
    base.update({k: run[k] for k in RUN_COLUMNS})
    revision = archived_revision(run)
    if revision is not None:
        base[ARCHIVE_COLUMN] = revision
    scalars = {k: v for k, v in with_ratios(run["metrics"]).items() if not isinstance(v, list)}
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
    last = [ARCHIVE_COLUMN] if ARCHIVE_COLUMN in frame else []
    rest = [c for c in frame.columns if c not in front + last]
    return frame[front + rest + last].reset_index(drop=True)


def read_runs(paths: Iterable[str | Path]) -> list[dict]:
    return [json.loads(Path(p).read_text()) for p in paths]
