"""Each study's workflow facts (emusim.studies.NAME.rules), through the plug-in API a study's
rules file sees (emusim.pipeline.studies.api); values read off scenarios/*.yaml."""

from types import SimpleNamespace

import pytest

from emusim import studies as study_registry
from emusim.inputs import tcp_profiles
from emusim.inputs import variants as tcp_variants
from emusim.pipeline import studies
from emusim.studies.ecn_marking import rules as ecn
from emusim.studies.lossy_link import rules as lossy
from emusim.studies.multiflow import rules as multiflow
from emusim.studies.report_2001 import rules as report
from emusim.studies.router_forwarding import rules as forwarding

R = "scales/quick/results"


def _api(make_setup, **config):
    setup = make_setup(**config)
    return setup, studies.api(setup)


def test_ecn_marking(make_setup):
    setup, api = _api(make_setup, scenarios=["ecn-marking", "lossy-link"])
    assert ecn.scenarios(api) == ["ecn-marking"]
    ecn.register(api)
    assert list(setup.figure_specs) == ["fig_ecn_marking"]
    assert setup.figure_specs["fig_ecn_marking"]["params"] == {
        "variants": ["dctcp", "cubic", "reno"],
        "title": "ecn-marking",
    }
    hooks = setup.study_rules["ecn_marking"]
    assert hooks.paper_inputs() == {
        "ecn_ecn-marking": f"{R}/compare/ecn-marking-ns3-vs-mininet.csv"
    }
    # quick scale: 6906 writes of 1448 B; 50 Mb/s behind 100 Mb/s access links
    params = hooks.paper_params()["scenarios"]["ecn-marking"]
    assert params["transfer_bytes"] == 6906 * 1448
    assert (params["link_rate_Mbps"], params["access_rate_Mbps"]) == (50, 100)
    assert (params["delay_ms"], params["queue_packets"]) == (10, 1000)


def test_lossy_link(make_setup):
    setup, api = _api(
        make_setup,
        scenarios=["lossy-link"],
        traces={"points": {"lossy-link": {"loss": "0.05", "variant": "reno"}}, "mininet": []},
    )
    assert lossy.scenarios(api) == ["lossy-link"]
    assert lossy.variants() == list(tcp_variants.registry())
    # the emulation traces nothing here (traces.mininet empty): no cell traced in both
    assert lossy.traced_in_both(api, "lossy-link") == []
    lossy.register(api)
    assert list(setup.figure_specs) == ["fig_lossy_link_goodput", "fig_lossy_link_ns3_vs_mininet"]
    assert setup.study_rules["lossy_link"].tables() == ["lossy-link-variants"]
    params = setup.study_rules["lossy_link"].paper_params()["scenarios"]["lossy-link"]
    assert (params["transfer_bytes"], params["cap_s"]) == (691 * 1448, 120)


def test_lossy_link_traced_in_both_backends(make_setup):
    setup, api = _api(
        make_setup,
        scenarios=["lossy-link"],
        traces={"points": {"lossy-link": {"loss": "0.05", "variant": "reno"}}},
    )
    assert [p.id for p in lossy.traced_in_both(api, "lossy-link")] == [
        "delay_ms=10+loss=0.05+variant=reno"
    ]
    lossy.add_figures(api)
    inputs = studies.figure_inputs(setup, "fig_lossy_link_traces")
    point = "delay_ms=10+loss=0.05+variant=reno"
    assert inputs == {
        "ns3": f"{R}/traces/lossy-link/linux-6.1/{point}/run1.csv.gz",
        "mininet": f"{R}/traces/mininet/lossy-link/linux-6.1/{point}/run1.csv.gz",
    }


def test_multiflow(make_setup):
    setup, api = _api(make_setup, scenarios=["multiflow-buffer", "lossy-link"])
    assert multiflow.scenarios(api) == ["multiflow-buffer"]
    assert multiflow.scenario_pattern(api) == "multiflow-buffer"
    multiflow.register(api)
    assert list(setup.figure_specs) == ["fig_multiflow_buffer"]
    hooks = setup.study_rules["multiflow"]
    assert hooks.targets() == [f"{R}/multiflow/multiflow-buffer.csv"]
    assert hooks.tables() == ["multiflow-buffer-phases"]
    params = hooks.paper_params()["scenarios"]
    assert set(params) == {"multiflow-buffer", "multiflow-dynamic-i", "multiflow-dynamic-ii"}
    assert len(set(params["multiflow-buffer"]["variants"])) == len(
        params["multiflow-buffer"]["variants"]
    )


