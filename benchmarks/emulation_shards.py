"""One emulation batch in one VM against the same batch in N shards side by side (issue 31).

    .venv/bin/python benchmarks/emulation_shards.py [--scenario NAME] [--scale quick]
        [--profile linux-6.1] [--shards 2] [--serial 2] [--out DIR] [--compare-only]

Runs the batch serially (`--shard 1/1`: one VM) in SERIAL sessions one after the other, then as
N shards at once (N VMs, one per core), each into a fresh results directory under OUT, with
the deterministic points once (`--deterministic-once`) as the workflow runs them. Then checks
what must not change when VMs share the host in dilated time:

- every self-check verdict (throughput and delay) is ok, in the serial sessions and in each
  shard's;
- every deterministic point's elapsed time in the shards is as close to the first serial
  session's as the serial sessions are to each other at that point (at most twice their
  largest difference there, and never less than DETERMINISTIC_REL): a point without
  randomness repeats to within 0.03 % inside one VM session, but two sessions differ by more
  (docs/mininet.md, "Side by side"), and at a bistable point (regular-drop's 1 in 11 at paper
  scale: 19.7 s in one session, 109.9 s in the next) by far more, so the tolerance is each
  point's own, not the largest over all;

and prints the host wall time of the first serial session and of the shards, and their
ratio. Writes OUT/emulation_shards.json. `--compare-only` reads an earlier benchmark's OUT
again (its batches and wall times) and checks it anew, without running anything. Needs the
VM (tools/setup vm mininet); root is not needed. The numbers go in the issue note and
docs/mininet.md, "Side by side".
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from emusim.backends.mininet import selfcheck
from emusim.backends.mininet.batch import merge_shards
from emusim.backends.mininet.plan import point_is_random
from emusim.core.paths import REPO_ROOT, scale_prefix
from emusim.inputs import scenario as sc

DETERMINISTIC_REL = 0.001
"""The least a deterministic point's elapsed time may differ between sessions: three times the
0.03 % its repetitions spread inside one session in dilated time."""


def _batch(args, results: Path, shard: str) -> list[str]:
    delay = REPO_ROOT / scale_prefix(args.scale) / "results" / "delay" / "one_way_delay.json"
    cmd = [
        sys.executable, "-m", "emusim.backends.mininet", "batch",
        "--scenario", str(REPO_ROOT / "scenarios" / f"{args.scenario}.yaml"),
        "--scale", args.scale, "--profile", args.profile, "--results-dir", str(results),
        "--place", "vm", "--icount-shift", "0", "--deterministic-once", "--shard", shard,
    ]  # fmt: skip
    if delay.exists():
        cmd += ["--delay-json", str(delay)]
    return cmd


def _run(commands: list[list[str]], logs: list[Path]) -> float:
    t0 = time.monotonic()
    procs = [
        subprocess.Popen(cmd, stderr=log.open("w"), cwd=REPO_ROOT)
        for cmd, log in zip(commands, logs, strict=True)
    ]
    codes = [p.wait() for p in procs]
    if any(codes):
        raise SystemExit(f"a batch failed ({codes}); see {', '.join(map(str, logs))}")
    return time.monotonic() - t0


def _merged(results: Path, args, n: int) -> dict:
    base = results / "mininet" / args.scenario / args.profile
    shards = [base / "shards" / f"{i}-of-{n}.json" for i in range(1, n + 1)]
    return merge_shards(shards, base / "batch.json")


def _elapsed(batch: dict, random_points: set[str]) -> dict[str, float]:
    """Elapsed time of each deterministic TCP/UDP run of a batch, by point/run."""
    out = {}
    for path in batch["run_files"]:
        run = json.loads(Path(path).read_text())
        if run["point"] not in random_points and "elapsed_s" in run["metrics"]:
            out[f"{run['point']}/run{run['repetition']}"] = run["metrics"]["elapsed_s"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", default="regular-drop")
    parser.add_argument("--scale", default="quick")
    parser.add_argument("--profile", default="linux-6.1")
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--serial", type=int, default=2, help="serial sessions (at least 1)")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "shards")
    parser.add_argument("--compare-only", action="store_true",
                        help="check an earlier benchmark's OUT again without running")  # fmt: skip
    args = parser.parse_args()
    serial_dirs = [args.out / f"serial-{k}" for k in range(1, args.serial + 1)]
    shard_dir = args.out / f"shards-{args.shards}"
    n = args.shards
    if args.compare_only:
        earlier_path = args.out / "emulation_shards.json"
        if not earlier_path.exists():
            raise SystemExit(f"{earlier_path}: no earlier benchmark here to check again "
                             "(run it once without --compare-only)")  # fmt: skip
        earlier = json.loads(earlier_path.read_text())
        serial_s, sharded_s = earlier["serial_wall_s"], earlier["sharded_wall_s"]
        measured_utc = earlier["date_utc"]
    else:
        for d in (*serial_dirs, shard_dir):
            if d.exists():
                raise SystemExit(f"{d} exists: remove it (a benchmark starts from nothing)")
            d.mkdir(parents=True)
        serial_s = [_run([_batch(args, d, "1/1")], [d.with_suffix(".log")]) for d in serial_dirs]
        sharded_s = _run(
            [_batch(args, shard_dir, f"{i}/{n}") for i in range(1, n + 1)],
            [args.out / f"shard-{i}-of-{n}.log" for i in range(1, n + 1)],
        )
        measured_utc = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    serials = [_merged(d, args, 1) for d in serial_dirs]
    sharded = _merged(shard_dir, args, n)
    scenario = sc.load(REPO_ROOT / "scenarios" / f"{args.scenario}.yaml", args.scale)
    random_points = {p.id for p in scenario.points if point_is_random(p)}
    elapsed = [_elapsed(b, random_points) for b in (*serials, sharded)]
    first = elapsed[0]
    compared = []
    for key in sorted(first):
        between = max((abs(e[key] / first[key] - 1) for e in elapsed[1:-1] if key in e),
                      default=0.0)  # fmt: skip
        tolerance = max(2 * between, DETERMINISTIC_REL)
        rel = elapsed[-1][key] / first[key] - 1
        compared.append({"run": key, "serial_s": [e.get(key) for e in elapsed[:-1]],
                         "sharded_s": elapsed[-1][key], "rel": rel, "tolerance_rel": tolerance,
                         "ok": abs(rel) <= tolerance})  # fmt: skip
    verdicts = {
        f"serial-{k}": selfcheck.batch_row(b)["selfcheck"] for k, b in enumerate(serials, 1)
    }
    verdicts["sharded"] = selfcheck.batch_row(sharded)["selfcheck"]
    result = {
        "scenario": args.scenario, "scale": args.scale, "profile": args.profile,
        "shards": n, "serial_wall_s": [round(t, 1) for t in serial_s],
        "sharded_wall_s": round(sharded_s, 1), "ratio": round(sharded_s / serial_s[0], 3),
        "selfcheck": verdicts, "sessions": sharded["sessions"], "deterministic": compared,
        "kernel_release": sharded.get("kernel_release"), "clock": sharded.get("clock"),
        "date_utc": measured_utc,
    }  # fmt: skip
    (args.out / "emulation_shards.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"serial {serial_s[0]:.0f} s, {n} shards side by side {sharded_s:.0f} s "
          f"(ratio {sharded_s / serial_s[0]:.2f}); self-checks {verdicts}")  # fmt: skip
    for c in compared:
        serial = ", ".join(f"{t:.4f}" for t in c["serial_s"] if t is not None)
        print(f"  {c['run']}: elapsed serial {serial} s, sharded {c['sharded_s']:.4f} s "
              f"({c['rel']:+.5f}, tolerance {c['tolerance_rel']:.5f}) "
              f"{'ok' if c['ok'] else 'DIFFERS'}")  # fmt: skip
    ok = all(v == "ok" for v in verdicts.values()) and all(c["ok"] for c in compared)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
