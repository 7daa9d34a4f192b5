"""emusim.analysis.stats against hand-worked examples and the report's printed tables."""

import math

import numpy as np
import pandas as pd
import pytest

from emusim.analysis import stats

# Table 4.1, drop rate 0.000 and 0.004: elapsed time (s) of the ten runs, 100 000 writes each.
TABLE_4_1 = {
    0.000: [12.32, 12.31, 12.31, 12.31, 12.31, 12.31, 12.31, 12.31, 12.31, 12.31],
    0.004: [12.58, 12.59, 12.60, 12.78, 12.40, 12.59, 12.79, 12.79, 12.59, 12.59],
}
# Table 4.2, drop rate 0.008: packets dropped by the router in the same ten runs.
TABLE_4_2_0008 = [840, 864, 814, 842, 785, 812, 861, 814, 774, 797]


def tidy(points, metrics, backend="hardware", profile="ref", axis="drop_rate", status="ok"):
    """A tidy per-run table: ``points`` maps an axis value to {metric: [per-run values]}."""
    rows = []
    for value, per_metric in points.items():
        n = len(next(iter(per_metric.values())))
        for k in range(n):
            row = {
                "scenario": "s",
                "backend": backend,
                "profile": profile,
                "point": f"{axis}={value}",
                axis: value,
                "repetition": k + 1,
                "seed": 100 + k,
                "status": status,
            }
            row.update({m: per_metric[m][k] for m in metrics})
            rows.append(row)
    return pd.DataFrame(rows)


def row(table, metric, point=None):
    sel = table[table["metric"] == metric]
    if point is not None:
        sel = sel[sel["point"] == point]
    assert len(sel) == 1, sel
    return sel.iloc[0]


def test_describe_hand_worked_1_2_3_4():
    d = stats.describe([1, 2, 3, 4])
    assert d["n"] == 4
    assert d["mean"] == pytest.approx(2.5)
    # Σ(x − 2.5)² = 2.25 + 0.25 + 0.25 + 2.25 = 5
    assert d["sd_pop"] == pytest.approx(math.sqrt(5 / 4))
    assert d["sd_sample"] == pytest.approx(math.sqrt(5 / 3))
    # Student t, 3 degrees of freedom, two-sided 95 %: 3.182446 (printed t tables: 3.182)
    half = 3.182446305284263 * math.sqrt(5 / 3) / 2
    assert d["ci95_low"] == pytest.approx(2.5 - half, rel=1e-9)
    assert d["ci95_high"] == pytest.approx(2.5 + half, rel=1e-9)
    assert (d["median"], d["min"], d["max"]) == (2.5, 1.0, 4.0)
    # mean absolute deviation of 1, 2, 3, 4 about 2.5: (1.5 + 0.5 + 0.5 + 1.5) / 4 = 1
    assert d["mad"] == pytest.approx(1.0)


def test_describe_one_value_has_no_sample_sd_or_interval():
    d = stats.describe([7.0])
    assert d["n"] == 1 and d["mean"] == 7.0 and d["sd_pop"] == 0.0
    assert math.isnan(d["sd_sample"])
    assert math.isnan(d["ci95_low"]) and math.isnan(d["ci95_high"])


def test_describe_ignores_nan_and_handles_empty():
    assert stats.describe([1.0, np.nan, 3.0])["mean"] == 2.0
    assert stats.describe([1.0, np.nan, 3.0])["n"] == 2
    empty = stats.describe([np.nan])
    assert empty["n"] == 0 and math.isnan(empty["mean"])


def test_summarise_columns_follow_the_schema():
    runs = tidy({0.0: {"elapsed_s": [1.0, 2.0], "writes": [10, 10]}}, ["elapsed_s", "writes"])
    out = stats.summarise(runs, ["drop_rate"])
    assert list(out.columns) == [
        "scenario", "backend", "profile", "point", "drop_rate", "metric", "n", "mean",
        "sd_pop", "sd_sample", "ci95_low", "ci95_high", "median", "min", "max", "mad",
    ]  # fmt: skip
    # repetition, seed and the axis are not metrics
    assert set(out["metric"]) == {
        "elapsed_s",
        "writes",
        "throughput_report_Bps",
        "throughput_wire_Bps",
    }


