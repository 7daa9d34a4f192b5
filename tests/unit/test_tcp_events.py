"""The trace analysis on hand-made traces, and the ablation steps of the profile registry."""

import itertools
import textwrap

import pandas as pd
import pytest

from emusim.analysis import tcp_events
from emusim.inputs import tcp_profiles
from emusim.studies.report_2001 import ablation

# A regular dropper, N = 3. Segments 0..4 are sent; the dropper drops the 3rd packet
# (segment 2). Fast retransmit is impossible; segment 2 is retransmitted after a timeout and
# that retransmission is the 3rd packet since the drop (after 3 and 4), so it is dropped as
# well; the second timeout's retransmission gets through.
TRACE = textwrap.dedent(
    """\
    time_ns,event,segment,value
    0,tx,0,0
    1000,tx,1,0
    2000,tx,2,0
    2500,drop,2,0
    3000,tx,3,0
    4000,tx,4,0
    5000,ack,1,0
    6000,ack,2,0
    7000,ack,2,1
    8000,ack,2,1
    200008000,state,-1,4
    200008000,tx,2,1
    200008500,drop,2,0
    600008000,tx,2,1
    600009000,ack,5,0
    600009000,state,-1,0
    """
)


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(TRACE)
    return tcp_events.read(path)


def test_timeouts_and_their_causes(trace):
    series = tcp_events.timeouts(trace)
    assert len(series) == 1
    row = series.iloc[0]
    # At the timeout the head (segment 2) had been sent once: no dupacks enough for it.
    assert row["segment"] == 2 and row["transmissions"] == 1
    assert row["cause"] == "too few dupacks"
    assert row["outstanding"] == 3  # segments 2, 3, 4


def test_dropper_slots(trace):
    slots = tcp_events.dropper_slots(trace, every_n=3)
    assert slots["slot"].tolist() == [1, 2, 3, 1, 2, 3, 1]
    assert slots["dropped"].tolist() == [False, False, True, False, False, True, False]
    assert slots["retransmission"].tolist() == [False] * 5 + [True, True]


def test_dropper_slots_refuse_an_irregular_trace(trace):
    with pytest.raises(ValueError, match="not every 4"):
        tcp_events.dropper_slots(trace, every_n=4)


def test_summary(trace):
    s = tcp_events.summary(trace)
    assert s["data_packets"] == 7 and s["retransmissions"] == 2 and s["dropper_drops"] == 2
    assert s["timeout_series"] == 1 and s["timeouts_too_few_dupacks"] == 1
    # Two pauses longer than 150 ms between transmissions: 4 us -> 200 ms, 200 ms -> 600 ms.
    assert s["rto_waits"] == 2
    assert s["rto_wait_s"] == pytest.approx((200008000 - 4000 + 400000000) / 1e9)
    assert s["elapsed_s"] == pytest.approx(0.600009)


