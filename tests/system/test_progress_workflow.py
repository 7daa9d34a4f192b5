"""Know the cost before it starts, in a real run: Snakemake with the logger plugin `emusim` in a
copy of the workflow (two jobs of the hardware backend: the ping sweep's table and the delay
fit), the costs its benchmark files measured kept (`python -m emusim.planning.costs collect`),
`emusim plan` estimating a rerun from them, and the rerun's progress line from that plan."""

import csv
import os
import re
import shutil
import subprocess
import sys

from workflow_copy import SNAKEMAKE, copy_workflow

from emusim.planning import costs

TARGET = "scales/quick/results/delay/one_way_delay.json"
CONFIG = ["--config", "scale=quick", "backends=[hardware]"]
TIMING = "scales/quick/logs/timing"


def _run(root, *cmd):
    proc = subprocess.run(
        cmd,
        cwd=root,
        env=dict(os.environ, EMUSIM_ROOT=str(root)),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def _benchmark(path):
    """(CPU seconds, wall seconds) of a benchmark file, read as Snakemake wrote it."""
    with path.open() as f:
        row = next(csv.DictReader(f, delimiter="\t"))
    return float(row["cpu_time"]), float(row["s"])


def test_a_run_says_what_remains_and_keeps_what_it_cost(tmp_path):
    no_ns3 = tmp_path / "no-ns3"
    no_ns3.mkdir()
    (tmp_path / "w").mkdir()
    root = copy_workflow(tmp_path / "w", no_ns3)
    shutil.rmtree(root / "data" / "costs", ignore_errors=True)  # the repository's measurements
    first = _run(root, *SNAKEMAKE, "--cores", "1", TARGET, *CONFIG, "--logger", "emusim")
    # nothing measured yet: the first line says so; no list of jobs: said once per line
    assert "1 of 2 jobs done; the cost of the 1 job left is not known" in first.stderr
    assert "2 of 2 jobs done; about 0 CPU-h (0 h on 1 core) remain\n" in first.stderr
    fit = root / TIMING / "delay_fit.tsv"
    assert (root / TIMING / "hardware_reference" / "ping-sweep.tsv").exists() and fit.exists()

    _run(root, sys.executable, "-m", "emusim.planning.costs", "collect", "--scale", "quick")
    kept = costs.read_table(root / "data" / "costs" / "quick.csv")
    assert [(c.rule, c.job) for c in kept] == [
        ("delay_fit", "delay_fit"),
        ("hardware_reference", "hardware_reference/ping-sweep"),
    ]

    plan = tmp_path / "plan.json"
    forced = ["--forcerun", "hardware_reference", "delay_fit"]
    shown = _run(
        root,
        sys.executable,
        "-m",
        "emusim.cli",
        "plan",
        TARGET,
        "--scale",
        "quick",
        "--cores",
        "1",
        "-C",
        "backends=[hardware]",
        "--save",
        str(plan),
        "--",
        *forced,
    )
    total = next(line for line in shown.stdout.splitlines() if line.startswith("total "))
    assert re.split(r"\s{2,}", total)[1:3] == ["2", "2"], shown.stdout  # both jobs measured

    cpu_s, wall_s = _benchmark(fit)
    second = _run(
        root,
        *SNAKEMAKE,
        "--cores",
        "1",
        TARGET,
        *forced,
        *CONFIG,
        "--logger",
        "emusim",
        "--logger-emusim-plan",
        str(plan),
    )
    # the ping sweep's table is made first; then only the delay fit remains, at its own cost
    expected = (
        f"1 of 2 jobs done; about {costs.hours(cpu_s)} CPU-h ({costs.hours(wall_s)} h on 1 "
        "core) remain\n"
    )
    assert expected in second.stderr, second.stderr[-3000:]
