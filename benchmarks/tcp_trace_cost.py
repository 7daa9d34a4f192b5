"""Does tracing the emulated TCP change a run, and what does it cost? (issue 30, item 1)

    .venv/bin/python benchmarks/tcp_trace_cost.py [--out DIR] [--repetitions N]

Two points that draw no random numbers, so that in dilated time their runs repeat to within
0.03 % (docs/mininet.md, "Dilated time"), each run N times (default 6) in one VM batch, every
other repetition traced (repetitions 2, 4, 6, …; `tracing.TraceRequest`), the traced and
untraced runs interleaved:

- ``regular``: the report's three hosts, linux-2.2, 10 000 writes through the regular dropper
  dropping one packet in 10 (netfilter): drops, fast recoveries, timeouts, so every probe
  fires;
- ``busy``: the lossy-link line at 10 ms without loss, linux-6.1 with reno, 20 000 writes: a
  link busy for 2.5 s, the most events per guest second.

Per point it prints the elapsed times with and without tracing (the blast's own clock, guest
time) and their spread, and the cost: the guest's CPU busy time during the transfer (the
blast's ``cpu_busy_fraction`` × elapsed, from /proc/stat), the run's guest seconds in all
(``wall_s``: with tracing, the probes' set-up and reading the ring buffer), the tracing
steps' own guest seconds, and the VM's host CPU seconds per run. Writes OUT/tcp_trace_cost.json.
Needs root and the VM (tools/setup mininet vm).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from emusim.backends.mininet.batch import run_batch
from emusim.backends.mininet.tracing import TraceRequest, trace_path
from emusim.core.paths import REPO_ROOT
from emusim.inputs import scenario

REPORT_DELAY_US = 71.8878
POINTS = {
    "regular": {
        "description": "tcp trace cost: regular dropper, 1 in 10",
        "topology": {"use": "lin2001", "delay": REPORT_DELAY_US},
        "workload": {"kind": "tcp-blast", "writes": 10000, "write_size_B": 1448},
        "impairment": {
            "dropper": {
                "mode": "regular",
                "every_n": 10,
                "target": "192.168.2.2",
                "impl": "netfilter",
            }
        },
        "profiles": ["linux-2.2"],
    },
    "busy": {
        "description": "tcp trace cost: a busy link, no loss",
        "topology": {"use": "lossy-link"},
        "workload": {"kind": "tcp-blast", "writes": 20000, "write_size_B": 1448},
        "impairment": {"dropper": {"mode": "off"}},
        "profiles": ["linux-6.1"],
        "cap_s": 600,
        "sweep": {"delay_ms": [10], "loss": ["0"], "variant": ["reno"]},
    },
}
TRACE_STEPS = ("setup_guest_s", "stop_guest_s", "convert_guest_s")


def spread(values: list[float]) -> float:
    """(max − min) / mean."""
    return (max(values) - min(values)) / statistics.fmean(values) if values else float("nan")


def summarise(runs: list[dict]) -> dict:
    """Per tracing (off, on): elapsed, busy guest s, guest s of the run, host CPU s."""
    out = {}
    for traced in (False, True):
        sel = [r for r in runs if ("trace" in r["provenance"]["mininet"]) is traced]
        elapsed = [r["metrics"]["elapsed_s"] for r in sel]
        busy = [
            r["provenance"]["mininet"]["cpu_busy_fraction"] * r["metrics"]["elapsed_s"] for r in sel
        ]
        out["on" if traced else "off"] = {
            "runs": len(sel),
            "elapsed_s": elapsed,
            "elapsed_spread": spread(elapsed),
            "busy_guest_s": busy,
            "run_guest_s": [r["provenance"]["wall_s"] for r in sel],
            "host_cpu_s": [r["provenance"].get("host_cpu_s") for r in sel],
            "retransmissions": [r["metrics"]["retransmissions"] for r in sel],
            "trace_steps_guest_s": {
                k: [r["provenance"]["mininet"]["trace"][k] for r in sel] for k in TRACE_STEPS
            }
            if traced
            else None,
            "trace_events": [r["provenance"]["mininet"]["trace"]["events"] for r in sel]
            if traced
            else None,
        }
    off, on = out["off"]["elapsed_s"], out["on"]["elapsed_s"]
    both = off + on
    out["elapsed_spread_all"] = spread(both)
    out["mean_on_over_off"] = statistics.fmean(on) / statistics.fmean(off) - 1
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "tcp-trace")
    parser.add_argument("--repetitions", type=int, default=6)
    parser.add_argument("--points", nargs="*", default=list(POINTS), choices=list(POINTS))
    args = parser.parse_args(argv)
    scen_dir = args.out / "scenarios"
    shutil.copytree(REPO_ROOT / "scenarios" / "topologies", scen_dir / "topologies",
                    dirs_exist_ok=True)  # fmt: skip
    traced = frozenset(range(2, args.repetitions + 1, 2))
    report = {}
    for name in args.points:
        body = {**POINTS[name], "repetitions": args.repetitions}
        path = scen_dir / f"trace-cost-{name}.yaml"
        path.write_text(yaml.safe_dump(body))
        s = scenario.load(path, "paper")
        t0 = time.monotonic()
        batch = run_batch(
            s, s.settings["profiles"][0], args.out / "results", place="vm",
            trace=TraceRequest(repetitions=traced), repeat_deterministic=True,
        )  # fmt: skip
        runs = [json.loads(Path(p).read_text()) for p in batch["run_files"]]
        for r, p in zip(runs, batch["run_files"], strict=True):
            assert ("trace" in r["provenance"]["mininet"]) is (r["repetition"] in traced)
            assert r["repetition"] not in traced or trace_path(p).exists()
        report[name] = {
            "batch_wall_s": round(time.monotonic() - t0, 1),
            "selfcheck": batch.get("selfcheck", {}).get("throughput", {}).get("ok"),
            **summarise(runs),
        }
        r = report[name]
        print(f"\n{name}: {args.repetitions} runs, traced {sorted(traced)}")
        for key in ("off", "on"):
            x = r[key]
            busy = statistics.fmean(x["busy_guest_s"])
            print(
                f"  tracing {key:3}: elapsed {min(x['elapsed_s']):.6f}-"
                f"{max(x['elapsed_s']):.6f} s (spread {x['elapsed_spread']:.2e}), busy "
                f"{busy:.3f} guest s, run {statistics.fmean(x['run_guest_s']):.2f} guest s, "
                f"host CPU {statistics.fmean(c for c in x['host_cpu_s'] if c is not None):.1f} s"
            )
        print(
            f"  all runs' spread {r['elapsed_spread_all']:.2e}; traced mean / untraced mean − 1 "
            f"= {r['mean_on_over_off']:+.2e}"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "tcp_trace_cost.json").write_text(json.dumps(report, indent=1))
    print(f"\nwrote {args.out / 'tcp_trace_cost.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
