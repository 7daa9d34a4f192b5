"""A queue that marks, emulated (issue 55): scenarios/ecn-marking.yaml's quick dctcp and cubic
points in one VM batch, dilated time. The middle link's CoDel queue (ECN, 1 ms CE threshold)
must mark DCTCP's packets, DCTCP must run as itself (not fall back to dctcp-reno, which it does
when ECN is not negotiated), and CUBIC, with ECN off, must get no marks (CoDel drops its
packets instead, when it acts at all). Needs root and the VM (about 4 minutes here)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from emusim import scenario as sc

pytestmark = [
    # CI's tier leaves it out (README, "Tests"): `make test-all` runs it
    pytest.mark.extended,
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.vm,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
]

SCENARIO = "ecn-marking"
VARIANTS = ("dctcp", "cubic")


@pytest.fixture(scope="module")
def runs(tmp_path_factory, mininet_ready) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("ecn")
    proc = subprocess.run(
        [sys.executable, "-m", "emusim.backends.mininet", "batch",
         "--scenario", str(sc.SCENARIO_DIR / f"{SCENARIO}.yaml"), "--scale", "quick",
         "--profile", "linux-6.1", "--results-dir", str(root), "--place", "vm",
         "--where", f"variant={','.join(VARIANTS)}"],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = {}
    for variant in VARIANTS:
        path = root / "mininet" / SCENARIO / "linux-6.1" / f"variant={variant}" / "run1.json"
        out[variant] = json.loads(Path(path).read_text())
    return out


def test_dctcp_is_marked_and_runs_as_itself(runs):
    run = runs["dctcp"]
    m = run["metrics"]
    assert run["status"] == "ok"
    assert run["provenance"]["congestion_control"] == "dctcp"
    assert m["link_ce_marks_forward"] > 0
    # every marked packet reached the queue; a packet is counted in one kind of mark at most
    assert m["link_ce_marks_forward"] + m["link_ecn_marks_forward"] <= m["link_packets_forward"]
    # the queue as the kernel holds it: CoDel with ECN under HTB at router's egress
    qdisc = run["provenance"]["mininet"]["aqm"]["after_run"]
    assert qdisc["kind"] == "codel" and qdisc["parent"] == "1:1"
    assert qdisc["options"]["ecn"] is True and qdisc["options"]["limit"] == 1000
    # sch_codel's 1024-ns units read back as whole µs (codel_time_to_us): 1000 µs → 999
    assert qdisc["options"]["ce_threshold"] == 999


def test_cubic_without_ecn_gets_no_marks(runs):
    run = runs["cubic"]
    m = run["metrics"]
    assert run["status"] == "ok"
    assert run["provenance"]["congestion_control"] == "cubic"
    assert m["link_ce_marks_forward"] == 0 and m["link_ecn_marks_forward"] == 0
    assert m["link_packets_forward"] >= m["writes"]
