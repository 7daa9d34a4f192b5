"""What the 2001 report's study adds to the workflow (workflow/rules/studies/report_2001.smk):
the report's figures, the Mathis and PFTK curves, the calibration ablation (ns-3's defaults
to linux-2.2, one parameter at a time; config `ablation`) and the decomposition of the
emulation's gap. `api` is the workflow's plug-in API (emusim.pipeline.studies.api), `config`
the workflow's configuration."""

from __future__ import annotations

from emusim.backends.ns3 import command as ns3mod
from emusim.infra.runjson import run_path
from emusim.inputs import tcp_profiles

PATHOLOGY_SCENARIO = "regular-1in6"
"""The scenario of the 1-in-6 pathology (the report's Table 4.4, Figure 4.5)."""

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


def ablation_scenarios(api, config: dict) -> list[str]:
    """Scenarios the calibration ablation sweeps (config `ablation`), when ns-3 runs."""
    if "ns3" not in api.BACKENDS or not tcp_profiles.ablation():
        return []
    names = config.get("ablation", {}).get("scenarios", [])
    return [n for n in names if n in api.SCENARIOS and api.hardware_runs(n)]


def ablation_run_paths(api, config: dict, name: str) -> list[str]:
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


def ablation_runs_of_all(api, config: dict) -> list[str]:
    """The ablation's runs of every scenario it sweeps."""
    return [p for n in ablation_scenarios(api, config) for p in ablation_run_paths(api, config, n)]


def regular_every_n(api, name: str) -> int:
    """N of a scenario's regular dropper (0 if the scenario is not loaded)."""
    if name not in api.SCENARIOS:
        return 0
    return api.SCENARIOS[name].settings["impairment"]["dropper"].get("every_n", 0)


def pathology_traces(api) -> list[str]:
    """Traces of regular-1in6's regular-dropper runs, one per profile (Figure 4.5)."""
    if "ns3" not in api.BACKENDS:
        return []
    name = PATHOLOGY_SCENARIO
    return [
        f"{api.RESULTS}/traces/{name}/{profile}/{point.id}/run1.csv.gz"
        for point in api.trace_points(name)
        if point.dropper.get("mode") == "regular"
        for profile in api.SCENARIOS[name].profiles
    ]


def figure_inputs(api, stem: str, needs: list[str]) -> dict:
    """The named inputs of one of the report's figures."""
    if stem == "fig4_5_pathology":
        return {"traces": pathology_traces(api)}
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
        inputs["runs"] = api.backend_tables_of(PATHOLOGY_SCENARIO)
    return inputs


def figure_made(api, config: dict, stem: str, needs: list[str]) -> bool:
    """Whether this scale makes one of the report's figures: its scenarios run (and the
    ablation or the traces, for theirs)."""
    return (
        all(n in api.SCENARIOS for n in needs)
        and (stem != "fig_ablation" or bool(ablation_scenarios(api, config)))
        and (stem != "fig4_5_pathology" or bool(pathology_traces(api)))
    )


def decomposition_scenarios(api) -> list[str]:
    """The scenarios whose emulation gap is taken apart (emusim.studies.report_2001.
    decomposition.DECOMPOSED) that run both profiles on both backends at this scale."""
    # imported here: the decomposition's analysis (pandas) is not needed to plan
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


def decomposition_stats(api) -> list[str]:
    """The statistics the decomposition reads."""
    return [f"{api.RESULTS}/stats/{n}.csv" for n in decomposition_scenarios(api)]


def paper_inputs(api, config: dict) -> dict:
    """The named inputs of the study's numbers (emusim.studies.report_2001.numbers)."""
    inputs = {"published": "data/reference/published.csv"}
    if PATHOLOGY_SCENARIO in api.SCENARIOS:
        # Table 4.4's distribution per backend (stalled runs need the runs, not statistics)
        inputs["runs_1in6"] = api.backend_tables_of(PATHOLOGY_SCENARIO)
    if "random-drop" in api.SCENARIOS:
        # what each drop cost against how many there were (Tables 4.1 and 4.2's pairing)
        inputs["runs_random_drop"] = api.backend_tables_of("random-drop")
    if ablation_scenarios(api, config):
        inputs["ablation"] = f"{api.RESULTS}/ablation/summary.csv"
    if decomposition_scenarios(api):
        inputs["decomposition"] = f"{api.RESULTS}/decomposition.csv"
    return inputs


def targets(api, config: dict) -> list[str]:
    """The ablation's runs, summary and table, and the decomposition, where they run."""
    out = []
    if ablation_scenarios(api, config):
        out += ablation_runs_of_all(api, config)
        out += [f"{api.RESULTS}/ablation/summary.csv", f"{api.TABLES}/ablation.csv"]
    if decomposition_scenarios(api):
        out += [f"{api.RESULTS}/decomposition.csv", f"{api.TABLES}/decomposition.csv"]
    return out


def paper_tables(api, config: dict) -> list[str]:
    """The tables of the study's section beyond the generic ones."""
    return (["ablation"] if ablation_scenarios(api, config) else []) + (
        ["decomposition"] if decomposition_scenarios(api) else []
    )


def register(api, config: dict) -> None:
    """The study's figures and hooks."""
    for stem, (needs, caption) in REPORT_FIGURES.items():
        if figure_made(api, config, stem, needs):
            api.add_figure(
                "report_2001",
                stem,
                stem,
                lambda stem=stem, needs=needs: figure_inputs(api, stem, needs),
                # the pathology's slots are counted in the regular dropper's N
                (
                    {"every_n": regular_every_n(api, PATHOLOGY_SCENARIO)}
                    if stem == "fig4_5_pathology"
                    else {}
                ),
                caption=caption,
            )
    api.register_study(
        "report_2001",
        targets=lambda: targets(api, config),
        paper_inputs=lambda: paper_inputs(api, config),
        paper_params=lambda: {
            "ablation_scenarios": config.get("ablation", {}).get("scenarios", []),
            "ablation_steps": [step.parameter for step in tcp_profiles.ablation()],
            "every_n": regular_every_n(api, PATHOLOGY_SCENARIO),
        },
        paper_tables=lambda: paper_tables(api, config),
        switches=lambda: {
            "AblationRan": bool(ablation_scenarios(api, config)),
            "DecompositionRan": bool(decomposition_scenarios(api)),
            "PathologyRan": bool(pathology_traces(api)),
        },
    )