def test_multiflow_without_ns3(make_setup):
    _, api = _api(make_setup, backends=["hardware"], scenarios=["multiflow-buffer"])
    assert multiflow.scenarios(api) == []
    assert multiflow.scenario_pattern(api) == "no-multiflow-scenario"


def test_router_forwarding(make_setup):
    setup, api = _api(make_setup, scenarios=["router-forwarding", "lossy-link"])
    name = "router-forwarding"
    assert forwarding.scenarios(api) == [name]
    assert forwarding.fitted(api, name)
    # quick scale: 4 payloads x 2 paths, one profile, one run each (deterministic)
    runs = forwarding.model_runs(api, name)
    assert len(runs) == 8
    assert runs[0] == f"{R}/ns3-model/{name}/linux-2.2/payload_B=64+path=direct/run1.json"
    assert forwarding.model_tables(api, name) == [f"{R}/ns3-model/{name}.csv"]
    assert forwarding.compared_tables(api, name) == [
        f"{R}/mininet/{name}.csv",
        f"{R}/ns3-model/{name}.csv",
    ]
    assert forwarding.link_rate_bps(api, name) == 100e6
    assert forwarding.figure_inputs(api, name) == {
        "stats": f"{R}/stats/{name}.csv",
        "fit": f"{R}/forwarding/{name}/model-fit.json",
    }
    assert forwarding.targets(api) == [
        *runs,
        f"{R}/forwarding/{name}/model-fit.json",
        f"{R}/compare/{name}-ns3-model-vs-mininet.csv",
    ]
    assert sorted(forwarding.paper_inputs(api)) == [
        f"forwarding_fit_{name}",
        f"forwarding_model_{name}",
        f"forwarding_ns3_{name}",
    ]
    # lin2001's delay is measured: the model run reads the fit
    wildcards = SimpleNamespace(scenario=name)
    inputs = forwarding.model_run_inputs(api, wildcards)
    assert inputs["program"] == "build/ns3/router-forwarding"
    assert inputs["delay"] == f"{R}/delay/one_way_delay.json"
    forwarding.register(api)
    assert [s for s in setup.figure_specs] == [
        f"fig_router_forwarding_{kind}" for kind in ("mbps", "pps", "loss", "fit")
    ]
    assert setup.study_rules["router_forwarding"].run_tables(name) == [f"{R}/ns3-model/{name}.csv"]


def test_router_forwarding_without_the_emulation(make_setup):
    setup, api = _api(make_setup, backends=["hardware", "ns3"], scenarios=["router-forwarding"])
    assert not forwarding.fitted(api, "router-forwarding")
    assert forwarding.model_runs(api, "router-forwarding") == []
    assert forwarding.targets(api) == []
    forwarding.register(api)
    assert "fig_router_forwarding_fit" not in setup.figure_specs


class Input(list):
    def __init__(self, **named):
        super().__init__(named.values())
        self.__dict__.update(named)

    def keys(self):
        return list(self.__dict__)


def test_a_model_run_is_told_the_fitted_delay():
    assert forwarding.model_run_args(Input(delay="d.json")) == "--delay-json d.json"
    assert forwarding.model_run_args(Input()) == ""


@pytest.fixture
def report_setup(make_setup):
    config = {
        "scenarios": ["random-drop", "regular-1in6", "ping-sweep"],
        "ablation": {"scenarios": ["random-drop", "regular-drop"]},
        "traces": {"points": {"regular-1in6": {"iterations": 10000}}},
    }
    setup, api = _api(make_setup, **config)
    return setup, api, setup.config


