# The router-forwarding study (emusim.studies.router_forwarding; docs/router-forwarding.md):
# UDP floods against payload size, direct and routed. ns-3 without the processing model is the
# generic ns3_run; here: the model fitted to the emulation's runs, ns-3 with it ("ns3-model")
# and its comparison with Mininet; its figures and numbers are
# emusim.studies.router_forwarding.rules'. A Snakemake module (the Snakefile includes every
# study as one, with its rules named router_forwarding_RULE): it sees the workflow only through
# `api`, the studies' plug-in API (emusim.pipeline.studies.api), and config.
from emusim.studies.router_forwarding import rules as forwarding_rules

api = config["study_api"]


wildcard_constraints:
    **api.WILDCARD_CONSTRAINTS,


forwarding_rules.register(api)


rule fit:
    input:
        runs=f"{api.RESULTS}/mininet/{{scenario}}.csv",
        batches=lambda wc: api.mininet_batch_paths(wc.scenario),
    output:
        json=f"{api.RESULTS}/forwarding/{{scenario}}/model-fit.json",
        sizes=f"{api.RESULTS}/forwarding/{{scenario}}/model-fit-sizes.csv",
    log:
        f"{api.PREFIX}logs/forwarding/{{scenario}}/fit.log",
    benchmark:
        f"{api.PREFIX}logs/timing/router_forwarding_fit/{{scenario}}.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        link_rate_bps=lambda wc: forwarding_rules.link_rate_bps(api, wc.scenario),
    script:
        "../../scripts/router_forwarding_fit.py"


rule model_run:
    input:
        unpack(lambda wc: forwarding_rules.model_run_inputs(api, wc)),
    output:
        f"{api.RESULTS}/{forwarding_rules.MODEL}/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.json",
    log:
        f"{api.PREFIX}logs/{forwarding_rules.MODEL}/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.log",
    benchmark:
        f"{api.PREFIX}logs/timing/router_forwarding_model_run/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        # the command is built when the run runs, from the fit as it then is
        delay=lambda wc, input: forwarding_rules.model_run_args(input),
        scale=lambda wc: api.SCALE,
    shell:
        "python -m emusim.backends.ns3.model_run --scenario {wildcards.scenario:q}"
        " --scale {params.scale} --profile {wildcards.profile:q} --point {wildcards.point:q}"
        " --rep {wildcards.rep} --program {input.program:q} --fit {input.fit:q}"
        " {params.delay} --out {output:q} 2> {log:q}"


rule model_collect:
    input:
        runs=lambda wc: forwarding_rules.model_runs(api, wc.scenario),
    output:
        f"{api.RESULTS}/{forwarding_rules.MODEL}/{{scenario}}.csv",
    log:
        f"{api.PREFIX}logs/{forwarding_rules.MODEL}/{{scenario}}.log",
    benchmark:
        f"{api.PREFIX}logs/timing/router_forwarding_model_collect/{{scenario}}.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        scenario=lambda wc: api.SCENARIOS[wc.scenario],
    script:
        "../../scripts/collect_runs.py"


rule compare_model:
    input:
        stats=f"{api.RESULTS}/stats/{{scenario}}.csv",
        runs=lambda wc: forwarding_rules.compared_tables(api, wc.scenario),
        batches=lambda wc: api.mininet_batch_paths(wc.scenario),
    output:
        f"{api.RESULTS}/compare/{{scenario}}-{forwarding_rules.MODEL}-vs-mininet.csv",
    log:
        f"{api.PREFIX}logs/compare/{{scenario}}-{forwarding_rules.MODEL}-vs-mininet.log",
    benchmark:
        f"{api.PREFIX}logs/timing/router_forwarding_compare_model/{{scenario}}.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        scenario=lambda wc: api.SCENARIOS[wc.scenario],
        other=forwarding_rules.MODEL,
    script:
        "../../scripts/router_forwarding_compare.py"
