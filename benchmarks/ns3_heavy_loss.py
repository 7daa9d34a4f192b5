"""ns-3's sender under heavy loss: the multi-flow scenario II with BBR at paper scale (800 Mb/s,
20 flows on ns-3's TcpSocketBase overflowing a 4000-packet buffer), cut to its first simulated
seconds. Prints the CPU seconds per simulated second of each build given, and whether their
outputs are byte-identical (the walk hints of docs/ns3-hot-paths.md change only where walks
start). Run on an otherwise idle machine:

    .venv/bin/python benchmarks/ns3_heavy_loss.py [--seconds 10] [BUILD_DIR ...]

BUILD_DIR defaults to build/ns3; give another build of sim/ns3 (e.g. a worktree's at an earlier
commit) to compare. The runs' first 60 s hold 5 flows; later phases hold up to 20.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

from emusim.backends.ns3 import command as ns3
from emusim.backends.ns3.build import NS3_BUILD_DIR
from emusim.inputs import scenario, tcp_profiles


def children_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def command(build_dir: Path, seconds: float) -> list[str]:
    s = scenario.load("multiflow-dynamic-ii", "paper")
    cmd = ns3.command(
        str(build_dir / "multiflow"),
        s,
        s.point("variant=bbr"),
        tcp_profiles.get("linux-6.1-wan"),
        1,
        0.0,
    )
    return [arg for arg in cmd if not arg.startswith("--durationS=")] + [f"--durationS={seconds}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="*", type=Path, help="ns-3 build directories")
    parser.add_argument("--seconds", type=float, default=10.0, help="simulated seconds")
    args = parser.parse_args()
    builds = args.builds or [NS3_BUILD_DIR]
    print(f"{'build':40s} {'CPU s':>8s} {'CPU s per simulated s':>22s}  identical to the first")
    first = None
    for build in builds:
        t = children_cpu_s()
        proc = subprocess.run(command(build, args.seconds), capture_output=True, check=False)
        cpu = children_cpu_s() - t
        if proc.returncode != 0:
            print(f"{build!s:40s} failed: {proc.stderr.decode(errors='replace')[-500:]}")
            return 1
        out = json.loads(proc.stdout)
        out.pop("provenance", None)
        first = out if first is None else first
        print(f"{build!s:40s} {cpu:8.1f} {cpu / args.seconds:22.2f}  {out == first}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
