"""docs/adding-a-study.md, tried as a new user would: its code blocks are written into a copy of
the workflow as a new study (a scenario, a study package with one figure and its numbers, a
rules file and a section), no existing file is edited, and Snakemake plans and makes the
study's figure, numbers and section."""

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from workflow_copy import SNAKEMAKE, add_files_editing_none, copy_workflow, guide_files

from emusim.core.paths import REPO_ROOT
from emusim.inputs.scenario import SCENARIO_DIR

pytestmark = [pytest.mark.ns3, pytest.mark.slow]

GUIDE = REPO_ROOT / "docs" / "adding-a-study.md"
NAME = "slow-link"
STEM = "fig_slow_link_throughput"
QUICK = "scales/quick"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, ns3_programs):
    root = copy_workflow(tmp_path_factory.mktemp("emusim"), ns3_programs)
    # the scenario, as the guide describes it: random-drop at 10 Mb/s, no hardware reference
    spec = yaml.safe_load((SCENARIO_DIR / "random-drop.yaml").read_text())
    spec["description"] = "The random-drop sweep on a 10 Mb/s line (the slow-link study)."
    spec.pop("reference")
    spec["topology"] = {"use": "lin2001", "link_rate_Mbps": 10}
    spec["profiles"] = ["linux-2.2"]
    new = {f"scenarios/{NAME}.yaml": yaml.safe_dump(spec, sort_keys=False)}
    new.update(guide_files(GUIDE))
    # no existing file is edited: every file of the copy is as it was, the new ones aside
    add_files_editing_none(root, new)
    return root


def snakemake(workdir: Path, *args: str, only: str | None = NAME) -> subprocess.CompletedProcess:
    """Snakemake in the copy at the quick scale with ns-3, on scenario `only` (None: all)."""
    config = ["scale=quick", "backends=[ns3]"] + ([f"scenarios=[{only}]"] if only else [])
    proc = subprocess.run(
        [*SNAKEMAKE, "--cores", "2", *args, "--config", *config],
        cwd=workdir,
        # the copy's package, with the new study in it (what an editable install of it gives)
        env=dict(os.environ, EMUSIM_ROOT=str(workdir), PYTHONPATH=str(workdir / "src")),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return proc


def test_guide_has_the_four_files():
    assert set(guide_files(GUIDE)) == {
        "src/emusim/studies/slow_link/__init__.py",
        "src/emusim/studies/slow_link/figures.py",
        "src/emusim/studies/slow_link/numbers.py",
        "src/emusim/studies/slow_link/rules.py",
        "workflow/rules/studies/slow_link.smk",
        "paper/sections/slow_link.tex",
    }


def test_the_plan_has_the_study_figure_and_table(workdir):
    plan = snakemake(workdir, "all", "-n")
    text = plan.stdout + plan.stderr
    # the study's figure, and not the generic one: the study claims the scenario
    assert f"{QUICK}/figures/{STEM}.pdf" in text
    assert "fig_scenario_" not in text
    assert f"{QUICK}/paper/tables/{NAME}.tex" in text
    assert f"{QUICK}/paper/generated/studies.tex" in text


def test_the_plan_of_every_scenario_keeps_the_other_studies(workdir):
    # with every scenario configured, the other studies' own figures are planned beside it
    plan = snakemake(workdir, "all", "-n", only=None)
    text = plan.stdout + plan.stderr
    for stem in (STEM, "fig4_1_random_drop", "fig_multiflow_buffer", "fig_lossy_link_goodput"):
        assert f"{QUICK}/figures/{stem}.pdf" in text, stem


def test_figure_numbers_and_section_are_made(workdir):
    generated = f"{QUICK}/paper/generated"
    snakemake(
        workdir,
        f"{QUICK}/figures/{STEM}.pdf",
        f"{generated}/numbers.tex",
    )
    pdf = workdir / QUICK / "figures" / f"{STEM}.pdf"
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 5000
    # its section comes after the suite's own (order 50)
    studies = (workdir / generated / "studies.tex").read_text()
    inputs = re.findall(r"\\input\{sections/(\w+)\}", studies)
    assert inputs == [
        "report_2001", "lossy_link", "ecn_marking", "multiflow", "router_forwarding", "slow_link"
    ]  # fmt: skip
    # its numbers: as many points as the quick scale's sweep, the best mean throughput
    spec = yaml.safe_load((SCENARIO_DIR / "random-drop.yaml").read_text())
    want_points = len(spec["scales"]["quick"]["sweep"]["drop_rate"])
    numbers = (workdir / generated / "numbers.tex").read_text()
    points = re.search(r"\\newcommand\{\\SlowLinkPoints\}\{([^}]*)\}", numbers).group(1)
    assert int(points) == want_points
    best = float(re.search(r"\\newcommand\{\\SlowLinkBestMBps\}\{([^}]*)\}", numbers).group(1))
    # on a 10 Mb/s line no throughput exceeds the line's 1.25e6 B/s
    assert 0 < best <= 1.25
    # and the appendix has no entry: the study presents the scenario
    appendix = (workdir / generated / "scenarios.tex").read_text()
    assert r"\ResultFigure" not in appendix


def test_a_rules_file_without_its_package_is_named(workdir):
    stray = workdir / "workflow" / "rules" / "studies" / "half_done.smk"
    stray.write_text("# a study whose package is not written yet\n")
    try:
        proc = subprocess.run(
            [*SNAKEMAKE, "-n", "--config", "scale=quick", "backends=[ns3]"],
            cwd=workdir,
            env=dict(os.environ, EMUSIM_ROOT=str(workdir), PYTHONPATH=str(workdir / "src")),
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        stray.unlink()
    assert proc.returncode != 0
    assert "half_done.smk: no study package src/emusim/studies/half_done/" in (
        proc.stdout + proc.stderr
    )
