"""What the study's jobs cost (emusim.planning.costs): Snakemake's benchmark files gathered into the
kept table, the kept runs' costs, and a planned job's estimate, each against numbers worked out by
hand from hand-written files."""

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from emusim.core import paths
from emusim.planning import costs

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
# 1 December 2026, 10:00:00 UTC
T0 = datetime(2026, 12, 1, 10, 0, 0, tzinfo=UTC).timestamp()


def _tsv(timing, job, *records, at=T0):
    """A benchmark file as Snakemake writes it: the header, then one line per record of
    (s, max_rss, cpu_time); its time `at`."""
    path = timing / f"{job}.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        f"{s}\t0:00:00\t{rss}\t80.00\t30.00\t31.00\t0.00\t0.12\t75.00\t{cpu}\n"
        for s, rss, cpu in records
    ]
    path.write_text(HEADER + "".join(lines))
    os.utime(path, (at, at))
    return path


def _run_json(path, provenance):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"backend": path.parts[-5], "provenance": provenance}))


# --- benchmark files and the kept table ---------------------------------------------------------


def test_a_benchmark_file_is_a_row_named_by_its_path(tmp_path):
    timing = tmp_path / "scales/quick/logs/timing"
    tsv = _tsv(timing, "ns3/random-drop/linux-2.2/drop_rate=0.02/run1", (12.5, 40.0, 10.25))
    row = costs.read_benchmark(tsv, timing)
    # ns3_run's folder is ns3 (the archive reads that layout); the job is the path without .tsv
    assert row == costs.Cost(
        "ns3_run",
        "ns3/random-drop/linux-2.2/drop_rate=0.02/run1",
        12.5,
        10.25,
        40.0,
        "2026-12-01T10:00:00Z",
    )


def test_a_repeated_benchmark_is_the_mean_of_its_records_and_na_is_none(tmp_path):
    timing = tmp_path / "logs/timing"
    # a rule with repeat(): 3 and 5 s -> 4 s; CPU sampled once (NA, then 1.5) -> 1.5; RSS NA twice
    tsv = _tsv(timing, "stats/random-drop", (3.0, "NA", "NA"), (5.0, "NA", 1.5))
    row = costs.read_benchmark(tsv, timing)
    assert (row.rule, row.job, row.wall_s, row.cpu_s, row.max_rss_MB) == (
        "stats",
        "stats/random-drop",
        4.0,
        1.5,
        None,
    )


def test_a_bad_benchmark_value_names_the_file_and_the_column(tmp_path):
    timing = tmp_path / "logs/timing"
    tsv = _tsv(timing, "figure/fig_x", ("ten", 1.0, 1.0))
    with pytest.raises(costs.CostError, match=r"fig_x\.tsv: column 's' has value 'ten'"):
        costs.read_benchmark(tsv, timing)


def test_collect_reads_every_rule_folder(tmp_path):
    timing = tmp_path / "logs/timing"
    _tsv(timing, "ns3_build", (300.0, 500.0, 590.0))
    _tsv(timing, "mininet_shard/lossy-link/linux-6.1/1-of-2", (3600.0, 900.0, 3000.0))
    rows = costs.collect(timing)
    assert [(r.rule, r.job) for r in rows] == [
        ("mininet_shard", "mininet_shard/lossy-link/linux-6.1/1-of-2"),
        ("ns3_build", "ns3_build"),
    ]


def _cost(job, cpu, measured="2026-12-01T10:00:00Z", wall=None, rule=None):
    return costs.Cost(
        rule or costs.rule_of(job), job, wall if wall is not None else cpu + 1, cpu, None, measured
    )


def test_merge_keeps_the_newer_measurement_of_a_job():
    kept = [
        _cost("stats/a", 1.0, "2026-12-01T10:00:00Z"),
        _cost("stats/b", 2.0, "2026-12-03T10:00:00Z"),
    ]
    new = [
        _cost("stats/a", 5.0, "2026-12-02T10:00:00Z"),  # newer: replaces
        _cost("stats/b", 9.0, "2026-12-02T10:00:00Z"),  # older than the kept one: ignored
        _cost("stats/c", 3.0, "2026-11-30T10:00:00Z"),  # new job
    ]
    merged = costs.merge(kept, new)
    assert [(c.job, c.cpu_s) for c in merged] == [
        ("stats/a", 5.0),
        ("stats/b", 2.0),
        ("stats/c", 3.0),
    ]


