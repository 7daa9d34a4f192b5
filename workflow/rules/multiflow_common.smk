# Functions of the multi-flow study's rules (multiflow.smk), and the hooks common.smk and
# paper_common.smk call.
from emusim import multiflow as mf


def multiflow_scenarios():
    """Scenarios of workload multiflow that ns-3 runs (the emulation cannot: docs/multiflow.md,
    "Mininet")."""
    if "ns3" not in BACKENDS:
        return []
    return [n for n in SCENARIOS if SCENARIOS[n].workload_kind == mf.WORKLOAD]


# stem -> (kind, scenario): the study's figures (emusim.plots_multiflow)
MULTIFLOW_FIGURES = {
    stem: (kind, name)
    for stem, kind, name in [
        ("fig_multiflow_dynamic_i_throughput", "throughput", "multiflow-dynamic-i"),
        ("fig_multiflow_dynamic_i_queue", "queue", "multiflow-dynamic-i"),
        ("fig_multiflow_dynamic_ii", "throughput_queue", "multiflow-dynamic-ii"),
        ("fig_multiflow_buffer", "buffer", "multiflow-buffer"),
    ]
    if name in multiflow_scenarios()
}


def multiflow_targets():
    """Phase tables and figures of every multiflow scenario (all_targets)."""
    return [f"{RESULTS}/multiflow/{n}.csv" for n in multiflow_scenarios()] + [
        f"{FIGURES}/{stem}.{ext}"
        for stem in MULTIFLOW_FIGURES
        for ext in ("pdf", "png")
    ]


def multiflow_table_targets():
    return [
        f"{TABLES}/{n}-phases.{ext}"
        for n in multiflow_scenarios()
        for ext in ("csv", "tex", "html")
    ]
