"""The statistics' and the comparisons' facts: each scenario's run tables, what is compared
with the hardware, and what ns-3 with Mininet."""

from __future__ import annotations

from emusim import workloads
from emusim.backends.reference import runs as hw
from emusim.pipeline import mininet
from emusim.pipeline.hardware import hardware_runs
from emusim.pipeline.setup import Setup, variant_skips


def backend_tables_of(setup: Setup, name: str) -> list[str]:
    """The tidy per-run tables of every configured backend that can run the scenario, and its
    study's own backends' (the router-forwarding study's ns3-model)."""
    tables = []
    if "hardware" in setup.backends and hardware_runs(setup, name):
        tables.append(f"{setup.results}/hardware/{name}.csv")
    if "ns3" in setup.backends:
        tables.append(f"{setup.results}/ns3/{name}.csv")
    if "mininet" in setup.backends and mininet.profiles(setup, name):
        tables.append(f"{setup.results}/mininet/{name}.csv")
    return tables + [t for hooks in setup.study_rules.values() for t in hooks.run_tables(name)]


def compare_metrics(setup: Setup, name: str):
    """What the comparison measures (the workload's: emusim.workloads); the transfers' sizes
    match the hardware's at paper scale."""
    return workloads.of(setup.scenarios[name].settings).hardware_metrics(setup.scale == "paper")


def compared_scenarios(setup: Setup) -> list[str]:
    """Scenarios compared with the hardware."""
    return [n for n in setup.scenarios if hardware_runs(setup, n) and "hardware" in setup.backends]


def backend_compared_scenarios(setup: Setup) -> list[str]:
    """Scenarios without a hardware reference: ns-3 is compared with Mininet instead, every
    cell of the design a row (results/compare/NAME-ns3-vs-mininet.csv; a cell Mininet did not
    run says why). A workload only ns-3 runs (multiflow) has nothing to compare with."""
    if not {"ns3", "mininet"} & set(setup.backends):
        return []
    return [
        n
        for n, s in setup.scenarios.items()
        if not hw.has_reference(s) and workloads.of(s.settings).emulated
    ]


def backend_compare_metrics(setup: Setup, name: str) -> list:
    """What ns-3 and Mininet are compared on (the workload's: goodput and completion time of a
    transfer; a UDP flood's Mbit/s, packets/s and loss)."""
    return list(workloads.of(setup.scenarios[name].settings).backend_metrics)


def skipped_cells(setup: Setup, name: str) -> dict:
    """Cells a backend skips: a TCP variant it has no implementation of, or the emulation's
    design."""
    return {
        "ns3": variant_skips(setup, name, "ns3"),
        "mininet": mininet.skipped_points(setup, name),
    }
