"""ns-3's sender hot paths, the wheel's against the project's (docs/ns3-hot-paths.md).

Runs a sample of ns-3 runs twice on the same build: with ns-3 3.44's own TcpTxBuffer::NextSeg
and CopyFromSequence (EMUSIM_NS3_TX_BUFFER=ns3) and with libemusim-ns3's (the default). For each
it prints the CPU seconds of both and whether the two outputs are byte-identical (the run JSON,
and the TCP trace where the program writes one). Run on an otherwise idle machine:

    .venv/bin/python benchmarks/ns3_hot_paths.py [--check] [NAME ...]

NAME picks runs of the sample (default all). --check runs a third time in the differential
mode (EMUSIM_NS3_TX_BUFFER=check: every call also runs the original and compares) and reports
whether it finished.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from emusim.backends.ns3 import command as ns3
from emusim.backends.ns3.build import NS3_BUILD_DIR
from emusim.inputs import scenario, tcp_profiles

# name: (scenario, scale, point, profile, one-way delay µs for testbed-2001's programs).
# The paper-scale sample: random drop at 0.148, regular 1 in 7, the lossy-link headline
# cell; and multi-flow quick runs (FAST, and CUBIC on Linux's module).
SAMPLE = {
    "random-drop-0.148": ("random-drop", "paper", "drop_rate=0.148", "linux-2.2", 71.8878),
    "regular-1in7": ("regular-drop", "paper", "drop_rate=0.13+every_n=7", "linux-2.2", 71.8878),
    "lossy-headline-reno": (
        "lossy-link",
        "paper",
        "delay_ms=10+loss=0.05+variant=reno",
        "linux-6.1",
        0.0,
    ),
    "multiflow-i-fast": ("multiflow-dynamic-i", "quick", "variant=fast", "linux-6.1-wan", 0.0),
    "multiflow-i-cubic": ("multiflow-dynamic-i", "quick", "variant=cubic", "linux-6.1-wan", 0.0),
}


def children_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def sample_command(name: str, trace: Path | None) -> list[str]:
    scenario_name, scale, point_id, profile_name, delay_us = SAMPLE[name]
    s = scenario.load(scenario_name, scale)
    point = s.point(point_id)
    profile = tcp_profiles.get(profile_name)
    program = NS3_BUILD_DIR / ns3.program_name(s)
    cmd = ns3.command(str(program), s, point, profile, 1, delay_us)
    if trace is not None and ns3.program_name(s) in ("lossy-link", "testbed-2001"):
        cmd.append(f"--traceFile={trace}")
    return cmd


def run(cmd: list[str], mode: str, trace: Path | None) -> tuple[float, bytes, bytes, int]:
    env = {**os.environ, "EMUSIM_NS3_TX_BUFFER": mode}
    t = children_cpu_s()
    proc = subprocess.run(cmd, env=env, capture_output=True)
    cpu = children_cpu_s() - t
    traced = trace.read_bytes() if trace is not None and trace.exists() else b""
    return cpu, proc.stdout, traced, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "names", nargs="*", help=f"runs of the sample (default all: {list(SAMPLE)})"
    )
    parser.add_argument("--check", action="store_true", help="also run the differential mode")
    args = parser.parse_args()
    unknown = set(args.names) - set(SAMPLE)
    if unknown:
        parser.error(f"no run {sorted(unknown)} in the sample; choose from {list(SAMPLE)}")
    args.names = args.names or list(SAMPLE)
    print(f"{'run':22s} {'ns-3 CPU s':>11s} {'ours CPU s':>11s} {'speed-up':>9s}  identical")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.names:
            results = {}
            for mode in ("ns3", "ours", *(["check"] if args.check else [])):
                trace = Path(tmp) / f"{name}-{mode}.csv"
                results[mode] = run(sample_command(name, trace), mode, trace)
            (cpu0, out0, tr0, rc0), (cpu1, out1, tr1, rc1) = results["ns3"], results["ours"]
            same = rc0 == rc1 == 0 and out0 == out1 and tr0 == tr1
            failed |= not same
            line = f"{name:22s} {cpu0:11.2f} {cpu1:11.2f} {cpu0 / max(cpu1, 1e-9):8.1f}x  {same}"
            if args.check:
                ok = results["check"][3] == 0
                failed |= not ok
                line += f"  check {'passed' if ok else 'FAILED'} ({results['check'][0]:.1f} s)"
            print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
