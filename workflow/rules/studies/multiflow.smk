# The multi-flow dynamics study (emusim.studies.multiflow; docs/multiflow.md): FAST TCP and
# the variants Linux also has, flows arriving at and leaving a shared bottleneck. The runs are
# the generic ns3_run's (program multiflow; each run JSON holds its time series); here: the
# per-phase table, its paper table, the study's four figures and its numbers.
# A Snakemake module (the Snakefile includes every study as one, with its rules named
# multiflow_RULE): it sees the workflow only through `api`, the studies' plug-in API
# (workflow/rules/study_api.smk, STUDY_API), and config.
from emusim.inputs import scenario as sc
from emusim.studies import multiflow as multiflow_study

api = config["study_api"]


wildcard_constraints:
    **api.WILDCARD_CONSTRAINTS,


def multiflow_scenarios():
    """The study's scenarios that ns-3 runs (the emulation cannot: docs/multiflow.md,
    "Mininet")."""
    if "ns3" not in api.BACKENDS:
        return []
    return [n for n in api.SCENARIOS if multiflow_study.STUDY.claims(api.SCENARIOS[n])]


# The study's figures (emusim.studies.multiflow.figures): stem -> (kind, scenario, caption)
MULTIFLOW_FIGURES = {
    "fig_multiflow_dynamic_i_throughput": (
        "throughput",
        "multiflow-dynamic-i",
        "FAST TCP's dynamics I: each flow's throughput as flows arrive and leave, per variant.",
    ),
    "fig_multiflow_dynamic_i_queue": (
        "queue",
        "multiflow-dynamic-i",
        "FAST TCP's dynamics I: the bottleneck's queue, and the packets each flow keeps "
        "queued, per variant.",
    ),
    "fig_multiflow_dynamic_ii": (
        "throughput_queue",
        "multiflow-dynamic-ii",
        "FAST TCP's dynamics II: throughput and queue as flows of different round-trip times "
        "arrive and leave.",
    ),
    "fig_multiflow_buffer": (
        "buffer",
        "multiflow-buffer",
        "The buffer-size experiment: FAST's queue per phase as the buffer steps, for 2 and 20 "
        "flows.",
    ),
}
for _stem, (_kind, _name, _caption) in MULTIFLOW_FIGURES.items():
    if _name in multiflow_scenarios():
        api.add_figure(
            "multiflow",
            _stem,
            _kind,
            lambda name=_name: {
                "runs": api.ns3_run_paths(name),
                "phases": f"{api.RESULTS}/multiflow/{name}.csv",
            },
            {"scenario": api.SCENARIOS[_name]},
            caption=_caption,
        )


def multiflow_paper_params():
    """Every scenario of the study the paper knows (run at this scale or not): its first
    point's settings, its points and its TCP variants (emusim.studies.multiflow.numbers).
    """
    out = {}
    for name in sc.scenario_names():
        s = api.SCENARIOS.get(name) or sc.load(name, api.SCALE)
        if multiflow_study.STUDY.claims(s):
            out[name] = {
                "settings": s.points[0].settings,
                "variants": list(dict.fromkeys(p.variant for p in s.points)),
                "points": [p.settings for p in s.points],
            }
    return {"scenarios": out}


api.register_study(
    "multiflow",
    targets=lambda: [f"{api.RESULTS}/multiflow/{n}.csv" for n in multiflow_scenarios()],
    tables=lambda: [f"{n}-phases" for n in multiflow_scenarios()],
    paper_inputs=lambda: {
        f"multiflow_{n}": f"{api.RESULTS}/multiflow/{n}.csv"
        for n in multiflow_scenarios()
    },
    paper_params=multiflow_paper_params,
)


rule phases:
    input:
        runs=lambda wc: api.ns3_run_paths(wc.scenario),
        variants="config/tcp_variants.yaml",
    output:
        csv=f"{api.RESULTS}/multiflow/{{scenario}}.csv",
        table=multiext(f"{api.TABLES}/{{scenario}}-phases", ".csv", ".tex", ".html"),
    log:
        f"{api.PREFIX}logs/multiflow/{{scenario}}.log",
    benchmark:
        f"{api.PREFIX}logs/timing/multiflow_phases/{{scenario}}.tsv"
    wildcard_constraints:
        scenario="|".join(multiflow_scenarios()) or "no-multiflow-scenario",
    conda:
        "../../envs/emusim.yaml"
    params:
        scenario=lambda wc: api.SCENARIOS[wc.scenario],
    script:
        "../../scripts/multiflow_phases.py"
