"""A copy of the workflow for tests that run Snakemake (test_workflow*.py, test_paper.py)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from emusim.paths import REPO_ROOT

SNAKEMAKE = [sys.executable, "-m", "snakemake"]
COPIED = ["Snakefile", "profiles", "config", "scenarios", "workflow", "data", "spec", "sim", "src"]


def copy_workflow(root: Path, ns3_programs: Path, extra: tuple[str, ...] = ()) -> Path:
    """The workflow's sources (and ``extra`` directories) copied under ``root``, mtimes kept,
    with the built ns-3 programs in its build/."""
    for name in (*COPIED, *extra):
        src = REPO_ROOT / name
        if src.is_dir():
            shutil.copytree(
                src,
                root / name,
                copy_function=shutil.copy2,
                ignore=shutil.ignore_patterns(
                    # a built module is left out: the workflow builds its own
                    "__pycache__",
                    "*.o",
                    "*.ko",
                    "*.mod*",
                    "*.cmd",
                    "Module.symvers",
                    "modules.order",
                ),
            )
        else:
            shutil.copy2(src, root / name)
    # the paper's sources, not its outputs (paper/tables, paper/build of the paper scale)
    (root / "paper").mkdir(exist_ok=True)
    shutil.copy2(REPO_ROOT / "paper" / "paper.tex", root / "paper" / "paper.tex")
    shutil.copytree(REPO_ROOT / "paper" / "sections", root / "paper" / "sections")
    (root / "build").mkdir()
    shutil.copytree(ns3_programs, root / "build" / "ns3", copy_function=shutil.copy2)
    return root


def snakemake_quick(root: Path, *args: str, check=True) -> subprocess.CompletedProcess:
    """Snakemake in a copy of the workflow at quick scale with hardware and ns-3 (Mininet
    needs root and a VM: test_workflow_mininet.py)."""
    proc = subprocess.run(
        [*SNAKEMAKE, "--cores", "2", *args, "--config", "scale=quick", "backends=[hardware,ns3]"],
        cwd=root,
        env=dict(os.environ, EMUSIM_ROOT=str(root)),
        capture_output=True,
        text=True,
        check=False,
    )
    if check and proc.returncode != 0:
        pytest.fail(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc
