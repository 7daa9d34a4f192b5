"""emusim.pipeline.ns3: a scenario's ns-3 runs and traces, and one run's command and identity;
emusim.inputs.fitted_delay and emusim.backends.ns3.run_identity, which it shares with model_run."""

import json

import pytest

from emusim.backends.ns3 import command as ns3mod
from emusim.backends.ns3 import run_identity
from emusim.inputs import fitted_delay
from emusim.pipeline import ns3

FITTED_US = 71.8878  # the report's two-point fit (§3.2)


@pytest.fixture
def quick(make_setup):
    return make_setup(
        scenarios=["random-drop", "lossy-link", "router-forwarding"],
        traces={"points": {"random-drop": {"drop_rate": 0.1}, "router-forwarding": {}}},
    )


def test_every_program_of_the_build():
    assert "build/ns3/testbed-2001" in ns3.programs()
    assert "build/ns3/router-forwarding" in ns3.programs()


def test_a_scenario_runs_the_program_of_its_topology(quick):
    assert ns3.program(quick, "random-drop") == "build/ns3/testbed-2001"
    assert ns3.program(quick, "router-forwarding") == "build/ns3/router-forwarding"


def test_only_programs_that_take_a_trace_file_trace(quick):
    # sim/ns3/programs/testbed-2001.cc takes --traceFile, router-forwarding.cc does not
    assert ns3.traces(quick, "random-drop")
    assert not ns3.traces(quick, "router-forwarding")


def test_a_traced_point_is_traced_once_per_profile(quick):
    base = "scales/quick/results/traces/random-drop"
    assert ns3.trace_paths(quick) == [
        f"{base}/{profile}/drop_rate=0.1/run1.{ext}"
        for profile in ("linux-2.2", "ns3-default", "linux-6.1")
        for ext in ("csv.gz", "json")
    ]


def test_no_traces_without_ns3(make_setup):
    s = make_setup(
        backends=["hardware"],
        scenarios=["random-drop"],
        traces={"points": {"random-drop": {"drop_rate": 0.1}}},
    )
    assert ns3.trace_paths(s) == []
    assert ns3.all_run_paths(s) == []


def test_the_runs_of_a_scenario(quick):
    paths = ns3.run_paths(quick, "random-drop")
    # 3 profiles x 4 drop rates x 2 repetitions at quick scale, a deterministic point once
    assert len(paths) <= 24
    assert "scales/quick/results/ns3/random-drop/linux-2.2/drop_rate=0.1/run2.json" in map(
        str, paths
    )
    assert ns3.all_run_paths(quick)[: len(paths)] == paths


def test_a_point_the_scenario_asks_more_runs_of_gets_them(quick):
    # scenarios/lossy-link.yaml at quick scale: one run a point, illinois at 1 % twice
    paths = [str(p) for p in ns3.run_paths(quick, "lossy-link")]
    base = "scales/quick/results/ns3/lossy-link/linux-6.1"
    assert [p for p in paths if "loss=0.01+variant=illinois/" in p] == [
        f"{base}/delay_ms=10+loss=0.01+variant=illinois/run{k}.json" for k in (1, 2)
    ]
    assert [p for p in paths if "loss=0.05+variant=illinois/" in p] == [
        f"{base}/delay_ms=10+loss=0.05+variant=illinois/run1.json"
    ]


def test_only_a_measured_delay_needs_the_fit(quick):
    # random-drop's topology lin2001 has `delay: measured`; lossy-link's a number
    assert ns3.delay_input(quick, "random-drop") == [
        "scales/quick/results/delay/one_way_delay.json"
    ]
    assert ns3.delay_input(quick, "lossy-link") == []


def test_the_runtime_is_at_least_the_floor(quick):
    assert ns3.runtime_min(quick, "random-drop") >= ns3.RUNTIME_MIN


