# The 2001 report's study (emusim.studies.report_2001; paper/sections/report_2001.tex): the
# report's figures, the Mathis and PFTK curves beside Figures 4.1 and 4.2, and the calibration
# ablation (ns-3's defaults to linux-2.2, one parameter at a time; config `ablation`); what it
# adds is emusim.studies.report_2001.rules'. Its runs, statistics and comparisons with the
# hardware are the generic rules'. A Snakemake module (the Snakefile includes every study as
# one, with its rules named report_2001_RULE): it sees the workflow only through `api`, the
# studies' plug-in API (emusim.pipeline.studies.api), and config.
from emusim.studies.report_2001 import rules as report_rules

api = config["study_api"]


wildcard_constraints:
    **api.WILDCARD_CONSTRAINTS,


report_rules.register(api, config)


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
        runs=lambda wc: report_rules.ablation_run_paths(api, config, wc.scenario),
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
            f"{api.RESULTS}/ablation/{{scenario}}.csv",
            scenario=report_rules.ablation_scenarios(api, config),
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
        lambda wc: report_rules.decomposition_stats(api),
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
        scenarios=report_rules.decomposition_scenarios(api),
    script:
        "../../scripts/decomposition.py"
