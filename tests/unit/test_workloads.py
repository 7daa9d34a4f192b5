"""The workload registry (emusim.workloads): found by name, each owning its schema, its ns-3
program and its comparisons, against expectations worked out by hand."""

import pytest

from emusim import workloads
from emusim.inputs import scenario as sc


def test_every_kind_is_found_by_its_name():
    assert set(workloads.registry()) == {"tcp-blast", "udp-blast", "ping", "udp-flood", "multiflow"}
    for kind, workload in workloads.registry().items():
        assert workload.kind == kind and workloads.get(kind) is workload
    with pytest.raises(workloads.WorkloadError, match=r"no workload 'tcp-rr'; known: multiflow"):
        workloads.get("tcp-rr")


def test_the_scenario_schema_has_one_alternative_per_workload():
    alternatives = sc._schema()["properties"]["workload"]["oneOf"]
    kinds = [a["properties"]["kind"]["const"] for a in alternatives]
    assert sorted(kinds) == sorted(workloads.registry())


def test_a_bad_workload_value_is_named_inside_its_own_alternative(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "description: x\ntopology: {use: lin2001}\n"
        "workload: {kind: tcp-blast, writes: -5, write_size_B: 1448}\n"
        "impairment: {dropper: {mode: 'off'}}\nprofiles: [linux-2.2]\nrepetitions: 1\n"
    )
    (tmp_path / "topologies").mkdir()
    (tmp_path / "topologies" / "lin2001.yaml").write_text(
        (sc.SCENARIO_DIR / "topologies" / "lin2001.yaml").read_text()
    )
    with pytest.raises(sc.ScenarioError, match=r"key 'workload.writes' has value -5"):
        sc.load(path, "paper")


def test_the_ns3_program_follows_the_topology_or_the_workload():
    line = {"topology": {"hosts": {"sender": {}, "router": {}, "receiver": {}}}}
    four = {"topology": {"hosts": {"sender": {}, "router": {}, "router2": {}, "receiver": {}}}}
    assert workloads.get("tcp-blast").ns3_program(line) == "testbed-2001"
    assert workloads.get("tcp-blast").ns3_program(four) == "lossy-link"
    assert workloads.get("udp-flood").ns3_program(line) == "router-forwarding"
    assert workloads.get("multiflow").ns3_program(four) == "multiflow"
    with pytest.raises(workloads.WorkloadError, match=r"lossy-link .* runs tcp-blast only"):
        workloads.get("ping").ns3_program(four)


def test_wire_time_is_one_full_frame_per_write():
    # 1000 frames of 1538 bytes on the wire at 100 Mb/s: 123.04 ms
    assert workloads.get("tcp-blast").wire_busy_s({"writes": 1000}, 1e8) == pytest.approx(0.12304)
    assert workloads.get("udp-blast").wire_busy_s({"datagrams": 10}, 1e8) == pytest.approx(
        0.0012304
    )
    assert workloads.get("udp-flood").wire_busy_s({"duration_s": 2.5}, 1e8) == 2.5
    assert workloads.get("ping").wire_busy_s({"count": 10}, 1e8) == 0.0


def test_what_each_workload_is_compared_on():
    assert workloads.get("ping").hardware_metrics(sizes_match=True) == ["rtt_us"]
    assert workloads.get("tcp-blast").hardware_metrics(sizes_match=False) == [
        "throughput_report_Bps"
    ]
    assert workloads.get("tcp-blast").hardware_metrics(sizes_match=True) == [
        "throughput_report_Bps",
        "elapsed_s",
    ]
    assert workloads.get("udp-flood").backend_metrics == (
        "throughput_Mbps",
        "packets_per_s",
        "loss",
    )
    assert (
        not workloads.get("multiflow").emulated and not workloads.get("multiflow").per_point_table
    )


def test_the_testbeds_own_checks_of_a_run():
    ping = workloads.get("ping")
    lost_one = ping.consistency_checks({"rtt_us": [1.0, 2.0]}, {"count": 3}, False)
    assert lost_one == [{"check": "echoes", "expected": 3, "received": 2, "ok": False}]
    # with the dropper dropping, lost echoes are expected
    assert ping.consistency_checks({"rtt_us": [1.0]}, {"count": 3}, True) == []
    udp = workloads.get("udp-blast")
    assert (
        udp.consistency_checks({"datagrams_lost": 4, "packets_dropped": 5}, {}, True)[0]["ok"]
        is False
    )
    assert workloads.get("tcp-blast").timed and not ping.timed
