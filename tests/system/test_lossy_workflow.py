"""Adding a TCP variant is one registry entry, through Snakemake in a copy of the repository.

In a copy whose registry lacks `nv` (Linux's module, run in both backends) the lossy-link
figures are made; the entry is added back, nothing else is touched, and a dry run of `all`
plans nv's runs and redraws both figures; run, the figures' tables hold the new variant.
(test_lossy_vm.py runs the whole family on ns-3 and on Mininet in the VM.)
"""

import os
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from workflow_copy import SNAKEMAKE, copy_workflow

from emusim import scenario as sc

SCENARIO = "lossy-link"
ADDED = "nv"  # no entry names it (as ns3-yeah's `models` names yeah), so it can go
STEM = "fig_lossy_link"
TARGETS = [
    f"scales/quick/figures/{STEM}_goodput.png",
    f"scales/quick/figures/{STEM}_ns3_vs_mininet.png",
    f"scales/quick/paper/tables/{SCENARIO}-variants.csv",
]


def snakemake(root: Path, *args: str, backends: str = "[hardware,ns3]", timeout: float = 1200):
    return subprocess.run(
        [*SNAKEMAKE, "--cores", "2", *args, "--config", "scale=quick", f"backends={backends}",
         f"scenarios=[{SCENARIO}]"],
        cwd=root, env=dict(os.environ, EMUSIM_ROOT=str(root)),
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def registry_entry(text: str, name: str) -> str:
    """The lines of one variant's entry in the registry file, as written there."""
    match = re.search(rf"^  {re.escape(name)}:\n(?:    .*\n|\s*#.*\n)*", text, re.MULTILINE)
    assert match, name
    return match.group(0)


@pytest.mark.ns3
@pytest.mark.slow
def test_adding_a_variant_is_one_registry_entry(tmp_path, ns3_programs):
    root = copy_workflow(tmp_path, ns3_programs)
    registry = root / "config" / "tcp_variants.yaml"
    full = registry.read_text()
    entry = registry_entry(full, ADDED)
    registry.write_text(full.replace(entry, ""))
    proc = snakemake(root, *TARGETS)
    assert proc.returncode == 0, proc.stderr[-4000:]
    stats = root / "scales/quick/results/stats" / f"{SCENARIO}.csv"
    assert ADDED not in set(pd.read_csv(stats)["variant"])
    figure = root / TARGETS[0]
    drawn = figure.stat().st_mtime_ns

    # the one change: the entry, back at the end of the registry
    registry.write_text(full.replace(entry, "") + entry)
    plan = snakemake(root, "-n", "all")
    assert plan.returncode == 0, plan.stderr[-4000:]
    text = plan.stdout + plan.stderr
    quick = sc.load(SCENARIO, "quick")
    added = [p for p in quick.points if p.variant == ADDED]
    assert len(added) == 3  # one delay x three loss rates at quick scale
    for point in added:
        run = f"results/ns3/{SCENARIO}/linux-6.1/{point.id}/run1.json"
        assert run in text, run
    for stem in (f"{STEM}_goodput", f"{STEM}_ns3_vs_mininet"):
        assert re.search(rf"rule figure:\n(?:\s+.*\n)*?\s+wildcards: stem={stem}\n", text), stem
    assert "rule lossy_link_variant_table:" in text

    proc = snakemake(root, *TARGETS)
    assert proc.returncode == 0, proc.stderr[-4000:]
    table = pd.read_csv(stats)
    mine = table[(table["variant"] == ADDED) & (table["metric"] == "goodput_Bps")]
    assert len(mine) == 3 and set(mine["backend"]) == {"ns3"}
    assert figure.stat().st_mtime_ns > drawn
    rows = pd.read_csv(root / TARGETS[2])
    assert ADDED in set(rows["variant"])
