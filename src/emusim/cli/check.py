"""`emusim validate FILE...` and `emusim points SCENARIO`: a scenario's checks and points."""

from __future__ import annotations

import argparse
import textwrap

from emusim.cli.common import (
    EXIT_FAILURE,
    UsageError,
    _known_profiles,
    _load,
    _one_line,
    _scale,
    _scenario_path,
    _shown,
    _table,
)
from emusim.core import paths


def cmd_validate(args: argparse.Namespace, extra: list[str]) -> int:
    from emusim.backends.ns3 import command as ns3
    from emusim.inputs import scenario as sc

    files = args.files or [_shown(p) for p in sorted(paths.SCENARIO_DIR.glob("*.yaml"))]
    known, bad = _known_profiles(), 0
    for arg in files:
        try:
            path = _scenario_path(arg)
        except UsageError as err:
            print(f"{arg}: invalid: {str(err).removeprefix(f'{arg}: ')}")
            bad += 1
            continue
        try:
            loaded = [sc.load(path, scale, known) for scale in sc.SCALES]
            # what the workflow checks too when ns-3 runs: a topology its programs build
            ns3.check_topology(loaded[0])
        except (sc.ScenarioError, ValueError) as err:
            print(f"{arg}: invalid: {str(err).removeprefix(f'{path}: ')}")
            bad += 1
            continue
        counts = ", ".join(f"{s.scale} {len(s.points)}" for s in loaded)
        print(f"{arg}: ok (points at scale {counts})")
    if bad:
        print(f"{bad} of {len(files)} invalid")
    return EXIT_FAILURE if bad else 0


def cmd_points(args: argparse.Namespace, extra: list[str]) -> int:
    scale = _scale(args)
    s = _load(args.scenario, scale)
    if args.ids:
        for p in s.points:
            print(p.id)
        return 0
    print(f"{s.name} ({_shown(s.path)}) at scale {scale}:")
    print(textwrap.indent(textwrap.fill(_one_line(s.settings["description"]), 96), "  "))
    print(
        f"{len(s.points)} point{'s' if len(s.points) != 1 else ''}; "
        f"profiles {', '.join(s.profiles)}; {s.repetitions} "
        "repetitions of a point that draws random numbers (ns-3 runs one without them once, "
        "unless its profile draws some)"
    )
    more = {p.id: s.repetitions_of(p) for p in s.points if s.repetitions_of(p) > s.repetitions}
    if more:
        print("more runs (more_runs): " + ", ".join(f"{k} {n}" for k, n in more.items()))
    print()
    rows = [
        [i, p.id, *(p.values[a] for a in s.axes), "yes" if p.is_random else "no"]
        for i, p in enumerate(s.points, 1)
    ]
    _table(["#", "point", *s.axes, "random"], rows, wrap_last=False)
    return 0
