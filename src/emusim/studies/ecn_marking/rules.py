"""What the ecn-marking study adds to the workflow (workflow/rules/studies/ecn_marking.smk):
its figure per scenario and its numbers' inputs and parameters. `api` is the workflow's
plug-in API (emusim.pipeline.studies.api)."""

from __future__ import annotations

from emusim.studies import scenarios_claimed
from emusim.studies.ecn_marking import STUDY

CAPTION = (
    "TCP over CoDel with ECN at the bottleneck (docs/ecn.md): goodput (left) "
    "and the fraction of the packets reaching the bottleneck that its queue marked CE "
    "(right), ns-3 beside Mininet, per TCP variant."
)


def scenarios(api) -> list[str]:
    """The study's scenarios that ns-3 and Mininet are compared on at this scale."""
    return [n for n in api.backend_compared_scenarios() if STUDY.claims(api.SCENARIOS[n])]


def paper_params(api) -> dict:
    """Per scenario of the study (every file, run at this scale or not): its line, queue,
    transfer and variants at this scale."""
    out = {}
    for name, s in scenarios_claimed(STUDY, api.SCENARIOS, api.SCALE).items():
        topo, w = s.settings["topology"], s.settings["workload"]
        out[name] = {
            "link_rate_Mbps": topo["link_rate_Mbps"],
            "access_rate_Mbps": topo.get("access_rate_Mbps", topo["link_rate_Mbps"]),
            "delay_ms": s.settings["impairment"]["link"]["delay_ms"],
            "queue_packets": topo["router_queue_packets"],
            "aqm": topo["aqm"],
            "transfer_bytes": w["writes"] * w["write_size_B"],
            "variants": list(s.settings["sweep"]["variant"]),
        }
    return {"scenarios": out}


def paper_inputs(api) -> dict:
    """Each scenario's comparison of the two backends."""
    return {f"ecn_{n}": f"{api.RESULTS}/compare/{n}-ns3-vs-mininet.csv" for n in scenarios(api)}


def register(api) -> None:
    """The study's figures and hooks."""
    for name in scenarios(api):
        api.add_figure(
            "ecn_marking",
            f"fig_{name.replace('-', '_')}",
            "goodput_marks",
            lambda name=name: {"compare": f"{api.RESULTS}/compare/{name}-ns3-vs-mininet.csv"},
            {
                "variants": api.SCENARIOS[name].settings["sweep"]["variant"],
                "title": api.SCENARIOS[name].name,
            },
            caption=CAPTION,
        )
    api.register_study(
        "ecn_marking",
        paper_inputs=lambda: paper_inputs(api),
        paper_params=lambda: paper_params(api),
    )
