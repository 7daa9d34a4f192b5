"""The Snakemake workflow at quick scale, in a copy of the repository: end to end, a rerun that
does nothing, one deleted run redone alone, an interrupted run resumed, a bad scenario refused
before any job runs."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from workflow_copy import SNAKEMAKE, copy_workflow, snakemake_quick

from emusim.analysis import tcp_events
from emusim.analysis.collect import ARCHIVE_COLUMN
from emusim.inputs import scenario as sc
from emusim.inputs import variants
from emusim.studies.multiflow import phases as multiflow_phases
from emusim.studies.report_2001 import analytic

pytestmark = [pytest.mark.ns3, pytest.mark.slow]


@pytest.fixture(scope="module")
def workdir(quick_study):
    """The quick-scale study's copy of the workflow (conftest.py), which test_paper.py reads
    too: every test here that changes it puts it back."""
    return quick_study


def snakemake(workdir: Path, *args: str, check=True) -> subprocess.CompletedProcess:
    return snakemake_quick(workdir, *args, check=check)


def _planned_jobs(proc: subprocess.CompletedProcess) -> dict[str, int]:
    """Job counts from a dry run's 'Job stats' table."""
    counts, in_table = {}, False
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.startswith("job ") and "count" in line:
            in_table = True
            continue
        if in_table:
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                counts[parts[0]] = int(parts[1])
            elif counts:
                break
    return counts


def test_end_to_end(workdir):
    out = workdir / "scales" / "quick"
    for stem in (
        "fig3_1_rtt_vs_size",
        "fig4_1_random_drop",
        "fig4_2_regular_drop",
        "fig4_3_random_vs_regular",
        "fig4_4_heavy_tail",
        "fig5_1_exp_vs_sim",
        "fig5_2_rel_diff",
        "fig4_5_pathology",
        "fig_ablation",
    ):
        for ext in ("pdf", "png"):
            assert (out / "figures" / f"{stem}.{ext}").stat().st_size > 1000
    for table in ("tcp_profiles", "delay_fit", "summary", "random-drop", "ablation"):
        for ext in ("csv", "tex", "html"):
            assert (out / "paper" / "tables" / f"{table}.{ext}").exists()
    summary = (out / "results" / "compare" / "summary.csv").read_text()
    assert "random-drop,ns3,linux-2.2" in summary and "random-drop,ns3,ns3-default" in summary
    # linux-2.2's random tick phase makes a regular dropper's point random, as the hardware's
    # runs were (issue 18): its 2 quick repetitions run; ns3-default's point is simulated once,
    # and a ping sweep, which has no TCP for the phase to act on, once with either profile.
    ns3 = out / "results" / "ns3"
    regular = "regular-drop/{}/drop_rate=0.05+every_n=20/run{}.json"
    assert (ns3 / regular.format("linux-2.2", 2)).exists()
    assert not (ns3 / regular.format("ns3-default", 2)).exists()
    pings = list((ns3 / "ping-sweep" / "linux-2.2").rglob("run*.json"))
    assert pings and all(p.name == "run1.json" for p in pings)


def test_ablation_ends_where_the_main_comparison_is(workdir):
    """Step 0 is ns3-default and the last step linux-2.2, on the main sweeps' own runs: on the
    thinned design's points (config ablation.design: every point_stride-th point), each point's
    comparison is the main comparison's, and each step's median is theirs."""
    out = workdir / "scales" / "quick" / "results"
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    strides = config["ablation"]["design"]["quick"]["point_stride"]
    ablation = pd.read_csv(out / "ablation" / "summary.csv")
    last = ablation["step"].max()
    metric = "throughput_report_Bps"
    for scenario in ("random-drop", "regular-drop"):
        points = [p.id for p in sc.load(scenario, "quick").points][:: strides[scenario]]
        assert 1 < len(points) < len(sc.load(scenario, "quick").points)
        steps = pd.read_csv(out / "ablation" / f"{scenario}.csv")
        main = pd.read_csv(out / "compare" / f"{scenario}.csv")
        for step, profile in ((0, "ns3-default"), (last, "linux-2.2")):
            a = steps[(steps["step"] == step) & (steps["metric"] == metric)]
            m = main[(main["profile"] == profile) & (main["metric"] == metric)]
            assert sorted(a["point"]) == sorted(points), (scenario, step)
            m = m.set_index("point").loc[a["point"]]
            assert a["rel_diff"].tolist() == pytest.approx(m["rel_diff"].tolist())
            row = ablation[
                (ablation["step"] == step)
                & (ablation["scenario"] == scenario)
                & (ablation["metric"] == metric)
            ]
            assert len(row) == 1
            assert row["median_abs_rel_diff"].iloc[0] == pytest.approx(
                np.median(np.abs(m["rel_diff"]))
            )
    assert sorted(ablation["step"].unique()) == list(range(last + 1))


