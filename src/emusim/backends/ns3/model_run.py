"""One ns-3 run of the router-forwarding study with the processing model (backend ns3-model).

    python -m emusim.backends.ns3.model_run --scenario NAME --scale SCALE --profile PROFILE
        --point POINT --rep K --program build/ns3/router-forwarding --fit MODEL-FIT.json
        [--delay-json ONE_WAY_DELAY.json] --out RUN.json

The command is ns-3's without the model (`command.command`) plus the fitted model's arguments
(the workload's `ns3_model_args`: emusim.workloads.udp_flood), built when the run runs: the
fit is read then, not when Snakemake plans the run, so a fit redone in the same invocation is
the one used. The run is written by emusim.infra.runjson, as every ns-3 run is.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from emusim import workloads
from emusim.backends.ns3 import command as ns3
from emusim.backends.ns3 import run_identity
from emusim.core.backend_registry import NS3_MODEL
from emusim.infra import runjson
from emusim.inputs import fitted_delay
from emusim.inputs import scenario as sc
from emusim.inputs import tcp_profiles as profiles


def command_and_meta(args: argparse.Namespace) -> tuple[list[str], dict]:
    """The run's ns-3 command and its identity for the run JSON."""
    s = sc.load(args.scenario, args.scale)
    point = s.point(args.point)
    profile = profiles.get(args.profile)
    measured = fitted_delay.read_us(args.delay_json) if args.delay_json else None
    delay_us = s.one_way_delay_us(measured, "give --delay-json")
    fit = json.loads(Path(args.fit).read_text())
    cmd = ns3.command(args.program, s, point, profile, args.rep, delay_us)
    cmd += workloads.of(point.settings).ns3_model_args(fit, point.settings)
    ns3.check_arguments(ns3.program_name(s), cmd[1:])
    meta = run_identity.run_meta(
        NS3_MODEL.name, s, point, profile, args.rep, args.scale, delay_us, cmd,
        processing_model={"fit": str(args.fit), "fitted_to": fit["backend"]},
    )  # fmt: skip
    return cmd, meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--scale", required=True)
    parser.add_argument("--profile", required=True)
    parser.add_argument("--point", required=True)
    parser.add_argument("--rep", required=True, type=int)
    parser.add_argument("--program", required=True)
    parser.add_argument("--fit", required=True, type=Path)
    parser.add_argument("--delay-json", type=Path)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    try:
        cmd, meta = command_and_meta(args)
    # a bad fit is a ValueError (emusim.workloads.udp_flood.ForwardingError)
    except (sc.ScenarioError, KeyError, ValueError) as err:
        print(f"model_run: {err}", file=sys.stderr)
        return 2
    return runjson.main(["--meta", json.dumps(meta, sort_keys=True), "--out", args.out, "--", *cmd])


if __name__ == "__main__":
    sys.exit(main())
