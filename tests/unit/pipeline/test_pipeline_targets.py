"""emusim.pipeline's analysis, hardware, studies, targets and paper: what is compared, what a
study registers, what `all` makes and what the paper reads."""

from pathlib import Path

import pytest
from snakemake.exceptions import WorkflowError

from emusim import studies as study_registry
from emusim.pipeline import analysis, hardware, paper, studies, targets


@pytest.fixture
def quick(make_setup):
    return make_setup(scenarios=["random-drop", "lossy-link"])


def test_the_run_tables_of_each_backend_that_runs_a_scenario(quick):
    r = "scales/quick/results"
    assert analysis.backend_tables_of(quick, "random-drop") == [
        f"{r}/hardware/random-drop.csv",
        f"{r}/ns3/random-drop.csv",
        f"{r}/mininet/random-drop.csv",
    ]
    # no hardware reference for lossy-link (the 2001 report has none)
    assert analysis.backend_tables_of(quick, "lossy-link") == [
        f"{r}/ns3/lossy-link.csv",
        f"{r}/mininet/lossy-link.csv",
    ]


def test_a_studys_own_backend_adds_its_run_tables(quick):
    studies.register_study(quick, "router_forwarding", run_tables=lambda n: [f"own/{n}.csv"])
    assert analysis.backend_tables_of(quick, "lossy-link")[-1] == "own/lossy-link.csv"


def test_what_is_compared_with_what(quick, make_setup):
    assert analysis.compared_scenarios(quick) == ["random-drop"]
    assert analysis.backend_compared_scenarios(quick) == ["lossy-link"]
    s = make_setup(backends=["hardware"], scenarios=["random-drop", "lossy-link"])
    assert analysis.backend_compared_scenarios(s) == []
    # multiflow: a workload only ns-3 runs
    s = make_setup(scenarios=["multiflow-buffer"])
    assert analysis.backend_compared_scenarios(s) == []


def test_the_metrics_compared(quick):
    assert "goodput_Bps" in analysis.backend_compare_metrics(quick, "lossy-link")
    assert analysis.compare_metrics(quick, "random-drop")


def test_skipped_cells_per_backend(quick):
    cells = analysis.skipped_cells(quick, "lossy-link")
    assert set(cells) == {"ns3", "mininet"}
    assert "delay_ms=10+loss=0+variant=fast" in cells["mininet"]


def test_the_hardware_from_the_report_or_a_testbed(quick):
    assert hardware.reference_ran(quick) and not hardware.testbed_ran(quick)
    assert hardware.hardware_runs(quick, "random-drop")
    assert not hardware.hardware_runs(quick, "lossy-link")
    assert hardware.testbed_table(quick, "hosts") == "data/reference/hosts.csv"
    assert hardware.testbed_dir(quick) == "scales/quick/results/hardware/testbed"
    assert hardware.testbed_table_paths(quick) == [
        f"scales/quick/results/hardware/testbed/{t}.csv"
        for t in ("hosts", "interfaces", "routes", "tcp_sysctls")
    ]
    # random-drop drops: the testbed's preflight requires the module
    assert hardware.testbed_needs_dropper(quick)
    assert hardware.testbed_dropper_option(quick) == ""
    assert hardware.results_dir_of_batch(["r/hardware/s/p/batch.json"]) == "r"


def test_only_a_study_of_the_registry_registers(quick):
    with pytest.raises(WorkflowError, match="no-such-study"):
        studies.register_study(quick, "no-such-study")
    studies.register_study(quick, "multiflow", tables=lambda: ["t"])
    assert quick.study_rules["multiflow"].tables() == ["t"]
    assert quick.study_rules["multiflow"].targets() == []


