"""The workflow on a real SLURM cluster (issue 11): a single-node cluster started here
(tests/support/slurm_cluster.py: munged, MariaDB, slurmdbd, slurmctld, slurmd), the quick-scale ns-3
part run through `--profile workflow/profiles/slurm` (snakemake-executor-plugin-slurm), and the
same targets run locally in a second copy: the results must be the same bytes.

The subset: baseline-tcp (TCP without loss), regular-drop (the dropper, deterministic) and
random-drop (the dropper's random numbers: seeds that depended on the process or the host
would show here), each through its ns-3 runs, its tidy table and its statistics, with the
delay fitted from the reference ping sweep on the way: 49 SLURM jobs, about 3 minutes here.
The whole quick ns-3 part is some 300 jobs; each SLURM job starts Snakemake twice (its batch
script and its job step, ~4 s of CPU), about 20 minutes on two cores.
"""

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from slurm_cluster import NODE, single_node_cluster
from workflow_copy import SNAKEMAKE, copy_workflow

pytestmark = [
    # CI's tier leaves it out (README, "Tests"): `make test-all` runs it
    pytest.mark.extended,
    pytest.mark.ns3,
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (slurmd, a mount namespace)"),
]

SCENARIOS = ["baseline-tcp", "regular-drop", "random-drop"]
CONFIG = ["--config", "scale=quick", "backends=[ns3]", f"scenarios=[{','.join(SCENARIOS)}]"]
QUICK = Path("scales/quick")
TARGETS = [str(QUICK / "results/stats" / f"{name}.csv") for name in SCENARIOS]
# a local rule (workflow/rules/cluster.smk), built again in the SLURM run: it must not be a job
LOCAL_TARGET = "build/emu/tcpblast"


def _snakemake(workdir: Path, args: list[str], wrap=lambda cmd: cmd) -> tuple[str, float]:
    started = time.monotonic()
    proc = subprocess.run(
        wrap([*SNAKEMAKE, *args, *CONFIG]),
        cwd=workdir,
        env=dict(os.environ, EMUSIM_ROOT=str(workdir)),
        capture_output=True,
        text=True,
        check=False,
        timeout=1200,
    )
    wall = time.monotonic() - started
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"snakemake {' '.join(args)} failed:\n{text[-8000:]}"
    return text, wall


@pytest.fixture(scope="module")
def runs(tmp_path_factory, ns3_programs):
    """The targets run through SLURM in one copy and locally in another."""
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        pytest.fail("snakemake-executor-plugin-slurm is not installed (tools/setup slurm)")
    on_slurm = copy_workflow(tmp_path_factory.mktemp("on-slurm"), ns3_programs, ("emu",))
    local = copy_workflow(tmp_path_factory.mktemp("local"), ns3_programs)
    with single_node_cluster(tmp_path_factory.mktemp("slurm")) as cluster:
        slurm_log, slurm_wall = _snakemake(
            on_slurm,
            # The first status query 2 s after a submission, not the plugin's 40: the jobs
            # here take seconds.
            ["--profile", "workflow/profiles/slurm", "--slurm-init-seconds-before-status-checks",
             "2", *TARGETS, LOCAL_TARGET],
            wrap=lambda cmd: cluster.command(*cmd, cwd=on_slurm),
        )  # fmt: skip
        fields = "JobIDRaw,JobName%60,State,ExitCode,NodeList,Comment%300"
        sacct = cluster.run("sacct", "-X", "--parsable2", "--noheader", "--starttime=2000-01-01",
                            f"--format={fields}")  # fmt: skip
    _, local_wall = _snakemake(local, ["--cores", "2", *TARGETS])
    print(f"SLURM run {slurm_wall:.1f} s, local run {local_wall:.1f} s")
    names = [field.split("%")[0] for field in fields.split(",")]
    jobs = [dict(zip(names, line.split("|"), strict=True)) for line in sacct.stdout.splitlines()]
    return {"slurm": on_slurm, "local": local, "slurm_log": slurm_log, "jobs": jobs}


def _results(root: Path) -> dict[str, bytes]:
    out = root / QUICK / "results"
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_results_are_the_bytes_of_a_local_run(runs):
    """Every result file, run JSONs (seed, metrics, provenance), the tidy tables and the
    statistics, is the same bytes. Not compared: logs/ (each run's log says its wall time;
    the benchmark TSVs are wall time and memory) and .snakemake/ (Snakemake's own records)."""
    on_slurm, local = _results(runs["slurm"]), _results(runs["local"])
    assert sorted(on_slurm) == sorted(local)
    # the quick designs (2 repetitions). ns3-default: baseline-tcp 1 point and regular-drop 4
    # (deterministic: simulated once), random-drop 3 random points × 2 and drop rate 0 once:
    # 1 + 4 + 7. linux-2.2's random tick phase makes every point random: 2 + 8 + 8. linux-6.1
    # (the decomposition's profile, on the two dropper scenarios) is deterministic: 4 + 7.
    runs = [p for p in on_slurm if p.endswith(".json") and "/run" in p]
    assert len(runs) == (1 + 4 + 7) + (2 + 8 + 8) + (4 + 7)
    differ = [p for p in on_slurm if on_slurm[p] != local[p]]
    assert not differ, f"differ between the SLURM and the local run: {differ}"


