"""The linux-2.2 classes in the real testbed program: the tick phase as a per-repetition source
of variation, and the 2.2 timer on a regular-dropper run (issue 18)."""

import json
import subprocess

import pytest

from emusim.backends.ns3 import command as ns3
from emusim.inputs import scenario, tcp_profiles

pytestmark = pytest.mark.ns3

DELAY_US = 71.8878


def _run(programs, scenario_name, point_id, profile="linux-2.2", rep=1, scale="quick"):
    s = scenario.load(scenario_name, scale)
    cmd = ns3.command(
        str(programs / "testbed-2001"),
        s,
        s.point(point_id),
        tcp_profiles.get(profile),
        rep,
        DELAY_US,
    )
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_the_tick_phase_makes_repetitions_of_a_regular_point_differ(ns3_programs):
    point = "drop_rate=0.05+every_n=20"
    a1 = _run(ns3_programs, "regular-drop", point, rep=1)
    a2 = _run(ns3_programs, "regular-drop", point, rep=1)
    b = _run(ns3_programs, "regular-drop", point, rep=2)
    assert a1 == a2  # same seed, same bytes
    assert a1["metrics"]["elapsed_s"] != b["metrics"]["elapsed_s"]
    # the dropper itself is deterministic: the same packets are dropped
    assert a1["metrics"]["packets_dropped"] == b["metrics"]["packets_dropped"]


def test_timeouts_fire_on_the_100_hz_tick(ns3_programs, tmp_path):
    # Every timeout of a linux-2.2 run is a retransmission on a tick of the sender's clock:
    # with the phase fixed at 0 (the ablation step before the tick phase), on a multiple of
    # 10 ms of simulated time.
    s = scenario.load("regular-1in6", "quick")
    trace = tmp_path / "trace.csv"
    step = next(
        st.profile for st in tcp_profiles.ablation() if st.parameter == "timers and timeout"
    )
    point = s.point("iterations=10000+mode=regular")
    cmd = [
        *ns3.command(str(ns3_programs / "testbed-2001"), s, point, step, 1, DELAY_US),
        f"--traceFile={trace}",
    ]
    subprocess.run(cmd, capture_output=True, text=True, check=True)
    rows = [line.split(",") for line in trace.read_text().splitlines()[1:]]
    # state 4 (loss) entries: the timeouts
    loss = [int(r[0]) for r in rows if r[1] == "state" and r[3] == "4"]
    assert loss, "no timeout in the run"
    assert all(t % 10_000_000 == 0 for t in loss), loss[:5]
