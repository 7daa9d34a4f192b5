# The ecn-marking study (emusim.studies.ecn_marking; docs/ecn.md): TCP over a queue that marks,
# ns-3 against Mininet. Its runs and the comparison of the two backends are the generic rules';
# here: its figure and its numbers. A Snakemake module: it sees the workflow only through `api`
# (workflow/rules/study_api.smk, STUDY_API), and config.
from emusim.inputs import scenario as sc
from emusim.studies import ecn_marking as ecn_study

api = config["study_api"]


def ecn_scenarios():
    """The study's scenarios that ns-3 and Mininet are compared on at this scale."""
    return [
        n
        for n in api.backend_compared_scenarios()
        if ecn_study.STUDY.claims(api.SCENARIOS[n])
    ]


for _name in ecn_scenarios():
    api.add_figure(
        "ecn_marking",
        f"fig_{_name.replace('-', '_')}",
        "goodput_marks",
        lambda name=_name: {
            "compare": f"{api.RESULTS}/compare/{name}-ns3-vs-mininet.csv"
        },
        {
            "variants": api.SCENARIOS[_name].settings["sweep"]["variant"],
            "title": api.SCENARIOS[_name].name,
        },
        caption="TCP over CoDel with ECN at the bottleneck (docs/ecn.md): goodput (left) "
        "and the fraction of the packets reaching the bottleneck that its queue marked CE "
        "(right), ns-3 beside Mininet, per TCP variant.",
    )


def ecn_paper_params():
    """Per scenario of the study (every file, run at this scale or not): its line, queue,
    transfer and variants at this scale."""
    out = {}
    for name in sc.scenario_names():
        s = api.SCENARIOS.get(name) or sc.load(name, api.SCALE)
        if ecn_study.STUDY.claims(s):
            topo, w = s.settings["topology"], s.settings["workload"]
            out[name] = {
                "link_rate_Mbps": topo["link_rate_Mbps"],
                "access_rate_Mbps": topo.get(
                    "access_rate_Mbps", topo["link_rate_Mbps"]
                ),
                "delay_ms": s.settings["impairment"]["link"]["delay_ms"],
                "queue_packets": topo["router_queue_packets"],
                "aqm": topo["aqm"],
                "transfer_bytes": w["writes"] * w["write_size_B"],
                "variants": list(s.settings["sweep"]["variant"]),
            }
    return {"scenarios": out}


api.register_study(
    "ecn_marking",
    paper_inputs=lambda: {
        f"ecn_{n}": f"{api.RESULTS}/compare/{n}-ns3-vs-mininet.csv"
        for n in ecn_scenarios()
    },
    paper_params=ecn_paper_params,
)
