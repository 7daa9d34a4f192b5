"""`emusim run SCENARIO` and `emusim paper`: Snakemake on the workflow's own targets."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from emusim.cli.common import (
    UsageError,
    _config,
    _load,
    _prefix,
    _run_snakemake,
    _scale,
    _shown,
    _workflow_name,
)
from emusim.core import paths
from emusim.linux.tcp import MININET_PROFILES


def _ns3_runs(s, points, profile_names: list[str], results: str) -> list[str]:
    """The run JSONs of `points`: the workflow's own list (emusim.backends.ns3.command.run_paths),
    for these points and profiles; a point whose TCP variant ns-3 lacks is said and left out."""
    from emusim.backends.ns3 import command as ns3
    from emusim.inputs import variants

    skips = variants.skipped_points(points, "ns3")
    for point_id, why in skips.items():
        print(f"emusim: point {point_id}: {why}", file=sys.stderr)
    if len(skips) == len(points):
        raise UsageError("ns-3 runs none of the points asked for (see above)")
    repeat = bool((_config().get("ns3") or {}).get("repeat_deterministic", False))
    return ns3.run_paths(results, s, repeat, profiles=profile_names, points=points)


def _testbed_config(args: argparse.Namespace) -> list[str]:
    """--config items that point the hardware backend at a testbed."""
    if args.inventory:
        inventory = Path(args.inventory).resolve()  # snakemake runs in the repository root
        if not inventory.is_file():
            raise UsageError(f"--inventory {args.inventory}: no such file")
        return [f"hardware={{source: testbed, inventory: {inventory}}}"]
    hardware = _config().get("hardware") or {}
    if hardware.get("source") == "testbed":
        return []
    default = paths.CONFIG_DIR / "testbed.yaml"
    if default.is_file():
        return [f"hardware={{source: testbed, inventory: {default.relative_to(paths.REPO_ROOT)}}}"]
    raise UsageError(
        "--backend testbed needs the testbed's inventory: --inventory FILE, or "
        "config/testbed.yaml (a copy of config/testbed.example.yaml; docs/testbed.md)"
    )


def run_targets(args: argparse.Namespace, name: str, scale: str) -> tuple[list[str], list[str]]:
    """Snakemake's targets and --config items for `emusim run` (no side effects)."""
    results = f"{_prefix(scale)}results"
    backend = args.backend
    # This backend only, this scenario only: the workflow then loads and checks only what
    # they need (no root without the emulation), and a scenario that config `leave_out` keeps
    # out of `all` at this scale runs when it is named.
    config = [
        f"scale={scale}",
        f"backends=[{'hardware' if backend == 'testbed' else backend}]",
        f"scenarios=[{name}]",
    ]
    s = _load(name, scale)
    if args.profile:
        unknown = [p for p in args.profile if p not in s.profiles]
        if unknown:
            raise UsageError(
                f"scenario {name} has no profile {', '.join(map(repr, unknown))}; its profiles: "
                + ", ".join(s.profiles)
            )
    if backend == "ns3":
        if not args.point and not args.profile:
            return [f"{results}/ns3/{name}.csv"], config
        ids = {p.id for p in s.points}
        unknown = [p for p in args.point or [] if p not in ids]
        if unknown:
            raise UsageError(
                f"scenario {name} has no point {', '.join(map(repr, unknown))} at scale "
                f"{scale}; its points: `emusim points {name} --scale {scale}`"
            )
        points = [p for p in s.points if not args.point or p.id in args.point]
        return _ns3_runs(s, points, args.profile or s.profiles, results), config
    if args.point:
        raise UsageError(
            f"--point is for --backend ns3: {backend} runs a scenario's points together, in one "
            "batch (it resumes: a rerun does only the missing runs)"
        )
    if backend == "mininet":
        if not args.profile:
            return [f"{results}/mininet/{name}.csv"], config
        no_linux = [p for p in args.profile if p not in MININET_PROFILES]
        if no_linux:
            raise UsageError(
                f"profile {', '.join(no_linux)} has no Linux meaning; Mininet runs "
                + ", ".join(MININET_PROFILES)
            )
        return [f"{results}/mininet/{name}/{p}/batch.json" for p in args.profile], config
    if args.profile:
        raise UsageError("--profile is for ns3 and mininet: a testbed runs its own kernels")
    return [f"{results}/hardware/{name}.csv"], config + _testbed_config(args)


def cmd_run(args: argparse.Namespace, extra: list[str]) -> int:
    scale = _scale(args)
    name = _workflow_name(args.scenario)
    targets, config = run_targets(args, name, scale)
    code = _run_snakemake(targets, config, args, extra)
    if code == 0 and not args.dry_run:
        made = [_shown(paths.REPO_ROOT / t) for t in targets]
        shown = made if len(made) <= 5 else [*made[:4], f"… ({len(made)} files)"]
        print("done: " + "\n      ".join(shown))
        if made[0].endswith(".json") and not made[0].endswith("batch.json"):
            print(f"      emusim show {shlex.quote(made[0])}")
    return code


def cmd_paper(args: argparse.Namespace, extra: list[str]) -> int:
    scale = _scale(args)
    code = _run_snakemake(["paper"], [f"scale={scale}"], args, extra)
    if code == 0 and not args.dry_run:
        print(f"done: {_shown(paths.REPO_ROOT / _prefix(scale) / 'paper/build/paper.pdf')}")
    return code
