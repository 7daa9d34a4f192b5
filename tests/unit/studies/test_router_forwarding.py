"""The router-forwarding study's pure parts: the wire's arithmetic against Ethernet's and IP's
rules worked out by hand, the metrics, the scenario and its errors, the ns-3 command, the
processing model's fit on data made from known costs, the paper's numbers, the figures."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from emusim.backends.ns3 import command as ns3
from emusim.core.paths import REPO_ROOT
from emusim.inputs import scenario as sc
from emusim.inputs import tcp_profiles
from emusim.report import macros
from emusim.studies.router_forwarding import figures as plots_forwarding
from emusim.studies.router_forwarding import fit as forwarding_fit
from emusim.studies.router_forwarding import numbers as forwarding_paper
from emusim.workloads import udp_flood

# IEEE 802.3 on the wire, per frame: preamble and SFD 8, MAC header 14, FCS 4, inter-frame
# gap 12; a frame's payload (the IP packet) is at least 46 bytes. IPv4 header 20, UDP 8.
PREAMBLE, HEADER, FCS, GAP, MIN_PAYLOAD = 8, 14, 4, 12, 46
IP, UDP, MTU = 20, 8, 1500
LINK_Bps = 100e6 / 8


def by_hand_wire(ip_lengths):
    return sum(max(ip, MIN_PAYLOAD) + PREAMBLE + HEADER + FCS + GAP for ip in ip_lengths)


@pytest.mark.parametrize(
    ("payload", "ip_lengths"),
    [
        (64, [64 + UDP + IP]),  # 92
        (1472, [1500]),  # the largest unfragmented datagram
        # 1481 IP-payload bytes: 1480 (the largest multiple of 8 in 1500 - 20) and 1
        (1473, [1500, 1 + IP]),
        (2048, [1500, 2056 - 1480 + IP]),
        (8192, [1500] * 5 + [8200 - 5 * 1480 + IP]),  # 820
        (8, [8 + UDP + IP]),  # shorter than 46: padded on the wire
    ],
)
def test_fragments_and_wire_bytes(payload, ip_lengths):
    assert udp_flood.fragments(payload) == ip_lengths
    assert udp_flood.frames(payload) == len(ip_lengths)
    assert udp_flood.ip_bytes(payload) == sum(ip_lengths)
    assert udp_flood.wire_bytes(payload) == by_hand_wire(ip_lengths)


def test_line_rate():
    # 64 B: a 92-byte IP packet, 130 byte-times: 12 500 000 / 130 = 96 153.8 datagrams/s
    assert udp_flood.line_rate_pps(64) == pytest.approx(96153.846, abs=1e-3)
    assert udp_flood.line_rate_pps(1472) == pytest.approx(LINK_Bps / 1538)
    # 8192 B: 5 x 1538 + (820 + 38) = 8548 byte-times
    assert udp_flood.line_rate_pps(8192) == pytest.approx(LINK_Bps / 8548)
    assert udp_flood.line_rate_Mbps(1472) == pytest.approx(
        1472 / 1538 * 100
    )  # payload share of the wire
    assert udp_flood.line_rate_Mbps(64, 10e6) == pytest.approx(64 / 130 * 10)


def test_flood_metrics():
    m = udp_flood.flood_metrics(512, 1001, 2.0, 901, 1.8, send_errors=3)
    assert m["tx_pps"] == pytest.approx(1000 / 2.0)
    assert m["packets_per_s"] == pytest.approx(900 / 1.8)
    assert m["throughput_Mbps"] == pytest.approx(500 * 512 * 8 / 1e6)
    assert m["loss"] == pytest.approx(100 / 1001)
    assert m["frames_per_datagram"] == 1 and m["send_errors"] == 3
    empty = udp_flood.flood_metrics(64, 0, 0.0, 0, 0.0)
    assert empty["packets_per_s"] == 0 and empty["loss"] == 0


def test_fragmented_floods_are_paced_at_line_rate():
    assert udp_flood.flood_pace(1472, 100e6, 100) is None  # one frame: refused whole
    rate, burst = udp_flood.flood_pace(8192, 100e6, 100)
    assert rate == pytest.approx(LINK_Bps / 8548)
    # 6 frames a datagram, at most half the 100-frame queue back to back: 8 datagrams
    assert burst == 8 and burst * 6 <= 50
    # 2048 B: fragments of 1500 and 596 IP bytes, 2 frames: 10 // 2 // 2 = 2 datagrams
    rate, burst = udp_flood.flood_pace(2048, 100e6, 10)
    assert rate == pytest.approx(LINK_Bps / (1538 + 596 + 38)) and burst == 2


def test_scenario_points():
    quick = sc.load("router-forwarding", "quick")
    paper = sc.load("router-forwarding", "paper")
    assert quick.axes == paper.axes == ["payload_B", "path"]
    assert [p.values["payload_B"] for p in paper.points][::2] == [
        64, 128, 256, 512, 1024, 1472, 2048, 4096, 8192,
    ]  # fmt: skip
    assert {p.values["path"] for p in quick.points} == set(udp_flood.PATHS)
    assert quick.points[0].workload == {
        "kind": "udp-flood", "duration_s": 1, "payload_B": 64, "path": "direct",
    }  # fmt: skip
    assert udp_flood.is_flood(quick)
    assert udp_flood.destination("direct", quick.settings["topology"]) == "192.168.1.1"
    assert udp_flood.destination("routed", quick.settings["topology"]) == "192.168.2.2"


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "topologies").mkdir(exist_ok=True)
    src = REPO_ROOT / "scenarios/topologies/lin2001.yaml"
    (tmp_path / "topologies/lin2001.yaml").write_text(src.read_text())
    path = tmp_path / "bad.yaml"
    path.write_text(
        "description: x\ntopology: {use: lin2001}\nimpairment: {dropper: {mode: 'off'}}\n"
        "profiles: [linux-2.2]\nrepetitions: 1\n" + text
    )
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "workload: {kind: udp-flood, duration_s: 3, path: direct}\nsweep: {payload_B: [4]}\n",
            "key 'workload.payload_B' has value 4; accepted: a whole number of bytes in [8, 65507]",
        ),
        (
            "workload: {kind: udp-flood, duration_s: 3, payload_B: 64}\n"
            "sweep: {path: [direct, sideways]}\n",
            "key 'sweep.path.1' has value 'sideways'; accepted: one of direct, routed",
        ),
        (
            "workload: {kind: udp-flood, duration_s: 3}\nsweep: {payload_B: [64]}\n",
            "key 'workload.path' is missing (or sweep path)",
        ),
        ("workload: {kind: udp-flood, duration_s: 0, payload_B: 64, path: direct}\n", "duration_s"),
    ],
)
def test_bad_scenarios_name_file_key_and_value(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(sc.ScenarioError) as err:
        sc.load(path, "paper")
    assert str(path) in str(err.value) and message in str(err.value)


def test_ns3_command_runs_the_forwarding_program():
    s = sc.load("router-forwarding", "quick")
    point = s.point("payload_B=8192+path=routed")
    assert ns3.program_name(s) == "router-forwarding"
    cmd = ns3.command("router-forwarding", s, point, tcp_profiles.get("linux-2.2"), 1, 71.89)
    for arg in ("--workload=flood", "--payload=8192", "--path=routed", "--durationS=1"):
        assert arg in cmd
    assert "--dropMode=off" in cmd and "--hostQueuePackets=100" in cmd


FIT = {
    "shared_cpu": True,
    "queue_packets": 1000,
    "host": {"per_datagram_s": 200e-6, "per_extra_frame_s": 50e-6, "per_byte_s": 10e-9},
    "router": {"per_packet_s": 30e-6, "per_byte_s": 2e-9},
}


def test_ns3_model_args():
    args = udp_flood.ns3_model_args(FIT, 8192)
    # the generator's time for 8192 B: 200 us + 5 more frames x 50 us + 8320 IP bytes x 10 ns
    # = 533.2 us
    assert "--generatorTimeNs=533200.000" in args
    assert "--routerPerPacketNs=30000.000" in args and "--routerPerByteNs=2.000000" in args
    assert "--sharedCpu=true" in args and "--processorQueuePackets=1000" in args
    bad = {**FIT, "router": {"per_packet_s": float("nan"), "per_byte_s": 0.0}}
    with pytest.raises(udp_flood.ForwardingError, match=r"router\.per_packet_s"):
        udp_flood.ns3_model_args(bad, 64)


# --- the fit, on runs made from known costs ----------------------------------------------------

G_DATAGRAM, G_FRAME, G_BYTE = 250e-6, 30e-6, 20e-9  # the generator: per datagram, per extra
# frame, per IP byte
R_PACKET, R_BYTE = 40e-6, 5e-9  # the router
SIZES = (64, 512, 1472, 4096, 8192)


def synthetic_runs(noise: float, reps: int = 4, seed: int = 1) -> pd.DataFrame:
    """Runs of a shared CPU: direct at 1 / g, routed at 1 / (g + r), at most the line rate,
    each pace with multiplicative noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in SIZES:
        k, b = udp_flood.frames(p), udp_flood.ip_bytes(p)
        g, r = G_DATAGRAM + G_FRAME * (k - 1) + G_BYTE * b, R_PACKET * k + R_BYTE * b
        for rep in range(1, reps + 1):
            for path, t in (("direct", g), ("routed", g + r)):
                pace = min(1 / t, udp_flood.line_rate_pps(p))
                pace *= 1 + noise * rng.standard_normal()
                rows.append({"payload_B": p, "path": path, "repetition": rep,
                             "tx_pps": pace, "packets_per_s": pace})  # fmt: skip
    return pd.DataFrame(rows)


