"""ns-3's sender and receiver hot paths as the project's own code (docs/ns3-hot-paths.md): the
programs bind ns-3's calls to them, they agree with the wheel's originals call by call (the
differential mode) and byte for byte on whole runs, and a program refuses an ns-3 it was not
written for."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from emusim.backends.ns3 import build as ns3build
from emusim.backends.ns3 import command as ns3
from emusim.inputs import scenario, tcp_profiles

pytestmark = pytest.mark.ns3

MODE = "EMUSIM_NS3_TX_BUFFER"
NEXT_SEG = "_ZNK3ns311TcpTxBuffer7NextSegEPNS_14SequenceNumberIjiEES3_b"
COPY_FROM_SEQUENCE = "_ZN3ns311TcpTxBuffer16CopyFromSequenceEjRKNS_14SequenceNumberIjiEE"
UPDATE = (
    "_ZN3ns311TcpTxBuffer6UpdateERKNSt7__cxx114listISt4pairINS_14SequenceNumberIjiEES5_ESaIS6_"
    "EEERKNS_8CallbackIvJPNS_9TcpTxItemEEEE"
)
UPDATE_LOST_COUNT = "_ZN3ns311TcpTxBuffer15UpdateLostCountEv"
IS_RETRANSMITTED_DATA_ACKED = (
    "_ZNK3ns311TcpTxBuffer24IsRetransmittedDataAckedERKNS_14SequenceNumberIjiEE"
)
RX_ADD = "_ZN3ns311TcpRxBuffer3AddENS_3PtrINS_6PacketEEERKNS_9TcpHeaderE"
# the wheel's functions that free segments or change marks behind the walk hints: the project
# defines them too, to tell the hints (sim/ns3/model/tcp-tx-buffer-hints.h)
DISCARD_UP_TO = (
    "_ZN3ns311TcpTxBuffer11DiscardUpToERKNS_14SequenceNumberIjiEERKNS_8Callback"
    "IvJPNS_9TcpTxItemEEEE"
)


def _lossy(programs: Path, variant: str) -> list[str]:
    """The lossy-link quick cell at 5 % loss and 10 ms: losses, recoveries and timeouts, so
    every rule of NextSeg, every split and merge of CopyFromSequence, SACK blocks (Update) and
    segments out of order at the receiver (TcpRxBuffer::Add) are reached."""
    s = scenario.load("lossy-link", "quick")
    point = s.point(f"delay_ms=10+loss=0.05+variant={variant}")
    return ns3.command(
        str(programs / "lossy-link"), s, point, tcp_profiles.get("linux-6.1"), 1, 0.0
    )


def _run(cmd: list[str], mode: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        cmd, env={**os.environ, MODE: mode, **env}, capture_output=True, check=False
    )


def test_ns3s_own_calls_reach_the_projects_definitions(ns3_programs):
    proc = _run(_lossy(ns3_programs, "reno"), "ours", LD_DEBUG="bindings")
    assert proc.returncode == 0, proc.stderr[-2000:]
    bindings = [
        line.split("binding file ", 1)[1].split(" to ", 1)
        for line in proc.stderr.decode(errors="replace").splitlines()
        if "binding file" in line
    ]

    def bound(caller: str, callee: str, symbol: str) -> bool:
        return any(caller in frm and callee in to and symbol in to for frm, to in bindings)

    for symbol in (
        NEXT_SEG,
        COPY_FROM_SEQUENCE,
        UPDATE,
        IS_RETRANSMITTED_DATA_ACKED,
        RX_ADD,
        DISCARD_UP_TO,
    ):
        # TcpSocketBase, inside the wheel's internet library, calls through its PLT ...
        assert bound("libns3.44-internet.so", "libemusim-ns3.so", symbol), symbol
    # ... but the wheel's Update calls its UpdateLostCount inside tcp-tx-buffer.cc, never through
    # the PLT: only the project's Update calls the project's UpdateLostCount
    assert not any(UPDATE_LOST_COUNT in to for frm, to in bindings if "libns3.44" in frm)
    assert bound("libemusim-ns3.so", "libemusim-ns3.so", UPDATE_LOST_COUNT)


@pytest.mark.parametrize("variant", ["reno", "cubic", "ns3-cubic"])
def test_a_lossy_run_is_byte_identical_and_agrees_call_by_call(ns3_programs, variant, tmp_path):
    outputs = {}
    for mode in ("ns3", "ours", "check"):
        trace = tmp_path / f"{mode}.csv"
        proc = _run([*_lossy(ns3_programs, variant), f"--traceFile={trace}"], mode)
        # the check mode aborts on the first call whose result differs from the wheel's
        assert proc.returncode == 0, (mode, proc.stderr[-2000:])
        outputs[mode] = (proc.stdout, trace.read_bytes())
    assert outputs["ours"] == outputs["ns3"]
    assert outputs["check"] == outputs["ns3"]
    assert b'"retransmissions": 0' not in outputs["ours"][0]  # the rules were exercised


def test_heavy_loss_with_many_flows_is_byte_identical_and_agrees_call_by_call(ns3_programs):
    """20 BBR flows overflowing a 50-packet buffer (the buffer experiment's first phase at quick
    scale, 20 simulated s): thousands of drops, many holes per window, segments lost again, so
    the walk hints (NextSeg's cursor and pending candidates, Update's fingers, UpdateLostCount's
    marked prefix) are set, moved back and forgotten many times over."""
    s = scenario.load("multiflow-buffer", "quick")
    point = s.point("n_flows=20+variant=bbr")
    cmd = ns3.command(
        str(ns3_programs / "multiflow"), s, point, tcp_profiles.get("linux-6.1-wan"), 1, 0.0
    )
    cmd = [arg for arg in cmd if not arg.startswith("--durationS=")] + ["--durationS=20"]
    outputs = {}
    for mode in ("ns3", "ours", "check"):
        proc = _run(cmd, mode)
        assert proc.returncode == 0, (mode, proc.stderr[-2000:])
        outputs[mode] = proc.stdout
    assert outputs["ours"] == outputs["ns3"]
    assert outputs["check"] == outputs["ns3"]
    drops = json.loads(outputs["ours"])["metrics"]["bottleneck_drops"]
    assert drops > 1000  # the heavy loss the hints are for


@pytest.mark.slow
def test_every_test_suite_passes_in_the_differential_mode(ns3_programs):
    program = str(ns3_programs / "emusim-ns3-tests")
    suites = subprocess.run([program, "--list"], capture_output=True, text=True, check=True)
    for suite in suites.stdout.split():
        proc = _run([program, f"--suite={suite}"], "check")
        out = (proc.stdout + proc.stderr).decode(errors="replace")
        assert proc.returncode == 0 and f"PASS {suite}" in out, out[-2000:]


def test_a_bad_mode_is_refused_at_start(ns3_programs):
    proc = _run([str(ns3_programs / "emusim-ns3-tests"), "--list"], "fastest")
    assert proc.returncode == 2
    assert b"EMUSIM_NS3_TX_BUFFER=fastest: expected ours, ns3 or check" in proc.stderr


def test_a_program_refuses_an_ns3_build_it_was_not_written_for(ns3_programs, tmp_path):
    wheel = ns3build.ns3_prefix() / "lib64" / "libns3.44-internet.so"
    data = wheel.read_bytes()
    proc = subprocess.run(["readelf", "-n", str(wheel)], capture_output=True, text=True)
    build_id = next(line.split()[-1] for line in proc.stdout.splitlines() if "Build ID:" in line)
    # the same library with another build-id: as another build of ns-3 3.44 would be
    other = build_id[:-2] + ("00" if build_id[-2:] != "00" else "01")
    assert data.count(bytes.fromhex(build_id)) == 1
    (tmp_path / wheel.name).write_bytes(data.replace(bytes.fromhex(build_id), bytes.fromhex(other)))
    shutil.copymode(wheel, tmp_path / wheel.name)
    proc = _run(
        [str(ns3_programs / "emusim-ns3-tests"), "--list"],
        "ours",
        LD_LIBRARY_PATH=f"{tmp_path}:{wheel.parent}",
    )
    err = proc.stderr.decode()
    assert proc.returncode == 70, err
    # the message names what the definitions were written for and what was found
    assert f"written for ns3 3.44.post0 (libns3.44-internet.so build-id {build_id})" in err
    assert f"{tmp_path / wheel.name}, ns3 unknown, build-id {other}" in err


def test_the_pinned_version_is_the_one_pyproject_pins():
    source = (ns3build.NS3_SOURCE_DIR / "model" / "tcp-tx-buffer-hot-paths.cc").read_text()
    pyproject = (ns3build.NS3_SOURCE_DIR.parents[1] / "pyproject.toml").read_text()
    pinned = next(
        line.split("==")[1].strip().strip('",')
        for line in pyproject.splitlines()
        if line.strip().startswith('"ns3==')
    )
    assert f'kPinnedNs3Version = "{pinned}"' in source
