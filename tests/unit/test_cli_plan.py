"""`emusim plan` (emusim.cli.plan): its table from a fixed list of jobs, worked out by hand, and
the verb run for real on the repository's workflow against Snakemake's own count of the jobs."""

import json
import re
import subprocess
import sys

from test_cli import REPO, _env, _rows, emusim

from emusim.cli import plan
from emusim.planning import costs


def test_the_table_counts_each_rules_jobs_by_how_their_cost_is_known():
    book = costs.CostBook(
        [
            costs.Cost("ns3_run", "ns3/a/p/x=1/run1", 3600.0, 3000.0),
            costs.Cost("ns3_run", "ns3/a/p/x=2/run1", 7200.0, 6000.0),
            costs.Cost("ns3_run", "ns3/b/p/x=1/run1", 360.0, 300.0),
        ],
        [costs.Cost("mininet_run", "mininet/a/linux-6.1/x=1/run1", 7200.0, 3600.0)],
    )
    jobs = [
        costs.Job("ns3_run", "ns3/a/p/x=1/run1"),  # measured: 3000 CPU-s, 3600 wall-s
        costs.Job("ns3_run", "ns3/a/p/x=3/run1"),  # a's median: 4500, 5400
        costs.Job("ns3_run", "ns3/c/p/x=1/run1"),  # the rule's median: 3000, 3600
        costs.Job("mininet_shard", "mininet_shard/a/linux-6.1/1-of-2"),  # 3600 / 2, 7200 / 2
        costs.Job("mininet_shard", "mininet_shard/c/linux-6.1/1-of-2"),  # nothing kept of c
        costs.Job("ns3_restore", None, "results/ns3/a/p/x=4/run1.json"),
    ]
    rows, total = costs.summarize(jobs, book, cores=2)
    assert plan.table_rows(rows, total, cores=2) == [
        # 10500 CPU-s = 2.92 h; (3600 + 5400 + 3600) / 2 = 6300 wall-s = 1.75 h
        ["ns3_run", 3, 1, 1, 1, 0, "2.92", "1.75", ""],
        # 1800 CPU-s = 0.5 h; its one known job's 3600 wall-s, 1 h
        [
            "mininet_shard",
            2,
            0,
            1,
            0,
            1,
            "0.5 + ?",
            "1.00 + ?",
            "from its batch's kept runs, as if it made them again",
        ],
        ["ns3_restore", 1, 0, 0, 0, 0, "0", "0", costs.FREE_RULES["ns3_restore"]],
        # 12300 CPU-s = 3.42 h; (12600 + 3600) / 2 = 8100 wall-s = 2.25 h
        ["total", 6, 1, 2, 1, 1, "3.42 + ?", "2.25 + ?", ""],
    ]


def test_bad_cores_are_a_usage_error():
    proc = emusim("plan", "--cores", "none", "--scale", "quick")
    assert proc.returncode == 2 and "--cores 'none'" in proc.stderr


def _job_stats(text: str) -> dict[str, int]:
    """Job counts from a dry run's 'Job stats' table."""
    counts, in_table = {}, False
    for line in text.splitlines():
        if line.startswith("job ") and "count" in line:
            in_table = True
        elif in_table and len(parts := line.split()) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
        elif in_table and counts:
            break
    return counts


def test_plan_lists_what_snakemake_would_run_at_quick_scale(tmp_path):
    saved = tmp_path / "plan.json"
    proc = emusim("plan", "--scale", "quick", "--cores", "2", "--save", str(saved), timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    command, header, *table = proc.stdout.splitlines()
    assert "/snakemake all --cores 2 -n --quiet rules --logger emusim " in command
    assert command.endswith("--config scale=quick")
    assert header.startswith("scale quick, all: ")
    # Snakemake's own count of the jobs, from a dry run of its own
    dry = subprocess.run(
        [sys.executable, "-m", "snakemake", "all", "-n", "--config", "scale=quick"],
        cwd=REPO,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    expected = _job_stats(dry.stdout + dry.stderr)
    if not expected:  # a checkout whose quick study is done
        assert table == ["nothing to run"], proc.stdout
        return
    rows = _rows("\n".join(table))
    assert {rule: int(rows[rule][1]) for rule in expected if rule != "total"} == {
        rule: n for rule, n in expected.items() if rule != "total"
    }
    assert int(rows["total"][1]) == expected["total"]
    assert re.match(rf"scale quick, all: {expected['total']} jobs to run; ", header)
    # every job that costs something keeps its cost where emusim.planning.costs reads it: a
    # benchmark file in its rule's timing folder
    listed = json.loads(saved.read_text())
    assert listed["scale"] == "quick"
    for job in listed["jobs"]:
        if job["rule"] in costs.FREE_RULES:
            continue
        assert job["timing"] is not None, f"rule {job['rule']} has no benchmark file"
        assert costs.rule_of(job["timing"]) == job["rule"], job
