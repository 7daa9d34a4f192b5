"""The multi-flow study: scenario checks, the program's arguments, the per-phase analysis
against hand-worked series, and the real ns-3 program against what its design implies."""

import copy
import json
import subprocess

import numpy as np
import pandas as pd
import pytest

from emusim.backends.ns3 import command as ns3
from emusim.inputs import scenario as sc
from emusim.inputs import tcp_profiles
from emusim.studies.multiflow import phases
from emusim.workloads import multiflow as mf


def _settings(**workload):
    s = sc.load("multiflow-buffer", "quick").point("n_flows=2+variant=fast").settings
    s = copy.deepcopy(s)
    s["workload"].update(workload)
    return s


# --- pure functions ---------------------------------------------------------------------------


def test_jain_index_against_hand_values():
    assert phases.jain_index([5, 5, 5]) == pytest.approx(1.0)
    assert phases.jain_index([3, 0, 0]) == pytest.approx(1 / 3)
    # (1 + 2)^2 / (2 (1 + 4)) = 9 / 10
    assert phases.jain_index([1, 2]) == pytest.approx(0.9)
    assert np.isnan(phases.jain_index([]))


def test_identical_flows_expand_and_lists_keep_their_order():
    assert (
        mf.flows({"flows": {"count": 3, "rtt_ms": 100, "start_phase": 0, "stop_phase": 2}})
        == [mf.Flow(100.0, 0, 2)] * 3
    )
    listed = [
        {"rtt_ms": 50, "start_phase": 1, "stop_phase": 3},
        {"rtt_ms": 70, "start_phase": 0, "stop_phase": 1},
    ]
    assert mf.flows({"flows": listed}) == [mf.Flow(50.0, 1, 3), mf.Flow(70.0, 0, 1)]


def test_program_arguments_carry_schedule_flows_and_rates():
    s = sc.load("multiflow-buffer", "quick")
    args = mf.ns3_args(s.point("n_flows=20+variant=cubic").settings, ns3.interframe_gap_ns)
    # phases of 20 s: the buffer steps at 20, 40 and 60 s
    assert "--bufferPackets=50" in args
    assert "--bufferSchedule=20:1000,40:2000,60:4000" in args
    flows = next(a for a in args if a.startswith("--flows=")).removeprefix("--flows=")
    assert flows.split(",") == ["100:0:80"] * 20
    assert "--durationS=80" in args and "--sampleS=0.1" in args and "--pollS=0.01" in args
    assert "--bottleneckRateBps=20000000" in args and "--accessRateBps=25000000" in args
    # Ethernet's 38 bytes beyond the IP packet, 36 of them as ns-3's gap: 36 x 8 / 20 Mb/s
    assert "--bottleneckGapNs=14400" in args


def test_a_scenario_without_a_buffer_schedule_passes_no_schedule():
    s = sc.load("multiflow-dynamic-i", "quick")
    args = mf.ns3_args(s.point("variant=fast").settings, ns3.interframe_gap_ns)
    assert not any(a.startswith("--bufferSchedule") for a in args)
    assert "--flows=100:0:100,150:20:80,200:40:60" in args


def test_every_multiflow_scenario_runs_the_wan_profile_and_fast():
    for name in ("multiflow-dynamic-i", "multiflow-dynamic-ii", "multiflow-buffer"):
        for scale in ("paper", "quick"):
            s = sc.load(name, scale)
            assert ns3.program_name(s) == "multiflow"
            assert s.profiles == ["linux-6.1-wan"]
            assert "fast" in {p.variant for p in s.points}


