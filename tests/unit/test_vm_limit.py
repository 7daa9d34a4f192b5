"""The VM's limit (emusim.infra.vm._Limit): wall seconds in real time; in dilated time CPU seconds,
which a loaded host does not inflate, with a wall backstop for a VM that stalls idle. Real
processes stand in for the VM: the limit only reads a process group's CPU time and stops it."""

import subprocess
import sys
import time

import pytest

from emusim.infra import vm

BURN = [sys.executable, "-c", "while True: pass"]
IDLE = [sys.executable, "-c", "import time; time.sleep(60)"]


def _group(argv):
    return subprocess.Popen(argv, start_new_session=True)


def test_a_dilated_vm_is_stopped_by_its_cpu_time():
    # (before the wall backstop, 4 s, while the process gets a quarter of a core or more)
    proc = _group(BURN)
    limit = vm._Limit(proc, 1.0, cpu=True, period_s=0.2)
    proc.wait(timeout=30)
    limit.cancel()
    assert limit.reason == "used more than 1 CPU-seconds"


@pytest.mark.parametrize("cpu", [True, False])
def test_an_idle_vm_is_stopped_by_wall_time(cpu):
    """Real time: at the limit. Dilated time: an idle VM never reaches its CPU limit, so the
    wall backstop, DILATED_WALL_FACTOR times the limit, stops it."""
    wall_limit_s = 0.5 * (vm.DILATED_WALL_FACTOR if cpu else 1.0)
    proc = _group(IDLE)
    start = time.monotonic()
    limit = vm._Limit(proc, 0.5, cpu=cpu, period_s=0.1)
    proc.wait(timeout=30)
    limit.cancel()
    assert limit.reason == f"took longer than {wall_limit_s:g} s"
    assert wall_limit_s <= time.monotonic() - start < wall_limit_s + 5


@pytest.mark.parametrize("cpu", [True, False])
def test_a_vm_that_ends_in_time_is_not_stopped(cpu):
    proc = _group([sys.executable, "-c", "pass"])
    limit = vm._Limit(proc, 30.0, cpu=cpu, period_s=0.1)
    assert proc.wait(timeout=30) == 0
    limit.cancel()
    assert limit.reason is None
