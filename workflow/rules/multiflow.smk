# The multi-flow dynamics study (issue 9, docs/multiflow.md): FAST TCP and the variants Linux
# also has, flows arriving and leaving a shared bottleneck. The runs are the generic ns3_run's
# (program multiflow; each run JSON holds its time series); here: the per-phase table, its
# paper table, and the study's four figures. Its functions and hooks: multiflow_common.smk.


include: "multiflow_common.smk"


rule multiflow_phases:
    input:
        runs=lambda wc: ns3_run_paths(wc.scenario),
        variants="config/tcp_variants.yaml",
    output:
        csv=f"{RESULTS}/multiflow/{{scenario}}.csv",
        table=multiext(f"{TABLES}/{{scenario}}-phases", ".csv", ".tex", ".html"),
    log:
        f"{PREFIX}logs/multiflow/{{scenario}}.log",
    wildcard_constraints:
        scenario="|".join(multiflow_scenarios()) or "no-multiflow-scenario",
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
    script:
        "../scripts/multiflow_phases.py"


rule multiflow_figure:
    input:
        runs=lambda wc: ns3_run_paths(MULTIFLOW_FIGURES[wc.stem][1]),
        phases=lambda wc: f"{RESULTS}/multiflow/{MULTIFLOW_FIGURES[wc.stem][1]}.csv",
    output:
        pdf=f"{FIGURES}/{{stem}}.pdf",
        png=report(
            f"{FIGURES}/{{stem}}.png",
            caption="../report/figure.rst",
            category="Figures",
            labels={"figure": "{stem}"},
        ),
    log:
        f"{PREFIX}logs/figures/{{stem}}.log",
    wildcard_constraints:
        stem="|".join(MULTIFLOW_FIGURES) or "no-multiflow-figure",
    conda:
        "../envs/emusim.yaml"
    params:
        kind=lambda wc: MULTIFLOW_FIGURES[wc.stem][0],
        scenario=lambda wc: SCENARIOS[MULTIFLOW_FIGURES[wc.stem][1]],
    script:
        "../scripts/multiflow_figure.py"
