"""The workflow's rule names: each study's rules are in its own module, named STUDY_RULE, and the
cluster profile sets resources only for rules that exist (a renamed rule would silently fall back
to the defaults)."""

import re
import subprocess
import sys

import pytest
import yaml

from emusim import studies
from emusim.core.paths import REPO_ROOT

STUDY_RULES_DIR = REPO_ROOT / "workflow" / "rules" / "studies"
SLURM_PROFILE = REPO_ROOT / "workflow" / "profiles" / "slurm" / "config.yaml"


@pytest.fixture(scope="module")
def workflow_rules() -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--list-rules", "--config", "scale=quick"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {line.strip() for line in proc.stdout.splitlines() if line.strip()}


@pytest.mark.parametrize("study", list(studies.registry()))
def test_each_study_rule_is_named_after_its_study(study, workflow_rules):
    text = (STUDY_RULES_DIR / f"{study}.smk").read_text()
    own = re.findall(r"^rule (\w+):", text, flags=re.MULTILINE)
    for rule in own:
        assert f"{study}_{rule}" in workflow_rules, rule
        assert rule not in workflow_rules, f"{rule} leaked into the workflow's own names"


def test_the_cluster_profile_names_only_rules_of_the_workflow(workflow_rules):
    profile = yaml.safe_load(SLURM_PROFILE.read_text())
    named = set(profile["set-resources"])
    assert named, "the profile sets no rule's resources"
    assert named <= workflow_rules, sorted(named - workflow_rules)
