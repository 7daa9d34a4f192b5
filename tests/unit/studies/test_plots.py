"""The 2001 report's figures (emusim.studies.report_2001.figures): every figure is written as a
valid PDF and PNG, reproducibly."""

import pandas as pd
import pytest

from emusim.analysis import compare, plotting, stats
from emusim.inputs import measurements_2001
from emusim.studies.report_2001 import figures as plots

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assert_figure(paths, stem):
    pdf, png = (stem.with_name(stem.name + ext) for ext in (".pdf", ".png"))
    assert list(paths) == [pdf, png]
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    assert b"CreationDate" not in data
    data = png.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR"
    assert len(data) > 10_000  # more than an empty canvas


def runs_table(backend, profile, scale, axis="drop_rate", values=(0.0, 0.02, 0.05)):
    """A tidy TCP blast table whose elapsed time grows with the drop rate, times ``scale``."""
    rows = []
    for v in values:
        for k, wobble in enumerate((0.98, 1.0, 1.02)):
            rows.append(
                {"scenario": "s", "backend": backend, "profile": profile, "point": f"{axis}={v}",
                 axis: v, "repetition": k + 1, "seed": k + 1, "status": "ok",
                 "elapsed_s": 12.3 * (1 + 40 * v) * scale * wobble, "writes": 100_000,
                 "packets_dropped": 100_000 * v * wobble}
            )  # fmt: skip
    return pd.DataFrame(rows)


@pytest.fixture
def stats_table():
    runs = pd.concat(
        [
            runs_table("hardware", "ref", 1.0),
            runs_table("mininet", "linux22", 1.05),
            runs_table("ns3", "linux22", 1.1),
            runs_table("ns3", "modern", 2.0),
        ],
        ignore_index=True,
    )
    return stats.summarise(runs, ["drop_rate"], drop_prob_col="drop_rate")


def test_random_and_regular_and_comparison_figures(stats_table, tmp_path):
    for name, fn in [
        ("fig4_1", plots.fig4_1_random_drop),
        ("fig4_2", plots.fig4_2_regular_drop),
        ("fig5_1", plots.fig5_1_exp_vs_sim),
    ]:
        stem = tmp_path / "figs" / name
        assert_figure(fn(stats_table, stem), stem)
    stem = tmp_path / "fig4_3"
    assert_figure(plots.fig4_3_random_vs_regular(stats_table, stats_table, stem), stem)
    cmp = compare.compare(stats_table, ["throughput_report_Bps"])
    stem = tmp_path / "fig5_2"
    assert_figure(plots.fig5_2_rel_diff(cmp, stem), stem)


def test_figures_are_byte_for_byte_reproducible(stats_table, tmp_path):
    a = plots.fig4_1_random_drop(stats_table, tmp_path / "a")
    b = plots.fig4_1_random_drop(stats_table, tmp_path / "b")
    for x, y in zip(a, b, strict=True):
        assert x.read_bytes() == y.read_bytes()


def test_rtt_figure_with_fitted_lines(tmp_path):
    rows = []
    for backend, slope in (("hardware", 0.3408), ("ns3", 0.32)):
        for size in (56, 256, 1408):
            for k, noise in enumerate((-2.0, 0.0, 2.0)):
                rows.append(
                    {"scenario": "ping", "backend": backend, "profile": "p",
                     "point": f"request_size_B={size}", "request_size_B": size, "repetition": k + 1,
                     "seed": k, "status": "ok", "rtt_us": slope * size + 161 + noise}
                )  # fmt: skip
    table = stats.summarise(pd.DataFrame(rows), ["request_size_B"])
    stem = tmp_path / "fig3_1"
    fits = {"report": (0.3408, 161.0556), "theory": (0.32, 161.0556)}
    assert_figure(plots.fig3_1_rtt_vs_size(table, stem, fits=fits, error="ci95"), stem)
    with pytest.raises(ValueError, match="error="):
        plots.fig3_1_rtt_vs_size(table, stem, error="sd")


def test_heavy_tail_figure(tmp_path):
    rows = []
    for backend in ("hardware", "ns3"):
        for iterations in (10000, 20000):
            for dropper, times in (("regular", [1.8, 1.8, 1.8, 350.0]), ("random", [120.0, 115.0])):
                for k, t in enumerate(times):
                    rows.append(
                        {"backend": backend, "profile": "p", "iterations": iterations,
                         "dropper": dropper, "repetition": k + 1,
                         "elapsed_s": t * iterations / 10000}
                    )  # fmt: skip
    stem = tmp_path / "fig4_4"
    assert_figure(plots.fig4_4_heavy_tail(pd.DataFrame(rows), stem), stem)


