"""A scenario no study presents, tried as a new user would: `scenarios/slow-link.yaml`, the
random-drop sweep at 10 Mb/s, added to a copy of the workflow. It gets runs, statistics, its
per-point table, a generic figure (every metric that varies against its first sweep axis) and
an appendix entry in the paper, with no other file edited."""

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from workflow_copy import SNAKEMAKE, copy_workflow

from emusim.inputs.scenario import SCENARIO_DIR

pytestmark = [pytest.mark.ns3, pytest.mark.slow]

NAME = "slow-link"
STEM = "fig_scenario_slow_link"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, ns3_programs):
    root = copy_workflow(tmp_path_factory.mktemp("emusim"), ns3_programs)
    spec = yaml.safe_load((SCENARIO_DIR / "random-drop.yaml").read_text())
    spec["description"] = "The random-drop sweep on a 10 Mb/s line (a user's scenario)."
    spec.pop("reference")
    spec["topology"] = {"use": "lin2001", "link_rate_Mbps": 10}
    spec["profiles"] = ["linux-2.2"]
    (root / "scenarios" / f"{NAME}.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return root


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [
            *SNAKEMAKE,
            "--cores",
            "2",
            *args,
            "--config",
            "scale=quick",
            "backends=[ns3]",
            f"scenarios=[{NAME}]",
        ],
        cwd=workdir,
        env=dict(os.environ, EMUSIM_ROOT=str(workdir)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return proc


def test_the_plan_has_its_figure_and_table(workdir):
    plan = snakemake(workdir, "all", "-n")
    text = plan.stdout + plan.stderr
    # the generic figure, of this scenario only (the others belong to studies), and its table
    assert set(re.findall(r"fig_scenario_\w+", text)) == {STEM}
    assert f"paper/tables/{NAME}.tex" in text


def test_figure_and_appendix_are_made(workdir):
    quick = "scales/quick"
    snakemake(
        workdir,
        f"{quick}/figures/{STEM}.pdf",
        f"{quick}/paper/tables/{NAME}.tex",
        f"{quick}/paper/generated/scenarios.tex",
    )
    pdf = workdir / quick / "figures" / f"{STEM}.pdf"
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 5000
    appendix = (workdir / quick / "paper" / "generated" / "scenarios.tex").read_text()
    # its entry, and no other scenario's: each other one belongs to a study
    assert rf"\ResultFigure{{{STEM}}}" in appendix and rf"\ResultTable{{{NAME}}}" in appendix
    assert appendix.count(r"\ResultFigure") == 1
    assert "10 Mb/s line" in appendix
