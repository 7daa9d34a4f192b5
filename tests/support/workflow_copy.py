"""A copy of the workflow for tests that run Snakemake (test_workflow*.py, test_paper.py)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from emusim.core.paths import REPO_ROOT

SNAKEMAKE = [sys.executable, "-m", "snakemake"]
# tools/apt: its vm.txt pins the kernel the emulation's VM boots and the module is built for
COPIED = [
    "Snakefile", "profiles", "config", "scenarios", "workflow", "data", "spec", "sim", "src",
    "tools/apt",
]  # fmt: skip


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


def guide_files(guide: Path) -> dict[str, str]:
    """A guide's files (docs/adding-a-*.md): each fenced block whose info string names one
    (```python file=X)."""
    blocks = re.findall(r"^```\w+ file=(\S+)\n(.*?)^```$", guide.read_text(), re.M | re.S)
    return dict(blocks)


def add_files_editing_none(root: Path, new: dict[str, str], skip: tuple[str, ...] = ()) -> None:
    """Write `new` (path: text) into the copy at `root` and check what a guide promises: no
    file of the copy is overwritten or edited, the new ones are all there is to it (paths
    under `skip`, e.g. build outputs, aside)."""

    def snapshot() -> dict[str, bytes]:
        files = (p for p in root.rglob("*") if p.is_file())
        rels = ((str(p.relative_to(root)), p) for p in files)
        return {rel: p.read_bytes() for rel, p in rels if not rel.startswith(skip)}

    before = snapshot()
    for rel, text in new.items():
        assert rel not in before, f"the guide would overwrite {rel}"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    after = snapshot()
    assert {k: v for k, v in after.items() if k in before} == before
    assert set(after) - set(before) == set(new)