def test_every_job_went_through_slurm(runs):
    """sacct (slurmdbd's accounting) lists each job Snakemake submitted, under this run's name,
    completed on the node, with the rule and wildcards the plugin put in its comment."""
    log = runs["slurm_log"]
    submitted = log.count("has been submitted with SLURM jobid")
    jobs = runs["jobs"]
    # 41 ns-3 runs (above), a tidy table and statistics per scenario, the ping sweep's
    # reference table and the delay fit
    assert submitted == len(jobs) == 41 + 2 * len(SCENARIOS) + 2
    assert {j["JobName"] for j in jobs} == {log.split("SLURM run ID: ")[1].split()[0]}
    ends = {(j["State"], j["ExitCode"], j["NodeList"]) for j in jobs}
    assert ends == {("COMPLETED", "0:0", NODE)}
    # one job per run JSON, named by its wildcards (scenario_profile_point_rep)
    out = runs["slurm"] / QUICK / "results/ns3"
    expected = sorted(
        f"rule_ns3_run_wildcards_{p.parts[-4]}_{p.parts[-3]}_{p.parts[-2]}_{p.stem[3:]}"
        for p in out.rglob("run*.json")
    )
    assert sorted(j["Comment"] for j in jobs if j["Comment"].startswith("rule_ns3_run_")) == (
        expected
    )
    rules = sorted(j["Comment"].split("_wildcards_")[0] for j in jobs)
    assert rules.count("rule_stats") == rules.count("rule_ns3_collect") == len(SCENARIOS)
    assert rules.count("rule_delay_fit") == rules.count("rule_hardware_reference") == 1


def test_local_rules_stay_on_the_submit_host(runs):
    """blast_tools (workflow/rules/cluster.smk, with the emulation) ran here, not in SLURM."""
    assert (runs["slurm"] / LOCAL_TARGET).stat().st_size > 0
    assert "localrule blast_tools:" in runs["slurm_log"]
    assert not [j for j in runs["jobs"] if "blast_tools" in j["Comment"]]


def test_slurm_results_are_the_scenarios_arithmetic(runs):
    """Checked against the scenario files, not against another run: every TCP run delivered
    writes × write size, and the regular dropper took every N-th packet it saw."""
    root = runs["slurm"]
    for name in ("baseline-tcp", "regular-drop"):
        quick = yaml.safe_load((root / "scenarios" / f"{name}.yaml").read_text())
        workload = quick["workload"] | quick["scales"]["quick"]["workload"]
        for path in (root / QUICK / "results/ns3" / name).rglob("run*.json"):
            run = json.loads(path.read_text())
            metrics = run["metrics"]
            assert run["status"] == "ok"
            assert metrics["payload_bytes"] == workload["writes"] * workload["write_size_B"]
            every_n = run["params"].get("every_n", 0)
            expected = metrics["packets_sent"] // every_n if every_n else 0
            assert metrics["packets_dropped"] == expected, path


EMULATION_TARGET = QUICK / "results/mininet/baseline-tcp/linux-2.2/batch.json"


@pytest.fixture(scope="module")
def emulation(tmp_path_factory, mininet_ready):
    """One emulation batch (baseline-tcp, linux-2.2, quick: one run) through SLURM: its shard
    in dilated time is a job on the node, the join of the shards' records a local rule. No
    ns-3 program is needed (backends [mininet])."""
    no_ns3 = tmp_path_factory.mktemp("no-ns3")
    root = copy_workflow(tmp_path_factory.mktemp("emulation"), no_ns3, ("emu",))
    config = ["--config", "scale=quick", "backends=[mininet]", "scenarios=[baseline-tcp]"]
    with single_node_cluster(tmp_path_factory.mktemp("slurm-emulation")) as cluster:
        log = subprocess.run(
            cluster.command(
                *SNAKEMAKE, "--profile", "workflow/profiles/slurm",
                "--slurm-init-seconds-before-status-checks", "2", str(EMULATION_TARGET), *config,
                cwd=root,
            ),
            cwd=root, env=dict(os.environ, EMUSIM_ROOT=str(root)), capture_output=True,
            text=True, check=False, timeout=1800,
        )  # fmt: skip
        assert log.returncode == 0, (log.stdout + log.stderr)[-8000:]
        sacct = cluster.run("sacct", "-X", "--parsable2", "--noheader", "--starttime=2000-01-01",
                            "--format=State,ExitCode,NodeList,Comment%300")  # fmt: skip
    jobs = [line.split("|") for line in sacct.stdout.splitlines()]
    return {"root": root, "log": log.stdout + log.stderr, "jobs": jobs}


def test_an_emulation_shard_runs_as_a_slurm_job(emulation):
    """The shard went to SLURM and completed on the node; there it chose a VM in dilated time
    (a SLURM job never runs the emulation on a node's own kernel), and the batch checked
    itself as it does here."""
    shard_jobs = [j for j in emulation["jobs"] if j[3].startswith("rule_mininet_shard_")]
    assert [(j[0], j[1], j[2]) for j in shard_jobs] == [("COMPLETED", "0:0", NODE)]
    assert "localrule mininet_batch:" in emulation["log"]
    batch = json.loads((emulation["root"] / EMULATION_TARGET).read_text())
    assert batch["shards"] == 1 and batch["clock"] == "guest-icount"
    assert batch["place"] == "vm" and "SLURM job" in batch["place_reason"]
    assert batch["selfcheck"]["throughput"]["ok"] and batch["selfcheck"]["delay"]["ok"]
    (run_file,) = batch["run_files"]  # relative to the workflow's directory
    run = json.loads((emulation["root"] / run_file).read_text())
    quick = yaml.safe_load((emulation["root"] / "scenarios/baseline-tcp.yaml").read_text())
    workload = quick["workload"] | quick["scales"]["quick"]["workload"]
    assert run["status"] == "ok"
    assert run["metrics"]["payload_bytes"] == workload["writes"] * workload["write_size_B"]
