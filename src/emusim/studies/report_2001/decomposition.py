"""How far the emulation is from the hardware, taken apart (issue 30, item 4).

The emulation's `linux-2.2` is Linux 6.1 set up as the report's 2.2.16 hosts were; its distance
from the hardware mixes two things: Linux 6.1 is not Linux 2.2, and the emulator is not the
simulator. ns-3 runs both `linux-2.2` (2.2.16's TCP, written from its source) and `linux-6.1`
(Linux 6.1's own congestion control on a socket that measures and acknowledges as 6.1 does:
docs/linux-cc.md), and the emulation runs both profiles too, so each part has its own pair:

| part | pair (reference first) |
|---|---|
| the emulation from the hardware | hardware, Mininet linux-2.2 |
| ns-3 from the hardware | hardware, ns-3 linux-2.2 |
| Linux 6.1 is not 2.2, in ns-3 | ns-3 linux-2.2, ns-3 linux-6.1 |
| Linux 6.1 is not 2.2, in the emulation | Mininet linux-2.2, Mininet linux-6.1 |
| the emulator is not the simulator, Linux 6.1 | Mininet linux-6.1, ns-3 linux-6.1 |
| the emulator is not the simulator, 2.2's settings | Mininet linux-2.2, ns-3 linux-2.2 |

Each is the median (and largest) |(reference − other) / reference| of one metric's means over
the points both ran, the report's relative difference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

PAIRS: tuple[tuple[str, tuple[str, str | None], tuple[str, str]], ...] = (
    ("the emulation from the hardware", ("hardware", None), ("mininet", "linux-2.2")),
    ("ns-3 from the hardware", ("hardware", None), ("ns3", "linux-2.2")),
    ("Linux 6.1 is not 2.2, in ns-3", ("ns3", "linux-2.2"), ("ns3", "linux-6.1")),
    ("Linux 6.1 is not 2.2, in the emulation", ("mininet", "linux-2.2"), ("mininet", "linux-6.1")),
    ("emulator against simulator, Linux 6.1", ("mininet", "linux-6.1"), ("ns3", "linux-6.1")),
    ("emulator against simulator, 2.2's settings", ("mininet", "linux-2.2"), ("ns3", "linux-2.2")),
)
"""(part, reference backend and profile, other backend and profile); the hardware's profile is
whatever it recorded (None: any)."""

KEYS = {
    "the emulation from the hardware": "EmulationFromHardware",
    "ns-3 from the hardware": "NsThreeFromHardware",
    "Linux 6.1 is not 2.2, in ns-3": "KernelInNsThree",
    "Linux 6.1 is not 2.2, in the emulation": "KernelInEmulation",
    "emulator against simulator, Linux 6.1": "EmulatorSixOne",
    "emulator against simulator, 2.2's settings": "EmulatorTwoTwo",
}
"""Each part's name in the paper's macros (emusim.studies.report_2001.numbers)."""

DECOMPOSED = ("random-drop", "regular-drop", "regular-1in6")
"""The 2001 scenarios whose emulation gap is taken apart; each runs linux-2.2 and linux-6.1 on
both backends (their `profiles`)."""

COLUMNS = ["scenario", "part", "reference", "other", "metric", "points", "median", "max"]


def _means(stats: pd.DataFrame, backend: str, profile: str | None, metric: str) -> pd.Series:
    rows = stats[(stats["backend"] == backend) & (stats["metric"] == metric)]
    if profile is not None:
        rows = rows[rows["profile"] == profile]
    return rows.groupby("point")["mean"].mean()


def _name(backend: str, profile: str | None) -> str:
    return backend if profile is None else f"{backend} {profile}"


def decompose(scenario: str, stats: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One row per part of PAIRS: the points both sides ran and the median and largest
    |rel_diff| of `metric` over them (NaN and 0 points where a side did not run)."""
    rows = []
    for part, (ref_b, ref_p), (oth_b, oth_p) in PAIRS:
        ref = _means(stats, ref_b, ref_p, metric)
        other = _means(stats, oth_b, oth_p, metric)
        both = ref.index.intersection(other.index)
        rel = ((ref[both] - other[both]) / ref[both]).abs().replace([np.inf], np.nan).dropna()
        rows.append(
            {
                "scenario": scenario,
                "part": part,
                "reference": _name(ref_b, ref_p),
                "other": _name(oth_b, oth_p),
                "metric": metric,
                "points": len(rel),
                "median": rel.median() if len(rel) else np.nan,
                "max": rel.max() if len(rel) else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


METRICS = ("throughput_report_Bps", "elapsed_s")
"""The metric compared: the report's throughput where the statistics have it (random-drop,
regular-drop), else the elapsed time (regular-1in6, Table 4.4)."""


def metric_of(stats: pd.DataFrame) -> str:
    """The first of METRICS the statistics hold."""
    have = set(stats["metric"])
    for metric in METRICS:
        if metric in have:
            return metric
    raise ValueError(f"the statistics hold none of {METRICS}")


def decomposition(stats: Mapping[str, pd.DataFrame], scenarios: Sequence[str]) -> pd.DataFrame:
    """`decompose` for each scenario, in order, on its metric (`metric_of`)."""
    return pd.concat(
        [decompose(name, stats[name], metric_of(stats[name])) for name in scenarios],
        ignore_index=True,
    )


def shown(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's view: a row per part, the median |rel_diff| per scenario."""
    wide = table.pivot_table(index="part", columns="scenario", values="median", sort=False)
    order = [part for part, _, _ in PAIRS]
    wide = wide.reindex([p for p in order if p in wide.index])
    wide.columns = [f"{scenario}: median |rel_diff|" for scenario in wide.columns]
    return wide.reset_index()