def test_a_run_reads_the_fitted_delay(quick, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    delay = tmp_path / "scales/quick/results/delay/one_way_delay.json"
    delay.parent.mkdir(parents=True)
    delay.write_text(json.dumps({"one_way_delay_us": FITTED_US, "method": "two-point"}))
    run = ns3.run(quick, "random-drop", "linux-2.2", "drop_rate=0.1", 2)
    meta = json.loads(run["meta"])
    assert run["meta"] == json.dumps(meta, sort_keys=True)
    assert run["cmd"][0] == "build/ns3/testbed-2001"
    assert meta["provenance"]["command"] == run["cmd"]
    assert meta["provenance"]["one_way_delay_us"] == FITTED_US
    assert meta["provenance"]["dropper_impl"] == "ns3::DropperQueueDisc"
    assert meta["provenance"]["scale"] == "quick"
    assert len(meta["provenance"]["code_identity"]) > 0
    assert {k: meta[k] for k in ("scenario", "backend", "profile", "point", "repetition")} == {
        "scenario": "random-drop",
        "backend": "ns3",
        "profile": "linux-2.2",
        "point": "drop_rate=0.1",
        "repetition": 2,
    }
    assert meta["params"] == {"drop_rate": "0.1"}  # as the sweep in the YAML
    assert meta["seed"] == ns3mod.rng_seed("random-drop", "drop_rate=0.1")


def test_a_run_with_a_delay_of_its_own_needs_no_fit(quick, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = ns3.run(quick, "lossy-link", "linux-6.1", "delay_ms=10+loss=0+variant=reno", 1)
    assert json.loads(run["meta"])["provenance"]["one_way_delay_us"] == 0.0
    assert run["cmd"][0] == "build/ns3/lossy-link"


def test_without_an_archive_a_run_is_simulated(quick):
    assert ns3.archived(quick, "random-drop", "linux-2.2", "drop_rate=0.1", 1) == (
        "scales/quick/logs/not-archived/ns3/random-drop/linux-2.2/drop_rate=0.1/run1.json"
    )


def test_an_archive_without_the_run_simulates_it(make_setup, tmp_path):
    s = make_setup(scenarios=["lossy-link"], archive=str(tmp_path / "archive"))
    path = ns3.archived(s, "lossy-link", "linux-6.1", "delay_ms=10+loss=0+variant=reno", 1)
    assert path.startswith("scales/quick/logs/not-archived/")


def test_the_trace_is_written_beside_its_gzip():
    assert ns3.trace_tmp("a/run1.csv.gz") == "a/run1.csv.tmp"


def test_the_fitted_delay_file(tmp_path, quick):
    assert fitted_delay.path("results") == "results/delay/one_way_delay.json"
    assert fitted_delay.is_measured(quick.scenarios["random-drop"])
    assert not fitted_delay.is_measured(quick.scenarios["lossy-link"])
    path = tmp_path / "d.json"
    path.write_text('{"one_way_delay_us": 72}')
    assert fitted_delay.read_us(path) == 72.0
    path.write_text("{}")
    with pytest.raises(KeyError):
        fitted_delay.read_us(path)


def test_the_run_identity_adds_the_callers_provenance(quick):
    s = quick.scenarios["random-drop"]
    point = s.point("drop_rate=0.02")

    class Profile:
        name = "linux-6.1"

    meta = run_identity.run_meta(
        "ns3-model", s, point, Profile, 3, "paper", 70.0, ["prog", "--x=1"], fit={"a": 1}
    )
    assert meta == {
        "scenario": "random-drop",
        "backend": "ns3-model",
        "profile": "linux-6.1",
        "point": "drop_rate=0.02",
        "params": {"drop_rate": "0.02"},
        "repetition": 3,
        "seed": ns3mod.rng_seed("random-drop", "drop_rate=0.02"),
        "provenance": {
            "scale": "paper",
            "one_way_delay_us": 70.0,
            "command": ["prog", "--x=1"],
            "dropper_impl": "ns3::DropperQueueDisc",
            "fit": {"a": 1},
        },
    }
