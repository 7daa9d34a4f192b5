# The studies' plug-in API (emusim.studies; workflow/rules/studies/NAME.smk): a study's rules
# file registers what it adds (register_study) and its figures (add_figure); the target list,
# the figure rule and the paper loop over these, and name no study. Each study's rules file is
# a Snakemake module with a namespace of its own (the Snakefile); STUDY_API, at the end, is all
# of the workflow it sees.
from snakemake.exceptions import WorkflowError

from emusim import studies
from emusim import workloads


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


STUDY_RULES = {}
# stem -> {"study", "kind", "inputs": a function giving the named input files, "params"}
FIGURE_SPECS = {}


def register_study(name, **hooks):
    """Called once by workflow/rules/studies/NAME.smk, NAME a study of emusim.studies."""
    if name not in studies.registry():
        raise WorkflowError(
            f"workflow/rules/studies/{name}.smk: register_study({name!r}): there is no "
            f"package src/emusim/studies/{name}/ (known: {', '.join(studies.registry())})"
        )
    STUDY_RULES[name] = StudyRules(name, **hooks)


def add_figure(study, stem, kind, inputs, params=None, caption=None):
    """A figure of `study` at FIGURES/STEM.{pdf,png}, drawn by the study's
    ``figures.draw(kind, inputs, params, stem)`` (rule figure); `caption` is its caption in
    the HTML report (snakemake --report)."""
    if stem in FIGURE_SPECS:
        raise WorkflowError(
            f"figure {stem!r} is added twice (by {FIGURE_SPECS[stem]['study']} and {study})"
        )
    FIGURE_SPECS[stem] = {
        "study": study,
        "kind": kind,
        "inputs": inputs,
        "params": params or {},
        "caption": caption or f"Figure {stem}.",
    }


def claimed(name):
    """Whether a study presents scenario `name` (its `claims`, emusim.studies). Any other
    scenario (one a user added) gets the generic figure and an appendix entry."""
    return bool(studies.claimed_by(SCENARIOS[name]))


# A scenario no study presents: every metric against its first sweep axis (emusim.analysis.plots_scenario).
# stem -> scenario
SCENARIO_FIGURES = {
    f"fig_scenario_{name.replace('-', '_')}": name
    for name in SCENARIOS
    if not claimed(name)
}
for _stem, _name in SCENARIO_FIGURES.items():
    add_figure(
        None,
        _stem,
        "scenario",
        lambda name=_name: {f"stats_{name}": f"{RESULTS}/stats/{name}.csv"},
        {"scenario": _name, "axes": SCENARIOS[_name].axes},
        caption=f"Scenario {_name}: every metric that varies against its first sweep axis, "
        "a line per backend and profile (a scenario no study presents).",
    )


def figure_targets():
    return [
        f"{FIGURES}/{stem}.{ext}" for stem in FIGURE_SPECS for ext in ("pdf", "png")
    ]


def table_targets():
    tables = [f"{TABLES}/tcp_profiles", f"{TABLES}/delay_fit", f"{TABLES}/summary"]
    # a workload whose metrics are time series (multiflow) has its study's tables instead
    tables += [
        f"{TABLES}/{n}"
        for n, s in SCENARIOS.items()
        if workloads.of(s.settings).per_point_table
    ]
    tables += [
        f"{TABLES}/{t}" for hooks in STUDY_RULES.values() for t in hooks.tables()
    ]
    return [f"{t}.{ext}" for t in tables for ext in ("csv", "tex", "html")]


def all_targets():
    # Every run is a target itself, so a deleted run is redone even when the tables
    # built from it are still there.
    targets = (
        [p for n in SCENARIOS for p in ns3_run_paths(n)] if "ns3" in BACKENDS else []
    )
    targets += [f"{RESULTS}/stats/{n}.csv" for n in SCENARIOS]
    targets += [f"{RESULTS}/compare/{n}.csv" for n in compared_scenarios()]
    targets += [
        f"{RESULTS}/compare/{n}-ns3-vs-mininet.csv"
        for n in backend_compared_scenarios()
    ]
    targets += [f"{RESULTS}/compare/summary.csv"]
    if mininet_scenarios():
        targets += [
            f"{RESULTS}/mininet/selfcheck.csv",
            f"{TABLES}/mininet_selfcheck.csv",
        ]
    if trace_paths():
        targets += [f"{RESULTS}/traces/summary.csv"]
    if mininet_trace_paths():
        targets += [f"{RESULTS}/traces/mininet/summary.csv"]
    if testbed_ran() and "hardware" in BACKENDS:
        targets += [f"{TESTBED_DIR}/{name}.csv" for name in TESTBED_TABLES]
    targets += [t for hooks in STUDY_RULES.values() for t in hooks.targets()]
    targets += [PAPER_PDF]
    return targets + figure_targets() + table_targets()


# What a study's rules file may use of the workflow, as `api.NAME` (its module's
# config["study_api"]; docs/adding-a-study.md): the scale and its directories, the loaded
# scenarios, the wildcards' patterns, the two registration hooks, and the stages' questions
# (which runs, tables, traces and batches a scenario has). A study's script jobs get it empty
# (emusim.studies.WorkflowApi).
STUDY_API = studies.WorkflowApi(
    SCALE=SCALE,
    PREFIX=PREFIX,
    RESULTS=RESULTS,
    TABLES=TABLES,
    BACKENDS=BACKENDS,
    SCENARIOS=SCENARIOS,
    WILDCARD_CONSTRAINTS=WILDCARD_CONSTRAINTS,
    register_study=register_study,
    add_figure=add_figure,
    design_of=design_of,
    trace_points=trace_points,
    hardware_runs=hardware_runs,
    ns3_program=ns3_program,
    ns3_run_paths=ns3_run_paths,
    ns3_traces=ns3_traces,
    measured_delay_input=_ns3_delay_input,
    mininet_scenarios=mininet_scenarios,
    mininet_batch_paths=mininet_batch_paths,
    mininet_trace_points=mininet_trace_points,
    mininet_trace_batches=mininet_trace_batches,
    backend_tables_of=backend_tables_of,
    backend_compared_scenarios=backend_compared_scenarios,
)
