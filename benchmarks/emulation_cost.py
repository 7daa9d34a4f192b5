"""Host cost of the paper-scale emulation, per scenario, in dilated time (issue 17).

    .venv/bin/python benchmarks/emulation_cost.py [--out DIR] [SCENARIO[:STRIDE]...]

For each scenario, one Mininet batch at paper scale runs a sample of its design in the VM
(one repetition of every STRIDE-th value of its first sweep axis; `--repetitions 1
--point-stride STRIDE`), with the calibration and the self-check as in the study. Each run
records the VM's CPU seconds on the host (`provenance.host_cpu_s`: unlike wall time, other
work on the host does not inflate it) and its wall seconds. The full design's cost is then
extrapolated: a point not sampled costs what the sampled point nearest to it on the first
axis cost, times the scenario's repetitions, plus the batch's own boot, setup and self-check.
Printed as a table and written to OUT/emulation_cost.json. Needs root and the VM (tools/setup
mininet vm). The numbers go in the issue note and docs/mininet.md, "Cost".
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from emusim.backends.mininet.batch import run_batch
from emusim.core.paths import REPO_ROOT
from emusim.inputs import scenario

DEFAULT = [
    "baseline-tcp:1",
    "baseline-udp:1",
    "ping-sweep:3",
    "random-drop:6",
    "regular-drop:4",
    "regular-1in6:2",
]
DELAY_JSON = REPO_ROOT / "results" / "delay" / "one_way_delay.json"


def _axis_value(point) -> float:
    value = next(iter(point.values.values()), 0)
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def point_costs(full_points, sampled: dict[str, float]) -> dict[str, float]:
    """Host CPU seconds of one run of every point of the full design: a sampled point's own,
    else that of the sampled point nearest to it on the first axis (with the same values of
    the other axes, where one was sampled)."""
    by_id = {p.id: p for p in full_points}

    def rest(point) -> dict:
        return dict(list(point.values.items())[1:])

    costs = {}
    for point in full_points:
        if point.id in sampled:
            costs[point.id] = sampled[point.id]
            continue
        alike = [i for i in sampled if rest(by_id[i]) == rest(point)] or list(sampled)
        nearest = min(alike, key=lambda i: abs(_axis_value(by_id[i]) - _axis_value(point)))
        costs[point.id] = sampled[nearest]
    return costs


def measure(name: str, stride: int, out: Path) -> dict:
    s = scenario.load(name, "paper")
    delay_json = DELAY_JSON if s.settings["topology"]["delay"] == "measured" else None
    t0 = time.monotonic()
    batch = run_batch(
        s, "linux-2.2" if "linux-2.2" in s.profiles else s.profiles[0], out,
        delay_json, repetitions=1, point_stride=stride,
    )  # fmt: skip
    wall = time.monotonic() - t0
    runs = [json.loads(Path(f).read_text()) for f in batch["run_files"]]
    sampled = {r["point"]: r["provenance"]["host_cpu_s"] for r in runs}
    t = batch["timings"]
    overhead = sum(
        v or 0.0
        for v in (
            t.get("boot_host_cpu_s"),
            t.get("setup_host_cpu_s"),
            t.get("selfcheck_host_cpu_s"),
        )
    )
    costs = point_costs(s.points, sampled)
    full = sum(costs[p.id] * s.repetitions for p in s.points)
    # a point without a random dropper repeats to the microsecond in dilated time
    once = sum(
        costs[p.id] * (s.repetitions if p.dropper.get("mode") == "random" else 1) for p in s.points
    )
    return {
        "scenario": name,
        "points": len(s.points),
        "repetitions": s.repetitions,
        "sampled_runs": len(runs),
        "sample_wall_s": round(wall, 1),
        "overhead_cpu_s": round(overhead, 1),
        "run_cpu_s": {k: round(v, 1) for k, v in sampled.items()},
        "run_guest_s": {r["point"]: r["metrics"].get("elapsed_s") for r in runs},
        "full_cpu_h": round((full + overhead) / 3600, 2),
        "deterministic_once_cpu_h": round((once + overhead) / 3600, 2),
        "selfcheck": batch["selfcheck"]["throughput"]["ok"] and batch["selfcheck"]["delay"]["ok"],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", default=DEFAULT, help="NAME[:STRIDE]")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "build" / "emulation-cost")
    args = parser.parse_args(argv)
    rows = []
    for item in args.scenarios:
        name, _, stride = item.partition(":")
        rows.append(measure(name, int(stride or 1), args.out))
        (args.out / "emulation_cost.json").write_text(json.dumps(rows, indent=1) + "\n")
        r = rows[-1]
        print(
            f"{r['scenario']:14s} {r['points']:3d} points x {r['repetitions']:2d}: sampled "
            f"{r['sampled_runs']} runs in {r['sample_wall_s']:.0f} s; full design "
            f"{r['full_cpu_h']:.2f} CPU-h, deterministic points once "
            f"{r['deterministic_once_cpu_h']:.2f} CPU-h; self-check ok: {r['selfcheck']}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
