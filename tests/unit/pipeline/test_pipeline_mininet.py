"""emusim.pipeline.mininet: the emulation's design, batches, shards and traced batches."""

from types import SimpleNamespace

import pytest

from emusim.pipeline import mininet


class Input(list):
    """A rule's input as Snakemake gives it: a list with named entries (keys())."""

    def __init__(self, **named):
        super().__init__(named.values())
        self.__dict__.update(named)
        self._names = list(named)

    def keys(self):
        return self._names


@pytest.fixture
def quick(make_setup):
    return make_setup(
        scenarios=["random-drop", "lossy-link"],
        traces={
            "points": {"lossy-link": {"loss": "0.05"}, "random-drop": {"drop_rate": 0.1}},
            "mininet": ["lossy-link"],
        },
    )


def test_only_profiles_linux_can_play(quick):
    # random-drop: linux-2.2, ns3-default, linux-6.1; ns3-default is ns-3's own
    assert mininet.profiles(quick, "random-drop") == ["linux-2.2", "linux-6.1"]
    assert mininet.scenarios(quick) == ["random-drop", "lossy-link"]
    assert mininet.batch_paths(quick, "lossy-link") == [
        "scales/quick/results/mininet/lossy-link/linux-6.1/batch.json"
    ]
    assert mininet.all_batch_paths(quick) == [
        "scales/quick/results/mininet/random-drop/linux-2.2/batch.json",
        "scales/quick/results/mininet/random-drop/linux-6.1/batch.json",
        "scales/quick/results/mininet/lossy-link/linux-6.1/batch.json",
    ]


def test_without_mininet_nothing_is_emulated(make_setup):
    s = make_setup(backends=["hardware", "ns3"], scenarios=["random-drop"])
    assert mininet.scenarios(s) == []
    assert mininet.batches_if_run(s, "random-drop") == []


def test_a_scenario_the_design_skips_is_not_run_and_says_why(make_setup):
    s = make_setup(
        scenarios=["random-drop"], mininet={"design": {"quick": {"skip": ["random-drop"]}}}
    )
    why = "not run: left out at scale quick (config mininet.design.quick.skip)"
    assert mininet.left_out(s, "random-drop") == why
    assert mininet.profiles(s, "random-drop") == []
    assert mininet.skipped_points(s, "random-drop") == {
        p: why for p in ("drop_rate=0", "drop_rate=0.02", "drop_rate=0.06", "drop_rate=0.1")
    }


def test_the_design_keeps_some_points(make_setup):
    s = make_setup(
        scenarios=["random-drop"],
        mininet={"design": {"quick": {"points": {"random-drop": {"drop_rate": ["0", "0.1"]}}}}},
    )
    skipped = mininet.skipped_points(s, "random-drop")
    assert sorted(skipped) == ["drop_rate=0.02", "drop_rate=0.06"]
    assert "config mininet.design.quick.points" in skipped["drop_rate=0.02"]
    args = mininet.batch_args(s, "random-drop", Input())
    assert args.endswith("--where drop_rate=0,0.1")


def test_a_batch_reads_the_fit_the_tools_and_the_module(quick):
    assert mininet.batch_inputs(quick, "random-drop") == {
        "scenario": "scenarios/random-drop.yaml",
        "profiles": "config/tcp_profiles.yaml",
        "tools": ["build/emu/tcpblast", "build/emu/udpblast"],
        "delay": "scales/quick/results/delay/one_way_delay.json",
        "module": "kernel-dropper/dropper.ko",
    }
    # lossy-link: a delay of its own, no dropper, a variant per point
    assert mininet.batch_inputs(quick, "lossy-link") == {
        "scenario": "scenarios/lossy-link.yaml",
        "profiles": "config/tcp_profiles.yaml",
        "tools": ["build/emu/tcpblast", "build/emu/udpblast"],
        "variants": "config/tcp_variants.yaml",
    }


def test_the_batch_options(quick):
    delay = "scales/quick/results/delay/one_way_delay.json"
    assert mininet.batch_args(quick, "random-drop", Input(delay=delay)) == (
        "--repetitions 2 --point-stride 1 --icount-shift 0 --deterministic-once "
        f"--delay-json {delay}"
    )


