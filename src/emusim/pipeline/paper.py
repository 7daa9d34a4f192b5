"""The paper's facts: what this scale produced that the paper's numbers, figures and tables
come from. Each study adds its own through its rules file (emusim.pipeline.studies)."""

from __future__ import annotations

from glob import glob
from pathlib import Path

from snakemake.exceptions import WorkflowError

from emusim import studies
from emusim.inputs import fitted_delay, tcp_profiles
from emusim.inputs import scenario as sc
from emusim.linux import tcp as linux_tcp
from emusim.pipeline import analysis, hardware, mininet, ns3
from emusim.pipeline.setup import Setup
from emusim.pipeline.studies import scenario_figures
from emusim.pipeline.targets import figure_targets, table_targets
from emusim.report.macros import macro_name
from emusim.report.shared_numbers import ARCHIVED_BACKENDS


def generated_dir(setup: Setup) -> str:
    """The scale's generated LaTeX (numbers, paths, the testbed's tables)."""
    return f"{setup.prefix}paper/generated"


def figure_stems(setup: Setup) -> list[str]:
    """Stems of the figures this scale makes (the emulation's self-check only with Mininet)."""
    stems = [Path(p).stem for p in figure_targets(setup) if p.endswith(".pdf")]
    return stems + (["fig_mininet_selfcheck"] if mininet.scenarios(setup) else [])


def table_stems(setup: Setup) -> list[str]:
    """Stems of the tables this scale makes, the studies' own and the self-check's."""
    stems = [Path(p).stem for p in table_targets(setup) if p.endswith(".tex")]
    stems += [s for hooks in setup.study_rules.values() for s in hooks.paper_tables()]
    return stems + (["mininet_selfcheck"] if mininet.scenarios(setup) else [])


def available(setup: Setup) -> dict:
    """The figures and tables the paper may show at this scale."""
    return {"figure": figure_stems(setup), "table": table_stems(setup)}


def figure_files(setup: Setup) -> list[str]:
    return [f"{setup.figures}/{s}.pdf" for s in figure_stems(setup)]


def table_files(setup: Setup) -> list[str]:
    return [f"{setup.tables}/{s}.tex" for s in table_stems(setup)]


def number_inputs(setup: Setup) -> dict:
    """Every result file the numbers come from that this scale produces."""
    results = setup.results
    inputs = {
        "hosts": hardware.testbed_table(setup, "hosts"),
        "profiles": "config/tcp_profiles.yaml",
        "delay": fitted_delay.path(results),
        "summary": f"{results}/compare/summary.csv",
        # the variant registry (how many variants, on which side)
        "variants": "config/tcp_variants.yaml",
    }
    inputs.update({f"stats_{n}": f"{results}/stats/{n}.csv" for n in setup.scenarios})
    # every simulated and emulated run table: how many of their runs the archive gave
    inputs["run_tables"] = [
        t
        for n in setup.scenarios
        for t in analysis.backend_tables_of(setup, n)
        if Path(t).parent.name in ARCHIVED_BACKENDS
    ]
    # the run archive's last audit, where one was recorded (emusim.infra.audit)
    if setup.archive is not None and Path(setup.archive, "audit.json").exists():
        inputs["audit"] = str(Path(setup.archive, "audit.json"))
    if ns3.trace_paths(setup):
        inputs["traces"] = f"{results}/traces/summary.csv"
    if mininet.scenarios(setup):
        inputs["selfcheck"] = f"{results}/mininet/selfcheck.csv"
    for hooks in setup.study_rules.values():
        study_inputs = hooks.paper_inputs()
        twice = sorted(set(inputs) & set(study_inputs))
        if twice:
            raise WorkflowError(
                f"workflow/rules/studies/{hooks.name}.smk: paper input names already "
                f"taken: {', '.join(twice)}"
            )
        inputs.update(study_inputs)
    return inputs


def switches(setup: Setup) -> dict:
    """The \\if switches of numbers.tex: which parts of the study ran at this scale."""
    out = {
        "HardwareRan": "hardware" in setup.backends,
        "NsThreeRan": "ns3" in setup.backends,
        "MininetRan": bool(mininet.scenarios(setup)),
        "TracesRan": bool(ns3.trace_paths(setup)),
    }
    for hooks in setup.study_rules.values():
        out.update(hooks.switches())
    out.update({macro_name("Ran", n): n in setup.scenarios for n in sc.scenario_names()})
    return out


def study_params(setup: Setup) -> dict:
    """Each study's parameters of its numbers, in the paper's order (emusim.studies)."""
    return {
        name: setup.study_rules[name].paper_params()
        for name in studies.registry()
        if name in setup.study_rules
    }


def profiles() -> list[str]:
    """Every profile name the text may use: the registry's and the emulation's own."""
    return sorted(set(tcp_profiles.registry()) | set(linux_tcp.MININET_PROFILES))


def unclaimed(setup: Setup) -> list[dict]:
    """Scenarios no study presents: the appendix's entries (generic figure and table)."""
    return [
        {
            "name": name,
            "description": setup.scenarios[name].settings.get("description", ""),
            "figure": stem,
            "axis": (setup.scenarios[name].axes or ["point"])[0],
        }
        for stem, name in scenario_figures(setup).items()
    ]


def paper_sources() -> list[str]:
    """The paper's section sources."""
    return sorted(glob("paper/sections/**/*.tex", recursive=True))


def output_dir(output) -> str:
    """The directory of a rule's first output."""
    return str(Path(output[0]).parent)