def test_table_4_1_first_row_throughput_and_var():
    runs = tidy(
        {r: {"elapsed_s": t, "writes": [100_000] * 10} for r, t in TABLE_4_1.items()},
        ["elapsed_s", "writes"],
    )
    out = stats.summarise(runs, ["drop_rate"])
    first = row(out, "throughput_report_Bps", "drop_rate=0.0")
    # The report: 1526 × 100000 / 12.311 = 12395419 B/s
    assert first["mean"] == pytest.approx(1526 * 100_000 / 12.311)
    assert round(first["mean"]) == 12395419
    assert first["n"] == 10
    assert np.isnan(first["sd_pop"])  # derived rows carry n and mean only
    wire = row(out, "throughput_wire_Bps", "drop_rate=0.0")
    assert wire["mean"] == pytest.approx(1538 * 100_000 / 12.311)
    # Printed AVG and VAR (population SD) of the 0.004 row: 12.630 and 0.117; throughput 12082344
    e = row(out, "elapsed_s", "drop_rate=0.004")
    assert round(e["mean"], 3) == 12.630
    assert round(e["sd_pop"], 3) == 0.117
    assert round(row(out, "throughput_report_Bps", "drop_rate=0.004")["mean"]) == 12082344


def test_drop_deviation_table_4_2():
    runs = tidy(
        {
            0.0: {"packets_dropped": [0] * 10, "writes": [100_000] * 10},
            0.008: {"packets_dropped": TABLE_4_2_0008, "writes": [100_000] * 10},
        },
        ["packets_dropped", "writes"],
    )
    out = stats.summarise(runs, ["drop_rate"], drop_prob_col="drop_rate")
    dev = row(out, "drop_deviation", "drop_rate=0.008")["mean"]
    # IDEAL = 100000 × 0.008 / 0.992 = 806.45; AVG = 8203 / 10 = 820.3 > IDEAL, so the sign is −;
    # the report prints |DEV| = 0.017.
    assert dev == pytest.approx((800 / 0.992 - 820.3) / (800 / 0.992))
    assert dev < 0 and round(abs(dev), 3) == 0.017
    # At p = 0 IDEAL is 0 and nothing was dropped: the report prints 0.000.
    assert row(out, "drop_deviation", "drop_rate=0.0")["mean"] == 0.0
    assert round(row(out, "packets_dropped", "drop_rate=0.008")["sd_pop"]) == 29  # printed VAR


def test_drop_deviation_needs_the_probability_column():
    runs = tidy(
        {0.01: {"packets_dropped": [1, 2], "writes": [10, 10]}}, ["packets_dropped", "writes"]
    )
    assert "drop_deviation" not in set(stats.summarise(runs, ["drop_rate"])["metric"])
    with pytest.raises(ValueError, match="drop_probability"):
        stats.summarise(runs, ["drop_rate"], drop_prob_col="drop_probability")


def test_point_order_is_kept_not_lexicographic():
    runs = tidy(
        {2000: {"elapsed_s": [1.0]}, 10000: {"elapsed_s": [5.0]}, 500: {"elapsed_s": [0.2]}},
        ["elapsed_s"],
        axis="iterations",
    )
    out = stats.summarise(runs, ["iterations"])
    assert list(out["point"]) == ["iterations=2000", "iterations=10000", "iterations=500"]


def test_backends_and_profiles_are_separate_groups_in_input_order():
    a = tidy({0.0: {"elapsed_s": [1.0, 3.0]}}, ["elapsed_s"], backend="ns3", profile="modern")
    b = tidy({0.0: {"elapsed_s": [2.0, 2.0]}}, ["elapsed_s"], backend="ns3", profile="linux22")
    c = tidy({0.0: {"elapsed_s": [5.0, 7.0]}}, ["elapsed_s"], backend="hardware")
    out = stats.summarise(pd.concat([a, b, c], ignore_index=True), ["drop_rate"])
    assert list(zip(out["backend"], out["profile"], out["mean"], strict=True)) == [
        ("ns3", "modern", 2.0),
        ("ns3", "linux22", 2.0),
        ("hardware", "ref", 6.0),
    ]  # fmt: skip
    assert list(out["sd_pop"]) == [1.0, 0.0, 1.0]


