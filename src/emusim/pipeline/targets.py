"""What `snakemake all` makes: every run, statistic, comparison, figure, table and the paper."""

from __future__ import annotations

from emusim import workloads
from emusim.pipeline import analysis, hardware, mininet, ns3
from emusim.pipeline.setup import Setup

TABLE_FORMATS = ("csv", "tex", "html")


def paper_pdf(setup: Setup) -> str:
    """The paper's PDF, the last of `all`'s targets."""
    return f"{setup.prefix}paper/build/paper.pdf"


def figure_targets(setup: Setup) -> list[str]:
    """Every registered figure, as PDF and PNG."""
    return [
        f"{setup.figures}/{stem}.{ext}" for stem in setup.figure_specs for ext in ("pdf", "png")
    ]


def table_targets(setup: Setup) -> list[str]:
    """Every table, in each of its formats: the generic ones, a table per scenario whose
    workload has per-point metrics (a time-series workload, multiflow, has its study's tables
    instead), and the studies' own."""
    tables = [
        f"{setup.tables}/tcp_profiles",
        f"{setup.tables}/delay_fit",
        f"{setup.tables}/summary",
    ]
    tables += [
        f"{setup.tables}/{n}"
        for n, s in setup.scenarios.items()
        if workloads.of(s.settings).per_point_table
    ]
    tables += [
        f"{setup.tables}/{t}" for hooks in setup.study_rules.values() for t in hooks.tables()
    ]
    return [f"{t}.{ext}" for t in tables for ext in TABLE_FORMATS]


def all_targets(setup: Setup) -> list[str]:
    """The target list of rule `all`. Every run is a target itself, so a deleted run is redone
    even when the tables built from it are still there."""
    results = setup.results
    targets = ns3.all_run_paths(setup)
    targets += [f"{results}/stats/{n}.csv" for n in setup.scenarios]
    targets += [f"{results}/compare/{n}.csv" for n in analysis.compared_scenarios(setup)]
    targets += [
        f"{results}/compare/{n}-ns3-vs-mininet.csv"
        for n in analysis.backend_compared_scenarios(setup)
    ]
    targets += [f"{results}/compare/summary.csv"]
    if mininet.scenarios(setup):
        targets += [f"{results}/mininet/selfcheck.csv", f"{setup.tables}/mininet_selfcheck.csv"]
    if ns3.trace_paths(setup):
        targets += [f"{results}/traces/summary.csv"]
    if mininet.trace_paths(setup):
        targets += [f"{results}/traces/mininet/summary.csv"]
    if hardware.testbed_ran(setup) and "hardware" in setup.backends:
        targets += hardware.testbed_table_paths(setup)
    targets += [t for hooks in setup.study_rules.values() for t in hooks.targets()]
    targets += [paper_pdf(setup)]
    return targets + figure_targets(setup) + table_targets(setup)