def test_traces_explain_the_timeouts(workdir):
    out = workdir / "scales" / "quick" / "results"
    traced = sorted((out / "traces").rglob("run1.json"))
    assert traced
    for run in traced:
        main = out / "ns3" / run.relative_to(out / "traces")
        # Tracing observes only: the traced run is the run.
        assert json.loads(run.read_text())["metrics"] == json.loads(main.read_text())["metrics"]
    summary = pd.read_csv(out / "traces" / "summary.csv")
    row = summary[
        (summary["scenario"] == "regular-1in6")
        & (summary["profile"] == "linux-2.2")
        & summary["point"].str.contains("mode=regular")
    ].iloc[0]
    path = next((out / "traces" / "regular-1in6" / "linux-2.2").glob("*mode=regular/run1.csv.gz"))
    trace = tcp_events.read(path)
    slots = tcp_events.dropper_slots(trace, every_n=6)
    series = tcp_events.timeouts(trace)
    assert row["timeout_series"] == len(series) >= 1
    # A timeout series that follows a lost retransmission: the retransmission was the
    # dropper's (its N-th packet), and the head's next transmission is the timeout's.
    lost = series[series["cause"] == "retransmission lost"]
    assert len(lost) >= 1
    for seg, t in lost[["segment", "t_s"]].itertuples(index=False, name=None):
        before = slots[(slots["segment"] == seg) & (slots["t_s"] < t)]
        assert before["retransmission"].iloc[-1] and before["dropped"].iloc[-1]
    # Every series starts with a timeout of 2.2's timer: at least its 200 ms floor less one
    # 10 ms tick after the head's last transmission (the timer fires on a tick); every wait
    # for a timer belongs to a series.
    for seg, t in series[["segment", "t_s"]].itertuples(index=False, name=None):
        before = slots[(slots["segment"] == seg) & (slots["t_s"] < t)]
        assert t - before["t_s"].iloc[-1] >= 0.19
    gaps = np.diff(slots["t_s"].to_numpy())
    waits = gaps[gaps > tcp_events.RTO_GAP_S]
    assert len(waits) == row["rto_waits"] >= row["timeout_series"]
    assert waits.sum() == pytest.approx(row["rto_wait_s"])


def test_analytic_curves_are_the_formulas(workdir):
    out = workdir / "scales" / "quick" / "results"
    curves = pd.read_csv(out / "analytic" / "random-drop.csv")
    delay = json.loads((out / "delay" / "one_way_delay.json").read_text())["one_way_delay_us"]
    row = curves[(curves["model"] == "PFTK") & (curves["profile"] == "linux-2.2")].iloc[50]
    model = analytic.PathModel(rtt_s=analytic.data_rtt_s(delay), t0_s=0.2, w_max=22, b=2)
    expected = analytic.goodput_pps(analytic.pftk_full_pps(row["p"], model), row["p"], model)
    assert row["goodput_pps"] == pytest.approx(expected)
    assert set(curves["model"]) == {"PFTK", "Mathis"}


def test_second_run_does_nothing(workdir):
    proc = snakemake(workdir, "all", "-n")
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_deleted_run_is_redone_alone_with_the_same_bytes(workdir):
    run = workdir / "scales/quick/results/ns3/random-drop/linux-2.2/drop_rate=0.02/run2.json"
    before = run.read_bytes()
    run.unlink()
    jobs = _planned_jobs(snakemake(workdir, "all", "-n"))
    assert jobs.get("ns3_run") == 1, jobs
    assert jobs.get("ns3_collect") == 1 and "hardware_reference" not in jobs
    snakemake(workdir, "all")
    assert run.read_bytes() == before


def test_interrupted_sweep_resumes_without_redoing_runs(workdir):
    runs_dir = workdir / "scales/quick/results/ns3/regular-1in6"
    shutil.rmtree(runs_dir)
    env = dict(os.environ, EMUSIM_ROOT=str(workdir))
    proc = subprocess.Popen(
        [*SNAKEMAKE, "--cores", "1", "all", "--config", "scale=quick", "backends=[hardware,ns3]"],
        cwd=workdir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(runs_dir.rglob("run*.json"))) < 2:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    proc.wait(timeout=120)
    done = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in runs_dir.rglob("run*.json")}
    assert done, "no run finished before the interrupt"
    assert not list(runs_dir.rglob("*.tmp")), "a half-written run was left behind"
    snakemake(workdir, "all")
    # The one job in flight (--cores 1) may have written its file before Snakemake recorded it
    # as complete; Snakemake then redoes it. Every other finished run stays untouched, and a
    # redone run has the same bytes.
    redone = [p for p, (mtime, _) in done.items() if p.stat().st_mtime_ns != mtime]
    assert len(redone) <= 1, f"finished runs were redone: {redone}"
    for path, (_, content) in done.items():
        assert path.read_bytes() == content, f"{path} changed"