def test_fit_recovers_exact_costs():
    fit = forwarding_fit.fit(synthetic_runs(noise=0.0), "mininet")
    assert fit["status"] == "ok" and fit["shared_cpu"] is True
    assert fit["host"]["per_datagram_s"] == pytest.approx(G_DATAGRAM, rel=1e-9)
    assert fit["host"]["per_extra_frame_s"] == pytest.approx(G_FRAME, rel=1e-9)
    assert fit["host"]["per_byte_s"] == pytest.approx(G_BYTE, rel=1e-9)
    assert fit["router"]["per_packet_s"] == pytest.approx(R_PACKET, rel=1e-9)
    assert fit["router"]["per_byte_s"] == pytest.approx(R_BYTE, rel=1e-9)
    # 8192 B direct would take 1 / (250 + 5 x 30 + 8320 x 0.02) us = 1767/s: the line (1462/s)
    # holds it back, not the CPU, so that size is in neither fit
    assert fit["router"]["n"] == fit["host"]["n"] == (len(SIZES) - 1) * 4
    # alone, the router forwards the smallest packets at 1 / (a + 92 b)
    alone = fit["ceilings"]["router_alone_pps"]
    assert alone == pytest.approx(1 / (R_PACKET + 92 * R_BYTE), rel=1e-9)
    # exact data: the intervals shrink to the estimates
    low, high = fit["router"]["per_packet_ci_s"]
    assert low == pytest.approx(R_PACKET, rel=1e-6) and high == pytest.approx(R_PACKET, rel=1e-6)