def test_the_kept_table_is_written_sorted_to_two_decimals_and_read_back(tmp_path):
    rows = [
        costs.Cost("stats", "stats/b", 2.0, None, 60.125, "2026-12-02T00:00:00Z"),
        costs.Cost("ns3_run", "ns3/a/p/x=1/run1", 1.234, 0.9, 40.0, "2026-12-01T00:00:00Z"),
    ]
    path = tmp_path / "data/costs/quick.csv"
    costs.write_table(path, rows)
    assert path.read_text() == (
        "rule,job,wall_s,cpu_s,max_rss_MB,measured\n"
        "ns3_run,ns3/a/p/x=1/run1,1.23,0.90,40.00,2026-12-01T00:00:00Z\n"
        "stats,stats/b,2.00,,60.12,2026-12-02T00:00:00Z\n"
    )
    back = costs.read_table(path)
    assert back[0] == costs.Cost(
        "ns3_run", "ns3/a/p/x=1/run1", 1.23, 0.9, 40.0, "2026-12-01T00:00:00Z"
    )
    assert back[1].cpu_s is None
    assert costs.read_table(tmp_path / "none.csv") == []


def test_collect_on_the_command_line_merges_into_the_scale_table(tmp_path, capsys):
    _tsv(tmp_path / "scales/quick/logs/timing", "stats/random-drop", (2.0, 50.0, 1.5))
    table = tmp_path / "data/costs/quick.csv"
    costs.write_table(table, [_cost("stats/baseline-tcp", 1.0)])
    assert costs.main(["collect", "--scale", "quick", "--repo", str(tmp_path)]) == 0
    assert [r.job for r in costs.read_table(table)] == ["stats/baseline-tcp", "stats/random-drop"]
    assert "2 jobs, 1 new or measured again" in capsys.readouterr().out


# --- kept runs ----------------------------------------------------------------------------------


def test_kept_runs_carry_their_cost(tmp_path):
    archive = tmp_path / "data/archive"
    base = archive / "paper"
    _run_json(
        base / "ns3/lossy-link/linux-6.1/delay_ms=5+loss=0.01+variant=yeah/run3.json",
        {"archive": {"cost": {"cpu_s": 99.76, "max_rss_MB": 40.54, "wall_s": 129.14}}},
    )
    _run_json(
        base / "ns3/lossy-link/linux-6.1/delay_ms=5+loss=0+variant=reno/run1.json",
        {"git_revision": "abc1234"},
    )  # kept before costs were: left out
    _run_json(
        base / "mininet/lossy-link/linux-6.1/delay_ms=10+loss=0.01+variant=reno/run2.json",
        {"host_cpu_s": 335.83, "host_s": 2492.593},
    )
    # a session's record is not a run
    _run_json(base / "mininet/lossy-link/linux-6.1/sessions/9f4e.json", {"host_cpu_s": 1.0})
    rows = costs.kept_runs(archive, "paper")
    assert rows == [
        costs.Cost(
            "ns3_run",
            "ns3/lossy-link/linux-6.1/delay_ms=5+loss=0.01+variant=yeah/run3",
            129.14,
            99.76,
            40.54,
        ),
        costs.Cost(
            "mininet_run",
            "mininet/lossy-link/linux-6.1/delay_ms=10+loss=0.01+variant=reno/run2",
            2492.593,
            335.83,
            None,
        ),
    ]
    assert costs.kept_runs(archive, "quick") == []


# --- estimates ----------------------------------------------------------------------------------

RD = "ns3/random-drop/linux-2.2"


