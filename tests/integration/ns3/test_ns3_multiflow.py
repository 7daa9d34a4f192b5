"""The multi-flow program (sim/ns3/programs/multiflow.cc) at the paper's rate: its senders keep
their flows going through losses and retransmission timeouts.

Scenario I with BBR at 800 Mb/s (docs/multiflow.md): when the second flow joins, both flows
lose thousands of packets and take retransmission timeouts. The sender used to measure its
socket's unsent data from NextTxSequence, which a timeout sets back to snd_una: the first flow
stopped writing and, once everything was acknowledged, stopped for good (0 Mb/s from 16 s on,
here in 25 simulated seconds). About 4-5 minutes, so in the extended tier."""

import json
import subprocess

import numpy as np
import pytest

from emusim.backends.ns3 import command as ns3
from emusim.inputs import scenario, tcp_profiles

pytestmark = [pytest.mark.ns3, pytest.mark.slow, pytest.mark.extended]


def _short_scenario_i(programs, flows: str, duration_s: float) -> list[str]:
    s = scenario.load("multiflow-dynamic-i", "paper")
    cmd = ns3.command(
        str(programs / "multiflow"),
        s,
        s.point("variant=bbr"),
        tcp_profiles.get("linux-6.1-wan"),
        1,
        0,
    )
    keep = [a for a in cmd if not a.startswith(("--flows=", "--durationS="))]
    return [*keep, f"--flows={flows}", f"--durationS={duration_s}"]


def test_a_bbr_flow_keeps_sending_after_the_second_joins(ns3_programs):
    # flow 1 (100 ms) alone, flow 2 (150 ms) joins at 10 s; both run to the end at 25 s
    cmd = _short_scenario_i(ns3_programs, "100:0:25,150:10:25", 25)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)
    assert run["metrics"]["bottleneck_drops"] > 1000, "the join overflows the buffer"
    t = np.array(run["series"]["t_s"])
    late = t >= 17.0
    for flow, rates in enumerate(run["series"]["flow_Mbps"]):
        per_second = [
            np.mean(np.array(rates)[late & (t >= a) & (t < a + 1)]) for a in range(17, 25)
        ]
        assert min(per_second) > 1.0, (flow, per_second)