def test_fit_intervals_cover_the_truth():
    covered = {"per_packet": 0, "per_byte": 0}
    trials = 40
    for seed in range(trials):
        router = forwarding_fit.fit(synthetic_runs(0.01, seed=seed), "mininet")["router"]
        for term, truth, key in (
            ("per_packet", R_PACKET, "per_packet"),
            ("per_byte", R_BYTE, "per_byte"),
        ):
            low, high = router[f"{key}_ci_s"]
            covered[term] += low <= truth <= high
    # 95 % intervals: at least 33 of 40 cover (binomial, P(X < 33) < 1 % at p = 0.95)
    assert all(n >= 33 for n in covered.values()), covered


def test_fit_leaves_a_negative_cost_out():
    runs = synthetic_runs(0.0)
    # a router whose time shrinks with size: the per-byte estimate is negative
    routed = runs["path"] == "routed"
    b = runs["payload_B"].map(udp_flood.ip_bytes)
    k = runs["payload_B"].map(udp_flood.frames)
    g = G_DATAGRAM + G_FRAME * (k - 1) + G_BYTE * b
    runs.loc[routed, "tx_pps"] = 1 / (g[routed] + 40e-6 * k[routed] - 1e-9 * b[routed])
    router = forwarding_fit.fit(runs, "mininet")["router"]
    # the estimate and its interval are reported; the model uses 0
    assert router["per_byte_estimate_s"] == pytest.approx(-1e-9, rel=1e-6)
    assert router["per_byte_s"] == 0.0
    assert any("per_byte" in note and "left out" in note for note in router["notes"])
    assert router["per_packet_s"] > 0


