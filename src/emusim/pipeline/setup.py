"""The workflow's setup at one scale: its configuration, validated, and the scenarios it runs
(what workflow/rules/common.smk loads first), and the questions every stage asks of them."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from snakemake.exceptions import WorkflowError

from emusim.backends.ns3 import command as ns3mod
from emusim.backends.reference import runs as hw_runs
from emusim.backends.testbed import inventory as testbed_inventory
from emusim.core.paths import scale_prefix
from emusim.inputs import scenario as sc
from emusim.inputs import tcp_profiles
from emusim.inputs import variants as tcp_variants

# `--config archive=off` (or null in a config file) makes every run instead of restoring kept
# ones (docs/archive.md).
ARCHIVE_OFF = ("none", "null", "off", "false", "")


@dataclass
class Setup:
    """The configuration at one scale, the scenarios, and what the studies registered."""

    config: dict
    scale: str
    prefix: str
    """Paper scale writes to results/, figures/, paper/tables/; other scales under
    scales/<scale>/."""
    backends: list
    hardware_source: str
    """The hardware backend: the 2001 measurements (reference) or a testbed over SSH."""
    testbed_inventory: str | None
    archive: str | None
    scenarios: dict
    reference_scenarios: dict
    """The scenarios and the one whose ping sweep gives the fitted delay (delay_scenario),
    whose reference table is built even when the study leaves it out."""
    delay_scenario: str
    study_rules: dict = field(default_factory=dict)
    """study name -> emusim.pipeline.studies.StudyRules (register_study)"""
    figure_specs: dict = field(default_factory=dict)
    """figure stem -> {"study", "kind", "inputs", "params", "caption"} (add_figure)"""

    @property
    def results(self) -> str:
        return f"{self.prefix}results"

    @property
    def figures(self) -> str:
        return f"{self.prefix}figures"

    @property
    def tables(self) -> str:
        return f"{self.prefix}paper/tables"

    def section(self, name: str) -> dict:
        """Configuration section `name` ({} when it is not given)."""
        return self.config.get(name, {})


def check_place(config: dict, euid: int) -> None:
    """The emulation on this host (mininet.place: host) needs root."""
    if (
        "mininet" in config["backends"]
        and euid != 0
        and config.get("mininet", {}).get("place", "auto") == "host"
    ):
        raise WorkflowError(
            "config mininet.place: host needs root (network namespaces, tc, netfilter); run "
            "as root, or run the emulation in a VM (place: vm or auto; QEMU needs no root), or "
            "leave it out: --config 'backends=[hardware,ns3]'"
        )


def check_testbed(source: str, inventory: str | None) -> None:
    """A testbed (hardware.source: testbed) needs a readable inventory."""
    if source != "testbed":
        return
    if not inventory:
        raise WorkflowError(
            "config hardware.source: 'testbed' needs hardware.inventory, the testbed's "
            "inventory file (config/testbed.example.yaml; docs/testbed.md)"
        )
    try:
        testbed_inventory.load(inventory)
    except testbed_inventory.InventoryError as err:
        raise WorkflowError(f"config hardware.inventory: {err}") from None


def archive_dir(config: dict) -> str | None:
    """The run archive's directory (config `archive`), or None when it is off."""
    archive = config.get("archive")
    return None if str(archive).lower() in ARCHIVE_OFF else archive


def scenario_names(config: dict, scale: str) -> list[str]:
    """config `scenarios`, or every scenario but those config leave_out names at this scale."""
    left_out = config.get("leave_out", {}).get(scale, [])
    return config.get("scenarios") or [n for n in sc.scenario_names() if n not in left_out]


def load_scenarios(names: list[str], scale: str, backends: list) -> dict:
    """The scenarios at this scale, each checked (and its topology, when ns-3 runs)."""
    known = set(tcp_profiles.registry())
    loaded = {}
    for name in names:
        try:
            loaded[name] = sc.load(name, scale, known)
            if "ns3" in backends:
                ns3mod.check_topology(loaded[name])
        except (sc.ScenarioError, ValueError) as err:
            raise WorkflowError(str(err)) from None
    return loaded


def load(config: dict, euid: int | None = None) -> Setup:
    """The workflow's setup from its (schema-validated) configuration."""
    check_place(config, os.geteuid() if euid is None else euid)
    hardware = config.get("hardware", {})
    source = hardware.get("source", "reference")
    check_testbed(source, hardware.get("inventory"))
    scale = config["scale"]
    scenarios = load_scenarios(scenario_names(config, scale), scale, config["backends"])
    delay_scenario = hw_runs.delay_scenario()
    reference = dict(scenarios)
    reference.setdefault(
        delay_scenario, sc.load(delay_scenario, scale, set(tcp_profiles.registry()))
    )
    return Setup(
        config=config,
        scale=scale,
        prefix=scale_prefix(scale),
        backends=config["backends"],
        hardware_source=source,
        testbed_inventory=hardware.get("inventory"),
        archive=archive_dir(config),
        scenarios=scenarios,
        reference_scenarios=reference,
        delay_scenario=delay_scenario,
    )


def wildcard_constraints(setup: Setup) -> dict:
    """The wildcards' patterns, for the workflow's rules and every study's (the studies are
    Snakemake modules, which the workflow's own constraints do not reach)."""
    return {
        "scenario": "|".join(setup.reference_scenarios),
        "profile": r"[A-Za-z0-9_.+-]+",
        "point": r"[^/]+",
        "rep": r"\d+",
    }


def variant_skips(setup: Setup, name: str, backend: str) -> dict:
    """Points of scenario `name` whose TCP variant `backend` has no implementation of
    (config/tcp_variants.yaml): point id -> why. They are not run; the collect rule's log and
    the comparison table say so."""
    return tcp_variants.skipped_points(setup.scenarios[name].points, backend)


def design_of(setup: Setup, section: str, name: str) -> tuple[int, int]:
    """(repetitions, point stride) of a scenario in a thinned design (config SECTION.design
    at this scale; `Scenario.thinned_points`); the scenario's own design where none is set."""
    s = setup.scenarios[name]
    design = setup.section(section).get("design", {}).get(setup.scale, {})
    reps = min(design.get("repetitions", s.repetitions), s.repetitions)
    return reps, design.get("point_stride", {}).get(name, 1)


def trace_points(setup: Setup, name: str) -> list:
    """Points of a scenario whose ns-3 runs are traced (config `traces`: axis values)."""
    want = setup.section("traces").get("points", {}).get(name)
    if not want or name not in setup.scenarios:
        return []
    return list(setup.scenarios[name].points_where(want))


def delay_method(setup: Setup) -> str:
    """How the one-way delay is fitted to the ping sweep (config delay.method)."""
    return setup.section("delay").get("method", "two-point")
