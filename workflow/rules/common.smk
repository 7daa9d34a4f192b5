# Configuration and scenarios: validated when the workflow loads, before any job runs; and
# the helpers every stage shares (what a backend skips, a thinned design, the traced points).
# Each stage's input and params functions are in their own file (hardware_inputs.smk,
# ns3_inputs.smk, mininet_inputs.smk, analysis_inputs.smk), the study plug-in API and the
# target list in study_api.smk; the Snakefile includes this one first.
import os
from glob import glob
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

# Every file of the workflow shares this one namespace: the rules files use glob and Path in
# their inputs, and the registries, run_path and linux_tcp, from these imports.
from emusim.inputs import tcp_profiles
from emusim.inputs import scenario as sc
from emusim import studies
from emusim.inputs import variants as tcp_variants
from emusim.backends.ns3 import command as ns3mod
from emusim.backends.reference import runs as hw_runs
from emusim.backends.testbed import inventory as testbed_inventory
from emusim.linux import tcp as linux_tcp
from emusim.core.paths import scale_prefix
from emusim.infra.runjson import run_path

validate(config, "../schemas/config.schema.yaml")

SCALE = config["scale"]
# Paper scale writes to results/, figures/, paper/tables/; other scales under scales/<scale>/.
PREFIX = scale_prefix(SCALE)
RESULTS = f"{PREFIX}results"
FIGURES = f"{PREFIX}figures"
TABLES = f"{PREFIX}paper/tables"
BACKENDS = config["backends"]
if (
    "mininet" in BACKENDS
    and os.geteuid() != 0
    and config.get("mininet", {}).get("place", "auto") == "host"
):
    raise WorkflowError(
        "config mininet.place: host needs root (network namespaces, tc, netfilter); run as "
        "root, or run the emulation in a VM (place: vm or auto; QEMU needs no root), or leave "
        "it out: --config 'backends=[hardware,ns3]'"
    )
# The hardware backend: the 2001 measurements (reference) or a testbed over SSH (testbed).
HARDWARE_SOURCE = config.get("hardware", {}).get("source", "reference")
TESTBED_INVENTORY = config.get("hardware", {}).get("inventory")
if HARDWARE_SOURCE == "testbed":
    if not TESTBED_INVENTORY:
        raise WorkflowError(
            "config hardware.source: 'testbed' needs hardware.inventory, the testbed's "
            "inventory file (config/testbed.example.yaml; docs/testbed.md)"
        )
    try:
        testbed_inventory.load(TESTBED_INVENTORY)
    except testbed_inventory.InventoryError as err:
        raise WorkflowError(f"config hardware.inventory: {err}") from None
# The run archive (docs/archive.md); `--config archive=off` (or null in a config file) makes
# every run instead of restoring kept ones.
ARCHIVE = config.get("archive")
if str(ARCHIVE).lower() in ("none", "null", "off", "false", ""):
    ARCHIVE = None


def _load_scenarios():
    # all scenarios but those config leave_out names at this scale, unless listed explicitly
    names = config.get("scenarios") or [
        n
        for n in sc.scenario_names()
        if n not in config.get("leave_out", {}).get(SCALE, [])
    ]
    known = set(tcp_profiles.registry())
    loaded = {}
    for name in names:
        try:
            loaded[name] = sc.load(name, SCALE, known)
            if "ns3" in BACKENDS:
                ns3mod.check_topology(loaded[name])
        except (sc.ScenarioError, ValueError) as err:
            raise WorkflowError(str(err)) from None
    return loaded


SCENARIOS = _load_scenarios()
# The hardware's ping sweep gives the fitted delay that every `delay: measured` scenario uses,
# so its reference table is built even when the study leaves the scenario out: the scenario
# that names the report's ping table (emusim.backends.reference.runs.DELAY_TABLE).
DELAY_SCENARIO = hw_runs.delay_scenario()
REFERENCE_SCENARIOS = dict(SCENARIOS)
REFERENCE_SCENARIOS.setdefault(
    DELAY_SCENARIO, sc.load(DELAY_SCENARIO, SCALE, set(tcp_profiles.registry()))
)


# The wildcards' patterns, for this file's rules and for every study's (the studies are
# Snakemake modules, which the workflow's own constraints do not reach: study_api.smk).
WILDCARD_CONSTRAINTS = {
    "scenario": "|".join(REFERENCE_SCENARIOS),
    "profile": r"[A-Za-z0-9_.+-]+",
    "point": r"[^/]+",
    "rep": r"\d+",
}


wildcard_constraints:
    **WILDCARD_CONSTRAINTS,


def variant_skips(name, backend):
    """Points of scenario `name` whose TCP variant `backend` has no implementation of
    (config/tcp_variants.yaml): point id → why. They are not run; the collect rule's log and
    the comparison table say so."""
    return tcp_variants.skipped_points(SCENARIOS[name].points, backend)


def design_of(section, name):
    """(repetitions, point stride) of a scenario in a thinned design (config SECTION.design
    at this scale; `Scenario.thinned_points`); the scenario's own design where none is set.
    """
    s = SCENARIOS[name]
    design = config.get(section, {}).get("design", {}).get(SCALE, {})
    reps = min(design.get("repetitions", s.repetitions), s.repetitions)
    return reps, design.get("point_stride", {}).get(name, 1)


def trace_points(name):
    """Points of a scenario whose ns-3 runs are traced (config `traces`: axis values)."""
    want = config.get("traces", {}).get("points", {}).get(name)
    if not want or name not in SCENARIOS:
        return []
    return list(SCENARIOS[name].points_where(want))