@pytest.mark.parametrize(
    ("workload", "message"),
    [
        ({"buffer_packets_by_phase": [50, 1000]}, "one per phase"),
        ({"buffer_packets_by_phase": [1000, 50, 2000, 4000]}, "never"),
        ({"flows": {"count": 2, "rtt_ms": 10, "start_phase": 2, "stop_phase": 9}}, "stop_phase"),
        ({"sample_s": 45}, "workload.sample_s"),
    ],
)
def test_bad_multiflow_workloads_are_refused_with_key_and_value(tmp_path, workload, message):
    text = (sc.SCENARIO_DIR / "multiflow-buffer.yaml").read_text()
    import yaml

    raw = yaml.safe_load(text)
    raw["workload"].update(workload)
    raw.pop("scales")
    (tmp_path / "topologies").mkdir()
    (tmp_path / "topologies" / "dumbbell.yaml").write_text(
        (sc.SCENARIO_DIR / "topologies" / "dumbbell.yaml").read_text()
    )
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(sc.ScenarioError, match=message) as err:
        sc.load(path)
    assert str(path) in str(err.value)


def test_the_wan_profile_is_linux_6_1_with_larger_buffers():
    base = tcp_profiles.get("linux-6.1").ns3_attributes()
    wan = tcp_profiles.get("linux-6.1-wan").ns3_attributes()
    growth = "ns3::TcpLinuxSocket::WindowGrowthLimit"
    buffers = {"ns3::TcpSocket::RcvBufSize", "ns3::TcpSocket::SndBufSize"}
    # TCP small queues: the wan profile keeps the pacing stand-in its runs were made with
    tsq = {"ns3::TcpLinuxSocket::SmallQueues"}
    pacing = {k for k in wan if k.startswith("ns3::TcpSocketState::") and "Pacing" in k}
    assert base[next(iter(tsq))] == "true" and tsq.isdisjoint(wan)
    assert wan["ns3::TcpSocketState::EnablePacing"] == "true" and pacing.isdisjoint(base)
    # PSH on GSO packets (28 November) came after the study's runs too: not in the wan profile
    gso = {"ns3::TcpLinuxSocket::GsoPush"}
    assert base[next(iter(gso))] == "true" and gso.isdisjoint(wan)
    other = buffers | {growth} | tsq | pacing | gso
    assert {k: v for k, v in wan.items() if k not in other} == {
        k: v for k, v in base.items() if k not in other
    }
    # above 800 Mb/s x 240 ms + 4000 x 1448 B, the largest window the study needs
    need_B = 800e6 / 8 * 0.240 + 4000 * 1448
    assert all(int(wan[k]) > need_B for k in buffers)
    # rcv_ssthresh grows to tcp_win_from_space(tcp_rmem[2]) / 2 (__tcp_grow_window): half the
    # window offered, which is half of tcp_rmem[2] (tcp_adv_win_scale = 1)
    for profile in (base, wan):
        assert int(profile[growth]) == int(profile["ns3::TcpSocket::RcvBufSize"]) // 2


