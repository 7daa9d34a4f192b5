"""Command line of the testbed driver (docs/testbed.md).

    python -m emusim.backends.testbed preflight --inventory INV --out PREFLIGHT.json [--no-dropper]
    python -m emusim.backends.testbed tables --preflight PREFLIGHT.json --out-dir DIR
    python -m emusim.backends.testbed batch --inventory INV --scenario scenarios/NAME.yaml
        --scale {paper|quick} --results-dir RESULTS [--repetitions N] [--point-stride K]

Exit status 0; 2 on an error (the message names the host, key or file); 130 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from emusim.backends.testbed import execute, host_tables, inventory, preflight, ssh
from emusim.infra.runjson import write_atomically

TABLES = ("hosts", "interfaces", "routes", "tcp_sysctls")


def cmd_preflight(args) -> None:
    inv = inventory.load(args.inventory)
    with ssh.Connections(inv) as conns:
        pre = preflight.run(conns, inv, needs_dropper=not args.no_dropper)
    write_atomically(args.out, json.dumps(pre, indent=1, sort_keys=True, default=str) + "\n")
    for role, f in pre["hosts"].items():
        c = f["clock"]
        print(
            f"testbed: {role} {f['name']} ({f['hostname']}): kernel {f['kernel']}, "
            f"{f['cpus']} x {f['cpu']}, {f['memory_mb']} MB, clock {c['offset_ms']:+.3f} "
            f"± {c['uncertainty_ms']:.3f} ms",
            file=sys.stderr,
        )
    print(
        f"testbed: preflight passed, {len(pre['checks'])} checks; wrote {args.out}", file=sys.stderr
    )


def cmd_tables(args) -> None:
    pre = json.loads(Path(args.preflight).read_text())
    frames = host_tables.tables(pre, source=Path(args.preflight).name)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name in TABLES:
        write_atomically(args.out_dir / f"{name}.csv", frames[name].to_csv(index=False))


def cmd_batch(args) -> None:
    from emusim.inputs import scenario as sc

    inv = inventory.load(args.inventory)
    scenario = sc.load(args.scenario, args.scale)
    execute.run_batch(inv, scenario, args.results_dir, args.repetitions, args.point_stride)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m emusim.backends.testbed", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("preflight", help="check and record the testbed's hosts")
    p.add_argument("--inventory", required=True, type=Path)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--no-dropper", action="store_true", help="the study needs no dropper")
    t = sub.add_parser("tables", help="the report's Tables 1.1-1.4 from a preflight record")
    t.add_argument("--preflight", required=True, type=Path)
    t.add_argument("--out-dir", required=True, type=Path)
    b = sub.add_parser("batch", help="run (or resume) a scenario on the testbed")
    b.add_argument("--inventory", required=True, type=Path)
    b.add_argument("--scenario", required=True, type=Path)
    b.add_argument("--scale", default="paper")
    b.add_argument("--results-dir", required=True, type=Path)
    b.add_argument("--repetitions", type=int)
    b.add_argument("--point-stride", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        {"preflight": cmd_preflight, "tables": cmd_tables, "batch": cmd_batch}[args.cmd](args)
    except KeyboardInterrupt as err:
        print(f"testbed: interrupted ({err or 'Ctrl-C'})", file=sys.stderr)
        return 130
    except (
        ssh.HostLost,
        preflight.PreflightError,
        execute.BatchError,
        inventory.InventoryError,
        ssh.RemoteError,
        ssh.RemoteTimeout,
        ValueError,
    ) as err:
        print(f"testbed: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
