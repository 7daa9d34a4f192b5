"""The ns-3 backend's modelling arithmetic, against hand-worked values."""

import copy
import csv
import dataclasses
from fractions import Fraction

import pytest

from emusim.backends.ns3 import command as ns3
from emusim.core import constants
from emusim.core.paths import SPEC_DIR
from emusim.inputs import scenario, tcp_profiles

RATE_bps = 100e6


def test_interframe_gap_makes_a_full_frame_1538_byte_times():
    # ns-3 serialises IP + 2 bytes PPP; 1500 + 2 + 36 = 1538 bytes at 100 Mb/s = 123.04 us.
    gap_ns = ns3.interframe_gap_ns(RATE_bps)
    assert gap_ns == 2880  # 36 bytes * 80 ns
    frame_ns = (1500 + 2) * 80 + gap_ns
    assert frame_ns == 1538 * 80


def test_wire_limit_of_100000_writes_is_12_304_s():
    # DESIGN.md: 100 000 full frames cannot finish in less than 12.304 s at 100 Mb/s.
    limit_s = 100_000 * constants.ETH_FRAME_WIRE_B * 8 / RATE_bps
    assert abs(limit_s - 12.304) < 0.0005


def test_channel_delay_reproduces_the_reports_rtt_model():
    d_us = 71.8878
    c_ns = ns3.channel_delay_ns(d_us, RATE_bps)
    # Per link: half the one-way delay plus 24 byte-times (1.92 us).
    assert c_ns == round(71.8878e3 / 2 + 1920)
    for size in (56, 256, 1408, 1472):
        ns3_rtt_us = 4 * (size + 8 + 20 + 2) * 0.08 + 4 * c_ns / 1000
        report_rtt_us = 2 * d_us + 4 * (size + 54) / 12.5
        assert abs(ns3_rtt_us - report_rtt_us) < 0.01


def test_cutoff_matches_the_shared_vectors():
    with open(SPEC_DIR / "drop_decision_vectors.csv") as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    cutoffs = [r for r in rows if r["kind"] == "cutoff"]
    assert len(cutoffs) >= 10
    for row in cutoffs:
        assert ns3.cutoff_from_rate(row["param"]) == int(row["expected"]), row
        assert int(Fraction(row["param"]) * 65535) == int(row["expected"])


def test_deterministic_points_run_once_random_points_every_repetition():
    s = scenario.load("regular-1in6", "paper")
    regular = s.point("iterations=10000+mode=regular")
    random = s.point("iterations=10000+mode=random")
    assert ns3.repetitions_to_run(regular, 10, False) == [1]
    assert ns3.repetitions_to_run(regular, 10, True) == list(range(1, 11))
    assert ns3.repetitions_to_run(random, 10, False) == list(range(1, 11))


def test_command_carries_point_profile_and_seed():
    s = scenario.load("random-drop", "paper")
    point = s.point("drop_rate=0.004")
    cmd = ns3.command("bin", s, point, tcp_profiles.get("linux-2.2"), 3, 71.8878)
    assert "--dropMode=random" in cmd and "--cutoff=262" in cmd
    assert "--run=3" in cmd and "--writes=100000" in cmd
    assert "--ns3::TcpSocketBase::MinRto=200ms" in cmd
    assert f"--seed={ns3.rng_seed('random-drop', 'drop_rate=0.004')}" in cmd
    assert ns3.rng_seed("random-drop", "drop_rate=0.004") != ns3.rng_seed(
        "random-drop", "drop_rate=0.008"
    )


def test_a_topology_the_program_cannot_build_is_refused():
    s = scenario.load("random-drop", "paper")
    settings = copy.deepcopy(s.settings)
    settings["topology"]["hosts"]["receiver"]["address"] = "10.0.0.2"
    other = dataclasses.replace(s, settings=settings)
    with pytest.raises(ValueError, match=r"topology\.hosts\.receiver\.address.*'10\.0\.0\.2'"):
        ns3.command("bin", other, s.points[0], tcp_profiles.get("linux-2.2"), 1, 71.9)