def test_phase_table_against_a_hand_made_series():
    # two phases of 4 s, sampled every second; flow 1 alone in phase 1, both in phase 2
    settings = _settings(
        phases=2,
        phase_s=4,
        sample_s=1,
        buffer_packets_by_phase=[50, 100],
        flows=[
            {"rtt_ms": 10, "start_phase": 0, "stop_phase": 2},
            {"rtt_ms": 20, "start_phase": 1, "stop_phase": 2},
        ],
    )
    run = {
        "series": {
            "t_s": [1, 2, 3, 4, 5, 6, 7, 8],
            "flow_Mbps": [[1, 2, 18, 18, 9, 9, 6, 10], [0, 0, 0, 0, 5, 5, 12, 8]],
            "flow_queue_pkts": [[0, 0, 10, 12, 5, 5, 4, 6], [0, 0, 0, 0, 5, 5, 8, 10]],
            "queue_mean_pkts": [0, 0, 10, 12, 10, 10, 12, 16],
            "queue_min_pkts": [0, 0, 8, 11, 9, 9, 10, 14],
            "queue_max_pkts": [0, 0, 12, 13, 11, 11, 14, 18],
            "buffer_pkts": [50, 50, 50, 50, 100, 100, 100, 100],
            "drops": [0, 3, 0, 1, 2, 0, 0, 0],
        }
    }
    table = phases.phase_table(run, settings)
    first, second = table.iloc[0], table.iloc[1]
    # settled half of phase 1: samples at 3 and 4 s
    assert first.flows_active == 1 and first.buffer_pkts == 50
    assert first.aggregate_Mbps == pytest.approx(18)
    assert first.jain_index == pytest.approx(1.0)
    assert first.queue_mean_pkts == pytest.approx(11) and first.queue_sd_pkts == pytest.approx(1)
    assert first.queue_min_pkts == 8 and first.queue_max_pkts == 13
    assert first.queued_per_flow_pkts == pytest.approx(11)
    assert first.drops_settled == 1 and first.drops_phase == 4
    # phase 2's settled samples at 7 and 8 s: flow 1 at 8 Mb/s, flow 2 at 10 Mb/s
    assert second.aggregate_Mbps == pytest.approx(18)
    assert second.jain_index == pytest.approx(18**2 / (2 * (8**2 + 10**2)))
    assert second.rate_min_Mbps == 8 and second.rate_max_Mbps == 10
    assert second.queued_per_flow_pkts == pytest.approx((5 + 9) / 2)
    capacity = 20 * 1448 / 1538  # the quick bottleneck's payload rate
    assert second.utilisation == pytest.approx(18 / capacity)
    # settling, band a tenth of the fair share: phase 1's flow (band 1.88 Mb/s around 18) is
    # outside at 1 and 2 s, inside from then on: settled 2 s after the phase began. In phase 2
    # (band 0.94 around 8 and 10) flow 1 is still 2 Mb/s off at the last sample: never.
    assert first.settle_s == pytest.approx(2.0)
    assert np.isnan(second.settle_s)


def test_settle_time_of_flows_inside_their_band_from_the_start_is_zero():
    t = np.array([11.0, 12.0, 13.0])
    rates = np.array([[5.0, 5.2, 4.9], [3.0, 2.0, 3.1]])
    final = np.array([5.0, 3.0])
    assert phases.settle_time_s(t, rates, final, band=0.5, start_s=10) == pytest.approx(2.0)
    assert phases.settle_time_s(t, rates, final, band=1.0, start_s=10) == 0.0


# --- the ns-3 program ---------------------------------------------------------------------------


