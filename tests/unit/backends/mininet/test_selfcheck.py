"""The emulation's self-check table and the flag it puts on comparison rows."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from emusim.analysis.compare import summarise_comparisons
from emusim.backends.mininet import selfcheck


def batch(scenario="random-drop", profile="linux-2.2", frac=0.98, fitted=75.0, delay_ok=True):
    lo, hi = 0.95, 1.005
    return {
        "scenario": scenario,
        "backend": "mininet",
        "profile": profile,
        "place": "vm",
        "kvm": False,
        "kernel_release": "6.1.0-56-amd64",
        "dropper_impl": "module",
        "selfcheck": {
            "throughput": {"fraction_of_line_rate": frac, "tolerance": [lo, hi],
                           "ok": lo <= frac <= hi},
            "delay": {"configured_us": 71.89, "fitted_two_point_us": fitted,
                      "fitted_least_squares_us": fitted + 1, "tolerance_us": 10.78,
                      "ok": delay_ok},
        },
    }  # fmt: skip


@pytest.mark.parametrize(
    ("tput", "delay", "expected"),
    [
        (True, True, "ok"),
        (True, None, "ok"),  # a check that does not apply passes
        (False, True, "failed: throughput"),
        (True, False, "failed: delay"),
        (False, False, "failed: throughput, delay"),
    ],
)
def test_verdict(tput, delay, expected):
    assert selfcheck.verdict(tput, delay) == expected


def test_table_reads_batches_in_order(tmp_path):
    paths = []
    for i, b in enumerate(
        [batch(), batch("regular-drop", frac=0.41, fitted=580.6, delay_ok=False)]
    ):
        paths.append(tmp_path / f"b{i}.json")
        paths[-1].write_text(json.dumps(b))
    table = selfcheck.table(paths)
    assert list(table.columns) == list(selfcheck.COLUMNS)
    assert list(table["scenario"]) == ["random-drop", "regular-drop"]
    assert list(table["selfcheck"]) == ["ok", "failed: throughput, delay"]
    assert table["delay_fitted_us"].iloc[1] == 580.6
    assert table["line_rate_fraction_min"].iloc[0] == 0.95


def test_a_batch_without_selfcheck_is_marked():
    row = selfcheck.batch_row({**batch(), "selfcheck": None})
    assert row["selfcheck"] == "not run"


def test_flag_marks_only_the_checked_backend_and_carries_into_the_summary():
    comparison = pd.DataFrame(
        {
            "scenario": "random-drop",
            "backend": ["ns3", "mininet", "mininet"],
            "profile": "linux-2.2",
            "point": ["p1", "p1", "p2"],
            "metric": "m",
            "exp": 1.0,
            "sim": [0.9, 0.5, 0.6],
            "rel_diff": [0.1, 0.5, 0.4],
        }
    )
    checks = pd.DataFrame([selfcheck.batch_row(batch(frac=0.5))])
    out = selfcheck.flag(comparison, checks)
    assert list(out["selfcheck"]) == ["", "failed: throughput", "failed: throughput"]
    assert len(out) == len(comparison)
    summary = summarise_comparisons([out]).set_index("backend")
    assert summary.loc["mininet", "selfcheck"] == "failed: throughput"
    assert summary.loc["ns3", "selfcheck"] == ""
    assert selfcheck.flag(comparison, selfcheck.table([]))["selfcheck"].eq("").all()
