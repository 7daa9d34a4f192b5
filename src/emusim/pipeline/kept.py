"""Whether the workflow would still run a kept ns-3 run's command:
`python -m emusim.pipeline.kept --archive DIR FILE...` prints one JSON row per file.

The workflow restores a kept run only when its recorded command is the one it would run now
and this checkout's code made it (`emusim.infra.archive.matches`). The archive checks the
second itself; the first needs the workflow's facts (a point's command follows from its
scenario, profile and the variant registry: `emusim.pipeline.ns3.run`), a layer above the
archive, so `archive renew` and `status` ask this module in a subprocess, as renew asks the
backend to build.
A kept run whose point now runs another command (a variant moved to Linux's module, a profile
with a new attribute) would be re-made by its old command for nothing: it is never restored,
and the workflow makes its point anew.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

from emusim.core import yaml_text
from emusim.core.paths import CONFIG_DIR
from emusim.pipeline import ns3
from emusim.pipeline.setup import load

SAME, OTHER, UNKNOWN = "same", "other", "unknown"


def _setup(scale: str, cache: dict):
    """The workflow's setup at `scale` from config/config.yaml, as `snakemake --config
    scale=SCALE` loads it (once per scale)."""
    if scale not in cache:
        config = yaml_text.safe_load((CONFIG_DIR / "config.yaml").read_text())
        cache[scale] = load({**config, "scale": scale})
    return cache[scale]


def command_now(kept: Path, archive_dir: Path, cache: dict | None = None) -> dict:
    """{"file", "verdict": SAME | OTHER | UNKNOWN, "why"}: whether the workflow runs kept
    run `kept`'s recorded command for its point now (its path in `archive_dir` names scale,
    scenario, profile, point and repetition: SCALE/ns3/SCENARIO/PROFILE/POINT/runK.json)."""
    cache = {} if cache is None else cache
    row = {"file": str(kept)}
    parts = kept.relative_to(archive_dir).parts
    if len(parts) != 6 or parts[1] != "ns3" or not parts[5].startswith("run"):
        return {**row, "verdict": UNKNOWN, "why": "not an ns-3 run's place in the archive"}
    scale, _, scenario, profile, point, run = parts
    try:
        setup = _setup(scale, cache)
    except (OSError, ValueError, KeyError, WorkflowError) as err:
        return {**row, "verdict": UNKNOWN, "why": f"the workflow's setup: {err}"}
    if scenario not in setup.scenarios:
        return {**row, "verdict": UNKNOWN, "why": f"scenario {scenario} is not in the study"}
    if not all(os.path.exists(p) for p in ns3.delay_input(setup, scenario)):
        return {**row, "verdict": UNKNOWN, "why": "its command needs the measured delay"}
    try:
        now = ns3.run(setup, scenario, profile, point, int(run[3:-5]))["cmd"]
    except (KeyError, ValueError) as err:
        return {**row, "verdict": UNKNOWN, "why": f"no such point now: {err}"}
    then = json.loads(kept.read_text())["provenance"].get("command")
    if then == now:
        return {**row, "verdict": SAME, "why": ""}
    gone = [a for a in then or [] if a not in now]
    new = [a for a in now if a not in (then or [])]
    why = "; ".join(
        f"{said} {' '.join(args)}" for said, args in (("kept", gone), ("now", new)) if args
    )
    return {**row, "verdict": OTHER, "why": why or "the same arguments in another order"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m emusim.pipeline.kept", description=__doc__)
    parser.add_argument("--archive", type=Path, required=True, help="the run archive")
    parser.add_argument("files", nargs="+", type=Path, help="kept ns-3 run JSONs in it")
    args = parser.parse_args(argv)
    cache: dict = {}
    rows = [command_now(f.resolve(), args.archive.resolve(), cache) for f in args.files]
    json.dump(rows, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
