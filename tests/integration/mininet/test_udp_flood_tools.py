"""udpblast's flood and its sink's forced buffer (emu/blast/udpblast.c), over loopback.

No root needed. The flood sends for its duration, paced or as fast as it can, numbered; the sink
counts what arrived; the JSON of both is what emusim.workloads.udp_flood reads.
"""

import json
import socket
import subprocess
from pathlib import Path

import pytest

from emusim.core.paths import REPO_ROOT


@pytest.fixture(scope="module")
def udpblast(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("blast")
    proc = subprocess.run(
        ["make", "-C", str(REPO_ROOT / "emu" / "blast"), f"OUT={out}"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out / "udpblast"


def _port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _flood(udpblast: Path, *args: str) -> tuple[dict, dict]:
    port = _port()
    sink = subprocess.Popen(
        [str(udpblast), "recv", "-p", str(port), "-i", "1000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert sink.stdout.readline().startswith("READY"), sink.stderr.read()
    sender = subprocess.run(
        [str(udpblast), "flood", "-a", "127.0.0.1", "-p", str(port), "-m", "2", *args],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert sender.returncode == 0, sender.stderr
    return json.loads(sender.stdout), json.loads(sink.communicate(timeout=30)[0])


def test_paced_flood_keeps_its_pace(udpblast):
    # 2000 datagrams/s for 1 s: at most 2000 (the pace is never exceeded), at least 90 % of it
    # on a busy machine; all of them arrive over loopback
    sent, got = _flood(udpblast, "-s", "256", "-d", "1000", "-r", "2000")
    assert 1800 <= sent["datagrams_sent"] <= 2001
    assert sent["rate_pps"] == 2000 and sent["duration_s"] == 1.0
    assert sent["elapsed_s"] == pytest.approx(1.0, abs=0.05)
    assert got["datagrams_received"] == sent["datagrams_sent"] and got["end"] == "marker"
    assert got["bytes_received"] == 256 * sent["datagrams_sent"]
    # numbered from 0: the highest number is the count less one
    assert got["highest_seq"] == sent["datagrams_sent"] - 1
    assert sent["cpu_user_s"] + sent["cpu_sys_s"] > 0


def test_unpaced_flood_runs_for_its_duration(udpblast):
    sent, got = _flood(udpblast, "-s", "64", "-d", "300", "-r", "0")
    assert sent["elapsed_s"] == pytest.approx(0.3, abs=0.05)
    # far faster than any pace the study asks for of 64-byte datagrams on its 100 Mb/s links
    assert sent["datagrams_sent"] > 1000 and sent["send_errors"] == 0
    assert 0 < got["datagrams_received"] <= sent["datagrams_sent"]


def test_fragmented_datagrams_arrive_whole(udpblast):
    sent, got = _flood(udpblast, "-s", "8192", "-d", "200", "-r", "500", "-B", "4")
    assert got["datagrams_received"] == sent["datagrams_sent"] > 0
    assert got["bytes_received"] == 8192 * sent["datagrams_sent"]


def test_sink_reports_its_buffer(udpblast):
    port = _port()
    sink = subprocess.Popen(
        [str(udpblast), "recv", "-p", str(port), "-i", "200", "-t", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    got = json.loads(sink.communicate(timeout=30)[0].splitlines()[-1])
    assert got["rcvbuf_B"] > 0 and got["end"] == "timeout"


@pytest.mark.parametrize(
    "argv",
    [
        ["flood", "-a", "127.0.0.1", "-s", "64"],  # no duration
        ["flood", "-a", "127.0.0.1", "-d", "100"],  # no size
        ["flood", "-a", "127.0.0.1", "-s", "64", "-d", "100", "-r", "1e5"],  # not a decimal
        ["flood", "-a", "127.0.0.1", "-s", "64", "-d", "100", "-B", "0"],  # no burst
        ["flood", "-a", "nowhere", "-s", "64", "-d", "100"],
        ["flood", "-a", "127.0.0.1", "-s", "4", "-d", "100"],  # no room for the number
    ],
)
def test_flood_usage_errors(udpblast, argv):
    proc = subprocess.run([str(udpblast), *argv], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and proc.stderr
