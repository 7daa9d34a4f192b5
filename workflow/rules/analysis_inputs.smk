# Input and params functions of the statistics and the comparisons (analysis.smk): each
# scenario's run tables, what is compared with the hardware, and what ns-3 with Mininet.
from emusim import workloads
from emusim.backends.reference import runs as hw


def backend_tables(wildcards):
    """Input function: the tidy per-run tables of the scenario's backends."""
    return backend_tables_of(wildcards.scenario)


def backend_tables_of(name):
    """The tidy per-run tables of every configured backend that can run the scenario."""
    tables = []
    if "hardware" in BACKENDS and hardware_runs(name):
        tables.append(f"{RESULTS}/hardware/{name}.csv")
    if "ns3" in BACKENDS:
        tables.append(f"{RESULTS}/ns3/{name}.csv")
    if "mininet" in BACKENDS and mininet_profiles(name):
        tables.append(f"{RESULTS}/mininet/{name}.csv")
    # a study's own backends' runs (the router-forwarding study's ns3-model)
    return tables + [
        t for hooks in STUDY_RULES.values() for t in hooks.run_tables(name)
    ]


def compare_metrics(name):
    """What the comparison measures (the workload's: emusim.workloads); the transfers' sizes
    match the hardware's at paper scale."""
    return workloads.of(SCENARIOS[name].settings).hardware_metrics(SCALE == "paper")


def compared_scenarios():
    return [n for n in SCENARIOS if hardware_runs(n) and "hardware" in BACKENDS]


def backend_compared_scenarios():
    """Scenarios without a hardware reference: ns-3 is compared with Mininet instead, every
    cell of the design a row (results/compare/NAME-ns3-vs-mininet.csv; a cell Mininet did not
    run says why)."""
    if not {"ns3", "mininet"} & set(BACKENDS):
        return []
    # a workload only ns-3 runs (multiflow, docs/multiflow.md) has nothing to compare with
    return [
        n
        for n, s in SCENARIOS.items()
        if not hw.has_reference(s) and workloads.of(s.settings).emulated
    ]


def backend_compare_metrics(name):
    """What ns-3 and Mininet are compared on (the workload's: goodput and completion time of a
    transfer; a UDP flood's Mbit/s, packets/s and loss)."""
    return list(workloads.of(SCENARIOS[name].settings).backend_metrics)
