#!/usr/bin/env bash
# ns-3 speed: wall seconds per 100 000-write transfer, and the wall time of the whole
# paper-scale ns-3 part of the study (every ns-3 run of every scenario, from an empty results
# directory, through Snakemake on all cores). Run on an otherwise idle machine:
#
#   benchmarks/ns3_speed.sh [--transfers-only]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
py=.venv/bin/python
$py -m emusim.ns3build >/dev/null

echo "== one 100 000-write transfer (linux-2.2 profile), wall seconds"
$py - <<'PY'
import statistics, subprocess, time
from emusim import ns3, profiles, scenario
s = scenario.load("random-drop", "paper")
for point_id in ("drop_rate=0", "drop_rate=0.040", "drop_rate=0.100"):
    walls = []
    for rep in (1, 2, 3):
        cmd = ns3.command("build/ns3/testbed-2001", s, s.point(point_id),
                          profiles.get("linux-2.2"), rep, 71.8878)
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        walls.append(time.perf_counter() - t)
    print(f"{point_id:16s} mean {statistics.mean(walls):.2f} s  (runs: "
          + ", ".join(f"{w:.2f}" for w in walls) + ")")
PY
[ "${1:-}" = "--transfers-only" ] && exit 0

echo "== the whole paper-scale ns-3 run, from empty results, snakemake --cores $(nproc)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for d in Snakefile profiles config scenarios workflow data spec sim src; do cp -a "$d" "$work/"; done
mkdir -p "$work/build" && cp -a build/ns3 "$work/build/"
cd "$work"
SECONDS=0
EMUSIM_ROOT=$work "$top/.venv/bin/snakemake" --cores "$(nproc)" --quiet all >/dev/null 2>&1
wall=$SECONDS
n=$(find results/ns3 -name 'run*.json' | wc -l)
echo "ns-3 runs: $n   whole paper-scale study wall: $wall s   ($(uname -r), $(nproc) cores)"
