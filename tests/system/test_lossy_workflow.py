"""Adding a TCP variant is one registry entry, through Snakemake in a copy of the repository.

In a copy of the repository the lossy-link figures are made; README.md's "Add a TCP variant"
(a) entry (a module with other parameters) is added at the end of the registry as the README
prints it, nothing else is touched, and a dry run of `all` plans its runs and redraws both
figures; run, the figures' tables hold the new variant and its runs record the parameters read
back from ns-3's copy of the module. (test_variants_agree_vm.py runs every Linux variant on
both sides in CI, test_lossy_vm.py the whole family and this entry in the VM too.)
"""

import json
import os
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml
from workflow_copy import SNAKEMAKE, copy_workflow

from emusim.inputs import scenario as sc

SCENARIO = "lossy-link"
README = Path(__file__).resolve().parents[2] / "README.md"
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


def readme_entry() -> tuple[str, str]:
    """README.md's "Add a TCP variant" (a) entry as it prints it, and the variant's name."""
    match = re.search(r"```yaml\n(  ([a-z][a-z0-9_.-]*):\n(?:    .*\n)+)```", README.read_text())
    assert match, "README.md has no registry entry in a yaml block"
    return match.group(1), match.group(2)


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
    entry, added_name = readme_entry()
    assert f"  {added_name}:" not in full  # the README's example is not shipped
    proc = snakemake(root, *TARGETS)
    assert proc.returncode == 0, proc.stderr[-4000:]
    stats = root / "scales/quick/results/stats" / f"{SCENARIO}.csv"
    assert added_name not in set(pd.read_csv(stats)["variant"])
    figure = root / TARGETS[0]
    drawn = figure.stat().st_mtime_ns

    # the one change: the README's entry, at the end of the registry
    registry.write_text(full + entry)
    plan = snakemake(root, "-n", "all")
    assert plan.returncode == 0, plan.stderr[-4000:]
    text = plan.stdout + plan.stderr
    quick = sc.load(SCENARIO, "quick")
    cells = sorted({p.id.rsplit("+variant=", 1)[0] for p in quick.points})
    assert len(cells) == 3  # one delay x three loss rates at quick scale
    for cell in cells:
        run = f"results/ns3/{SCENARIO}/linux-6.1/{cell}+variant={added_name}/run1.json"
        assert run in text, run
    for stem in (f"{STEM}_goodput", f"{STEM}_ns3_vs_mininet"):
        assert re.search(rf"rule figure:\n(?:\s+.*\n)*?\s+wildcards: stem={stem}\n", text), stem
    assert "rule lossy_link_variant_table:" in text

    proc = snakemake(root, *TARGETS)
    assert proc.returncode == 0, proc.stderr[-4000:]
    table = pd.read_csv(stats)
    mine = table[(table["variant"] == added_name) & (table["metric"] == "goodput_Bps")]
    assert len(mine) == 3 and set(mine["backend"]) == {"ns3"}
    # the module's parameters as the entry sets them, read back from ns-3's copy of the module
    wanted = yaml.safe_load(entry)[added_name]["linux"]
    expected = {
        f"{wanted['module']}.{k}": v for k, v in wanted.get("module_parameters", {}).items()
    }
    for cell in cells:
        path = root / "scales/quick/results/ns3" / SCENARIO / "linux-6.1"
        run = json.loads((path / f"{cell}+variant={added_name}" / "run1.json").read_text())
        assert run["provenance"]["ns3"].get("module_parameters", {}) == expected, cell
    assert figure.stat().st_mtime_ns > drawn
    rows = pd.read_csv(root / TARGETS[2])
    assert added_name in set(rows["variant"])
