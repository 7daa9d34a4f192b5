# Input and params functions of the paper's rules (paper.smk): what this scale produced.
from pathlib import Path

from emusim import lossy
from emusim import paper_numbers as pn

PAPER_GENERATED = f"{PREFIX}paper/generated"


def paper_figure_stems():
    """Stems of the figures this scale makes (the emulation's self-check only with Mininet)."""
    stems = [Path(p).stem for p in figure_targets() if p.endswith(".pdf")]
    stems += list(MULTIFLOW_FIGURES)
    return stems + (["fig_mininet_selfcheck"] if mininet_scenarios() else [])


def paper_table_stems():
    """Stems of the tables this scale makes, ablation and self-check where they run."""
    stems = [Path(p).stem for p in table_targets() if p.endswith(".tex")]
    stems += ["ablation"] if ablation_scenarios() else []
    return stems + (["mininet_selfcheck"] if mininet_scenarios() else [])


def paper_number_inputs(wildcards):
    """Every result file the numbers come from that this scale produces."""
    inputs = {
        "published": "data/reference/published.csv",
        "hosts": testbed_table("hosts"),
        "profiles": "config/tcp_profiles.yaml",
        "delay": f"{RESULTS}/delay/one_way_delay.json",
        "summary": f"{RESULTS}/compare/summary.csv",
    }
    inputs.update({f"stats_{n}": f"{RESULTS}/stats/{n}.csv" for n in SCENARIOS})
    if trace_paths():
        inputs["traces"] = f"{RESULTS}/traces/summary.csv"
    if "regular-1in6" in SCENARIOS:
        # Table 4.4's distribution per backend (stalled runs need the runs, not statistics)
        inputs["runs_1in6"] = backend_tables_of("regular-1in6")
    if "random-drop" in SCENARIOS:
        # what each drop cost against how many there were (Tables 4.1 and 4.2's pairing)
        inputs["runs_random_drop"] = backend_tables_of("random-drop")
    if ablation_scenarios():
        inputs["ablation"] = f"{RESULTS}/ablation/summary.csv"
    if mininet_scenarios():
        inputs["selfcheck"] = f"{RESULTS}/mininet/selfcheck.csv"
    # the lossy-link family: ns-3 against Mininet, and the variant registry
    inputs["variants"] = "config/tcp_variants.yaml"
    inputs.update(
        {
            f"lossy_{n}": f"{RESULTS}/compare/{n}-ns3-vs-mininet.csv"
            for n in lossy_scenarios()
        }
    )
    # the router-forwarding study: its fit and comparisons (forwarding.smk)
    inputs.update(forwarding_paper_inputs())
    # the multi-flow study: its per-phase tables (multiflow.smk)
    inputs.update(
        {
            f"multiflow_{n}": f"{RESULTS}/multiflow/{n}.csv"
            for n in multiflow_scenarios()
        }
    )
    return inputs


def multiflow_paper_params():
    """Every multiflow scenario the paper knows (run at this scale or not): its first
    point's settings and its TCP variants (emusim.multiflow_paper)."""
    out = {}
    for name in sc.scenario_names():
        s = SCENARIOS.get(name) or sc.load(name, SCALE)
        if s.workload_kind == "multiflow":
            out[name] = {
                "settings": s.points[0].settings,
                "variants": list(dict.fromkeys(p.variant for p in s.points)),
                "points": [p.settings for p in s.points],
            }
    return out


def lossy_paper_params():
    """Per scenario of the lossy-link kind (file names, whether run or not): the headline cell
    the paper reports per variant, the transfer size and the cap at this scale."""
    out = {}
    for name in sc.scenario_names():
        s = SCENARIOS.get(name) or sc.load(name, SCALE)
        if {"delay_ms", "loss", "variant"} <= set(s.axes):
            w = s.settings["workload"]
            out[name] = {
                "headline": dict(lossy.HEADLINE),
                "transfer_bytes": w["writes"] * w["write_size_B"],
                "cap_s": s.settings.get("cap_s"),
                "queue_packets": s.settings["topology"]["router_queue_packets"],
            }
    return out


def paper_switches():
    """The \\if switches of numbers.tex: which parts of the study ran at this scale."""
    switches = {
        "HardwareRan": "hardware" in BACKENDS,
        "NsThreeRan": "ns3" in BACKENDS,
        "MininetRan": bool(mininet_scenarios()),
        "AblationRan": bool(ablation_scenarios()),
        "TracesRan": bool(trace_paths()),
        "PathologyRan": bool(pathology_traces()),
    }
    switches.update(
        {pn.macro_name("Ran", n): n in SCENARIOS for n in sc.scenario_names()}
    )
    return switches


def paper_profiles():
    """Every profile name the text may use: the registry's and the emulation's own."""
    return sorted(set(tcp_profiles.registry()) | set(linux_tcp.MININET_PROFILES))
