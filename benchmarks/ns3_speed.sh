#!/usr/bin/env bash
# ns-3 speed: wall and CPU seconds per 100 000-write transfer, and the wall time of the whole
# paper-scale ns-3 part of the study (every ns-3 run of every scenario, from an empty results
# directory, through Snakemake on all cores). Run on an otherwise idle machine:
#
#   benchmarks/ns3_speed.sh [--transfers-only] [--profile NAME]
#
# --profile times the transfers under another TCP profile or ablation step (default
# linux-2.2); `--profile ablation-16` is linux-2.2 as it was before its own classes (issue 18),
# so the two give the model's cost before and after on the same build.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
py=.venv/bin/python
transfers_only=false
profile=linux-2.2
while [ $# -gt 0 ]; do
	case $1 in
	--transfers-only) transfers_only=true ;;
	--profile) profile=${2:?--profile needs a name}; shift ;;
	*) echo "ns3_speed.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
$py -m emusim.backends.ns3.build >/dev/null

echo "== one 100 000-write transfer ($profile profile), wall seconds"
PROFILE=$profile $py - <<'PY'
import os, resource, statistics, subprocess, time
from emusim.inputs import scenario, tcp_profiles
from emusim.backends.ns3 import command as ns3
s = scenario.load("random-drop", "paper")
def children_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
for point_id in ("drop_rate=0", "drop_rate=0.040", "drop_rate=0.100"):
    walls, cpus = [], []
    for rep in (1, 2, 3):
        cmd = ns3.command("build/ns3/testbed-2001", s, s.point(point_id),
                          tcp_profiles.get(os.environ["PROFILE"]), rep, 71.8878)
        t, c = time.perf_counter(), children_cpu_s()
        subprocess.run(cmd, check=True, capture_output=True)
        walls.append(time.perf_counter() - t)
        cpus.append(children_cpu_s() - c)
    # CPU seconds as well: unlike wall time, other work on the machine does not inflate them
    print(f"{point_id:16s} mean {statistics.mean(walls):.2f} s wall, "
          f"{statistics.mean(cpus):.2f} s CPU  (runs: "
          + ", ".join(f"{w:.2f}" for w in walls) + ")")
PY
$transfers_only && exit 0

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
