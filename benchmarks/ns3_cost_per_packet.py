"""ns-3's cost per packet against the window (issue 31's first acceptance measure).

Three flows (FAST, or --variant) through multi-flow scenario I's dumbbell (RTTs 100, 150 and
200 ms, the 2000-packet buffer, `build/ns3/multiflow`) at 200 and at 800 Mb/s. The CPU time of a
10-s run minus that of a 4-s run, per simulated second, leaves out the start (connection setup,
slow start): the steady state's cost. At 4 times the rate there are 4 times the packets, and each
window is 4 times as large; if the cost per packet did not depend on the window the ratio would
be 4. Run on an otherwise idle machine:

    .venv/bin/python benchmarks/ns3_cost_per_packet.py [--mode ours|ns3] [--variant cubic]

--mode ns3 runs ns-3 3.44's own TcpTxBuffer and TcpRxBuffer functions (docs/ns3-hot-paths.md);
--variant runs another of the scenario's variants than FAST (CUBIC: losses, so the SACK
scoreboard and the receiver's buffer of data out of order are on the path).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys

from emusim.backends.ns3 import command as ns3
from emusim.backends.ns3.build import NS3_BUILD_DIR
from emusim.inputs import scenario, tcp_profiles

RATES_MBPS = (200, 800)
DURATIONS_S = (4, 10)


def children_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def flows_command(rate_mbps: int, duration_s: int, variant: str = "fast") -> list[str]:
    s = scenario.load("multiflow-dynamic-i", "paper")
    cmd = ns3.command(
        str(NS3_BUILD_DIR / "multiflow"),
        s,
        s.point(f"variant={variant}"),
        tcp_profiles.get("linux-6.1-wan"),
        1,
        0.0,
    )
    # the scenario's rates are 800 / 1000 Mb/s: scale both, keep the delays and buffer
    scale = rate_mbps / 800
    out = []
    for arg in cmd:
        key, _, value = arg.partition("=")
        if key in ("--bottleneckRateBps", "--accessRateBps"):
            arg = f"{key}={round(int(value) * scale)}"
        elif key in ("--bottleneckGapNs", "--accessGapNs"):
            arg = f"{key}={round(int(value) / scale)}"
        elif key == "--durationS":
            arg = f"{key}={duration_s}"
        elif key == "--flows":  # the three flows from the start (the scenario staggers them)
            arg = f"{key}=" + ",".join(f"{rtt}:0:{duration_s}" for rtt in (100, 150, 200))
        elif key == "--ns3::TcpSocketState::MaxPacingRate":
            arg = f"{key}={round(int(value.removesuffix('bps')) * scale)}bps"
        out.append(arg)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["ours", "ns3"], default="ours")
    parser.add_argument("--variant", choices=["fast", "vegas", "cubic", "bbr"], default="fast")
    args = parser.parse_args()
    env = {**os.environ, "EMUSIM_NS3_TX_BUFFER": args.mode}
    per_s = {}
    for rate in RATES_MBPS:
        cpu = {}
        for duration in DURATIONS_S:
            t = children_cpu_s()
            subprocess.run(
                flows_command(rate, duration, args.variant),
                env=env,
                check=True,
                capture_output=True,
            )
            cpu[duration] = children_cpu_s() - t
        per_s[rate] = (cpu[10] - cpu[4]) / (DURATIONS_S[1] - DURATIONS_S[0])
        print(
            f"{rate} Mb/s: {cpu[4]:.2f} CPU-s for 4 s, {cpu[10]:.2f} for 10 s: "
            f"{per_s[rate]:.2f} CPU-s per simulated second",
            flush=True,
        )
    ratio = per_s[800] / per_s[200]
    print(
        f"800 / 200 Mb/s: {ratio:.2f} times the cost for 4 times the packets "
        f"({args.variant}, {args.mode})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