def test_bad_columns_are_named(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("t,e\n1,tx\n")
    with pytest.raises(ValueError, match=r"bad\.csv"):
        tcp_events.read(path)


def test_ablation_steps_add_one_parameter_each():
    steps = tcp_profiles.ablation()
    target = tcp_profiles.get("linux-2.2")
    own = [p for p in target.parameters if p.profile == "linux-2.2"]
    stand_ins = [s for s in steps if s.parameter.endswith("(stand-in)")]
    assert len(steps) == len(own) + len(stand_ins) + 1
    assert steps[0].profile.name == "ns3-default" and steps[-1].profile.name == "linux-2.2"
    assert steps[-1].profile.ns3_attributes() == target.ns3_attributes()
    seen = set()
    for before, after in itertools.pairwise(steps):
        added = set(after.profile.ns3_attributes().items()) - set(
            before.profile.ns3_attributes().items()
        )
        if after.parameter.endswith("(stand-in)"):
            # an earlier model's value, replaced later (tests/unit/test_linux22_profile.py)
            continue
        param = next(p for p in own if p.name == after.parameter)
        assert added <= set(param.ns3.items())
        seen.add(after.parameter)
    assert seen == {p.name for p in own}
    assert tcp_profiles.get("ablation-03").name == "ablation-03"


def test_ablation_order_must_name_every_parameter(tmp_path):
    text = (tcp_profiles.PROFILES_PATH).read_text().replace("    - window scaling\n", "")
    path = tmp_path / "profiles.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"ablation.order.*missing \['window scaling'\]"):
        tcp_profiles.ablation(path)


def test_step_comparison_against_hand_values():
    steps = tcp_profiles.ablation()[:2]

    def runs(backend, profile, elapsed):
        return pd.DataFrame(
            {
                "scenario": "s",
                "backend": backend,
                "profile": profile,
                "point": ["x=1", "x=2"],
                "x": [1, 2],
                "repetition": 1,
                "status": "ok",
                "elapsed_s": elapsed,
                "writes": 100,
            }
        )

    hardware = runs("hardware", "native", [10.0, 20.0])
    sim = pd.concat(
        [
            runs("ns3", steps[0].profile.name, [20.0, 20.0]),
            runs("ns3", steps[1].profile.name, [10.0, 25.0]),
        ]
    )
    table = ablation.step_comparison(sim, hardware, steps, ["x"], None)
    elapsed = table[table["metric"] == "elapsed_s"]
    # (exp - sim) / exp: step 0: -1.0 and 0.0; step 1: 0.0 and -0.25
    assert elapsed["rel_diff"].tolist() == pytest.approx([-1.0, 0.0, 0.0, -0.25])
    summary = ablation.summary([table])
    row = summary[(summary["step"] == 1) & (summary["metric"] == "elapsed_s")].iloc[0]
    assert row["median_abs_rel_diff"] == pytest.approx(0.125)
    assert row["max_abs_rel_diff"] == pytest.approx(0.25)
    assert row["parameter"] == steps[1].parameter


# ACKs every 0.5 ms; segments 4-5 go out at 1.5 ms and their ACK comes 3.5 ms later with nothing
# dropped (a stall of 3.5 ms); segment 8 is dropped and its ACK waits for a timer (4 ms, not a
# stall); a 1.5-ms pause is under the threshold.
STALL_TRACE = textwrap.dedent(
    """\
    time_ns,event,segment,value
    0,tx,0,0
    0,tx,1,0
    500000,ack,2,0
    500000,tx,2,0
    500000,tx,3,0
    1000000,ack,4,0
    1500000,tx,4,0
    1500000,tx,5,0
    4500000,ack,6,0
    4500000,tx,6,0
    4500000,tx,7,0
    4500000,tx,8,0
    4600000,drop,8,0
    5000000,ack,8,0
    9000000,tx,8,1
    9000000,ack,9,0
    9000000,tx,9,0
    10500000,ack,10,0
    """
)


def test_ack_stalls_are_pauses_no_drop_explains(tmp_path):
    path = tmp_path / "stall.csv"
    path.write_text(STALL_TRACE)
    stalls = tcp_events.ack_stalls(tcp_events.read(path))
    # only the pause after the ACK at 1 ms: 3.5 ms with segments 4 and 5 out, none dropped
    assert stalls["t_s"].tolist() == pytest.approx([0.001])
    assert stalls["gap_s"].tolist() == pytest.approx([0.0035])
    assert stalls["outstanding"].tolist() == [2]
    # a threshold above 3.5 ms finds none; one under 1.5 ms finds the 1.5-ms pause too
    assert tcp_events.ack_stalls(tcp_events.read(path), gap_s=0.004).empty
    assert len(tcp_events.ack_stalls(tcp_events.read(path), gap_s=0.0012)) == 2


# Window cuts by hand (cwnd in bytes of 1448): a recovery found at 4 segments leaves 2 (its
# ssthresh 3, as Illinois's beta 1/8 would set it); the next recovery finds 2 (the floor;
# ssthresh 2), then a timeout inside that recovery, then a recovery found at 3 after slow
# start, and a last one found at 2 again: these three leave ssthresh at 2, so no row says so,
# and the ssthresh written after the last recovery ended is not its.
CUTS = textwrap.dedent(
    """\
    time_ns,event,segment,value
    0,cwnd,-1,5792
    10,state,-1,1
    20,state,-1,3
    25,ssthresh,-1,4344
    30,cwnd,-1,2896
    40,state,-1,0
    50,state,-1,3
    55,ssthresh,-1,2896
    60,cwnd,-1,1448
    70,state,-1,4
    80,cwnd,-1,4344
    90,state,-1,0
    100,state,-1,3
    110,cwnd,-1,2896
    120,state,-1,0
    130,state,-1,3
    140,state,-1,0
    150,ssthresh,-1,5792
    """
)


def test_reductions_and_the_window_trap(tmp_path):
    path = tmp_path / "cuts.csv"
    path.write_text(CUTS)
    cuts = tcp_events.reductions(tcp_events.read(path))
    assert cuts["kind"].tolist() == [
        "recovery",
        "recovery",
        "timeout in recovery",
        "recovery",
        "recovery",
    ]
    assert cuts["cwnd_segments"].tolist() == [4, 2, 1, 3, 2]
    assert cuts["ssthresh_segments"].tolist() == [3, 2, 2, 2, 2]
    trap = tcp_events.window_trap(cuts, largest=4)
    assert trap["recoveries"] == 4 and trap["recoveries_at_floor"] == 2
    # after the recovery at 4 the next cut is the one at 2; after the one at 2 comes a timeout;
    # after the one at 3 a recovery at 2
    assert trap["next_at_floor_after_4"] == 1.0
    assert trap["next_at_floor_after_2"] == 0.0
    assert trap["next_at_floor_after_3"] == 1.0


def test_cubic_origin_replayed_from_the_cuts():
    # recoveries found at 8, 5 and 3 segments, a timeout, and one at 3 again. Last maximum:
    # 8; 5 < 8 so 5 * 1741 // 2048 = 4; 3 < 4 so 2; the timeout's reset 0; 3 >= 0 so 3.
    # ssthresh: 8 * 717 // 1024 = 5, 3, then 2 (the floor) twice.
    cuts = pd.DataFrame(
        {
            "t_s": [1.0, 2.0, 3.0, 4.0, 5.0],
            "kind": ["recovery", "recovery", "recovery", "timeout", "recovery"],
            "cwnd_segments": [8, 5, 3, 1, 3],
        }
    )
    assert tcp_events.cubic_origin_above(cuts).tolist() == [True, True, False, False, True]