def _run(programs, variant, **args):
    """The multiflow program on a small dumbbell (20 Mb/s), linux-6.1-wan and `variant`."""
    s = sc.load("multiflow-dynamic-i", "quick")
    point = s.point(f"variant={variant}")
    cmd = ns3.command(
        str(programs / "multiflow"), s, point, tcp_profiles.get("linux-6.1-wan"), 1, 0
    )
    for key, value in args.items():
        cmd = [a for a in cmd if not a.startswith(f"--{key}=")] + [f"--{key}={value}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


@pytest.mark.ns3
def test_two_fast_flows_share_fairly_and_keep_alpha_queued(ns3_programs):
    out = _run(ns3_programs, "fast", flows="50:0:30,50:0:30", durationS=30, bufferPackets=1000)
    assert out["ns3"]["congestion_control"] == "ns3::TcpFast"
    series = out["series"]
    t = np.asarray(series["t_s"])
    late = t > 15
    rates = np.asarray(series["flow_Mbps"])[:, late].mean(axis=1)
    capacity = 20 * 1448 / 1538
    assert rates.sum() > 0.97 * capacity
    assert phases.jain_index(rates) > 0.99
    per_flow = np.asarray(series["flow_queue_pkts"])[:, late].mean(axis=1)
    # FAST's fixed point: Alpha (100) packets of each flow queued (docs/fast-tcp.md)
    assert np.all((per_flow > 90) & (per_flow < 110)), per_flow
    # the per-flow counts add up to the queue the FIFO reports
    total = np.asarray(series["queue_mean_pkts"])[late]
    assert np.allclose(np.asarray(series["flow_queue_pkts"])[:, late].sum(axis=0), total, atol=1)
    assert out["metrics"]["bottleneck_drops"] == 0


@pytest.mark.ns3
def test_flows_send_only_inside_their_time_and_the_buffer_steps_and_bounds(ns3_programs):
    out = _run(
        ns3_programs,
        "cubic",
        flows="50:0:20,50:5:10",
        durationS=20,
        sampleS=0.5,
        pollS=0.05,
        bufferPackets=50,
        bufferSchedule="10:200",
    )
    series = out["series"]
    t = np.asarray(series["t_s"])
    second = np.asarray(series["flow_Mbps"][1])
    assert np.all(second[t <= 5] == 0)
    # it stops writing at 10 s; what it still had unsent (at most 256 KiB) drains within 1 s
    assert np.all(second[t > 11] == 0)
    assert second[(t > 6) & (t <= 10)].mean() > 1
    buffers = np.asarray(series["buffer_pkts"])
    assert np.all(buffers[t < 10] == 50) and np.all(buffers[t > 10.5] == 200)
    assert np.all(np.asarray(series["queue_max_pkts"]) <= buffers)
    # cubic fills a 50-packet drop-tail buffer: it overflows, and the queue, read every 50 ms,
    # is seen near the limit
    assert out["metrics"]["bottleneck_drops"] > 0
    assert max(series["queue_max_pkts"][: int(np.searchsorted(t, 10))]) >= 45
    assert sum(series["drops"]) == out["metrics"]["bottleneck_drops"]


def test_buffer_numbers_count_phases_as_fasts_design_predicts():
    from emusim.studies.multiflow import numbers as multiflow_paper

    # n alpha = 200 (alpha 100 from the registry): buffers of 50 and 100 cannot hold it
    base = {"variant": "fast", "n_flows": 2, "drops_settled": 0, "queue_mean_pkts": 200.0}
    rows = [
        {**base, "buffer_pkts": 50, "queue_sd_pkts": 20.0, "drops_settled": 9},
        {**base, "buffer_pkts": 100, "queue_sd_pkts": 0.5},  # steady although n alpha > buffer
        {**base, "buffer_pkts": 1000, "queue_sd_pkts": 0.5},
        {**base, "buffer_pkts": 2000, "queue_sd_pkts": 30.0},  # oscillating although it fits
    ]
    import pandas as pd

    out = multiflow_paper.buffer_numbers("multiflow-buffer", pd.DataFrame(rows))
    assert out["MultiflowBufferFastSteadyTwo"] == "100, 1000"
    assert out["MultiflowBufferFastOscillatingTwo"] == "50, 2000"
    assert out["MultiflowBufferFastAsPredictedTwo"] == "2 of 4"
    assert out["MultiflowBufferFastSteadyTwenty"] == "n/a"


def test_scenario_numbers_count_the_phases_that_settled_in_their_transient():
    from emusim.studies.multiflow import numbers as multiflow_paper

    settings = _settings(phases=3, phase_s=60)
    common = {"jain_index": 1.0, "utilisation": 1.0, "queue_mean_pkts": 200.0,
              "queue_sd_pkts": 0.5, "drops_phase": 0, "drops_settled": 0,
              "queued_per_flow_pkts": 120.0}  # fmt: skip
    rows = [
        # FAST: 4.5 and 12 s, then exactly half a phase (30 s): all three within the transient
        *({**common, "variant": "fast", "settle_s": s} for s in (4.5, 12.0, 30.0)),
        # CUBIC: one phase at 31 s (after the transient began to be measured), two never
        *({**common, "variant": "cubic", "settle_s": s} for s in (31.0, float("nan"), 2.0)),
    ]
    out = multiflow_paper.scenario_numbers(
        "multiflow-buffer", pd.DataFrame(rows), settings, ["fast", "cubic", "bbr"]
    )
    assert out["MultiflowBufferFastSettledPhases"] == "3"
    assert out["MultiflowBufferFastSettleMaxS"] == "30.0"
    assert out["MultiflowBufferCubicSettledPhases"] == "1"
    assert out["MultiflowBufferBbrSettledPhases"] == "n/a"
