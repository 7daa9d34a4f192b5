"""emusim.analysis.compare against hand-worked relative differences."""

import logging
import math

import numpy as np
import pandas as pd
import pytest

from emusim.analysis import compare


def stats_rows(backend, profile, means, metric="throughput_report_Bps", scenario="s"):
    """Statistics rows with only the columns compare reads; ``means`` maps point to mean."""
    return pd.DataFrame(
        {
            "scenario": scenario,
            "backend": backend,
            "profile": profile,
            "point": list(means),
            "metric": metric,
            "n": 10,
            "mean": list(means.values()),
        }
    )


@pytest.fixture
def table():
    return pd.concat(
        [
            stats_rows("hardware", "ref", {"drop_rate=0": 10.0, "drop_rate=0.1": 4.0}),
            stats_rows("hardware", "ref", {"drop_rate=0": 0.0}, metric="packets_dropped"),
            stats_rows("ns3", "linux22", {"drop_rate=0": 8.0, "drop_rate=0.1": 5.0}),
            stats_rows("ns3", "modern", {"drop_rate=0.1": 1.0, "drop_rate=0.2": 0.5}),
            stats_rows("ns3", "linux22", {"drop_rate=0": 3.0}, metric="packets_dropped"),
        ],
        ignore_index=True,
    )


def test_rel_diff_hand_examples():
    assert compare.rel_diff(10.0, 8.0) == pytest.approx(0.2)  # (10 − 8) / 10
    assert compare.rel_diff(4.0, 5.0) == pytest.approx(-0.25)  # (4 − 5) / 4
    assert math.isnan(compare.rel_diff(0.0, 3.0))
    assert list(compare.rel_diff(np.array([2.0, 1.0]), np.array([1.0, 1.5]))) == [0.5, -0.5]


def test_compare_pairs_points_per_backend_and_profile(table, caplog):
    with caplog.at_level(logging.WARNING, logger="emusim.analysis.compare"):
        out = compare.compare(table, ["throughput_report_Bps"])
    assert list(out.columns) == list(compare.COMPARE_COLS)
    got = list(out[["profile", "point", "exp", "sim"]].itertuples(index=False, name=None))
    assert got == [
        ("linux22", "drop_rate=0", 10.0, 8.0),
        ("linux22", "drop_rate=0.1", 4.0, 5.0),
        ("modern", "drop_rate=0.1", 4.0, 1.0),
    ]
    assert list(out["rel_diff"]) == pytest.approx([0.2, -0.25, 0.75])
    assert set(out["backend"]) == {"ns3"}
    # modern lacks drop_rate=0 and has drop_rate=0.2, which the hardware lacks: both reported
    assert "drop_rate=0.2" in caplog.text and "2 point(s)" in caplog.text


def test_unmatched_points_lists_both_sides(table):
    missing = compare.unmatched_points(table, ["throughput_report_Bps"])
    got = set(missing[["profile", "point", "missing_on"]].itertuples(index=False, name=None))
    assert got == {("modern", "drop_rate=0.2", "reference"), ("modern", "drop_rate=0", "backend")}


def test_zero_reference_gives_nan(table):
    out = compare.compare(table, ["packets_dropped"])
    assert len(out) == 1 and math.isnan(out["rel_diff"].iloc[0])


def test_two_reference_profiles_need_a_choice(table):
    extra = stats_rows("hardware", "testbed", {"drop_rate=0": 20.0})
    both = pd.concat([table, extra], ignore_index=True)
    with pytest.raises(ValueError, match="reference_profile"):
        compare.compare(both, ["throughput_report_Bps"])
    out = compare.compare(both, ["throughput_report_Bps"], reference_profile="testbed")
    assert list(out["exp"]) == [20.0]
    assert out["rel_diff"].iloc[0] == pytest.approx((20 - 8) / 20)


def test_summarise_comparisons_median_max_and_where():
    a = pd.DataFrame(
        {
            "scenario": "s",
            "backend": "ns3",
            "profile": "linux22",
            "point": ["p1", "p2", "p3", "p4"],
            "metric": "m",
            "exp": 1.0,
            "sim": 1.0,
            "rel_diff": [0.1, -0.3, 0.2, np.nan],
        }
    )
    b = a.assign(backend="mininet", rel_diff=[0.05, 0.05, -0.01, 0.02])
    out = compare.summarise_comparisons([a, b])
    assert list(out.columns) == list(compare.SUMMARY_COLS)
    ns3 = out[out["backend"] == "ns3"].iloc[0]
    # |rel_diff| = 0.1, 0.3, 0.2 (NaN left out): median 0.2, max 0.3 at p2
    assert ns3["n_points"] == 3
    assert ns3["median_abs_rel_diff"] == pytest.approx(0.2)
    assert ns3["max_abs_rel_diff"] == pytest.approx(0.3)
    assert ns3["point_of_max"] == "p2"
    mininet = out[out["backend"] == "mininet"].iloc[0]
    # 0.05, 0.05, 0.01, 0.02: median (0.02 + 0.05) / 2, max 0.05 first at p1
    assert mininet["median_abs_rel_diff"] == pytest.approx(0.035)
    assert mininet["point_of_max"] == "p1"
    assert compare.summarise_comparisons([]).empty


