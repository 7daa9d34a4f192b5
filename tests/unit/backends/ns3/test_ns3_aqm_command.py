"""The lossy-link program's arguments for topology.access_rate_Mbps and topology.aqm
(emusim.backends.ns3.command): each worked by hand from scenarios/ecn-marking.yaml, and the
refusals, which name the file, the key and the value."""

from pathlib import Path

import pytest
import yaml

from emusim.backends.ns3 import command as ns3
from emusim.inputs import scenario, tcp_profiles

PROFILE = "linux-6.1"


def _args(cmd: list[str]) -> dict[str, str]:
    pairs = [a[2:].split("=", 1) for a in cmd[1:]]
    assert len({k for k, _ in pairs}) == len(pairs), "an argument given twice"
    return dict(pairs)


def _command(s, point_id: str) -> dict[str, str]:
    return _args(ns3.command("lossy-link", s, s.point(point_id), tcp_profiles.get(PROFILE), 1, 0.0))


def test_ecn_marking_dctcp_maps_onto_codel_and_two_link_rates():
    args = _command(scenario.load("ecn-marking", "quick"), "variant=dctcp")
    # the middle link at 50 Mb/s: a byte takes 160 ns; Ethernet's 38 bytes beyond the IP
    # packet less ns-3's 2-byte PPP header are 36 byte-times of gap
    assert args["linkRateBps"] == "50000000"
    assert args["interframeGapNs"] == str(36 * 160)
    # its 10 ms plus the 24 byte-times by which an Ethernet frame ends later, at 50 Mb/s
    assert args["linkDelayNs"] == str(10_000_000 + 24 * 160)
    # the hosts' links at 100 Mb/s (80 ns a byte): their gap and their framing correction
    assert args["accessRateBps"] == "100000000"
    assert args["accessInterframeGapNs"] == str(36 * 80)
    assert args["channelDelayNs"] == str(24 * 80)
    # sch_codel's limit is the scenario's router queue
    assert args["routerQueuePackets"] == "1000"
    assert args["aqm"] == "codel"
    assert args["codelTargetUs"] == "5000"
    assert args["codelIntervalUs"] == "100000"
    assert args["codelEcn"] == "true"
    assert args["codelCeThresholdUs"] == "1000"
    assert args["lossCutoff"] == "0"
    # dctcp is Linux's module with ECN on (config/tcp_variants.yaml: ecn: true)
    assert args["ns3::TcpLinuxCongestion::Algorithm"] == "dctcp"
    assert args["ns3::TcpSocketBase::UseEcn"] == "On"


def test_cubic_runs_without_ecn_through_the_same_queue():
    args = _command(scenario.load("ecn-marking", "quick"), "variant=cubic")
    assert args["aqm"] == "codel" and args["codelEcn"] == "true"
    assert args["ns3::TcpLinuxCongestion::Algorithm"] == "cubic"
    assert "ns3::TcpSocketBase::UseEcn" not in args


def test_a_scenario_without_the_keys_gets_none_of_the_new_arguments():
    # the lossy-link family's commands stay as they were
    args = _command(scenario.load("lossy-link", "quick"), "delay_ms=10+loss=0.05+variant=reno")
    for name in ("accessRateBps", "accessInterframeGapNs", "aqm", "codelTargetUs"):
        assert name not in args
    assert args["linkRateBps"] == "100000000" and args["channelDelayNs"] == str(24 * 80)


def _variant_of(tmp_path: Path, name: str, change) -> scenario.Scenario:
    """A copy of a shipped scenario with `change` applied to its YAML."""
    raw = yaml.safe_load((scenario.SCENARIO_DIR / f"{name}.yaml").read_text())
    change(raw)
    (tmp_path / "topologies").symlink_to(scenario.SCENARIO_DIR / "topologies")
    path = tmp_path / f"{name}-changed.yaml"
    path.write_text(yaml.safe_dump(raw))
    return scenario.load(path, "quick")


def _refusal(s: scenario.Scenario, point_id: str) -> str:
    with pytest.raises(ValueError) as err:
        ns3.command("p", s, s.point(point_id), tcp_profiles.get(PROFILE), 1, 0.0)
    return str(err.value)


def test_aqm_on_the_three_host_line_is_refused_naming_file_key_and_value(tmp_path):
    def add_codel(raw):
        raw["topology"]["aqm"] = {"kind": "codel", "target_us": 5000, "interval_us": 100000,
                                  "ecn": True}  # fmt: skip

    s = _variant_of(tmp_path, "random-drop", add_codel)
    message = _refusal(s, s.points[0].id)
    assert str(s.path) in message and "'topology.aqm'" in message
    assert "'kind': 'codel'" in message and "testbed-2001" in message


def test_access_rate_on_the_three_host_line_is_refused(tmp_path):
    def add_access(raw):
        raw["topology"]["access_rate_Mbps"] = 1000

    s = _variant_of(tmp_path, "random-drop", add_access)
    message = _refusal(s, s.points[0].id)
    assert str(s.path) in message and "'topology.access_rate_Mbps'" in message
    assert "1000" in message


def test_aqm_with_loss_is_refused(tmp_path):
    def add_loss(raw):
        raw["impairment"]["link"]["loss"] = "0.01"

    s = _variant_of(tmp_path, "ecn-marking", add_loss)
    message = _refusal(s, "variant=dctcp")
    assert str(s.path) in message and "'impairment.link.loss'" in message and "'0.01'" in message


def test_a_ce_threshold_without_ecn_is_refused(tmp_path):
    # ns-3's CoDelQueueDisc would not mark at it, where Linux's sch_codel would
    def ecn_off(raw):
        raw["topology"]["aqm"]["ecn"] = False

    s = _variant_of(tmp_path, "ecn-marking", ecn_off)
    message = _refusal(s, "variant=dctcp")
    assert "'topology.aqm.ce_threshold_us'" in message and "1000" in message


def test_aqm_without_a_ce_threshold_passes_none(tmp_path):
    def no_threshold(raw):
        del raw["topology"]["aqm"]["ce_threshold_us"]

    s = _variant_of(tmp_path, "ecn-marking", no_threshold)
    args = _command(s, "variant=dctcp")
    assert args["aqm"] == "codel" and "codelCeThresholdUs" not in args


def test_a_profiles_pacing_is_the_senders_access_link_rate():
    # linux-6.1-wan paces at the payload rate of back-to-back full frames on the sender's own
    # link, here the 100 Mb/s access link: 10^8 x 1448 / 1538 = 94 148 244.47, rounded down
    s = scenario.load("ecn-marking", "quick")
    cmd = ns3.command(
        "lossy-link", s, s.point("variant=dctcp"), tcp_profiles.get("linux-6.1-wan"), 1, 0
    )
    assert _args(cmd)["ns3::TcpSocketState::MaxPacingRate"] == "94148244bps"