def test_fit_without_a_fragmented_size_cannot_tell_the_fragment_cost():
    runs = synthetic_runs(0.0)
    # the largest sizes reach the line rate: no fragmented datagram was held back by the CPU
    fragmented = runs["payload_B"] > 1472
    runs.loc[fragmented, "tx_pps"] = runs.loc[fragmented, "payload_B"].map(udp_flood.line_rate_pps)
    host = forwarding_fit.fit(runs, "mininet")["host"]
    assert host["n"] == 3 * 4
    assert host["per_extra_frame_s"] == 0.0 and math.isnan(host["per_extra_frame_estimate_s"])
    assert any(note.startswith("per_extra_frame: the sizes") for note in host["notes"])
    assert host["per_datagram_s"] == pytest.approx(G_DATAGRAM, rel=1e-9)
    assert host["per_byte_s"] == pytest.approx(G_BYTE, rel=1e-9)


def test_fit_without_cpu_bound_runs_costs_nothing():
    rows = [
        {"payload_B": p, "path": path, "repetition": 1,
         "tx_pps": udp_flood.line_rate_pps(p), "packets_per_s": udp_flood.line_rate_pps(p)}
        for p in SIZES for path in udp_flood.PATHS
    ]  # fmt: skip
    fit = forwarding_fit.fit(pd.DataFrame(rows), "mininet")
    assert fit["host"]["per_datagram_s"] == fit["router"]["per_packet_s"] == 0.0
    assert "generator: no direct run" in fit["status"] and "router: no size" in fit["status"]


def test_fit_refuses_an_unknown_backend():
    with pytest.raises(udp_flood.ForwardingError, match="hardware"):
        forwarding_fit.fit(synthetic_runs(0.0), "hardware")


# --- paper numbers and figures ------------------------------------------------------------------


def _stats() -> pd.DataFrame:
    rows = []
    for backend, scale in (("mininet", 0.03), ("ns3", 1.0), ("ns3-model", 0.03)):
        for p in (64, 512, 1472, 8192):
            for path in udp_flood.PATHS:
                pps = udp_flood.line_rate_pps(p) * scale * (0.9 if path == "routed" else 1)
                pps = min(pps, udp_flood.line_rate_pps(p))
                for metric, value in (("tx_pps", pps), ("packets_per_s", pps),
                                      ("throughput_Mbps", pps * p * 8 / 1e6),
                                      ("loss", 0.01 if path == "routed" else 0.0)):  # fmt: skip
                    rows.append({"scenario": "router-forwarding", "backend": backend,
                                 "profile": "linux-2.2",
                                 "point": f"payload_B={p}+path={path}", "payload_B": p,
                                 "path": path, "metric": metric, "n": 2, "mean": value,
                                 "ci95_low": value * 0.95, "ci95_high": value * 1.05})  # fmt: skip
    return pd.DataFrame(rows)