def test_axis_values_parse_point_ids():
    points = pd.Series(["iterations=10000+dropper=regular", "iterations=20000+dropper=random"])
    assert list(compare.axis_values(points, "iterations")) == [10000.0, 20000.0]
    assert list(compare.axis_values(points, "dropper")) == ["regular", "random"]
    assert compare.axis_values(["base"], "drop_rate").isna().all()


def test_two_backends_are_compared_on_what_both_report():
    # ns-3's three-host program reports no goodput; Mininet does (a scenario without hardware)
    stats = pd.DataFrame(
        [
            {"backend": "ns3", "profile": "p", "point": "x=1", "metric": "elapsed_s", "mean": 2.0},
            {
                "backend": "mininet",
                "profile": "p",
                "point": "x=1",
                "metric": "elapsed_s",
                "mean": 2.5,
            },
            {
                "backend": "mininet",
                "profile": "p",
                "point": "x=1",
                "metric": "goodput_Bps",
                "mean": 9.0,
            },
        ]
    )
    metrics = ["goodput_Bps", "elapsed_s"]
    assert compare.shared_metrics(stats, metrics, ("mininet", "ns3")) == ["elapsed_s"]
    points = pd.DataFrame([{"profile": "p", "point": "x=1", "x": 1}])
    table = compare.compare_backends(stats, points, metrics, "mininet", "ns3", {}, {})
    assert list(table["metric"]) == ["elapsed_s"]
    assert table["rel_diff"].iloc[0] == pytest.approx((2.5 - 2.0) / 2.5)
    # a backend with no results at all removes nothing: its rows say it did not run
    only_mininet = stats[stats["backend"] == "mininet"]
    assert compare.shared_metrics(only_mininet, metrics, ("mininet", "ns3")) == metrics


def _t4_cdf(t):
    """Student's t CDF with 4 degrees of freedom in closed form: A(t|4) = sin θ (1 + cos² θ / 2)
    with θ = atan(t / 2) (Abramowitz & Stegun 26.7.3), so F = 1/2 + u (3 − u²) / 4 with
    u = sin θ = t / √(4 + t²)."""
    u = t / math.sqrt(4 + t * t)
    return 0.5 + u * (3 - u * u) / 4


def test_each_cell_is_measured_against_both_sides_spread():
    # mininet 12 ± 1 (3 runs), ns3 10 ± 1 (3 runs): Welch's t = 2 / √(1/3 + 1/3) = √6, with
    # (2/3)² / ((1/3)² / 2 · 2) = 4 degrees of freedom; two-sided p = 2 (1 − F₄(√6))
    rows = [
        {"backend": b, "profile": "p", "point": pt, "metric": "goodput_Bps", **s}
        for b, pt, s in (
            ("mininet", "x=1", {"mean": 12.0, "sd_sample": 1.0, "n": 3}),
            ("ns3", "x=1", {"mean": 10.0, "sd_sample": 1.0, "n": 3}),
            ("mininet", "x=2", {"mean": 5.0, "sd_sample": 0.0, "n": 3}),
            ("ns3", "x=2", {"mean": 4.0, "sd_sample": 0.0, "n": 1}),
        )
    ]
    points = pd.DataFrame([{"profile": "p", "point": f"x={i}", "x": i} for i in (1, 2)])
    table = compare.compare_backends(
        pd.DataFrame(rows), points, ["goodput_Bps"], "mininet", "ns3", {}, {}
    )
    spread = table.iloc[0]
    assert spread["welch_p"] == pytest.approx(2 * (1 - _t4_cdf(math.sqrt(6))), rel=1e-9)
    assert 0.05 < spread["welch_p"] < 0.1  # a gap of 2 SDs from 3 runs a side: not beyond chance
    assert (spread["mininet_sd"], spread["ns3_sd"], spread["mininet_n"], spread["ns3_n"]) == (
        1.0, 1.0, 3, 3,
    )  # fmt: skip
    # one run on a side has no spread to measure against
    assert math.isnan(table.iloc[1]["welch_p"])
    # identical spreads of nothing: an exact gap, not a draw
    assert math.isnan(compare.welch_p(5.0, 0.0, 3, 4.0, 0.0, 3))
    # a gap far beyond both spreads
    assert compare.welch_p(100.0, 1.0, 12, 50.0, 1.0, 12) < 1e-10
