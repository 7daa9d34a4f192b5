# Input and params functions of the paper's rules (paper.smk): what this scale produced. Each
# study adds its own through its rules file (register_study in study_api.smk).
from pathlib import Path

from emusim.report import macros, shared_numbers

PAPER_GENERATED = f"{PREFIX}paper/generated"
# the paper's PDF, the last of `all`'s targets (all_targets, study_api.smk)
PAPER_PDF = f"{PREFIX}paper/build/paper.pdf"


def paper_figure_stems():
    """Stems of the figures this scale makes (the emulation's self-check only with Mininet)."""
    stems = [Path(p).stem for p in figure_targets() if p.endswith(".pdf")]
    return stems + (["fig_mininet_selfcheck"] if mininet_scenarios() else [])


def paper_table_stems():
    """Stems of the tables this scale makes, the studies' own and the self-check's."""
    stems = [Path(p).stem for p in table_targets() if p.endswith(".tex")]
    stems += [s for hooks in STUDY_RULES.values() for s in hooks.paper_tables()]
    return stems + (["mininet_selfcheck"] if mininet_scenarios() else [])


def paper_number_inputs(wildcards):
    """Every result file the numbers come from that this scale produces."""
    inputs = {
        "hosts": testbed_table("hosts"),
        "profiles": "config/tcp_profiles.yaml",
        "delay": f"{RESULTS}/delay/one_way_delay.json",
        "summary": f"{RESULTS}/compare/summary.csv",
        # the variant registry (how many variants, on which side)
        "variants": "config/tcp_variants.yaml",
    }
    inputs.update({f"stats_{n}": f"{RESULTS}/stats/{n}.csv" for n in SCENARIOS})
    # every simulated and emulated run table: how many of their runs the archive gave
    inputs["run_tables"] = [
        t
        for n in SCENARIOS
        for t in backend_tables_of(n)
        if Path(t).parent.name in shared_numbers.ARCHIVED_BACKENDS
    ]
    # the run archive's last audit, where one was recorded (emusim.infra.audit)
    if ARCHIVE is not None and Path(ARCHIVE, "audit.json").exists():
        inputs["audit"] = str(Path(ARCHIVE, "audit.json"))
    if trace_paths():
        inputs["traces"] = f"{RESULTS}/traces/summary.csv"
    if mininet_scenarios():
        inputs["selfcheck"] = f"{RESULTS}/mininet/selfcheck.csv"
    for hooks in STUDY_RULES.values():
        study_inputs = hooks.paper_inputs()
        twice = sorted(set(inputs) & set(study_inputs))
        if twice:
            raise WorkflowError(
                f"workflow/rules/studies/{hooks.name}.smk: paper input names already "
                f"taken: {', '.join(twice)}"
            )
        inputs.update(study_inputs)
    return inputs


def paper_switches():
    """The \\if switches of numbers.tex: which parts of the study ran at this scale."""
    switches = {
        "HardwareRan": "hardware" in BACKENDS,
        "NsThreeRan": "ns3" in BACKENDS,
        "MininetRan": bool(mininet_scenarios()),
        "TracesRan": bool(trace_paths()),
    }
    for hooks in STUDY_RULES.values():
        switches.update(hooks.switches())
    switches.update(
        {macros.macro_name("Ran", n): n in SCENARIOS for n in sc.scenario_names()}
    )
    return switches


def paper_studies():
    """Each study's parameters of its numbers, in the paper's order (emusim.studies)."""
    return {
        name: STUDY_RULES[name].paper_params()
        for name in studies.registry()
        if name in STUDY_RULES
    }


def paper_profiles():
    """Every profile name the text may use: the registry's and the emulation's own."""
    return sorted(set(tcp_profiles.registry()) | set(linux_tcp.MININET_PROFILES))
