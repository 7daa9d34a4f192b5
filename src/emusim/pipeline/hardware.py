"""The hardware backend's facts: the 2001 measurements (reference) or a testbed over SSH
(hardware.source: testbed), and what the other stages ask of it."""

from __future__ import annotations

from pathlib import Path

from emusim.backends.reference import runs as hw
from emusim.backends.testbed import execute as testbed_execute
from emusim.linux import dropper as linux_dropper
from emusim.pipeline.setup import Setup

TESTBED_TABLES = ["hosts", "interfaces", "routes", "tcp_sysctls"]
"""The testbed's tables (the report's Tables 1.1-1.4), made from its preflight's facts."""


def testbed_dir(setup: Setup) -> str:
    """Where a testbed's preflight and tables go."""
    return f"{setup.results}/hardware/testbed"


def testbed_ran(setup: Setup) -> bool:
    """Whether the hardware's results come from a testbed (hardware.source: testbed)."""
    return setup.hardware_source == "testbed"


def reference_ran(setup: Setup) -> bool:
    """Whether the hardware's results are the 2001 measurements (hardware.source: reference)."""
    return setup.hardware_source == "reference"


def hardware_runs(setup: Setup, name: str) -> bool:
    """Whether the hardware backend has the scenario: a testbed every scenario of the report's
    three-host line (emusim.backends.testbed.execute.check_mappable), the 2001 measurements
    only the report's."""
    scenario = setup.reference_scenarios[name]
    if testbed_ran(setup):
        return testbed_execute.mappable(scenario)
    return hw.has_reference(scenario)


def testbed_needs_dropper(setup: Setup) -> bool:
    """Whether any configured scenario drops (the preflight then requires the module)."""
    return any(
        linux_dropper.dropper_active(p.dropper)
        for s in setup.reference_scenarios.values()
        for p in s.points
    )


def testbed_dropper_option(setup: Setup) -> str:
    """The preflight's option: no dropper module needed where nothing drops."""
    return "" if testbed_needs_dropper(setup) else "--no-dropper"


def testbed_table_paths(setup: Setup) -> list[str]:
    """The testbed's tables (rule testbed_tables)."""
    return [f"{testbed_dir(setup)}/{name}.csv" for name in TESTBED_TABLES]


def testbed_table(setup: Setup, name: str) -> str:
    """A table of the testbed the hardware's results came from: the testbed's preflight
    facts when one ran, else the 2001 report's (data/reference/)."""
    if testbed_ran(setup):
        return f"{testbed_dir(setup)}/{name}.csv"
    return f"data/reference/{name}.csv"


def results_dir_of_batch(output) -> str:
    """RESULTS, from a testbed batch's output: RESULTS/hardware/SCENARIO/PROFILE/batch.json."""
    return str(Path(output[0]).parents[3])
