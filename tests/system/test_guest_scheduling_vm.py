"""One CPU for every machine (docs/mininet.md): in the VM the network and the receiving host run
at real-time priority above the sender's application, so the ACK clock never stops for the
sender's writes. A traced quick regular-drop run at 1 in 100 in the VM, in dilated time: every
pause of its ACK clock over 2 ms has a dropped segment behind it (before, 4 pauses of 3.7-5.3
ms had none: the receiver's ACK waited for its application, which waited for the sender's).
Needs root and the VM (about 3 minutes here)."""

import json
import os
import subprocess
import sys

import pytest

from emusim.analysis import tcp_events
from emusim.backends.mininet import scheduling
from emusim.backends.mininet.tracing import trace_path
from emusim.inputs import scenario as sc

pytestmark = [
    # CI's tier leaves it out (README, "Tests"): `make test-all` runs it
    pytest.mark.extended,
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.vm,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
]

POINT = "drop_rate=0.01+every_n=100"
DELAY_US = 71.89  # the report's fitted one-way delay; any delay shows the mechanism


def test_the_ack_clock_never_waits_for_an_application(tmp_path, mininet_ready):
    delay = tmp_path / "delay.json"
    delay.write_text(json.dumps({"one_way_delay_us": DELAY_US}))
    proc = subprocess.run(
        [sys.executable, "-m", "emusim.backends.mininet", "batch",
         "--scenario", str(sc.SCENARIO_DIR / "regular-drop.yaml"), "--scale", "quick",
         "--profile", "linux-6.1", "--results-dir", str(tmp_path / "r"), "--place", "vm",
         "--delay-json", str(delay), "--where", "every_n=100", "--trace", POINT, "--trace-only"],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    run_file = tmp_path / "r" / "mininet" / "regular-drop" / "linux-6.1" / POINT / "run1.json"
    run = json.loads(run_file.read_text())
    assert run["status"] == "ok" and run["provenance"]["clock"] == "guest-icount"
    sched = run["provenance"]["guest_scheduling"]
    assert sched["ksoftirqd"] == {"policy": "SCHED_FIFO", "priority": scheduling.KSOFTIRQD_PRIORITY}
    assert sched["roles"]["receiver"] == {"policy": "SCHED_FIFO", "priority": 1}
    assert sched["ksoftirqd_threads"] == 1  # the VM's one vCPU
    trace = tcp_events.read(trace_path(run_file))
    # 10 000 segments and their retransmissions, every 100th dropped: all in the trace
    assert (trace["event"] == "drop").sum() == run["metrics"]["packets_dropped"] >= 100
    stalls = tcp_events.ack_stalls(trace)
    assert stalls.empty, stalls.to_string()