def test_a_figure_is_added_once(quick):
    studies.add_figure(quick, "multiflow", "fig_a", "kind", lambda: {"x": "x.csv"})
    assert studies.figure_spec(quick, "fig_a", "caption") == "Figure fig_a."
    assert studies.figure_spec(quick, "fig_a", "params") == {}
    assert studies.figure_inputs(quick, "fig_a") == {"x": "x.csv"}
    assert studies.figure_stem_pattern(quick) == "fig_a"
    with pytest.raises(WorkflowError, match="added twice"):
        studies.add_figure(quick, "lossy_link", "fig_a", "kind", dict)


def test_no_figure_matches_no_stem(quick):
    assert studies.figure_stem_pattern(quick) == "no-figure"


def test_every_shipped_scenario_is_claimed_so_no_generic_figure(quick):
    assert studies.claimed(quick, "lossy-link")
    assert studies.scenario_figures(quick) == {}
    studies.add_scenario_figures(quick)
    assert quick.figure_specs == {}


def test_a_scenario_no_study_claims_gets_the_generic_figure(quick, monkeypatch):
    monkeypatch.setattr(study_registry, "claimed_by", lambda scenario: [])
    assert studies.scenario_figures(quick) == {
        "fig_scenario_random_drop": "random-drop",
        "fig_scenario_lossy_link": "lossy-link",
    }
    studies.add_scenario_figures(quick)
    assert studies.figure_inputs(quick, "fig_scenario_lossy_link") == {
        "stats_lossy-link": "scales/quick/results/stats/lossy-link.csv"
    }
    assert paper.unclaimed(quick)[1] == {
        "name": "lossy-link",
        "description": quick.scenarios["lossy-link"].settings["description"],
        "figure": "fig_scenario_lossy_link",
        "axis": "delay_ms",
    }


def test_the_api_a_study_sees(quick):
    api = studies.api(quick)
    assert (api.SCALE, api.RESULTS, api.TABLES) == (
        "quick",
        "scales/quick/results",
        "scales/quick/paper/tables",
    )
    assert api.mininet_scenarios() == ["random-drop", "lossy-link"]
    assert api.measured_delay_input(type("W", (), {"scenario": "lossy-link"})) == []
    api.register_study("ecn_marking")
    assert "ecn_marking" in quick.study_rules


def test_each_study_has_its_rules_file(tmp_path):
    for name in study_registry.registry():
        (tmp_path / f"{name}.smk").write_text("")
    assert [p.stem for p in studies.rules_files(tmp_path)] == list(study_registry.registry())
    (tmp_path / "stray.smk").write_text("")
    with pytest.raises(WorkflowError, match="no study package"):
        studies.rules_files(tmp_path)
    (tmp_path / "stray.smk").unlink()
    (tmp_path / "multiflow.smk").unlink()
    with pytest.raises(WorkflowError, match="has no rules file"):
        studies.rules_files(tmp_path)


def test_each_study_is_a_module_named_after_it(tmp_path):
    for name in study_registry.registry():
        (tmp_path / f"{name}.smk").write_text("")
    calls = []

    class Workflow:
        def module(self, **kwargs):
            calls.append((kwargs["name"], kwargs["config"]["study_api"]))

        def userule(self, **kwargs):
            calls.append(kwargs["name_modifier"])
            return lambda f: None

    studies.include_all(Workflow(), {"scale": "quick"}, "API", tmp_path)
    first = next(iter(study_registry.registry()))
    assert calls[:2] == [(first, "API"), f"{first}_*"]
    assert len(calls) == 2 * len(study_registry.registry())


