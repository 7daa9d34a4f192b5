# The multi-flow dynamics study (emusim.studies.multiflow; docs/multiflow.md): FAST TCP and
# the variants Linux also has, flows arriving at and leaving a shared bottleneck. The runs are
# the generic ns3_run's (program multiflow; each run JSON holds its time series); here: the
# per-phase table and its paper table; the study's four figures and its numbers are
# emusim.studies.multiflow.rules'. A Snakemake module (the Snakefile includes every study as
# one, with its rules named multiflow_RULE): it sees the workflow only through `api`, the
# studies' plug-in API (emusim.pipeline.studies.api), and config.
from emusim.studies.multiflow import rules as multiflow_rules

api = config["study_api"]


wildcard_constraints:
    **api.WILDCARD_CONSTRAINTS,


multiflow_rules.register(api)


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
        scenario=multiflow_rules.scenario_pattern(api),
    conda:
        "../../envs/emusim.yaml"
    params:
        scenario=lambda wc: api.SCENARIOS[wc.scenario],
    script:
        "../../scripts/multiflow_phases.py"
