"""The 2001 study's emulation gap taken apart (emusim.studies.report_2001.decomposition), on a
statistics table whose relative differences are worked out by hand."""

import math

import pandas as pd
import pytest

from emusim.studies.report_2001 import decomposition


def _stats() -> pd.DataFrame:
    # throughput means at two points; (reference - other) / reference worked out below
    means = {
        ("hardware", "native"): (100.0, 50.0),
        ("mininet", "linux-2.2"): (80.0, 45.0),
        ("mininet", "linux-6.1"): (90.0, 60.0),
        ("ns3", "linux-2.2"): (95.0, 40.0),
        ("ns3", "linux-6.1"): (99.0, 66.0),
    }
    rows = [
        {"backend": b, "profile": p, "point": point, "metric": "throughput_report_Bps", "mean": m}
        for (b, p), values in means.items()
        for point, m in zip(("a", "b"), values, strict=True)
    ]
    return pd.DataFrame(rows)


def test_each_pair_is_the_median_of_its_relative_differences():
    table = decomposition.decompose("random-drop", _stats(), "throughput_report_Bps")
    got = dict(zip(table["part"], table["median"], strict=True))
    # hardware vs mininet 2.2: |100-80|/100 = 0.2, |50-45|/50 = 0.1 -> 0.15
    assert got["the emulation from the hardware"] == pytest.approx(0.15)
    # hardware vs ns-3 2.2: 0.05, 0.2 -> 0.125
    assert got["ns-3 from the hardware"] == pytest.approx(0.125)
    # ns-3 2.2 vs 6.1: |95-99|/95 = 0.0421, |40-66|/40 = 0.65 -> 0.3461
    assert got["Linux 6.1 is not 2.2, in ns-3"] == pytest.approx((4 / 95 + 26 / 40) / 2)
    # mininet 2.2 vs 6.1: 10/80 = 0.125, 15/45 = 0.333 -> 0.2292
    assert got["Linux 6.1 is not 2.2, in the emulation"] == pytest.approx((10 / 80 + 15 / 45) / 2)
    # mininet 6.1 vs ns-3 6.1: 9/90 = 0.1, 6/60 = 0.1 -> 0.1
    assert got["emulator against simulator, Linux 6.1"] == pytest.approx(0.1)
    # mininet 2.2 vs ns-3 2.2: 15/80 = 0.1875, 5/45 = 0.1111 -> 0.1493
    assert got["emulator against simulator, 2.2's settings"] == pytest.approx(
        (15 / 80 + 5 / 45) / 2
    )
    assert set(table["points"]) == {2}
    assert table.loc[table["part"] == "ns-3 from the hardware", "max"].item() == pytest.approx(0.2)


def test_a_side_that_did_not_run_gives_no_number():
    stats = _stats()
    stats = stats[~((stats["backend"] == "mininet") & (stats["profile"] == "linux-6.1"))]
    table = decomposition.decompose("random-drop", stats, "throughput_report_Bps")
    row = table[table["part"] == "emulator against simulator, Linux 6.1"].iloc[0]
    assert row["points"] == 0 and math.isnan(row["median"])


def test_the_metric_is_the_throughput_where_the_statistics_have_it():
    stats = _stats()
    assert decomposition.metric_of(stats) == "throughput_report_Bps"
    assert decomposition.metric_of(stats.assign(metric="elapsed_s")) == "elapsed_s"
    shown = decomposition.shown(
        decomposition.decomposition({"random-drop": stats}, ["random-drop"])
    )
    assert list(shown["part"]) == [part for part, _, _ in decomposition.PAIRS]
