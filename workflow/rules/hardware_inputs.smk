# The hardware backend's paths and input functions (reference.smk: the 2001 measurements;
# testbed.smk: a testbed over SSH, hardware.source: testbed), and what the other stages ask
# of it: which scenarios it has, where the testbed's tables come from.
from emusim.backends.reference import runs as hw
from emusim.linux import dropper as linux_dropper

HARDWARE_PROFILE = hw.PROFILE
TESTBED_DIR = f"{RESULTS}/hardware/testbed"
TESTBED_TABLES = ["hosts", "interfaces", "routes", "tcp_sysctls"]


def testbed_ran():
    """Whether the hardware's results come from a testbed (hardware.source: testbed)."""
    return HARDWARE_SOURCE == "testbed"


def hardware_runs(name):
    """Whether the hardware backend has the scenario: a testbed runs every scenario, the
    2001 measurements only the report's."""
    return HARDWARE_SOURCE == "testbed" or hw.has_reference(REFERENCE_SCENARIOS[name])


def testbed_needs_dropper():
    """Whether any configured scenario drops (the preflight then requires the module)."""
    return any(
        linux_dropper.dropper_active(p.dropper)
        for s in REFERENCE_SCENARIOS.values()
        for p in s.points
    )


def testbed_table(name):
    """A table of the testbed the hardware's results came from: the testbed's preflight
    facts when one ran, else the 2001 report's (data/reference/)."""
    if testbed_ran():
        return f"{TESTBED_DIR}/{name}.csv"
    return f"data/reference/{name}.csv"
