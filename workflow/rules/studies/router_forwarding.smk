# The router-forwarding study (emusim.studies.router_forwarding; docs/router-forwarding.md):
# UDP floods against payload size, direct and routed. ns-3 without the processing model is the
# generic ns3_run; here: the model fitted to the emulation's runs, ns-3 with it ("ns3-model"),
# its comparison with Mininet, the study's figures and its numbers.
# A Snakemake module (the Snakefile includes every study as one, with its rules named
# router_forwarding_RULE): it sees the workflow only through `api`, the studies' plug-in API
# (workflow/rules/study_api.smk, STUDY_API), and config.
from emusim.studies import router_forwarding as forwarding_study
from emusim.workloads import udp_flood

api = config["study_api"]


wildcard_constraints:
    **api.WILDCARD_CONSTRAINTS,


FORWARDING_MODEL = udp_flood.MODEL_BACKEND


def forwarding_scenarios():
    """The study's scenarios (workload udp-flood)."""
    return [n for n in api.SCENARIOS if forwarding_study.STUDY.claims(api.SCENARIOS[n])]


def forwarding_fitted(name):
    """Whether the processing model can be fitted for a scenario: the emulation runs it, and
    ns-3 runs to use it."""
    return "ns3" in api.BACKENDS and name in api.mininet_scenarios()


def forwarding_model_runs(name):
    """The ns-3 runs with the processing model of a scenario (deterministic: one per point)."""
    if name not in forwarding_scenarios() or not forwarding_fitted(name):
        return []
    s = api.SCENARIOS[name]
    return [
        f"{api.RESULTS}/{FORWARDING_MODEL}/{name}/{profile}/{point.id}/run1.json"
        for profile in s.profiles
        for point in s.points
    ]


def forwarding_model_tables(name):
    """The tidy table of the model's runs, where there are any (api.backend_tables_of)."""
    if not forwarding_model_runs(name):
        return []
    return [f"{api.RESULTS}/{FORWARDING_MODEL}/{name}.csv"]


def _forwarding_figure_inputs(name):
    """A figure's statistics table, and the fit where there is one (drawn in every figure)."""
    inputs = {"stats": f"{api.RESULTS}/stats/{name}.csv"}
    if forwarding_fitted(name):
        inputs["fit"] = f"{api.RESULTS}/forwarding/{name}/model-fit.json"
    return inputs


# The measurement-tool paper's Figures 3, 4 and 5, and the fit (where there is one):
# kind -> caption (emusim.studies.router_forwarding.figures)
FORWARDING_CAPTIONS = {
    "mbps": "Router forwarding (docs/router-forwarding.md): UDP payload throughput against "
    "payload size, without the router (the generator's ceiling) and with it, per backend; "
    "dashed: the line rate. The measurement-tool paper's Figure 3.",
    "pps": "Router forwarding: datagrams received per second against payload size, without "
    "and with the router, per backend (log scale); dashed: the line rate. The paper's Figure 4.",
    "loss": "Router forwarding: the share of datagrams lost against payload size, without and "
    "with the router, per backend. The paper's Figure 5.",
    "fit": "The router processing model fitted to the emulation: the CPU time per datagram of "
    "each setup with the fitted generator and router costs (left), and the router's share per "
    "size with its fitted per-packet and per-byte cost and 95 % interval (right).",
}
for _name in forwarding_scenarios():
    for _kind, _caption in FORWARDING_CAPTIONS.items():
        if _kind != "fit" or forwarding_fitted(_name):
            api.add_figure(
                "router_forwarding",
                f"fig_{_name.replace('-', '_')}_{_kind}",
                _kind,
                lambda name=_name: _forwarding_figure_inputs(name),
                {
                    "link_rate_bps": api.SCENARIOS[_name].settings["topology"][
                        "link_rate_Mbps"
                    ]
                    * 1e6
                },
                caption=_caption,
            )


def forwarding_targets():
    """What the study adds to `all` beyond the generic targets (all_targets)."""
    targets = []
    for name in forwarding_scenarios():
        if forwarding_fitted(name):
            targets += forwarding_model_runs(name)
            targets.append(f"{api.RESULTS}/forwarding/{name}/model-fit.json")
            targets.append(
                f"{api.RESULTS}/compare/{name}-{FORWARDING_MODEL}-vs-mininet.csv"
            )
    return targets


