# The 2001 report's study (emusim.studies.report_2001; paper/sections/report_2001.tex): the
# report's figures, the Mathis and PFTK curves beside Figures 4.1 and 4.2, and the calibration
# ablation (ns-3's defaults to linux-2.2, one parameter at a time; config `ablation`). Its runs,
# statistics and comparisons with the hardware are the generic rules'.
# A Snakemake module (the Snakefile includes every study as one, with its rules named
# report_2001_RULE): it sees the workflow only through `api`, the studies' plug-in API
# (workflow/rules/study_api.smk, STUDY_API), and config.
from emusim.inputs import tcp_profiles
from emusim.backends.ns3 import command as ns3mod
from emusim.infra.runjson import run_path

api = config["study_api"]


wildcard_constraints:
    **api.WILDCARD_CONSTRAINTS,


def ablation_scenarios():
    """Scenarios the calibration ablation sweeps (config `ablation`), when ns-3 runs."""
    if "ns3" not in api.BACKENDS or not tcp_profiles.ablation():
        return []
    names = config.get("ablation", {}).get("scenarios", [])
    return [n for n in names if n in api.SCENARIOS and api.hardware_runs(n)]


def ablation_run_paths(name):
    """The ns-3 runs of every ablation step for one scenario, thinned as config says."""
    s = api.SCENARIOS[name]
    reps, stride = api.design_of("ablation", name)
    repeat = config.get("ns3", {}).get("repeat_deterministic", False)
    return [
        str(run_path(api.RESULTS, "ns3", name, step.profile.name, point.id, k))
        for step in tcp_profiles.ablation()
        for point in s.thinned_points(stride)
        for k in ns3mod.scenario_repetitions(s, point, step.profile, reps, repeat)
    ]


def regular_every_n(name):
    """N of a scenario's regular dropper (0 if the scenario is not loaded)."""
    if name not in api.SCENARIOS:
        return 0
    return api.SCENARIOS[name].settings["impairment"]["dropper"].get("every_n", 0)


def pathology_traces():
    """Traces of regular-1in6's regular-dropper runs, one per profile (Figure 4.5)."""
    if "ns3" not in api.BACKENDS:
        return []
    name = "regular-1in6"
    return [
        f"{api.RESULTS}/traces/{name}/{profile}/{point.id}/run1.csv.gz"
        for point in api.trace_points(name)
        if point.dropper.get("mode") == "regular"
        for profile in api.SCENARIOS[name].profiles
    ]


# The report's figures: stem -> (scenarios it draws, caption). A figure is made when its
# scenarios are run at this scale (and the ablation or the traces, for theirs).
REPORT_FIGURES = {
    "fig3_1_rtt_vs_size": (
        ["ping-sweep"],
        "Round-trip time against ICMP request size (the report's Figure 3.1): the hardware's "
        "means with the report's two-point line and the least-squares line, and every other "
        "backend's means. The intercept gives the path's one-way delay.",
    ),
    "fig4_1_random_drop": (
        ["random-drop"],
        "Throughput against the random dropper's rate (the report's Figure 4.1): every "
        "backend's mean with its spread, and the Mathis and PFTK models evaluated with the "
        "testbed's round-trip time and each profile's minimum RTO and receive window.",
    ),
    "fig4_2_regular_drop": (
        ["regular-drop"],
        "Throughput against the regular dropper's nominal rate 1/N (the report's Figure 4.2 "
        "and Table 4.3), with the Mathis and PFTK models at loss-event rate 1/N.",
    ),
    "fig4_3_random_vs_regular": (
        ["random-drop", "regular-drop"],
        "Random against regular dropping at the same nominal drop rate (the report's Figure "
        "4.3), per backend.",
    ),
    "fig4_4_heavy_tail": (
        ["regular-1in6"],
        "Elapsed time of every run with one packet in six dropped, against the transfer size "
        "(the report's Table 4.4), regular and random dropper; below, the number of runs far "
        "slower than the fastest.",
    ),
    "fig5_1_exp_vs_sim": (
        ["random-drop"],
        "Experiment against simulation under random dropping (the report's Figure 5.1): the "
        "hardware's throughput beside each backend's.",
    ),
    "fig5_2_rel_diff": (
        ["random-drop"],
        "Relative difference (exp - sim) / exp of the throughput per drop rate (the report's "
        "Figure 5.2), per backend and profile.",
    ),
    "fig_ablation": (
        ["random-drop", "regular-drop"],
        "Calibration ablation: median and maximum absolute relative difference of the "
        "throughput against the hardware as the linux-2.2 parameters are applied one at a time "
        "to ns-3's defaults, for the random- and regular-drop sweeps.",
    ),
    "fig4_5_pathology": (
        ["regular-1in6"],
        "The 1-in-6 pathology in ns-3, from TCP event traces: a stretch of the transfer with "
        "the dropped packets and the wait for the retransmission timer (top), and "
        "retransmissions by their slot in the dropper's count (bottom); those in the dropped "
        "slot each cost a timeout.",
    ),
}
# Figures that draw the Mathis and PFTK curves, and the scenario whose curves they draw.
ANALYTIC_FIGURES = {
    "fig4_1_random_drop": "random-drop",
    "fig4_2_regular_drop": "regular-drop",
}


