"""The studies' plug-in API (emusim.studies; workflow/rules/studies/NAME.smk): a study's rules
file registers what it adds (register_study) and its figures (add_figure); the target list,
the figure rule and the paper loop over these, and name no study. Each study's rules file is a
Snakemake module with a namespace of its own (include_all); `api` is all of the workflow it
sees."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from snakemake.exceptions import WorkflowError

from emusim import studies
from emusim.pipeline import analysis, hardware, mininet, ns3
from emusim.pipeline.setup import Setup, design_of, trace_points, wildcard_constraints


class StudyRules:
    """What one study's rules file adds to the workflow at this scale; every hook is a
    function, empty by default."""

    def __init__(
        self,
        name,
        targets=list,
        tables=list,
        run_tables=lambda scenario: [],
        paper_inputs=dict,
        paper_params=dict,
        paper_tables=list,
        switches=dict,
    ):
        self.name = name
        # files `all` makes beyond its figures and tables (runs, fits, summaries)
        self.targets = targets
        # its tables: stems under TABLES, each made as .csv, .tex and .html
        self.tables = tables
        # a scenario's tidy run tables of the study's own backends (the statistics read them)
        self.run_tables = run_tables
        # the named inputs and the parameters of its paper numbers (emusim.report.macros)
        self.paper_inputs = paper_inputs
        self.paper_params = paper_params
        # table stems the paper may show beyond `tables` (made by other rules)
        self.paper_tables = paper_tables
        # \if switches of numbers.tex: which of its parts ran at this scale
        self.switches = switches


def register_study(setup: Setup, name: str, **hooks) -> None:
    """Called once by workflow/rules/studies/NAME.smk, NAME a study of emusim.studies."""
    if name not in studies.registry():
        raise WorkflowError(
            f"workflow/rules/studies/{name}.smk: register_study({name!r}): there is no "
            f"package src/emusim/studies/{name}/ (known: {', '.join(studies.registry())})"
        )
    setup.study_rules[name] = StudyRules(name, **hooks)


def add_figure(setup: Setup, study, stem, kind, inputs, params=None, caption=None) -> None:
    """A figure of `study` at FIGURES/STEM.{pdf,png}, drawn by the study's
    ``figures.draw(kind, inputs, params, stem)`` (rule figure); `caption` is its caption in
    the HTML report (snakemake --report)."""
    if stem in setup.figure_specs:
        raise WorkflowError(
            f"figure {stem!r} is added twice (by {setup.figure_specs[stem]['study']} and {study})"
        )
    setup.figure_specs[stem] = {
        "study": study,
        "kind": kind,
        "inputs": inputs,
        "params": params or {},
        "caption": caption or f"Figure {stem}.",
    }


def claimed(setup: Setup, name: str) -> bool:
    """Whether a study presents scenario `name` (its `claims`, emusim.studies). Any other
    scenario (one a user added) gets the generic figure and an appendix entry."""
    return bool(studies.claimed_by(setup.scenarios[name]))


def scenario_figures(setup: Setup) -> dict[str, str]:
    """The generic figure of each scenario no study presents: stem -> scenario."""
    return {
        f"fig_scenario_{name.replace('-', '_')}": name
        for name in setup.scenarios
        if not claimed(setup, name)
    }


def add_scenario_figures(setup: Setup) -> None:
    """A scenario no study presents: every metric against its first sweep axis
    (emusim.analysis.plots_scenario)."""
    for stem, name in scenario_figures(setup).items():
        add_figure(
            setup,
            None,
            stem,
            "scenario",
            lambda name=name: {f"stats_{name}": f"{setup.results}/stats/{name}.csv"},
            {"scenario": name, "axes": setup.scenarios[name].axes},
            caption=f"Scenario {name}: every metric that varies against its first sweep axis, "
            "a line per backend and profile (a scenario no study presents).",
        )


def figure_spec(setup: Setup, stem: str, key: str):
    """One entry of a figure's spec (add_figure): its study, kind, params or caption."""
    return setup.figure_specs[stem][key]


def figure_inputs(setup: Setup, stem: str) -> dict:
    """A figure's named input files."""
    return setup.figure_specs[stem]["inputs"]()


def figure_stem_pattern(setup: Setup) -> str:
    """The figure rule's stem wildcard: one of the registered figures."""
    return "|".join(setup.figure_specs) or "no-figure"


def api(setup: Setup) -> studies.WorkflowApi:
    """What a study's rules file may use of the workflow, as `api.NAME` (its module's
    config["study_api"]; docs/adding-a-study.md): the scale and its directories, the loaded
    scenarios, the wildcards' patterns, the two registration hooks, and the stages' questions
    (which runs, tables, traces and batches a scenario has). A study's script jobs get it empty
    (emusim.studies.WorkflowApi)."""
    return studies.WorkflowApi(
        SCALE=setup.scale,
        PREFIX=setup.prefix,
        RESULTS=setup.results,
        TABLES=setup.tables,
        BACKENDS=setup.backends,
        SCENARIOS=setup.scenarios,
        WILDCARD_CONSTRAINTS=wildcard_constraints(setup),
        register_study=partial(register_study, setup),
        add_figure=partial(add_figure, setup),
        design_of=partial(design_of, setup),
        trace_points=partial(trace_points, setup),
        hardware_runs=partial(hardware.hardware_runs, setup),
        ns3_program=partial(ns3.program, setup),
        ns3_run_paths=partial(ns3.run_paths, setup),
        ns3_traces=partial(ns3.traces, setup),
        measured_delay_input=lambda wildcards: ns3.delay_input(setup, wildcards.scenario),
        mininet_scenarios=partial(mininet.scenarios, setup),
        mininet_batch_paths=partial(mininet.batch_paths, setup),
        mininet_trace_points=partial(mininet.trace_points_run, setup),
        mininet_trace_batches=partial(mininet.trace_batches, setup),
        backend_tables_of=partial(analysis.backend_tables_of, setup),
        backend_compared_scenarios=partial(analysis.backend_compared_scenarios, setup),
    )


def rules_files(studies_dir: Path) -> list[Path]:
    """Each study's rules file, STUDIES_DIR/NAME.smk, in the registry's order; a rules file
    without a study package, or a study without one, is an error."""
    for path in sorted(studies_dir.glob("*.smk")):
        if path.stem not in studies.registry():
            raise WorkflowError(
                f"{path}: no study package src/emusim/studies/{path.stem}/ "
                f"(known: {', '.join(studies.registry())}; docs/adding-a-study.md)"
            )
    paths = []
    for study in studies.registry():
        path = Path(studies_dir, f"{study}.smk")
        if not path.is_file():
            raise WorkflowError(
                f"study {study!r} (src/emusim/studies/{study}/) has no rules file {path}"
            )
        paths.append(path)
    return paths


def include_all(workflow, config: dict, study_api, studies_dir: Path) -> None:
    """Each study's rules file as a Snakemake module: its names stay in its own namespace, its
    rules are named STUDY_RULE, and it sees the workflow through `study_api` in its config.
    What `module STUDY: ...` and `use rule * from STUDY as STUDY_*` compile to, with the name
    from the registry."""
    for path in rules_files(studies_dir):
        workflow.module(
            name=path.stem, snakefile=str(path), config=dict(config, study_api=study_api)
        )
        workflow.userule(
            rules=["*"], from_module=path.stem, exclude_rules=[], name_modifier=f"{path.stem}_*"
        )(lambda: None)