def test_missing_metric_or_axis_is_an_error(stats_table, tmp_path):
    with pytest.raises(ValueError, match="rtt_us"):
        plots.fig3_1_rtt_vs_size(stats_table, tmp_path / "x")
    with pytest.raises(ValueError, match="cutoff"):
        plots.fig4_2_regular_drop(stats_table.drop(columns="drop_rate"), tmp_path / "x", x="cutoff")


def test_throughput_band_maps_elapsed_sd_to_throughput():
    # mean elapsed 10 s, population SD 2 s, throughput T: band T·10/12 … T·10/8
    table = pd.DataFrame(
        {"scenario": "s", "backend": "hardware", "profile": "p", "point": "drop_rate=0.1",
         "drop_rate": 0.1, "metric": ["elapsed_s", "throughput_report_Bps"],
         "mean": [10.0, 1526e4], "sd_pop": [2.0, float("nan")]}
    )  # fmt: skip
    band = plotting.throughput_band(table).iloc[0]
    assert band["low"] == pytest.approx(1526e4 * 10 / 12)
    assert band["high"] == pytest.approx(1526e4 * 10 / 8)


def test_styles_colour_by_backend_marker_by_profile():
    styles = plotting.series_styles(
        [("hardware", "ref"), ("ns3", "linux22"), ("ns3", "modern"), ("mininet", "modern")]
    )
    assert styles[("hardware", "ref")]["marker"] == "o"
    assert styles[("hardware", "ref")]["linestyle"] == "-"
    assert styles[("ns3", "modern")]["marker"] == styles[("mininet", "modern")]["marker"]
    assert styles[("ns3", "modern")]["marker"] != styles[("ns3", "linux22")]["marker"]
    assert styles[("ns3", "modern")]["color"] == styles[("ns3", "linux22")]["color"]
    assert styles[("ns3", "modern")]["color"] != styles[("mininet", "modern")]["color"]
    assert styles[("ns3", "modern")]["label"] == "ns3, modern"
    # a profile keeps its style when another is absent, given the study's profile order
    order = ["ref", "linux22", "modern"]
    full = plotting.series_styles([("ns3", "linux22"), ("ns3", "modern")], profile_order=order)
    alone = plotting.series_styles([("hardware", "ref"), ("ns3", "modern")], profile_order=order)
    assert alone[("ns3", "modern")] == full[("ns3", "modern")]
    assert alone[("hardware", "ref")]["marker"] == "o"


@pytest.mark.skipif(
    "random_drop_elapsed" not in measurements_2001.available(), reason="no data/reference yet"
)
def test_fig4_1_from_the_2001_measurements(tmp_path):
    raw = measurements_2001.load("random_drop_elapsed")
    runs = raw.assign(
        scenario="random_drop",
        backend="hardware",
        profile="reference",
        point=[f"drop_rate={r:g}" for r in raw["drop_rate"]],
        repetition=raw["run"],
        seed=0,
        status="ok",
    )[["scenario", "backend", "profile", "point", "drop_rate", "repetition", "seed", "status",
       "writes", "elapsed_s"]]  # fmt: skip
    table = stats.summarise(runs, ["drop_rate"])
    tput = table[table["metric"] == "throughput_report_Bps"]
    assert len(tput) == 38  # drop rates 0.000 … 0.148 in steps of 0.004
    assert round(tput["mean"].iloc[0]) == 12395419  # Table 4.1, first row
    stem = tmp_path / "fig4_1_hardware"
    assert_figure(plots.fig4_1_random_drop(table, stem), stem)


def _slots_with_waits(n_packets, waits_after):
    # 0.1 ms per packet; a 200 ms wait for the timer after each index in waits_after
    t, now = [], 0.0
    for i in range(n_packets):
        t.append(now)
        now += 0.2 if i in waits_after else 1e-4
    return pd.DataFrame({"t_s": t})


def test_cycle_stretches_finds_a_good_cycle_only_where_one_lasts():
    # one wait after packet 40, then 400 packets without one: bad around 40, good in the
    # middle of packets 41..440 (centre (41 + 441) // 2 = 241, 60 packets: 211..270)
    out = plots.cycle_stretches(_slots_with_waits(441, {40}), stretch=60)
    assert out == {"bad": (10, 70), "good": (211, 271)}
    # a wait every 30 packets (a bad cycle throughout): no part holds 60 packets
    bad_only = plots.cycle_stretches(_slots_with_waits(300, set(range(29, 300, 30))), 60)
    assert set(bad_only) == {"bad"}
    # no wait at all: only a good cycle
    assert set(plots.cycle_stretches(_slots_with_waits(100, set()), 60)) == {"good"}
