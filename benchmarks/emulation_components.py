"""Where the emulation's time goes, per component of the packet's path, and what the guest's
CPU model costs (issue 31).

    .venv/bin/python benchmarks/emulation_components.py [--scale quick] [--out DIR]
        [--models max max,-erms,-fsrm]

For each guest CPU model (QEMU's ``-cpu``; the suite's is emusim.infra.vm.TCG_CPU_MODEL), two
batches of baseline-tcp's loss-free TCP blast (linux-2.2, one run, dilated time):

- a plain one: the run's host CPU seconds (``provenance.host_cpu_s``) per guest second of its
  transfer, the link busy all along (a loss-free blast at line rate);
- a profiled one (``--profile-cpu``): perf samples the guest's CPUs every
  emusim.linux.cpu_profile.PERIOD_NS of guest time; each component's samples give its guest
  time per data segment (samples x period / segments sent), and its share of the guest's busy
  time (idle excluded: an idle guest costs the host nothing in dilated time). perf's sampling
  costs host time of its own, so the plain batch gives the cost.

Prints a table per model and writes OUT/emulation_components.json; the numbers go in
docs/mininet.md, "Cost per component". Needs the VM (tools/setup vm mininet).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from emusim.backends.mininet.batch import run_batch
from emusim.core.paths import REPO_ROOT, scale_prefix
from emusim.infra import vm
from emusim.inputs import scenario as sc
from emusim.linux import cpu_profile

SCENARIO = "baseline-tcp"
PROFILE = "linux-2.2"


def _run(scenario, results: Path, delay: Path | None, model: str, profiled: bool) -> dict:
    os.environ[vm.CPU_ENV] = model  # read when the VM's command line is made
    run_batch(
        scenario, PROFILE, results, delay, place="vm", selfcheck=not profiled, repetitions=1,
        icount_shift=0, repeat_deterministic=False,
        cpu_profile=frozenset({"all"}) if profiled else None,
    )  # fmt: skip
    (path,) = (results / "mininet" / SCENARIO / PROFILE).glob("*/run1.json")
    return json.loads(path.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", default="quick")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "components")
    parser.add_argument("--models", nargs="+", default=[vm.TCG_CPU_MODEL, "max,-erms,-fsrm"])
    args = parser.parse_args()
    scenario = sc.load(REPO_ROOT / "scenarios" / f"{SCENARIO}.yaml", args.scale)
    delay = REPO_ROOT / scale_prefix(args.scale) / "results" / "delay" / "one_way_delay.json"
    delay = delay if delay.exists() else None
    results = {}
    for model in args.models:
        base = args.out / model.replace(",", "_")
        if base.exists():
            raise SystemExit(f"{base} exists: remove it (a benchmark starts from nothing)")
        plain = _run(scenario, base / "plain", delay, model, profiled=False)
        prof = _run(scenario, base / "profiled", delay, model, profiled=True)
        p = prof["provenance"]["mininet"]["cpu_profile"]
        segments = prof["provenance"]["mininet"]["segments_sent"]
        by = cpu_profile.components(p["symbols"])  # this checkout's rules
        busy = p["samples"] - by["idle"]
        per_segment_ns = {name: n * p["period_ns"] / segments for name, n in by.items()}
        results[model] = {
            "elapsed_s": plain["metrics"]["elapsed_s"],
            "host_cpu_s": plain["provenance"]["host_cpu_s"],
            "host_cpu_s_per_guest_s": plain["provenance"]["host_cpu_s"]
            / plain["metrics"]["elapsed_s"],
            "profiled_elapsed_s": prof["metrics"]["elapsed_s"],
            "segments_sent": segments,
            "guest_busy_fraction": busy / p["samples"],
            "guest_ns_per_segment": per_segment_ns,
            "busy_share": {k: n / busy for k, n in by.items() if k != "idle"},
            "top_symbols": p["top_symbols"],
            "clock_check_ok": (plain["provenance"].get("clock_check") or {}).get("ok"),
            "kernel_release": plain["provenance"]["kernel_release"],
            "clock": plain["provenance"]["clock"],
        }
        r = results[model]
        print(f"-cpu {model}: elapsed {r['elapsed_s']:.3f} s, host CPU {r['host_cpu_s']:.1f} s "
              f"({r['host_cpu_s_per_guest_s']:.2f} per guest s); guest busy "
              f"{r['guest_busy_fraction']:.3f}; {segments} segments")  # fmt: skip
        for name, ns in sorted(per_segment_ns.items(), key=lambda kv: -kv[1]):
            if name != "idle":
                print(f"  {name:34s} {ns:8.0f} ns/segment  {r['busy_share'][name]:6.1%}")
    out = {
        "scenario": SCENARIO, "profile": PROFILE, "scale": args.scale,
        "period_ns": cpu_profile.PERIOD_NS, "models": results,
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "emulation_components.json").write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