def test_invalid_scenario_stops_before_any_job(workdir):
    bad = workdir / "scenarios" / "zz-bad.yaml"
    bad.write_text(
        (workdir / "scenarios" / "random-drop.yaml")
        .read_text()
        .replace("mode: random", "mode: sometimes")
    )
    try:
        proc = snakemake(workdir, "all", check=False)
    finally:
        bad.unlink()
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "zz-bad.yaml" in text and "impairment.dropper.mode" in text and "'sometimes'" in text
    # Refused while loading: no job was scheduled, nothing was written.
    assert "Job stats" not in text and "rule ns3_run" not in text
    assert not list((workdir / "scales" / "quick" / "results" / "ns3").glob("zz-bad*"))


MULTIFLOW_SCENARIOS = ["multiflow-dynamic-i", "multiflow-dynamic-ii", "multiflow-buffer"]
MULTIFLOW_FIGURES = [
    "fig_multiflow_dynamic_i_throughput",
    "fig_multiflow_dynamic_i_queue",
    "fig_multiflow_dynamic_ii",
    "fig_multiflow_buffer",
]


def test_the_multiflow_study(workdir):
    """The multi-flow study (issue 9) in the same `snakemake all`: its runs, per-phase tables,
    four figures and the paper section, the tables checked against the runs' own series and
    against what FAST's design predicts."""
    quick = workdir / "scales" / "quick"
    for stem in MULTIFLOW_FIGURES:
        for ext in ("pdf", "png"):
            assert (quick / "figures" / f"{stem}.{ext}").stat().st_size > 10_000, stem
    for name in MULTIFLOW_SCENARIOS:
        s = sc.load(name, "quick")
        phases = pd.read_csv(quick / "results" / "multiflow" / f"{name}.csv")
        assert (quick / "paper" / "tables" / f"{name}-phases.tex").exists()
        # one row per point and phase, every variant of the scenario there
        assert len(phases) == len(s.points) * s.settings["workload"]["phases"]
        assert set(phases["variant"]) == {p.variant for p in s.points}
        for point in s.points:
            run_path = quick / "results/ns3" / name / "linux-6.1-wan" / point.id / "run1.json"
            run = json.loads(run_path.read_text())
            # the variant asked for is the one ns-3's sockets got
            want = variants.get(point.variant).ns3.type_id
            assert run["provenance"]["ns3"]["congestion_control"] == want
            # the table's aggregate is the runs' series, recomputed here: the last half of
            # each phase, summed over flows
            series = run["series"]
            t = np.asarray(series["t_s"])
            total = np.asarray(series["flow_Mbps"]).sum(axis=0)
            phase_s = s.settings["workload"]["phase_s"]
            rows = phases[phases["point"] == point.id].sort_values("phase")
            for k, row in enumerate(rows.itertuples()):
                settled = (t > (k + 0.5) * phase_s + 1e-9) & (t <= (k + 1) * phase_s + 1e-9)
                assert row.aggregate_Mbps == pytest.approx(total[settled].mean())
    # FAST in scenario I: no drops, the link full, a steady queue, the first flow alone keeps
    # about alpha packets queued (its baseRTT is exact: it met an empty queue)
    alpha = multiflow_phases.queue_target_pkts("fast")
    one = pd.read_csv(quick / "results/multiflow/multiflow-dynamic-i.csv")
    fast = one[one["variant"] == "fast"].sort_values("phase")
    assert fast["drops_phase"].sum() == 0
    assert (fast["utilisation"] > 0.97).all()
    assert (fast["queue_sd_pkts"] < 0.05 * fast["queue_mean_pkts"]).all()
    assert alpha * 0.95 <= fast.iloc[0]["queued_per_flow_pkts"] <= alpha * 1.05
    # the paper gained the section, its numbers generated
    numbers = (quick / "paper" / "generated" / "numbers.tex").read_text()
    assert r"\newcommand{\MultiflowDynamicIFastAlpha}{100}" in numbers
    assert (quick / "paper" / "build" / "paper.pdf").stat().st_size > 50_000