def test_timeouts_count_and_missing_metrics_are_skipped():
    runs = tidy({0.1: {"elapsed_s": [10.0, 30.0], "retransmissions": [np.nan, np.nan]}},
                ["elapsed_s", "retransmissions"], status="timeout")  # fmt: skip
    out = stats.summarise(runs, ["drop_rate"])
    assert row(out, "elapsed_s")["n"] == 2 and row(out, "elapsed_s")["mean"] == 20.0
    assert "retransmissions" not in set(out["metric"])


def test_missing_axis_column_is_named():
    runs = tidy({0.1: {"elapsed_s": [1.0]}}, ["elapsed_s"])
    with pytest.raises(ValueError, match="cutoff"):
        stats.summarise(runs, ["cutoff"])


def test_stalled_runs_table_4_4_first_row():
    # Table 4.4, 10000 iterations, regular dropper: fastest 1.77 s, one run above 17.7 s.
    elapsed = [1.77, 12.73, 1.77, 1.77, 1.78, 1.77, 1.77, 346.65, 1.78, 1.77]
    runs = pd.DataFrame(
        {"iterations": 10000, "dropper": ["regular"] * 10 + ["random"] * 2,
         "elapsed_s": [*elapsed, 122.34, 114.58]}
    )  # fmt: skip
    out = stats.stalled_runs(runs, ["iterations", "dropper"])
    regular = out[out["dropper"] == "regular"].iloc[0]
    assert (regular["n"], regular["stalled"]) == (10, 1)
    assert regular["stalled_fraction"] == pytest.approx(0.1)
    assert regular["fastest_elapsed_s"] == 1.77
    random = out[out["dropper"] == "random"].iloc[0]
    assert (random["n"], random["stalled"]) == (2, 0)
    # With a factor of 5 the 12.73 s run (> 8.85 s) stalls too.
    five = stats.stalled_runs(runs, ["iterations", "dropper"], factor=5)
    assert five[five["dropper"] == "regular"]["stalled"].iloc[0] == 2


def test_aborted_runs_are_left_out_of_the_statistics():
    runs = pd.DataFrame(
        {
            "scenario": "s",
            "backend": "ns3",
            "profile": "p",
            "point": "x=1",
            "x": 1,
            "repetition": [1, 2, 3],
            "seed": 1,
            "status": ["ok", "aborted", "timeout"],
            "elapsed_s": [10.0, 3.0, 20.0],
        }
    )
    table = stats.summarise(runs, ["x"])
    row = table[table["metric"] == "elapsed_s"].iloc[0]
    # The aborted run's 3 s is not an elapsed time; the timed-out run's 20 s is a lower bound.
    assert row["n"] == 2 and row["mean"] == pytest.approx(15.0)


def test_equal_values_have_exactly_zero_spread():
    # 161.06 fourteen times: numpy's plain std gives 2.8e-14 (rounding in the mean)
    d = stats.describe([161.06] * 14)
    assert d["mean"] == 161.06
    assert d["sd_pop"] == 0.0 and d["sd_sample"] == 0.0 and d["mad"] == 0.0
    assert d["ci95_low"] == d["ci95_high"] == 161.06


def test_the_archive_column_is_never_a_metric():
    from emusim.analysis.collect import ARCHIVE_COLUMN

    # a revision of digits only would read back from CSV as a number
    runs = pd.DataFrame(
        {"scenario": ["s"], "point": ["base"], "elapsed_s": [1.0], ARCHIVE_COLUMN: [1234567]}
    )
    assert stats.metric_columns(runs, []) == ["elapsed_s"]