def _report_figure_inputs(stem, needs):
    """The named inputs of one of the report's figures."""
    if stem == "fig4_5_pathology":
        return {"traces": pathology_traces()}
    if stem == "fig_ablation":
        return {"summary": f"{api.RESULTS}/ablation/summary.csv"}
    inputs = {f"stats_{n}": f"{api.RESULTS}/stats/{n}.csv" for n in needs}
    if stem == "fig3_1_rtt_vs_size":
        inputs["delay"] = f"{api.RESULTS}/delay/one_way_delay.json"
    if stem in ANALYTIC_FIGURES:
        inputs["analytic"] = f"{api.RESULTS}/analytic/{ANALYTIC_FIGURES[stem]}.csv"
    if stem == "fig5_2_rel_diff":
        inputs["compare"] = f"{api.RESULTS}/compare/random-drop.csv"
    if stem == "fig4_4_heavy_tail":
        inputs["runs"] = api.backend_tables_of("regular-1in6")
    return inputs


for _stem, (_needs, _caption) in REPORT_FIGURES.items():
    if (
        all(n in api.SCENARIOS for n in _needs)
        and (_stem != "fig_ablation" or ablation_scenarios())
        and (_stem != "fig4_5_pathology" or pathology_traces())
    ):
        api.add_figure(
            "report_2001",
            _stem,
            _stem,
            lambda stem=_stem, needs=_needs: _report_figure_inputs(stem, needs),
            # the pathology's slots are counted in the regular dropper's N
            (
                {"every_n": regular_every_n("regular-1in6")}
                if _stem == "fig4_5_pathology"
                else {}
            ),
            caption=_caption,
        )


def decomposition_scenarios():
    """The scenarios whose emulation gap is taken apart (emusim.studies.report_2001.
    decomposition.DECOMPOSED) that run both profiles on both backends at this scale."""
    from emusim.studies.report_2001.decomposition import DECOMPOSED

    if not {"ns3", "mininet"} <= set(api.BACKENDS):
        return []
    return [
        n
        for n in DECOMPOSED
        if n in api.SCENARIOS
        and {"linux-2.2", "linux-6.1"} <= set(api.SCENARIOS[n].profiles)
        and n in api.mininet_scenarios()
    ]


def report_paper_inputs():
    """The named inputs of the study's numbers (emusim.studies.report_2001.numbers)."""
    inputs = {"published": "data/reference/published.csv"}
    if "regular-1in6" in api.SCENARIOS:
        # Table 4.4's distribution per backend (stalled runs need the runs, not statistics)
        inputs["runs_1in6"] = api.backend_tables_of("regular-1in6")
    if "random-drop" in api.SCENARIOS:
        # what each drop cost against how many there were (Tables 4.1 and 4.2's pairing)
        inputs["runs_random_drop"] = api.backend_tables_of("random-drop")
    if ablation_scenarios():
        inputs["ablation"] = f"{api.RESULTS}/ablation/summary.csv"
    if decomposition_scenarios():
        inputs["decomposition"] = f"{api.RESULTS}/decomposition.csv"
    return inputs