def test_the_targets_of_all(quick):
    studies.add_figure(quick, "multiflow", "fig_a", "kind", dict)
    studies.register_study(quick, "multiflow", targets=lambda: ["extra"], tables=lambda: ["t"])
    assert targets.figure_targets(quick) == [
        "scales/quick/figures/fig_a.pdf",
        "scales/quick/figures/fig_a.png",
    ]
    tables = targets.table_targets(quick)
    t = "scales/quick/paper/tables"
    assert tables[:3] == [
        f"{t}/tcp_profiles.csv",
        f"{t}/tcp_profiles.tex",
        f"{t}/tcp_profiles.html",
    ]
    assert f"{t}/random-drop.tex" in tables and f"{t}/t.html" in tables
    everything = targets.all_targets(quick)
    r = "scales/quick/results"
    for expected in (
        f"{r}/ns3/random-drop/linux-2.2/drop_rate=0.1/run2.json",
        f"{r}/stats/lossy-link.csv",
        f"{r}/compare/random-drop.csv",
        f"{r}/compare/lossy-link-ns3-vs-mininet.csv",
        f"{r}/compare/summary.csv",
        f"{r}/mininet/selfcheck.csv",
        "extra",
    ):
        assert expected in everything
    assert f"{r}/traces/summary.csv" not in everything  # no traces configured
    pdf = everything.index("scales/quick/paper/build/paper.pdf")
    assert everything[pdf + 1 :] == targets.figure_targets(quick) + tables


def test_the_papers_figures_tables_and_inputs(quick):
    studies.add_figure(quick, "multiflow", "fig_a", "kind", dict)
    assert paper.figure_stems(quick) == ["fig_a", "fig_mininet_selfcheck"]
    assert paper.figure_files(quick) == [
        "scales/quick/figures/fig_a.pdf",
        "scales/quick/figures/fig_mininet_selfcheck.pdf",
    ]
    assert paper.table_stems(quick)[-1] == "mininet_selfcheck"
    assert paper.available(quick)["table"] == paper.table_stems(quick)
    assert paper.table_files(quick)[0] == "scales/quick/paper/tables/tcp_profiles.tex"
    inputs = paper.number_inputs(quick)
    assert inputs["delay"] == "scales/quick/results/delay/one_way_delay.json"
    assert inputs["hosts"] == "data/reference/hosts.csv"
    assert inputs["selfcheck"] == "scales/quick/results/mininet/selfcheck.csv"
    # the hardware's table is not one the archive gives
    assert "scales/quick/results/hardware/random-drop.csv" not in inputs["run_tables"]
    assert "scales/quick/results/ns3/random-drop.csv" in inputs["run_tables"]
    studies.register_study(quick, "multiflow", paper_inputs=lambda: {"delay": "x"})
    with pytest.raises(WorkflowError, match="already taken: delay"):
        paper.number_inputs(quick)


def test_the_papers_switches_and_parameters(quick):
    studies.register_study(quick, "multiflow", switches=lambda: {"X": True}, paper_params=dict)
    switches = paper.switches(quick)
    assert switches["HardwareRan"] and switches["MininetRan"] and switches["X"]
    assert not switches["TracesRan"]
    assert paper.study_params(quick) == {"multiflow": {}}
    assert "linux-2.2" in paper.profiles()
    assert paper.generated_dir(quick) == "scales/quick/paper/generated"
    assert paper.output_dir(["a/b/paper.pdf"]) == "a/b"


def test_the_paper_sources_are_its_sections(monkeypatch, tmp_path):
    (tmp_path / "paper/sections/sub").mkdir(parents=True)
    for name in ("b.tex", "a.tex", "sub/c.tex", "notes.md"):
        Path(tmp_path, "paper/sections", name).write_text("")
    monkeypatch.chdir(tmp_path)
    assert paper.paper_sources() == [
        "paper/sections/a.tex",
        "paper/sections/b.tex",
        "paper/sections/sub/c.tex",
    ]


def test_a_testbed_has_the_scenarios_of_the_three_host_line_only(make_setup):
    from emusim.core.paths import CONFIG_DIR

    s = make_setup(
        scenarios=["random-drop", "lossy-link", "ecn-marking"],
        hardware={"source": "testbed", "inventory": str(CONFIG_DIR / "testbed.example.yaml")},
    )
    assert hardware.testbed_ran(s)
    assert hardware.hardware_runs(s, "random-drop")
    # a second router, a marking queue: nothing the testbed's three hosts can give
    assert not hardware.hardware_runs(s, "lossy-link")
    assert not hardware.hardware_runs(s, "ecn-marking")
