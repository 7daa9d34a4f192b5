"""Scenario files: validation errors name file, key and value; sweeps expand as written."""

from pathlib import Path

import pytest
import yaml

from emusim.inputs import scenario, tcp_profiles
from emusim.inputs.scenario import ScenarioError

KNOWN_PROFILES = set(tcp_profiles.registry())


def test_every_scenario_loads_at_both_scales():
    for name in scenario.scenario_names():
        for scale in scenario.SCALES:
            s = scenario.load(name, scale, KNOWN_PROFILES)
            assert s.points, name


def test_random_drop_sweep_is_the_reports_38_rates():
    s = scenario.load("random-drop", "paper")
    rates = [p.values["drop_rate"] for p in s.points]
    # 0 to 0.148 in steps of 0.004: 0.148 / 0.004 + 1 = 38 rates (Table 4.1).
    assert len(rates) == 38
    assert rates[0] == "0" and rates[1] == "0.004" and rates[-1] == "0.148"
    assert s.repetitions == 10 and s.point("drop_rate=0.004").workload["writes"] == 100_000


def test_regular_drop_has_table_4_3_rows():
    s = scenario.load("regular-drop", "paper")
    every_n = [p.values["every_n"] for p in s.points]
    assert every_n[:3] == [0, 10000, 2000] and every_n[-1] == 7 and len(every_n) == 21


def test_cartesian_product_in_file_order():
    s = scenario.load("regular-1in6", "paper")
    assert len(s.points) == 8 * 2
    assert s.points[0].id == "iterations=10000+mode=regular"
    assert s.points[1].id == "iterations=10000+mode=random"
    assert s.point("iterations=30000+mode=random").workload["writes"] == 30000
    assert s.point("iterations=30000+mode=random").is_random
    assert not s.point("iterations=30000+mode=regular").is_random


def test_quick_scale_reduces(tmp_path):
    paper = scenario.load("random-drop", "paper")
    quick = scenario.load("random-drop", "quick")
    assert len(quick.points) < len(paper.points)
    assert quick.point("drop_rate=0.02").workload["writes"] == 10000


def _write(tmp_path: Path, data: dict) -> Path:
    (tmp_path / "topologies").mkdir(exist_ok=True)
    src = scenario.SCENARIO_DIR / "topologies" / "lin2001.yaml"
    (tmp_path / "topologies" / "lin2001.yaml").write_text(src.read_text())
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _base() -> dict:
    return yaml.safe_load((scenario.SCENARIO_DIR / "random-drop.yaml").read_text())


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda d: d["impairment"]["dropper"].update(mode="randm"),
            ["impairment.dropper.mode", "'randm'", "'random'"],
        ),
        (lambda d: d.update(repetitions=0), ["repetitions", "0", ">= 1"]),
        (lambda d: d.update(colour="blue"), ["colour", "unknown key"]),
        (lambda d: d["sweep"].update(drop_rate=["0", "1.5"]), ["sweep.drop_rate.1", "'1.5'"]),
        # a range's bound is named as written, not as the first expanded value beyond 1
        (
            lambda d: d["sweep"].update(drop_rate={"start": "0", "stop": "1.5", "step": "0.004"}),
            ["sweep.drop_rate.stop", "'1.5'"],
        ),
        (lambda d: d["sweep"].update(jitter_ms=[1]), ["sweep.jitter_ms", "drop_rate"]),
        (lambda d: d.update(profiles=["linux-9"]), ["profiles.0", "'linux-9'", "linux-2.2"]),
        (lambda d: d.update(topology={"use": "nowhere"}), ["topology.use", "'nowhere'"]),
        (lambda d: d["workload"].update(writes=-5), ["workload", "-5"]),
        (
            lambda d: d["impairment"]["dropper"].update(impl="ebpf"),
            ["impairment.dropper.impl", "'ebpf'", "'netfilter'"],
        ),
    ],
)
def test_errors_name_file_key_value_and_accepted(tmp_path, change, expected):
    data = _base()
    change(data)
    path = _write(tmp_path, data)
    with pytest.raises(ScenarioError) as err:
        scenario.load(path, "paper", KNOWN_PROFILES)
    message = str(err.value)
    assert str(path) in message
    for part in expected:
        assert part in message, message


def test_random_mode_without_rate_is_an_error(tmp_path):
    data = _base()
    del data["sweep"]
    path = _write(tmp_path, data)
    with pytest.raises(ScenarioError, match=r"impairment\.dropper\.rate"):
        scenario.load(path, "paper")


def test_unknown_scale_is_an_error():
    with pytest.raises(ScenarioError, match="'huge'"):
        scenario.load("random-drop", "huge")


def test_dropper_impl_is_accepted(tmp_path):
    data = _base()
    data["impairment"]["dropper"]["impl"] = "netfilter"
    loaded = scenario.load(_write(tmp_path, data), "paper", KNOWN_PROFILES)
    assert loaded.settings["impairment"]["dropper"]["impl"] == "netfilter"


def test_thinned_points_stride_the_first_axis_and_keep_the_others():
    s = scenario.load("regular-1in6", "paper")
    thin = s.thinned_points(3)
    # iterations 10000 … 80000: every 3rd value (10000, 40000, 70000), both modes of each
    assert [(p.values["iterations"], p.values["mode"]) for p in thin] == [
        (n, m) for n in (10000, 40000, 70000) for m in ("regular", "random")
    ]
    assert s.thinned_points(1) == s.points
    one_axis = scenario.load("random-drop", "paper")
    assert one_axis.thinned_points(3) == one_axis.points[::3]
    with pytest.raises(ValueError, match="stride 0"):
        s.thinned_points(0)


