"""`emusim list scenarios|profiles|variants|backends|studies`: a table of one kind of thing."""

from __future__ import annotations

import argparse
import os

from emusim.cli.common import (
    EXIT_FAILURE,
    RUN_BACKENDS,
    Failure,
    _config,
    _first_sentence,
    _known_profiles,
    _one_line,
    _scale,
    _shown,
    _table,
)
from emusim.core import paths
from emusim.linux.tcp import MININET_PROFILES


def cmd_list(args: argparse.Namespace, extra: list[str]) -> int:
    return {
        "scenarios": _list_scenarios,
        "profiles": _list_profiles,
        "variants": _list_variants,
        "backends": _list_backends,
        "studies": _list_studies,
    }[args.what](args)


def _list_scenarios(args: argparse.Namespace) -> int:
    from emusim.inputs import scenario as sc

    scale = _scale(args)
    config = _config()
    left_out = set((config.get("leave_out") or {}).get(scale) or [])
    known, rows, status = _known_profiles(), [], 0
    for name in sc.scenario_names():
        try:
            s = sc.load(name, scale, known)
        except sc.ScenarioError as err:
            rows.append([name, "INVALID", "-", "-", "-", "-", str(err)])
            status = EXIT_FAILURE
            continue
        note = " (left out of `all` at this scale: config leave_out)" if name in left_out else ""
        rows.append(
            [
                name,
                s.workload_kind,
                len(s.points),
                s.repetitions,
                s.axes or "-",
                s.profiles,
                _first_sentence(s.settings["description"]) + note,
            ]
        )
    print(f"scale {scale}: points and repetitions of each scenario (emusim points NAME)")
    _table(["scenario", "workload", "points", "reps", "axes", "profiles", "description"], rows)
    return status


def _list_studies(args: argparse.Namespace) -> int:
    from emusim import studies
    from emusim.inputs import scenario as sc

    scale = _scale(args)
    known = _known_profiles()
    claimed: dict[str, list[str]] = {name: [] for name in studies.registry()}
    unclaimed = []
    for name in sc.scenario_names():
        try:
            owners = studies.claimed_by(sc.load(name, scale, known))
        except sc.ScenarioError:
            continue  # `emusim list scenarios` names the invalid ones
        for owner in owners:
            claimed[owner].append(name)
        if not owners:
            unclaimed.append(name)
    rows = [
        [
            s.name,
            _shown(paths.REPO_ROOT / "workflow" / "rules" / "studies" / f"{s.name}.smk"),
            f"paper/{s.section}.tex",
            claimed[s.name] or "-",
            s.title,
        ]
        for s in studies.registry().values()
    ]
    print("studies (src/emusim/studies/; docs/adding-a-study.md), in the paper's order")
    _table(["study", "rules", "section", "scenarios", "what it is"], rows)
    if unclaimed:
        print(
            f"scenarios no study presents (a generic figure and an appendix entry each): "
            f"{', '.join(unclaimed)}"
        )
    return 0


def _list_profiles(args: argparse.Namespace) -> int:
    from emusim.inputs import tcp_profiles

    _known_profiles()  # the registry's error, if it has one
    rows = [
        [
            name,
            len(p.parameters),
            "ns3, mininet, hardware" if name in MININET_PROFILES else "ns3",
            _first_sentence(p.description),
        ]
        for name, p in tcp_profiles.registry().items()
    ]
    print(f"TCP profiles ({tcp_profiles.PROFILES_PATH.relative_to(paths.REPO_ROOT)})")
    _table(["profile", "parameters", "backends", "what it is"], rows)
    steps = tcp_profiles.ablation()
    if steps:
        print(
            f"\nthe calibration ablation: {len(steps)} steps from {steps[0].profile.name} to "
            f"{steps[-1].profile.name} (profiles {tcp_profiles.ABLATION_PREFIX}NN between them)"
        )
    return 0


def _list_variants(args: argparse.Namespace) -> int:
    from emusim.inputs import variants

    try:
        reg = variants.registry()
    except variants.VariantError as err:
        raise Failure(str(err)) from None
    rows = []
    for name, v in reg.items():
        linux = None
        if v.linux is not None:
            linux = v.linux.congestion_control + (f" ({v.linux.module})" if v.linux.module else "")
        elif v.models is not None:
            linux = f"{v.models}'s runs"
        ns3 = None
        if v.ns3 is not None:
            ns3 = variants.LINUX_IN_NS3 if v.ns3.linux_code else v.ns3.type_id
        rows.append([name, ns3, linux, _one_line(v.description)])
    print(
        f"TCP variants ({variants.VARIANTS_PATH.relative_to(paths.REPO_ROOT)}); "
        "'-': that side has none and skips the variant's points; ns-3 'linux': Linux's own "
        "module compiled into ns-3 (docs/linux-cc.md); linux 'NAME's runs': ns-3's own model "
        "of NAME, compared with the emulation's runs of NAME"
    )
    _table(["variant", "ns-3 class", "linux (module)", "description"], rows)
    return 0


def _list_backends(args: argparse.Namespace) -> int:
    """A row per backend of the registry (emusim.core.backend_registry): one per source of a backend
    that has several, then the runs derived from it."""
    from emusim.core.backend_registry import BACKENDS

    config = _config()
    configured = config.get("backends") or []
    hardware = config.get("hardware") or {}
    source = hardware.get("source", "reference")
    inventory = hardware.get("inventory") or "config/testbed.yaml"
    built = (paths.BUILD_DIR / "ns3" / "testbed-2001").exists()
    root = os.geteuid() == 0
    status = {  # this checkout and this host, by the row's name
        "hardware": "hardware.source: reference" if source == "reference" else "not the source",
        "testbed": f"inventory {inventory}: "
        + ("found" if (paths.REPO_ROOT / inventory).exists() else "missing"),
        "ns3": "programs built" if built else "programs not built yet (the workflow builds them)",
        "mininet": "you are root (on the host it needs root)"
        if root
        else "not root: in a VM only (mininet.place auto or vm)",
    }
    rows = []
    for b in BACKENDS.values():
        on = b.name in configured
        for s in b.sources:
            picked = on and source == s.name
            rows.append([s.listed_as, picked, s.description, s.results, status.get(s.listed_as)])
        if not b.sources:
            rows.append([b.name, on, b.description, b.results, status.get(b.name)])
        for d in b.derived:
            needs = " and ".join(d.needs)
            ran = all(n in configured for n in d.needs)
            rows.append([d.name, ran, d.description, d.results, f"derived: needs {needs}"])
    print(f"backends (config/config.yaml: backends {configured}, hardware.source {source})")
    _table(["backend", "configured", "what", "results (paper scale)", "status"], rows)
    print("\nemusim run --backend " + "|".join(RUN_BACKENDS) + " runs one of them on a scenario")
    return 0
