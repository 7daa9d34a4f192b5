"""emusim.pipeline.setup: the configuration and scenarios the workflow loads first."""

import pytest
from snakemake.exceptions import WorkflowError

from emusim.inputs import scenario as sc
from emusim.pipeline import setup as pipeline_setup


def test_quick_scale_writes_under_scales_quick(make_setup):
    s = make_setup(scenarios=["random-drop"])
    assert (s.prefix, s.results, s.figures, s.tables) == (
        "scales/quick/",
        "scales/quick/results",
        "scales/quick/figures",
        "scales/quick/paper/tables",
    )


def test_paper_scale_writes_at_the_top(make_setup):
    s = make_setup(scale="paper", scenarios=["random-drop"])
    assert (s.prefix, s.results) == ("", "results")


def test_the_ping_sweep_is_loaded_for_the_fitted_delay_even_when_left_out(make_setup):
    s = make_setup(scenarios=["random-drop"])
    assert list(s.scenarios) == ["random-drop"]
    assert list(s.reference_scenarios) == ["random-drop", "ping-sweep"]
    assert s.delay_scenario == "ping-sweep"


def test_every_scenario_but_those_left_out_at_this_scale(make_setup):
    s = make_setup(leave_out={"quick": ["lossy-link", "ping-sweep"]})
    expected = [n for n in sc.scenario_names() if n not in ("lossy-link", "ping-sweep")]
    assert list(s.scenarios) == expected
    assert "ping-sweep" in s.reference_scenarios


def test_an_unknown_scenario_is_a_workflow_error(make_setup):
    with pytest.raises(WorkflowError, match="no-such-scenario"):
        make_setup(scenarios=["no-such-scenario"])


def test_the_emulation_on_the_host_needs_root(make_setup):
    with pytest.raises(WorkflowError, match="needs root"):
        make_setup(euid=1000, scenarios=["random-drop"], mininet={"place": "host"})
    make_setup(euid=1000, scenarios=["random-drop"], mininet={"place": "vm"})


def test_a_testbed_needs_an_inventory(make_setup, tmp_path):
    with pytest.raises(WorkflowError, match=r"needs hardware\.inventory"):
        make_setup(scenarios=["random-drop"], hardware={"source": "testbed"})
    missing = tmp_path / "inventory.yaml"
    with pytest.raises(WorkflowError, match=r"config hardware\.inventory"):
        make_setup(
            scenarios=["random-drop"],
            hardware={"source": "testbed", "inventory": str(missing)},
        )


@pytest.mark.parametrize("off", [None, "off", "None", "null", "false", "", False])
def test_the_archive_can_be_turned_off(off):
    assert pipeline_setup.archive_dir({"archive": off}) is None
    assert pipeline_setup.archive_dir({}) is None


def test_the_archive_directory_is_kept():
    assert pipeline_setup.archive_dir({"archive": "data/archive"}) == "data/archive"


def test_the_scenario_wildcard_names_every_reference_scenario(make_setup):
    s = make_setup(scenarios=["random-drop", "lossy-link"])
    constraints = pipeline_setup.wildcard_constraints(s)
    assert constraints["scenario"] == "random-drop|lossy-link|ping-sweep"
    assert constraints["rep"] == r"\d+"


def test_a_thinned_design_never_exceeds_the_scenarios_repetitions(make_setup):
    # random-drop at quick scale: 2 repetitions (scenarios/random-drop.yaml)
    s = make_setup(
        scenarios=["random-drop"],
        ablation={"design": {"quick": {"repetitions": 5, "point_stride": {"random-drop": 3}}}},
    )
    assert pipeline_setup.design_of(s, "ablation", "random-drop") == (2, 3)
    assert pipeline_setup.design_of(s, "mininet", "random-drop") == (2, 1)


def test_traced_points_are_the_configured_axis_values(make_setup):
    s = make_setup(
        scenarios=["random-drop"],
        traces={"points": {"random-drop": {"drop_rate": 0.1}, "lossy-link": {"loss": "0"}}},
    )
    assert [p.id for p in pipeline_setup.trace_points(s, "random-drop")] == ["drop_rate=0.1"]
    assert pipeline_setup.trace_points(s, "lossy-link") == []  # not loaded


def test_points_of_a_variant_a_backend_lacks_are_skipped(make_setup):
    # FAST TCP has no Linux module (config/tcp_variants.yaml), ns-3's own classes no Linux side
    s = make_setup(scenarios=["lossy-link"])
    skipped = pipeline_setup.variant_skips(s, "lossy-link", "mininet")
    assert "delay_ms=10+loss=0+variant=fast" in skipped
    assert "delay_ms=10+loss=0+variant=reno" not in skipped
    assert "delay_ms=10+loss=0+variant=fast" not in pipeline_setup.variant_skips(
        s, "lossy-link", "ns3"
    )


def test_the_delay_method_defaults_to_the_reports(make_setup):
    assert pipeline_setup.delay_method(make_setup(scenarios=["ping-sweep"])) == "two-point"
    s = make_setup(scenarios=["ping-sweep"], delay={"method": "least-squares"})
    assert pipeline_setup.delay_method(s) == "least-squares"
