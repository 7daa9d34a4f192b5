# The router-forwarding study (issue 10, docs/router-forwarding.md): UDP floods against payload
# size, direct and routed. ns-3 without the processing model is the generic ns3_run; here: the
# model fitted to the emulation's runs, ns-3 with it ("ns3-model"), its comparison with Mininet
# and the study's figures. Its functions, and the hooks common.smk and paper_common.smk call,
# are in forwarding_common.smk.


include: "forwarding_common.smk"


rule forwarding_fit:
    input:
        runs=f"{RESULTS}/mininet/{{scenario}}.csv",
        batches=lambda wc: mininet_batch_paths(wc.scenario),
    output:
        json=f"{RESULTS}/forwarding/{{scenario}}/model-fit.json",
        sizes=f"{RESULTS}/forwarding/{{scenario}}/model-fit-sizes.csv",
    log:
        f"{PREFIX}logs/forwarding/{{scenario}}/fit.log",
    conda:
        "../envs/emusim.yaml"
    params:
        link_rate_bps=lambda wc: SCENARIOS[wc.scenario].settings["topology"][
            "link_rate_Mbps"
        ]
        * 1e6,
    script:
        "../scripts/forwarding_fit.py"


rule forwarding_ns3_model_run:
    input:
        unpack(_forwarding_model_inputs),
    output:
        f"{RESULTS}/{FORWARDING_MODEL}/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.json",
    log:
        f"{PREFIX}logs/{FORWARDING_MODEL}/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.log",
    conda:
        "../envs/emusim.yaml"
    params:
        # the command is built when the run runs, from the fit as it then is
        delay=_forwarding_model_args,
        scale=lambda wc: SCALE,
    shell:
        "python -m emusim.backends.ns3.forwarding_run --scenario {wildcards.scenario:q}"
        " --scale {params.scale} --profile {wildcards.profile:q} --point {wildcards.point:q}"
        " --rep {wildcards.rep} --program {input.program:q} --fit {input.fit:q}"
        " {params.delay} --out {output:q} 2> {log:q}"


rule forwarding_model_collect:
    input:
        runs=lambda wc: forwarding_model_runs(wc.scenario),
    output:
        f"{RESULTS}/{FORWARDING_MODEL}/{{scenario}}.csv",
    log:
        f"{PREFIX}logs/{FORWARDING_MODEL}/{{scenario}}.log",
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
    script:
        "../scripts/collect_runs.py"


rule forwarding_compare_model:
    input:
        stats=f"{RESULTS}/stats/{{scenario}}.csv",
        runs=lambda wc: [
            f"{RESULTS}/mininet/{wc.scenario}.csv",
            *forwarding_model_tables(wc.scenario),
        ],
        batches=lambda wc: mininet_batch_paths(wc.scenario),
    output:
        f"{RESULTS}/compare/{{scenario}}-{FORWARDING_MODEL}-vs-mininet.csv",
    log:
        f"{PREFIX}logs/compare/{{scenario}}-{FORWARDING_MODEL}-vs-mininet.log",
    conda:
        "../envs/emusim.yaml"
    params:
        scenario=lambda wc: SCENARIOS[wc.scenario],
        other=FORWARDING_MODEL,
    script:
        "../scripts/forwarding_compare.py"


rule forwarding_figure:
    input:
        unpack(_forwarding_figure_inputs),
    output:
        pdf=f"{FIGURES}/{{stem}}.pdf",
        png=report(
            f"{FIGURES}/{{stem}}.png",
            caption="../report/router_forwarding.rst",
            category="Figures",
            labels={"figure": "{stem}"},
        ),
    log:
        f"{PREFIX}logs/figures/{{stem}}.log",
    wildcard_constraints:
        stem="|".join(FORWARDING_FIGURES) or "no-forwarding-figure",
    conda:
        "../envs/emusim.yaml"
    params:
        kind=lambda wc: FORWARDING_FIGURES[wc.stem][0],
        link_rate_bps=lambda wc: SCENARIOS[FORWARDING_FIGURES[wc.stem][1]].settings[
            "topology"
        ]["link_rate_Mbps"]
        * 1e6,
    script:
        "../scripts/forwarding_figure.py"