def report_targets():
    """The ablation's runs, summary and table, and the decomposition, where they run."""
    targets = []
    if ablation_scenarios():
        targets += [p for n in ablation_scenarios() for p in ablation_run_paths(n)] + [
            f"{api.RESULTS}/ablation/summary.csv",
            f"{api.TABLES}/ablation.csv",
        ]
    if decomposition_scenarios():
        targets += [
            f"{api.RESULTS}/decomposition.csv",
            f"{api.TABLES}/decomposition.csv",
        ]
    return targets


api.register_study(
    "report_2001",
    targets=report_targets,
    paper_inputs=report_paper_inputs,
    paper_params=lambda: {
        "ablation_scenarios": config.get("ablation", {}).get("scenarios", []),
        "ablation_steps": [step.parameter for step in tcp_profiles.ablation()],
        "every_n": regular_every_n("regular-1in6"),
    },
    paper_tables=lambda: (["ablation"] if ablation_scenarios() else [])
    + (["decomposition"] if decomposition_scenarios() else []),
    switches=lambda: {
        "AblationRan": bool(ablation_scenarios()),
        "DecompositionRan": bool(decomposition_scenarios()),
        "PathologyRan": bool(pathology_traces()),
    },
)


rule analytic_curves:
    input:
        delay=f"{api.RESULTS}/delay/one_way_delay.json",
        profiles="config/tcp_profiles.yaml",
    output:
        f"{api.RESULTS}/analytic/{{scenario}}.csv",
    log:
        f"{api.PREFIX}logs/analytic/{{scenario}}.log",
    benchmark:
        f"{api.PREFIX}logs/timing/report_2001_analytic_curves/{{scenario}}.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        profiles=lambda wc: api.SCENARIOS[wc.scenario].profiles,
    script:
        "../../scripts/analytic_curves.py"


rule ablation:
    input:
        runs=lambda wc: ablation_run_paths(wc.scenario),
        hardware=f"{api.RESULTS}/hardware/{{scenario}}.csv",
        profiles="config/tcp_profiles.yaml",
    output:
        f"{api.RESULTS}/ablation/{{scenario}}.csv",
    log:
        f"{api.PREFIX}logs/ablation/{{scenario}}.log",
    benchmark:
        f"{api.PREFIX}logs/timing/report_2001_ablation/{{scenario}}.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        scenario=lambda wc: api.SCENARIOS[wc.scenario],
    script:
        "../../scripts/ablation.py"


rule ablation_summary:
    input:
        expand(
            f"{api.RESULTS}/ablation/{{scenario}}.csv", scenario=ablation_scenarios()
        ),
    output:
        csv=f"{api.RESULTS}/ablation/summary.csv",
        table=f"{api.TABLES}/ablation.csv",
        tex=f"{api.TABLES}/ablation.tex",
        html=f"{api.TABLES}/ablation.html",
    log:
        f"{api.PREFIX}logs/ablation/summary.log",
    benchmark:
        f"{api.PREFIX}logs/timing/report_2001_ablation_summary.tsv"
    conda:
        "../../envs/emusim.yaml"
    script:
        "../../scripts/ablation_summary.py"


rule decomposition:
    input:
        lambda wc: [f"{api.RESULTS}/stats/{n}.csv" for n in decomposition_scenarios()],
    output:
        csv=f"{api.RESULTS}/decomposition.csv",
        table=f"{api.TABLES}/decomposition.csv",
        tex=f"{api.TABLES}/decomposition.tex",
        html=f"{api.TABLES}/decomposition.html",
    log:
        f"{api.PREFIX}logs/decomposition.log",
    benchmark:
        f"{api.PREFIX}logs/timing/report_2001_decomposition.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        scenarios=decomposition_scenarios(),
    script:
        "../../scripts/decomposition.py"
