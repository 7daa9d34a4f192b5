"""The hardware backend's results when no testbed is attached: the 2001 measurements.

Each scenario's points are matched to the rows of data/reference/ by their sweep values, and
turned into runs as every backend gives them (docs/results-schema.md; the workflow tidies them,
emusim.analysis.collect), with `profile` = `native` (the hosts' own kernels) and `seed` empty.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pandas as pd

from emusim.core import yaml_text
from emusim.core.backend_registry import HARDWARE
from emusim.core.constants import TCP_WRITE_SIZE_B
from emusim.inputs import measurements_2001
from emusim.inputs.scenario import SCENARIO_DIR, Point, Scenario

PROFILE = HARDWARE.profile


def _same_rate(a: object, b: str) -> bool:
    return Decimal(str(a)).normalize() == Decimal(b).normalize()


def _tcp_rows(df: pd.DataFrame) -> list[dict]:
    """TCP blast runs: the elapsed time and the transfer's size."""
    return [
        {
            "repetition": r.run,
            "elapsed_s": r.elapsed_s,
            "writes": r.writes,
            "write_size_B": r.write_size_B,
        }
        for r in df.itertuples()
    ]


def _udp_rows(df: pd.DataFrame) -> list[dict]:
    """UDP blast runs: the send's elapsed time and the datagrams sent, received and lost."""
    return [
        {
            "repetition": r.run,
            "elapsed_s": r.elapsed_s,
            "datagrams_sent": r.datagrams,
            "datagrams_received": r.datagrams - r.datagrams_lost,
            "datagrams_lost": r.datagrams_lost,
            "datagram_size_B": r.datagram_size_B,
        }
        for r in df.itertuples()
    ]


def _ping_rows(v: dict) -> list[dict]:
    df = measurements_2001.load("ping_rtt")
    df = df[df.request_size_B == v["request_size_B"]].sort_values("rep")
    # One `ping -c 10` per size: one run whose echoes are a list, as the other backends.
    return [{"repetition": 1, "rtt_us": [float(x) for x in df.rtt_us]}]


def _random_drop_rows(v: dict) -> list[dict]:
    el = measurements_2001.load("random_drop_elapsed")
    dr = measurements_2001.load("random_drop_counts")
    el = el[[_same_rate(x, v["drop_rate"]) for x in el.drop_rate]]
    dr = dr[[_same_rate(x, v["drop_rate"]) for x in dr.drop_rate]].set_index("run")
    rows = _tcp_rows(el)
    for row in rows:
        row["packets_dropped"] = int(dr.loc[row["repetition"], "packets_dropped"])
    return rows


def _regular_drop_rows(v: dict) -> list[dict]:
    df = measurements_2001.load("regular_drop")
    return _tcp_rows(df[df.cutoff == v["every_n"]])


def _regular_1in6_rows(v: dict) -> list[dict]:
    df = measurements_2001.load("regular_1in6")
    df = df[(df.iterations == v["iterations"]) & (df.dropper == v["mode"])]
    # Table 4.4 prints no request size; every blast test of the report wrote 1448 bytes.
    return _tcp_rows(df.assign(writes=df.iterations, write_size_B=TCP_WRITE_SIZE_B))


TABLES: dict[tuple[str, ...], Callable[[dict], list[dict]]] = {
    ("3.1",): lambda v: _tcp_rows(measurements_2001.load("tcp_blast")),
    ("3.2",): lambda v: _udp_rows(measurements_2001.load("udp_blast")),
    ("3.3",): _ping_rows,
    ("4.1", "4.2"): _random_drop_rows,
    ("4.3",): _regular_drop_rows,
    ("4.4",): _regular_1in6_rows,
}
"""The report's tables a scenario may name (its ``reference: {tables: [...]}``), as the rows
of one point (its sweep values) as {repetition, metrics} dicts: data/reference/README.md says
which file holds which table."""


DELAY_TABLE = "3.3"
"""The report's ping sweep (Table 3.3), to which the one-way delay of every `delay: measured`
scenario is fitted (its §3.2; emusim.inputs.delay)."""


def delay_scenario(scenario_dir: Path = SCENARIO_DIR) -> str:
    """The scenario that names the ping sweep the delay is fitted to (its `reference.tables`
    holds DELAY_TABLE): found by what it declares, not by its name."""
    found = []
    for path in sorted(Path(scenario_dir).glob("*.yaml")):
        raw = yaml_text.safe_load(path.read_text()) or {}
        if DELAY_TABLE in ((raw.get("reference") or {}).get("tables") or ()):
            found.append(path.stem)
    if len(found) != 1:
        raise ValueError(
            f"{scenario_dir}: {len(found)} scenarios name Table {DELAY_TABLE} in "
            f"'reference.tables' ({', '.join(found) or 'none'}); the fitted delay needs one"
        )
    return found[0]


def tables_of(scenario: Scenario) -> tuple[str, ...]:
    """The report's tables a scenario names (``reference.tables``), none if it names none."""
    return tuple((scenario.settings.get("reference") or {}).get("tables") or ())


def has_reference(scenario: Scenario) -> bool:
    """Whether the 2001 report measured this scenario: it names the report's tables."""
    return bool(tables_of(scenario))


def _rows_for(scenario: Scenario, point: Point) -> list[dict]:
    """Reference rows of one point as {repetition, metrics} dicts."""
    tables = tables_of(scenario)
    if not tables:
        return []
    if tables not in TABLES:
        known = "; ".join(", ".join(k) for k in TABLES)
        raise ValueError(
            f"{scenario.path}: key 'reference.tables' has value {list(tables)!r}; accepted: "
            f"one of the report's table sets the hardware backend reads ({known})"
        )
    return TABLES[tables](point.values)


def reference_runs(scenario: Scenario) -> list[dict]:
    """The 2001 measurements of the scenario's points, as runs (a run JSON's fields)."""
    runs = []
    for point in scenario.points:
        for row in _rows_for(scenario, point):
            rep = int(row.pop("repetition"))
            runs.append(
                {
                    "scenario": scenario.name,
                    "backend": "hardware",
                    "profile": PROFILE,
                    "point": point.id,
                    "params": point.values,
                    "repetition": rep,
                    "seed": None,
                    "status": "ok",
                    "metrics": {k: _plain(x) for k, x in row.items()},
                }
            )
    return runs


def _plain(value):
    """numpy scalars to Python numbers, so runs serialise like the other backends'."""
    if isinstance(value, list):
        return value
    return float(value) if isinstance(value, float) else int(value)
