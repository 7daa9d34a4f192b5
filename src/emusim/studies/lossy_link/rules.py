"""What the lossy-link study adds to the workflow (workflow/rules/studies/lossy_link.smk): its
figures, the cell traced in both backends, its per-variant table and its numbers. `api` is the
workflow's plug-in API (emusim.pipeline.studies.api)."""

from __future__ import annotations

from emusim.inputs import variants as tcp_variants
from emusim.studies import scenarios_claimed
from emusim.studies.lossy_link import STUDY, variants_table

CAPTIONS = {
    "goodput": "Bulk TCP over a lossy link (docs/variants.md): goodput against the random loss "
    "rate of the impaired link in each direction, one panel per one-way delay and backend, one "
    "line per TCP variant; a hollow circle marks a cell where a run hit the cap.",
    "ns3_vs_mininet": "ns-3 against Mininet per TCP variant: every cell of the lossy-link "
    "design at (ns-3's goodput, Mininet's); on the diagonal they agree. A variant one backend "
    "lacks is named in its panel.",
}
TRACES_CAPTION = (
    "One cell traced in both backends: every data segment sent against "
    "time, retransmissions marked and the timeouts as vertical lines (top), and the "
    "congestion window (bottom); ns-3 runs Linux's own module on TcpLinuxSocket, "
    "the emulation Debian's kernel (docs/linux-cc.md)."
)


def scenarios(api) -> list[str]:
    """The study's scenarios that ns-3 and Mininet are compared on at this scale."""
    return [n for n in api.backend_compared_scenarios() if STUDY.claims(api.SCENARIOS[n])]


def variants() -> list[str]:
    """The variants in the registry's order."""
    return list(tcp_variants.registry())


def traced_in_both(api, name: str) -> list:
    """The points of scenario `name` both ns-3 and the emulation trace at this scale."""
    emulated = (
        {p.id for p in api.mininet_trace_points(name)}
        if name in [n for n, _ in api.mininet_trace_batches()]
        else set()
    )
    return [p for p in api.trace_points(name) if p.id in emulated and api.ns3_traces(name)]


def add_figures(api) -> None:
    """Goodput and ns-3 against Mininet per scenario; then one cell traced in both backends
    (config `traces`), overlaid, where there is one."""
    for name in scenarios(api):
        for kind, caption in CAPTIONS.items():
            api.add_figure(
                "lossy_link",
                f"fig_{name.replace('-', '_')}_{kind}",
                kind,
                lambda name=name: {
                    f"stats_{name}": f"{api.RESULTS}/stats/{name}.csv",
                    "compare": f"{api.RESULTS}/compare/{name}-ns3-vs-mininet.csv",
                },
                {"scenario": name, "variants": variants()},
                caption=caption,
            )
    for name in scenarios(api):
        both = traced_in_both(api, name)
        for profile in api.SCENARIOS[name].profiles[:1]:
            for point in both[:1]:
                api.add_figure(
                    "lossy_link",
                    f"fig_{name.replace('-', '_')}_traces",
                    "traces",
                    lambda name=name, profile=profile, point=point.id: {
                        "ns3": f"{api.RESULTS}/traces/{name}/{profile}/{point}/run1.csv.gz",
                        "mininet": f"{api.RESULTS}/traces/mininet/{name}/{profile}/{point}/"
                        "run1.csv.gz",
                    },
                    {"point": point.id},
                    caption=TRACES_CAPTION,
                )


def paper_params(api) -> dict:
    """Per scenario of the study (every file, run at this scale or not): the headline cell the
    paper reports per variant, the transfer size, the cap and the queue at this scale."""
    out = {}
    for name, s in scenarios_claimed(STUDY, api.SCENARIOS, api.SCALE).items():
        w = s.settings["workload"]
        out[name] = {
            "headline": dict(variants_table.HEADLINE),
            "transfer_bytes": w["writes"] * w["write_size_B"],
            "cap_s": s.settings.get("cap_s"),
            "queue_packets": s.settings["topology"]["router_queue_packets"],
        }
    return {"scenarios": out}


def register(api) -> None:
    """The study's figures and hooks."""
    add_figures(api)
    api.register_study(
        "lossy_link",
        tables=lambda: [f"{n}-variants" for n in scenarios(api)],
        paper_inputs=lambda: {
            f"lossy_{n}": f"{api.RESULTS}/compare/{n}-ns3-vs-mininet.csv" for n in scenarios(api)
        },
        paper_params=lambda: paper_params(api),
    )
