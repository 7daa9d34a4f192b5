"""Shared fixtures: the built ns-3 programs; Mininet and the blast tools."""

import subprocess
import sys
from pathlib import Path

import pytest

# Helpers the tests of every tier import (a copy of the workflow, a SLURM cluster, the testbed's
# guest script): tests/support/.
sys.path.insert(0, str(Path(__file__).parent / "support"))

from emusim.backends.ns3 import build as ns3build
from emusim.core.paths import REPO_ROOT

# The tests on the quick-scale study (tests/system/conftest.py's quick_study: a Snakemake run on
# both cores, the longest part of CI's half without the VM) run last: while the VM half runs,
# its QEMU keeps one core busy and a test of this half the other; once the VM half is done, the
# study has both cores to itself instead of one core standing idle beside the last serial tests.
LAST_FIXTURE = "quick_study"


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: LAST_FIXTURE in getattr(item, "fixturenames", ()))


@pytest.fixture(scope="session")
def ns3_programs():
    """Build sim/ns3 (incrementally) and return the build directory."""
    try:
        return ns3build.build()
    except ns3build.Ns3BuildError as err:
        pytest.fail(f"ns-3 build failed: {err}")


def run_json(cmd: list[str]) -> dict:
    import json

    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


@pytest.fixture(scope="session")
def mininet_ready():
    """Mininet importable from .venv, the blast tools built, Debian's kernel and its headers
    there for the VM (tools/setup mininet vm)."""
    from emusim.infra import vm_setup

    check = [sys.executable, "-c", "import mininet.node"]
    tools = [REPO_ROOT / "build" / "emu" / t for t in ("tcpblast", "udpblast")]
    try:
        vm_setup.find_kernel()
        have_kernel = True
    except vm_setup.VMError:
        have_kernel = False
    mininet_missing = subprocess.run(check, capture_output=True).returncode
    if mininet_missing or not have_kernel or not all(t.exists() for t in tools):
        proc = subprocess.run(
            [str(REPO_ROOT / "tools" / "setup"), "mininet", "vm"], capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    subprocess.run(["make", "-s", "-C", str(REPO_ROOT / "emu" / "blast")], check=True)