def test_report_the_ablation(report_setup):
    _, api, config = report_setup
    # regular-drop is not loaded: only random-drop is swept
    assert report.ablation_scenarios(api, config) == ["random-drop"]
    runs = report.ablation_run_paths(api, config, "random-drop")
    assert runs[0].startswith(f"{R}/ns3/random-drop/")
    # every step, every point (4 drop rates, stride 1), at most 2 repetitions each
    steps = len(tcp_profiles.ablation())
    assert steps * 4 <= len(runs) <= steps * 4 * 2
    assert report.ablation_runs_of_all(api, config) == runs


def test_report_the_pathology(report_setup):
    _, api, _ = report_setup
    assert report.regular_every_n(api, "regular-1in6") == 6
    assert report.regular_every_n(api, "regular-drop") == 0  # not loaded
    # the regular-dropper point at 10000 iterations, once per profile
    assert report.pathology_traces(api) == [
        f"{R}/traces/regular-1in6/{profile}/iterations=10000+mode=regular/run1.csv.gz"
        for profile in ("linux-2.2", "ns3-default", "linux-6.1")
    ]


def test_report_figure_inputs(report_setup):
    _, api, config = report_setup
    assert report.figure_inputs(api, "fig_ablation", []) == {"summary": f"{R}/ablation/summary.csv"}
    assert report.figure_inputs(api, "fig3_1_rtt_vs_size", ["ping-sweep"]) == {
        "stats_ping-sweep": f"{R}/stats/ping-sweep.csv",
        "delay": f"{R}/delay/one_way_delay.json",
    }
    assert report.figure_inputs(api, "fig4_1_random_drop", ["random-drop"]) == {
        "stats_random-drop": f"{R}/stats/random-drop.csv",
        "analytic": f"{R}/analytic/random-drop.csv",
    }
    assert report.figure_made(api, config, "fig4_1_random_drop", ["random-drop"])
    assert not report.figure_made(api, config, "fig4_2_regular_drop", ["regular-drop"])


def test_report_the_decomposition(report_setup):
    _, api, _ = report_setup
    # random-drop and regular-1in6 run linux-2.2 and linux-6.1 on both backends
    assert report.decomposition_scenarios(api) == ["random-drop", "regular-1in6"]
    assert report.decomposition_stats(api) == [
        f"{R}/stats/random-drop.csv",
        f"{R}/stats/regular-1in6.csv",
    ]


def test_report_registers_its_figures_and_hooks(report_setup):
    setup, api, config = report_setup
    report.register(api, config)
    assert list(setup.figure_specs) == [
        "fig3_1_rtt_vs_size",
        "fig4_1_random_drop",
        "fig4_4_heavy_tail",
        "fig5_1_exp_vs_sim",
        "fig5_2_rel_diff",
        "fig4_5_pathology",
    ]  # the ablation's figure draws regular-drop too, which is not loaded
    assert setup.figure_specs["fig4_5_pathology"]["params"] == {"every_n": 6}
    hooks = setup.study_rules["report_2001"]
    assert hooks.switches() == {
        "AblationRan": True,
        "DecompositionRan": True,
        "PathologyRan": True,
    }
    assert hooks.paper_tables() == ["ablation", "decomposition"]
    assert set(hooks.paper_inputs()) == {
        "published",
        "runs_1in6",
        "runs_random_drop",
        "ablation",
        "decomposition",
    }
    assert hooks.targets()[-2:] == [
        f"{R}/decomposition.csv",
        "scales/quick/paper/tables/decomposition.csv",
    ]
    assert hooks.paper_params()["every_n"] == 6


def test_a_study_claims_its_scenario_files_run_or_not(make_setup):
    setup = make_setup(scenarios=["multiflow-buffer"])
    study = study_registry.get("multiflow")
    claimed = study_registry.scenarios_claimed(study, setup.scenarios, "quick")
    assert list(claimed) == ["multiflow-buffer", "multiflow-dynamic-i", "multiflow-dynamic-ii"]
    # the workflow's own where it loaded one, the file at this scale otherwise
    assert claimed["multiflow-buffer"] is setup.scenarios["multiflow-buffer"]
    assert claimed["multiflow-dynamic-i"].name == "multiflow-dynamic-i"