def _set(data: dict, dotted: str, value) -> None:
    *parents, leaf = dotted.split(".")
    for key in parents:
        data = data.setdefault(key, {})
    data[leaf] = value


@pytest.mark.parametrize(
    ("key", "value", "load_scale", "bad_scale", "named"),
    [
        # a quick-scale override that only a quick load reads, loaded at paper scale
        ("scales.quick.repetitions", "two", "paper", "quick", "repetitions"),
        # the body that paper scale keeps (quick overrides each of these), loaded at quick
        ("workload.writes", -5, "quick", "paper", "workload.writes"),
        ("repetitions", 0, "quick", "paper", "repetitions"),
        (
            "sweep.drop_rate",
            {"start": "0", "stop": "0.1", "step": "0"},
            "quick",
            "paper",
            "sweep.drop_rate",
        ),
        ("sweep.drop_rate", ["0", "1.5"], "quick", "paper", "sweep.drop_rate.1"),
    ],
)
def test_every_scale_is_validated_at_load(tmp_path, key, value, load_scale, bad_scale, named):
    data = _base()
    _set(data, key, value)
    path = _write(tmp_path, data)
    with pytest.raises(ScenarioError) as err:
        scenario.load(path, load_scale, KNOWN_PROFILES)
    message = str(err.value)
    assert str(path) in message and f"at scale {bad_scale!r}" in message
    assert f"key {named!r}" in message or f"unknown key {named!r}" in message


def test_a_scale_the_suite_does_not_know_is_refused(tmp_path):
    data = _base()
    data["scales"]["huge"] = {"repetitions": 100}
    with pytest.raises(ScenarioError, match=r"key 'scales\.huge' is not a scale"):
        scenario.load(_write(tmp_path, data), "paper")


def test_points_where_match_text_or_number_and_any_listed_value():
    s = scenario.load("lossy-link", "paper")
    cells = s.points_where({"delay_ms": 10, "loss": ["0.01", 0.05]})
    variants = {p.variant for p in s.points}
    # every variant at the two cells, nothing else: 0.05 as a number matches "0.05"
    assert len(cells) == 2 * len(variants)
    assert {(p.values["delay_ms"], p.values["loss"]) for p in cells} == {(10, "0.01"), (10, "0.05")}
    assert s.points_where({"variant": "reno", "loss": "0.25"}, cells) == ()


def test_the_dropper_targets_the_receiver_unless_the_scenario_says_otherwise(tmp_path):
    data = _base()
    point = scenario.load(_write(tmp_path, data), "paper").points[0]
    # the 2001 topology's receiver (scenarios/topologies/lin2001.yaml)
    assert point.dropper_target == "192.168.2.2"
    data["impairment"]["dropper"]["target"] = "192.168.1.2"
    assert scenario.load(_write(tmp_path, data), "paper").points[0].dropper_target == "192.168.1.2"


def test_more_runs_give_a_point_more_repetitions_in_any_design_that_does_not_thin_them():
    paper = scenario.load("lossy-link", "paper")
    spread = paper.point("delay_ms=10+loss=0.01+variant=illinois")
    other = paper.point("delay_ms=10+loss=0.05+variant=illinois")
    # scenarios/lossy-link.yaml: repetitions 3, more_runs 12 for illinois at 1 % and 10 ms
    assert (paper.repetitions_of(spread), paper.repetitions_of(other)) == (12, 3)
    # a design that keeps the scenario's repetitions (the emulation's paper design: at most 3)
    assert paper.repetitions_of(spread, cap=3) == 12
    # one that thins them caps every point
    assert (paper.repetitions_of(spread, cap=2), paper.repetitions_of(other, cap=2)) == (2, 2)
    quick = scenario.load("lossy-link", "quick")  # repetitions 1, the same cell twice
    assert quick.repetitions_of(quick.point("delay_ms=10+loss=0.01+variant=illinois")) == 2
    assert quick.repetitions_of(quick.point("delay_ms=10+loss=0.01+variant=reno")) == 1


def test_a_more_runs_entry_must_name_sweep_axes(tmp_path):
    data = _base()
    data["more_runs"] = [{"where": {"drop_rate": "0.02"}, "repetitions": 25},
                         {"where": {"droprate": "0.02"}, "repetitions": 25}]  # fmt: skip
    path = _write(tmp_path, data)
    with pytest.raises(ScenarioError, match=r"more_runs\.1\.where\.droprate.*drop_rate"):
        scenario.load(path, "paper", KNOWN_PROFILES)
    data["more_runs"].pop()
    s = scenario.load(_write(tmp_path, data), "paper", KNOWN_PROFILES)
    assert [s.repetitions_of(p) for p in s.points_where({"drop_rate": ["0.02", "0.04"]})] == [
        25, s.repetitions,
    ]  # fmt: skip


def test_where_options_parse_and_match_as_text_or_number():
    from emusim.core.where import parse_where, values_match

    where = parse_where(["loss=0.01,0.05", "variant=reno"])
    assert where == {"loss": ["0.01", "0.05"], "variant": ["reno"]}
    params = {"delay_ms": 10, "loss": "0.050", "variant": "reno"}
    assert values_match(params, where)  # "0.050" is 0.05 as a number
    assert not values_match({**params, "variant": "cubic"}, where)
    assert not values_match({"loss": "0.05"}, where)  # no variant: no match
    assert parse_where(None) is None
    with pytest.raises(ValueError, match="--where 'loss': expected AXIS=VALUE"):
        parse_where(["loss"])
