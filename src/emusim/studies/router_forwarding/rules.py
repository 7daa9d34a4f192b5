"""What the router-forwarding study adds to the workflow (workflow/rules/studies/
router_forwarding.smk): the processing model fitted to the emulation, ns-3 with it
("ns3-model"), its comparison with Mininet, the figures and the numbers. `api` is the
workflow's plug-in API (emusim.pipeline.studies.api)."""

from __future__ import annotations

from emusim.studies.router_forwarding import STUDY
from emusim.workloads import udp_flood

MODEL = udp_flood.MODEL_BACKEND
"""The backend name of ns-3 with the fitted processing model."""

# The measurement-tool paper's Figures 3, 4 and 5, and the fit (where there is one):
# kind -> caption (emusim.studies.router_forwarding.figures)
CAPTIONS = {
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


def scenarios(api) -> list[str]:
    """The study's scenarios (workload udp-flood)."""
    return [n for n in api.SCENARIOS if STUDY.claims(api.SCENARIOS[n])]


def fitted(api, name: str) -> bool:
    """Whether the processing model can be fitted for a scenario: the emulation runs it, and
    ns-3 runs to use it."""
    return "ns3" in api.BACKENDS and name in api.mininet_scenarios()


def model_runs(api, name: str) -> list[str]:
    """The ns-3 runs with the processing model of a scenario (deterministic: one per point)."""
    if name not in scenarios(api) or not fitted(api, name):
        return []
    s = api.SCENARIOS[name]
    return [
        f"{api.RESULTS}/{MODEL}/{name}/{profile}/{point.id}/run1.json"
        for profile in s.profiles
        for point in s.points
    ]


def model_tables(api, name: str) -> list[str]:
    """The tidy table of the model's runs, where there are any (api.backend_tables_of)."""
    return [f"{api.RESULTS}/{MODEL}/{name}.csv"] if model_runs(api, name) else []


def compared_tables(api, name: str) -> list[str]:
    """The run tables the model's comparison reads: the emulation's and the model's."""
    return [f"{api.RESULTS}/mininet/{name}.csv", *model_tables(api, name)]


def link_rate_bps(api, name: str) -> float:
    """The scenario's line rate in bit/s."""
    return api.SCENARIOS[name].settings["topology"]["link_rate_Mbps"] * 1e6


def figure_inputs(api, name: str) -> dict:
    """A figure's statistics table, and the fit where there is one (drawn in every figure)."""
    inputs = {"stats": f"{api.RESULTS}/stats/{name}.csv"}
    if fitted(api, name):
        inputs["fit"] = f"{api.RESULTS}/forwarding/{name}/model-fit.json"
    return inputs


def targets(api) -> list[str]:
    """What the study adds to `all` beyond the generic targets."""
    out = []
    for name in scenarios(api):
        if fitted(api, name):
            out += model_runs(api, name)
            out.append(f"{api.RESULTS}/forwarding/{name}/model-fit.json")
            out.append(f"{api.RESULTS}/compare/{name}-{MODEL}-vs-mininet.csv")
    return out


def paper_inputs(api) -> dict:
    """The paper's inputs of the study: the fit and both comparisons."""
    inputs = {}
    for name in scenarios(api):
        if fitted(api, name):
            inputs[f"forwarding_fit_{name}"] = f"{api.RESULTS}/forwarding/{name}/model-fit.json"
            inputs[f"forwarding_model_{name}"] = (
                f"{api.RESULTS}/compare/{name}-{MODEL}-vs-mininet.csv"
            )
        if {"ns3", "mininet"} <= set(api.BACKENDS) and name in api.mininet_scenarios():
            inputs[f"forwarding_ns3_{name}"] = f"{api.RESULTS}/compare/{name}-ns3-vs-mininet.csv"
    return inputs


def model_run_inputs(api, wildcards) -> dict:
    """A model run's program, fit, scenario and profiles, and the fitted delay if measured."""
    inputs = {
        "program": api.ns3_program(wildcards.scenario),
        "fit": f"{api.RESULTS}/forwarding/{wildcards.scenario}/model-fit.json",
        "scenario": f"scenarios/{wildcards.scenario}.yaml",
        "profiles": "config/tcp_profiles.yaml",
    }
    for delay in api.measured_delay_input(wildcards):
        inputs["delay"] = delay
    return inputs


def model_run_args(input) -> str:
    """The fitted delay's file, where the scenario's delay is measured."""
    has_delay = "delay" in input.keys()  # noqa: SIM118 (Snakemake's InputFiles: `in` tests values)
    return f"--delay-json {input.delay}" if has_delay else ""


def register(api) -> None:
    """The study's figures and hooks."""
    for name in scenarios(api):
        for kind, caption in CAPTIONS.items():
            if kind != "fit" or fitted(api, name):
                api.add_figure(
                    "router_forwarding",
                    f"fig_{name.replace('-', '_')}_{kind}",
                    kind,
                    lambda name=name: figure_inputs(api, name),
                    {"link_rate_bps": link_rate_bps(api, name)},
                    caption=caption,
                )
    api.register_study(
        "router_forwarding",
        targets=lambda: targets(api),
        run_tables=lambda name: model_tables(api, name),
        paper_inputs=lambda: paper_inputs(api),
    )