def test_paper_numbers_from_hand_made_results():
    stats = _stats()
    fit = forwarding_fit.fit(synthetic_runs(0.0), "mininet")
    fit["emulation"] = {"place": "vm", "kernel_release": "6.1.0-56-amd64"}
    compare = pd.DataFrame(
        {"point": ["a", "b"], "metric": ["packets_per_s", "packets_per_s"],
         "mininet": [100.0, 200.0], "ns3-model": [110.0, 150.0], "rel_diff": [-0.1, 0.25]}
    )  # fmt: skip
    tables = {"stats_router-forwarding": stats, "forwarding_model_router-forwarding": compare}
    jsons = {"forwarding_fit_router-forwarding": fit}
    out = forwarding_paper.numbers(
        ["router-forwarding", "random-drop"], "quick", tables.get, jsons.get
    )
    line64 = udp_flood.line_rate_pps(64)
    assert out["RouterForwardingSizes"] == "4" and out["RouterForwardingSmallestB"] == "64"
    assert out["RouterForwardingLineRatePpsSmallest"] == r"96\,154"
    assert out["RouterForwardingMininetGeneratorPps"] == str(round(line64 * 0.03))
    assert out["RouterForwardingMininetRoutedPpsShare"] == "0.900"
    assert out["RouterForwardingMininetLossMaxPercent"] == "1.0"
    assert out["RouterForwardingRouterPerPacketUs"] == "40.0"
    assert out["RouterForwardingRouterPerByteNs"] == "5.00"
    assert out["RouterForwardingEmulationPlace"] == "a virtual machine"
    # exact data: the interval is the estimate itself
    assert out["RouterForwardingRouterPerPacketEstimate"] == (
        r"40.0\us{} per packet (confidence interval 40.0 to 40.0)"
    )
    assert out["RouterForwardingFitNotes"] == "every estimate is used"
    assert (
        out["RouterForwardingRouterAlone"]
        == rf"{macros.integer(1 / (R_PACKET + 92 * R_BYTE))} packets per second"
    )
    # median of |-0.1| and |0.25|
    assert out["RouterForwardingRelDiffMedianNsThreeModelPps"] == "0.175"
    assert out["RouterForwardingRelDiffMedianNsThreePps"] == "n/a"
    nothing = forwarding_paper.numbers(["router-forwarding"], "quick", {}.get, {}.get)
    assert set(nothing) == set(out)
    assert nothing["RouterForwardingRouterPerPacketUs"] == "n/a"
    # what the text needs whether or not the emulation ran: the kernel's queue, its CPU
    assert nothing["RouterForwardingQueuePackets"] == "1000"
    assert nothing["RouterForwardingCpuShared"] == "shared with the sender"


def test_figures_are_written(tmp_path):
    stats = _stats()
    for kind in ("mbps", "pps", "loss"):
        paths = plots_forwarding.fig_quantity(stats, tmp_path / f"fig_{kind}", kind, 100e6)
        assert all(p.stat().st_size > 1000 for p in paths)
    fit = json.loads(json.dumps(forwarding_fit.fit(synthetic_runs(0.01), "mininet")))
    paths = plots_forwarding.fig_fit(fit, tmp_path / "fig_fit")
    assert all(p.stat().st_size > 1000 for p in paths)
    # the same tables give the same bytes
    again = plots_forwarding.fig_quantity(stats, tmp_path / "again", "pps", 100e6)
    assert again[0].read_bytes() == (tmp_path / "fig_pps.pdf").read_bytes()