def forwarding_paper_inputs():
    """The paper's inputs of the study (paper_number_inputs): the fit and both comparisons."""
    inputs = {}
    for name in forwarding_scenarios():
        if forwarding_fitted(name):
            inputs[f"forwarding_fit_{name}"] = (
                f"{api.RESULTS}/forwarding/{name}/model-fit.json"
            )
            inputs[f"forwarding_model_{name}"] = (
                f"{api.RESULTS}/compare/{name}-{FORWARDING_MODEL}-vs-mininet.csv"
            )
        if {"ns3", "mininet"} <= set(api.BACKENDS) and name in api.mininet_scenarios():
            inputs[f"forwarding_ns3_{name}"] = (
                f"{api.RESULTS}/compare/{name}-ns3-vs-mininet.csv"
            )
    return inputs


def _forwarding_model_inputs(wildcards):
    inputs = {
        "program": api.ns3_program(wildcards.scenario),
        "fit": f"{api.RESULTS}/forwarding/{wildcards.scenario}/model-fit.json",
        "scenario": f"scenarios/{wildcards.scenario}.yaml",
        "profiles": "config/tcp_profiles.yaml",
    }
    inputs.update({"delay": d for d in api.measured_delay_input(wildcards)})
    return inputs


def _forwarding_model_args(wildcards, input):
    """The fitted delay's file, where the scenario's delay is measured."""
    return f"--delay-json {input.delay}" if "delay" in input.keys() else ""


api.register_study(
    "router_forwarding",
    targets=forwarding_targets,
    run_tables=forwarding_model_tables,
    paper_inputs=forwarding_paper_inputs,
)


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
        link_rate_bps=lambda wc: api.SCENARIOS[wc.scenario].settings["topology"][
            "link_rate_Mbps"
        ]
        * 1e6,
    script:
        "../../scripts/router_forwarding_fit.py"


rule model_run:
    input:
        unpack(_forwarding_model_inputs),
    output:
        f"{api.RESULTS}/{FORWARDING_MODEL}/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.json",
    log:
        f"{api.PREFIX}logs/{FORWARDING_MODEL}/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.log",
    benchmark:
        f"{api.PREFIX}logs/timing/router_forwarding_model_run/{{scenario}}/{{profile}}/{{point}}/run{{rep}}.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        # the command is built when the run runs, from the fit as it then is
        delay=_forwarding_model_args,
        scale=lambda wc: api.SCALE,
    shell:
        "python -m emusim.backends.ns3.model_run --scenario {wildcards.scenario:q}"
        " --scale {params.scale} --profile {wildcards.profile:q} --point {wildcards.point:q}"
        " --rep {wildcards.rep} --program {input.program:q} --fit {input.fit:q}"
        " {params.delay} --out {output:q} 2> {log:q}"


rule model_collect:
    input:
        runs=lambda wc: forwarding_model_runs(wc.scenario),
    output:
        f"{api.RESULTS}/{FORWARDING_MODEL}/{{scenario}}.csv",
    log:
        f"{api.PREFIX}logs/{FORWARDING_MODEL}/{{scenario}}.log",
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
        runs=lambda wc: [
            f"{api.RESULTS}/mininet/{wc.scenario}.csv",
            *forwarding_model_tables(wc.scenario),
        ],
        batches=lambda wc: api.mininet_batch_paths(wc.scenario),
    output:
        f"{api.RESULTS}/compare/{{scenario}}-{FORWARDING_MODEL}-vs-mininet.csv",
    log:
        f"{api.PREFIX}logs/compare/{{scenario}}-{FORWARDING_MODEL}-vs-mininet.log",
    benchmark:
        f"{api.PREFIX}logs/timing/router_forwarding_compare_model/{{scenario}}.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        scenario=lambda wc: api.SCENARIOS[wc.scenario],
        other=FORWARDING_MODEL,
    script:
        "../../scripts/router_forwarding_compare.py"