@pytest.fixture
def book():
    measured = [
        _cost(f"{RD}/drop_rate=0.02/run1", 10.0),
        _cost(f"{RD}/drop_rate=0.06/run1", 20.0),
        _cost(f"{RD}/drop_rate=0.1/run1", 60.0),
        _cost("ns3/ping-sweep/linux-2.2/request_size_B=56/run1", 2.0),
        _cost("stats/random-drop", 4.0, wall=8.0),
        # a job that ended before Snakemake sampled it: its wall time stands for its CPU time
        costs.Cost("stats", "stats/ping-sweep", 0.3, None),
    ]
    kept = [
        # measured too: the measurement wins
        _cost(f"{RD}/drop_rate=0.02/run1", 999.0, measured=""),
        _cost("ns3/lossy-link/linux-6.1/delay_ms=10+loss=0.01+variant=reno/run1", 100.0, ""),
        _cost(
            "mininet/lossy-link/linux-6.1/delay_ms=10+loss=0.01+variant=reno/run1",
            100.0,
            "",
            wall=400.0,
            rule="mininet_run",
        ),
        _cost(
            "mininet/lossy-link/linux-6.1/delay_ms=10+loss=0.05+variant=reno/run1",
            200.0,
            "",
            wall=800.0,
            rule="mininet_run",
        ),
        _cost(
            "mininet/lossy-link/linux-6.1/delay_ms=10+loss=0.05+variant=reno/run2",
            300.0,
            "",
            wall=1200.0,
            rule="mininet_run",
        ),
        _cost(
            "mininet/lossy-link/linux-2.2/delay_ms=10+loss=0.05+variant=reno/run1",
            5000.0,
            "",
            wall=5000.0,
            rule="mininet_run",
        ),
    ]
    return costs.CostBook(measured, kept)


@pytest.mark.parametrize(
    ("rule", "timing", "expected"),
    [
        # its own measurement (not the kept run's 999)
        ("ns3_run", f"{RD}/drop_rate=0.02/run1", (10.0, 11.0, costs.MEASURED)),
        # a kept run of the same path
        (
            "ns3_run",
            "ns3/lossy-link/linux-6.1/delay_ms=10+loss=0.01+variant=reno/run1",
            (100.0, 101.0, costs.MEASURED),
        ),
        # random-drop's 10, 20, 60 CPU-s and 11, 21, 61 wall-s: the medians 20 and 21
        ("ns3_run", f"{RD}/drop_rate=0/run2", (20.0, 21.0, costs.SCENARIO_MEDIAN)),
        # no run of regular-drop: the rule's 2, 10, 20, 60, 100 CPU-s -> 20; wall 21
        ("ns3_run", "ns3/regular-drop/linux-2.2/every_n=6/run1", (20.0, 21.0, costs.RULE_MEDIAN)),
        ("ns3_run", None, (20.0, 21.0, costs.RULE_MEDIAN)),
        # stats: 4 CPU-s and the other's 0.3 wall-s (no CPU sampled): median 2.15; wall 4.15
        ("stats", "stats/regular-drop", (2.15, 4.15, costs.RULE_MEDIAN)),
        ("stats", "stats/ping-sweep", (0.3, 0.3, costs.MEASURED)),
        # the linux-6.1 batch's kept runs, 100 + 200 + 300 CPU-s and 2400 wall-s, over 2 shards
        (
            "mininet_shard",
            "mininet_shard/lossy-link/linux-6.1/1-of-2",
            (300.0, 1200.0, costs.BATCH_SHARE),
        ),
        # no kept run of the batch, no shard measured
        ("mininet_shard", "mininet_shard/ping-sweep/linux-2.2/1-of-2", (None, None, costs.UNKNOWN)),
        ("figure", "figure/fig4_1_random_drop", (None, None, costs.UNKNOWN)),
        ("ns3_restore", None, (0.0, 0.0, costs.FREE)),
        ("all", None, (0.0, 0.0, costs.FREE)),
    ],
)
def test_an_estimate_comes_from_the_first_level_that_has_one(book, rule, timing, expected):
    est = book.estimate(rule, timing)
    assert (est.cpu_s, est.wall_s, est.how) == pytest.approx(expected)


def test_a_measured_shard_comes_before_its_batch_share():
    measured = [_cost("mininet_shard/lossy-link/linux-6.1/2-of-2", 700.0, wall=900.0)]
    kept = [_cost("mininet/lossy-link/linux-6.1/p/run1", 100.0, "", rule="mininet_run")]
    est = costs.CostBook(measured, kept).estimate(
        "mininet_shard", "mininet_shard/lossy-link/linux-6.1/1-of-2"
    )
    assert (est.cpu_s, est.wall_s, est.how) == (700.0, 900.0, costs.SCENARIO_MEDIAN)


