"""Fixtures of the system tests: LaTeX, and the quick-scale study that test_paper.py and
test_workflow.py both read (one `snakemake all` instead of two: it is the costliest step of
CI)."""

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from workflow_copy import copy_workflow, snakemake_quick

from emusim.core.paths import REPO_ROOT


@pytest.fixture(scope="session")
def latex_ready():
    """latexmk, pdflatex and pdftotext (tools/setup paper)."""
    if not all(shutil.which(t) for t in ("latexmk", "pdflatex", "pdftotext")):
        proc = subprocess.run(
            [str(REPO_ROOT / "tools" / "setup"), "paper"], capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="session")
def quick_study(tmp_path_factory, ns3_programs, latex_ready) -> Path:
    """`snakemake all` at quick scale (hardware and ns-3, the paper included) in a copy of the
    workflow, from nothing; the copy's directory. Tests that change the copy put it back."""
    root = copy_workflow(tmp_path_factory.mktemp("emusim"), ns3_programs)
    start = time.monotonic()
    snakemake_quick(root, "all")
    print(f"snakemake all at quick scale, from nothing: {time.monotonic() - start:.0f} s",
          file=sys.stderr)  # fmt: skip
    return root