def test_an_archived_run_is_restored_only_for_its_own_command(workdir):
    """docs/archive.md: a run in the archive is written from there, without its program, while
    its command is the one the workflow would run; any other command simulates it again."""
    # a lossy-link run: a second of a core, where a multi-flow run is half a minute (it is
    # made three times here: by the study, the audit and the last step)
    relative = "ns3/lossy-link/linux-6.1/delay_ms=10+loss=0.05+variant=cubic/run1.json"
    result = workdir / "scales/quick/results" / relative
    table = "scales/quick/results/ns3/lossy-link.csv"
    numbers = "scales/quick/paper/generated/numbers.tex"
    made = json.loads(result.read_text())
    env = dict(os.environ, EMUSIM_ROOT=str(workdir))

    def archive(*args):
        return subprocess.run(
            [sys.executable, "-m", "emusim.infra.archive", *args],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    # the copy is no git checkout: its runs say so, and the archive refuses them
    refused = archive("add", str(result))
    assert refused.returncode == 1 and "git_revision is 'unknown'" in refused.stderr
    made["provenance"]["git_revision"] = "0000000"
    result.write_text(json.dumps(made))
    assert archive("add", str(result)).returncode == 0
    kept = workdir / "data/archive/quick" / relative
    # the audit makes the kept run again, the same bytes less where and when it was made
    audited = archive("audit", "--sample", "1", "--scale", "quick")
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert f"data/archive/quick/{relative}: identical" in audited.stdout
    assert "1 of 1 re-made runs identical" in audited.stdout
    # a marker metric, so that a restored result is told from a simulated one
    marked = json.loads(kept.read_text())
    marked["metrics"]["goodput_Bps"] += 1
    kept.write_text(json.dumps(marked))
    result.unlink()
    try:
        jobs = _planned_jobs(snakemake(workdir, result.relative_to(workdir).as_posix(), "-n"))
        assert jobs == {"ns3_restore": 1, "total": 1}, jobs
        snakemake(workdir, result.relative_to(workdir).as_posix())
        restored = json.loads(result.read_text())
        assert restored["metrics"]["goodput_Bps"] == made["metrics"]["goodput_Bps"] + 1
        assert restored["provenance"]["archive"]["path"] == f"data/archive/quick/{relative}"
        # the run table marks the run the archive gave, and the paper says so
        snakemake(workdir, table, numbers)
        rows = pd.read_csv(workdir / table, dtype={ARCHIVE_COLUMN: str})
        marked_rows = rows[rows[ARCHIVE_COLUMN].notna()]
        assert marked_rows["variant"].tolist() == ["cubic"], rows
        assert marked_rows[ARCHIVE_COLUMN].tolist() == ["0000000"]
        text = (workdir / numbers).read_text()
        assert r"\newcommand{\RunsRestored}{1}" in text
        assert "lossy-link: 1; made at git revision 0000000" in text
        # a change to the code of a model makes the kept run stale: simulated, the log says why
        model = workdir / "sim/ns3/model/dropper-queue-disc.cc"
        original, stat = model.read_text(), model.stat()
        model.write_text(original + "\nnamespace\n{\nint emusimTestMarker = 1;\n}\n")
        result.unlink()
        try:
            proc = snakemake(workdir, result.relative_to(workdir).as_posix(), "-n")
        finally:
            model.write_text(original)
            os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        jobs = _planned_jobs(proc)
        assert "ns3_run" in jobs and "ns3_restore" not in jobs, jobs
        assert "stale: files differ: sim/ns3/model/dropper-queue-disc.cc" in proc.stderr
        # another seed is another command: simulated, and the log says why
        marked["provenance"]["command"] = [
            "--seed=1" if arg.startswith("--seed=") else arg
            for arg in marked["provenance"]["command"]
        ]
        kept.write_text(json.dumps(marked))
        result.unlink(missing_ok=True)  # the code's change above left it unmade
        proc = snakemake(workdir, result.relative_to(workdir).as_posix(), "-n")
        assert _planned_jobs(proc) == {"ns3_run": 1, "total": 1}
        assert "provenance.command differs" in proc.stderr
    finally:
        shutil.rmtree(workdir / "data/archive/quick")
        snakemake(workdir, result.relative_to(workdir).as_posix(), table, numbers)
    assert json.loads(result.read_text())["metrics"] == made["metrics"]
    assert ARCHIVE_COLUMN not in pd.read_csv(workdir / table)
    assert r"\newcommand{\RunsRestored}{none}" in (workdir / numbers).read_text()


def test_the_emulation_design_can_keep_some_cells_only(tmp_path, ns3_programs):
    """config mininet.design.SCALE.points: the batch gets --where for each axis (the dry run
    plans it, in a copy with the emulation's sources; the selection itself is tested in
    test_mininet_archive.py)."""
    root = copy_workflow(tmp_path, ns3_programs, ("emu", "kernel-dropper"))
    design = 'mininet={design: {quick: {points: {lossy-link: {loss: "0.05", delay_ms: 10}}}}}'
    shard = "scales/quick/results/mininet/lossy-link/linux-6.1/shards/1-of-1.json"
    proc = subprocess.run(
        [*SNAKEMAKE, "-n", "-p", shard, "--config", "scale=quick", design],
        cwd=root,
        env=dict(os.environ, EMUSIM_ROOT=str(root)),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--where loss=0.05 --where delay_ms=10" in proc.stdout
