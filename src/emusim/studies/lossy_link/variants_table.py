"""The lossy-link family (issue 8): its headline cell and the per-variant table of it.

The family compares ns-3 with Mininet (there is no hardware reference); the comparison is
``results/compare/NAME-ns3-vs-mininet.csv`` (emusim.analysis.compare.compare_backends). The paper
and the per-variant table report one cell of the design for every variant: HEADLINE, 5 % random
loss in each direction and 10 ms of one-way delay on the impaired link, a lossy long link on
which the variants differ most while every one of them still completes at quick scale.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from emusim.analysis.compare import axis_values

HEADLINE = {"delay_ms": 10, "loss": "0.05"}
"""The cell the paper's per-variant numbers come from."""

REFERENCE, OTHER = "mininet", "ns3"
"""Mininet (real Linux TCP) is the reference of the comparison, ns-3 the model."""


def headline_rows(compare: pd.DataFrame, headline: dict = HEADLINE) -> pd.DataFrame:
    """The comparison's rows of the headline cell, with a ``variant`` column."""
    rows = compare.copy()
    rows["variant"] = axis_values(rows["point"], "variant")
    delay = pd.to_numeric(axis_values(rows["point"], "delay_ms"), errors="coerce")
    loss = pd.to_numeric(axis_values(rows["point"], "loss"), errors="coerce")
    keep = (delay == float(headline["delay_ms"])) & np.isclose(loss, float(headline["loss"]))
    return rows[keep]


def variant_table(
    compare: pd.DataFrame, variants: Sequence[str], headline: dict = HEADLINE
) -> pd.DataFrame:
    """One row per variant and profile at the headline cell: each backend's goodput (10⁶ B/s)
    and completion time (s), rel_diff of the goodput ((mininet − ns3) / mininet) and the
    cell's status (``ok``, or why a number is missing or partial)."""
    rows = headline_rows(compare, headline)
    order = {v: i for i, v in enumerate(variants)}
    out = []
    for (profile, variant), group in rows.groupby(["profile", "variant"], sort=False):
        by_metric = group.set_index("metric")
        good = by_metric.loc["goodput_Bps"] if "goodput_Bps" in by_metric.index else None
        time = by_metric.loc["elapsed_s"] if "elapsed_s" in by_metric.index else None
        out.append(
            {
                "variant": variant,
                "profile": profile,
                "ns3 goodput (MB/s)": None if good is None else good[OTHER] / 1e6,
                "mininet goodput (MB/s)": None if good is None else good[REFERENCE] / 1e6,
                "rel_diff": None if good is None else good["rel_diff"],
                "ns3 time (s)": None if time is None else time[OTHER],
                "mininet time (s)": None if time is None else time[REFERENCE],
                "status": (good if good is not None else group.iloc[0])["status"],
            }
        )
    table = pd.DataFrame(out)
    if table.empty:
        return table
    table["_order"] = table["variant"].map(lambda v: order.get(v, len(order)))
    return table.sort_values(["profile", "_order"], kind="stable").drop(columns="_order")