def test_load_merges_the_table_the_benchmark_files_and_the_kept_runs(tmp_path):
    costs.write_table(tmp_path / "data/costs/quick.csv", [_cost("stats/random-drop", 1.0)])
    _tsv(tmp_path / "scales/quick/logs/timing", "stats/random-drop", (4.0, 1.0, 3.0), at=T0 + 3600)
    _run_json(
        tmp_path / "data/archive/quick/ns3/a/p/x=1/run1.json",
        {"archive": {"cost": {"cpu_s": 7.0, "wall_s": 8.0}}},
    )
    book = costs.load("quick", tmp_path, Path("data/archive"))
    assert (book.n_measured, book.n_kept) == (1, 1)
    # the newer benchmark file's 3 CPU-s, not the table's 1
    assert book.estimate("stats", "stats/random-drop").cpu_s == 3.0
    assert book.estimate("ns3_run", "ns3/a/p/x=1/run1").cpu_s == 7.0
    assert costs.load("quick", tmp_path, None).n_kept == 0


# --- paths and numbers --------------------------------------------------------------------------


def test_a_benchmark_path_gives_the_scale_and_the_job():
    prefix, job = costs.timing_job("scales/quick/logs/timing/ns3/a/p/x=1/run2.tsv")
    assert (prefix, job) == ("scales/quick/", "ns3/a/p/x=1/run2")
    assert paths.scale_of_prefix(prefix) == "quick"
    assert costs.timing_job("logs/timing/paper.tsv") == ("", "paper")
    assert paths.scale_of_prefix("") == "paper"
    assert costs.scenario_of("ns3/a/p/x=1/run2") == "a"
    assert costs.scenario_of("figure/fig4_1") == "fig4_1"
    assert costs.scenario_of("ns3_build") is None
    with pytest.raises(costs.CostError, match="not below a scale's logs/timing/"):
        costs.timing_job("benchmarks/x.tsv")
    with pytest.raises(ValueError, match="no scale writes there"):
        paths.scale_of_prefix("results/")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (None, "?"),
        (0, "0"),
        (0.2, "<0.0001"),
        (18, "0.005"),
        (1800, "0.5"),
        (3600, "1.00"),
        (45_000, "12.50"),
    ],
)
def test_hours_are_written_to_two_significant_digits_below_an_hour(seconds, text):
    assert costs.hours(seconds) == text


# --- the plan's table ---------------------------------------------------------------------------


def test_summarize_counts_and_sums_per_rule(book):
    jobs = [
        costs.Job("ns3_run", f"{RD}/drop_rate=0.02/run1"),  # measured: 10 CPU-s, 11 wall-s
        costs.Job("ns3_run", f"{RD}/drop_rate=0/run1"),  # scenario median: 20, 21
        costs.Job("ns3_run", "ns3/regular-drop/linux-2.2/every_n=6/run1"),  # rule median: 20, 21
        costs.Job("mininet_shard", "mininet_shard/lossy-link/linux-6.1/1-of-2"),  # 300, 1200
        costs.Job("mininet_shard", "mininet_shard/ping-sweep/linux-2.2/1-of-2"),  # unknown
        costs.Job("ns3_restore", None, "results/ns3/x/run1.json"),  # free
    ]
    rows, total = costs.summarize(jobs, book, cores=2)
    assert [r.rule for r in rows] == ["mininet_shard", "ns3_run", "ns3_restore"]
    shard, ns3, restore = rows
    assert (shard.jobs, shard.unknown, shard.cpu_s) == (2, 1, 300.0)
    assert shard.wall_on(2) == 1200.0  # one known job: its own wall time
    assert (ns3.jobs, ns3.jobs_by[costs.MEASURED], ns3.jobs_by[costs.SCENARIO_MEDIAN]) == (3, 1, 1)
    assert (ns3.jobs_by[costs.RULE_MEDIAN], ns3.cpu_s) == (1, 50.0)
    assert ns3.wall_on(2) == 26.5  # (11 + 21 + 21) / 2, longer than the longest job's 21
    assert (restore.jobs, restore.cpu_s) == (1, 0.0)
    assert (total.jobs, total.unknown, total.cpu_s) == (6, 1, 350.0)
    # (53 + 1200) / 2 = 626.5 on 2 cores, but the shard alone takes 1200
    assert total.wall_on(2) == 1200.0
    with pytest.raises(costs.CostError, match="cores 0"):
        costs.summarize(jobs, book, cores=0)