def test_the_options_follow_the_clock_and_the_archive(make_setup):
    s = make_setup(
        scenarios=["lossy-link"],
        archive="data/archive",
        mininet={"icount_shift": None, "repeat_deterministic": True},
    )
    assert mininet.batch_args(s, "lossy-link", Input()) == (
        "--repetitions 1 --point-stride 1 --icount-shift off --archive data/archive"
    )
    assert mininet.real_time(s)


def test_real_time_on_the_host_or_without_icount(make_setup):
    assert not mininet.real_time(make_setup(scenarios=["lossy-link"]))
    assert mininet.real_time(make_setup(scenarios=["lossy-link"], mininet={"place": "host"}))
    assert mininet.place(make_setup(scenarios=["lossy-link"])) == "auto"


def test_shards(make_setup, quick):
    assert mininet.shards(quick) == 1
    s = make_setup(scenarios=["lossy-link"], mininet={"design": {"quick": {"shards": 3}}})
    assert mininet.shard_paths(s, "lossy-link", "linux-6.1") == [
        f"scales/quick/results/mininet/lossy-link/linux-6.1/shards/{i}-of-3.json" for i in (1, 2, 3)
    ]
    assert (
        mininet.results_dir_of_shard(
            ["scales/quick/results/mininet/lossy-link/linux-6.1/shards/1-of-3.json"]
        )
        == "scales/quick/results"
    )


def test_a_shard_has_at_least_ten_minutes(quick):
    assert mininet.shard_runtime_min(quick, "lossy-link", "linux-6.1", 1, 1) > 10


def test_the_design_and_its_repeat_default(make_setup, quick):
    assert mininet.design(quick) == {}
    assert mininet.repeat_deterministic(quick) is False
    assert mininet.repeat_deterministic(quick, True) is True
    assert mininet.points(quick, "lossy-link") is None


def test_traced_points_the_emulation_runs(quick):
    # lossy-link at quick scale: delay 10 ms, loss 0.05, every variant but those Linux lacks
    points = [p.id for p in mininet.trace_points_run(quick, "lossy-link")]
    assert "delay_ms=10+loss=0.05+variant=reno" in points
    assert "delay_ms=10+loss=0.05+variant=fast" not in points
    assert not [p for p in points if "variant=ns3-" in p]


def test_only_the_configured_scenarios_trace_in_the_emulation(quick):
    assert mininet.trace_batches(quick) == [("lossy-link", "linux-6.1")]
    files = mininet.trace_files(quick, "lossy-link", "linux-6.1")
    base = "scales/quick/results/traces/mininet/lossy-link/linux-6.1"
    assert files[-1] == f"{base}/batch.json"
    assert f"{base}/delay_ms=10+loss=0.05+variant=reno/run1.csv.gz" in files
    assert mininet.trace_paths(quick) == files


def test_a_traced_batch_as_its_rule_sees_it(quick):
    batch = mininet.TraceBatch(quick, "lossy-link", "linux-6.1")
    assert batch.rule == "mininet_trace_lossy_link_linux_6_1"
    assert batch.log == "scales/quick/logs/traces/mininet/lossy-link/linux-6.1.log"
    assert batch.benchmark == "scales/quick/logs/timing/mininet_trace_lossy_link_linux_6_1.tsv"
    assert batch.outputs == mininet.trace_files(quick, "lossy-link", "linux-6.1")
    assert (batch.place, batch.scale) == ("auto", "quick")
    assert batch.inputs(SimpleNamespace()) == mininet.batch_inputs(quick, "lossy-link")
    args = batch.args(SimpleNamespace(), Input())
    assert args.startswith("--trace delay_ms=10+loss=0.05+variant=reno ")
    assert args.endswith("--trace-only --repetitions 1 --point-stride 1 --icount-shift 0")
    assert batch.results_dir(batch.outputs) == "scales/quick/results/traces"


def test_each_traced_batch_is_a_module_of_its_own(quick):
    calls = []

    class Workflow:
        def module(self, **kwargs):
            calls.append(("module", kwargs["name"], kwargs["snakefile"]))

        def userule(self, **kwargs):
            calls.append(("userule", kwargs["from_module"], kwargs["name_modifier"]))
            return lambda f: None

    mininet.include_trace_batches(Workflow(), quick, "trace.smk")
    name = "mininet_trace_lossy_link_linux_6_1"
    assert calls == [("module", name, "trace.smk"), ("userule", name, name)]
