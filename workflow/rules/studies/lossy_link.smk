# The lossy-link study (emusim.studies.lossy_link; docs/variants.md): bulk TCP over a lossy
# long link per TCP variant, ns-3 against Mininet. Its runs and the comparison of the two
# backends are the generic rules'; here: its figures, its per-variant table and its numbers.
# A Snakemake module (the Snakefile includes every study as one, with its rules named
# lossy_link_RULE): it sees the workflow only through `api`, the studies' plug-in API
# (workflow/rules/study_api.smk, STUDY_API), and config.
from emusim.inputs import scenario as sc
from emusim.inputs import variants as tcp_variants
from emusim.studies import lossy_link as lossy_study
from emusim.studies.lossy_link import variants_table as lossy_table

api = config["study_api"]


wildcard_constraints:
    **api.WILDCARD_CONSTRAINTS,


def lossy_scenarios():
    """The study's scenarios that ns-3 and Mininet are compared on at this scale."""
    return [
        n
        for n in api.backend_compared_scenarios()
        if lossy_study.STUDY.claims(api.SCENARIOS[n])
    ]


LOSSY_CAPTIONS = {
    "goodput": "Bulk TCP over a lossy link (docs/variants.md): goodput against the random loss "
    "rate of the impaired link in each direction, one panel per one-way delay and backend, one "
    "line per TCP variant; a hollow circle marks a cell where a run hit the cap.",
    "ns3_vs_mininet": "ns-3 against Mininet per TCP variant: every cell of the lossy-link "
    "design at (ns-3's goodput, Mininet's); on the diagonal they agree. A variant one backend "
    "lacks is named in its panel.",
}
for _name in lossy_scenarios():
    for _kind, _caption in LOSSY_CAPTIONS.items():
        api.add_figure(
            "lossy_link",
            f"fig_{_name.replace('-', '_')}_{_kind}",
            _kind,
            lambda name=_name: {
                f"stats_{name}": f"{api.RESULTS}/stats/{name}.csv",
                "compare": f"{api.RESULTS}/compare/{name}-ns3-vs-mininet.csv",
            },
            # the variants in the registry's order
            {"scenario": _name, "variants": list(tcp_variants.registry())},
            caption=_caption,
        )


# One cell traced in both backends (config `traces`), overlaid: where ns-3 and the emulation
# both trace a point of the study's scenario at this scale.
for _name in lossy_scenarios():
    _emulated = (
        {p.id for p in api.mininet_trace_points(_name)}
        if (_name in [n for n, _ in api.mininet_trace_batches()])
        else set()
    )
    _both = [
        p
        for p in api.trace_points(_name)
        if p.id in _emulated and api.ns3_traces(_name)
    ]
    for _profile in api.SCENARIOS[_name].profiles[:1]:
        for _point in _both[:1]:
            api.add_figure(
                "lossy_link",
                f"fig_{_name.replace('-', '_')}_traces",
                "traces",
                lambda name=_name, profile=_profile, point=_point.id: {
                    "ns3": f"{api.RESULTS}/traces/{name}/{profile}/{point}/run1.csv.gz",
                    "mininet": f"{api.RESULTS}/traces/mininet/{name}/{profile}/{point}/run1.csv.gz",
                },
                {"point": _point.id},
                caption="One cell traced in both backends: every data segment sent against "
                "time, retransmissions marked and the timeouts as vertical lines (top), and the "
                "congestion window (bottom); ns-3 runs Linux's own module on TcpLinuxSocket, "
                "the emulation Debian's kernel (docs/linux-cc.md).",
            )


def lossy_paper_params():
    """Per scenario of the study (every file, run at this scale or not): the headline cell the
    paper reports per variant, the transfer size, the cap and the queue at this scale.
    """
    out = {}
    for name in sc.scenario_names():
        s = api.SCENARIOS.get(name) or sc.load(name, api.SCALE)
        if lossy_study.STUDY.claims(s):
            w = s.settings["workload"]
            out[name] = {
                "headline": dict(lossy_table.HEADLINE),
                "transfer_bytes": w["writes"] * w["write_size_B"],
                "cap_s": s.settings.get("cap_s"),
                "queue_packets": s.settings["topology"]["router_queue_packets"],
            }
    return {"scenarios": out}


api.register_study(
    "lossy_link",
    tables=lambda: [f"{n}-variants" for n in lossy_scenarios()],
    paper_inputs=lambda: {
        f"lossy_{n}": f"{api.RESULTS}/compare/{n}-ns3-vs-mininet.csv"
        for n in lossy_scenarios()
    },
    paper_params=lossy_paper_params,
)


rule variant_table:
    input:
        compare=f"{api.RESULTS}/compare/{{scenario}}-ns3-vs-mininet.csv",
    output:
        multiext(f"{api.TABLES}/{{scenario}}-variants", ".csv", ".tex", ".html"),
    log:
        f"{api.PREFIX}logs/tables/{{scenario}}-variants.log",
    benchmark:
        f"{api.PREFIX}logs/timing/lossy_link_variant_table/{{scenario}}.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        variants=lambda wc: list(tcp_variants.registry()),
    script:
        "../../scripts/variant_table.py"
