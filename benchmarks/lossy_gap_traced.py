"""The lossy-link gap traced side by side (issue 30): where ns-3's Linux 6.1 and the emulated one
part at the headline cell (5 % loss each way, 10 ms).

    .venv/bin/python benchmarks/lossy_gap_traced.py [--out DIR] [--writes N] [--repetitions N]
                                                    [--variant reno --variant cubic]
                                                    [--profile linux-6.1-rack]
                                                    [--keep-emulation]

A 1 GB run's trace overflows the guest's largest ring buffer (emusim.linux.tcp_tracefs,
BUFFER_KB_MAX), so this takes a cut of the cell: the same scenario with N writes (default
69 061, 100 MB), every run traced in both backends with the same seeds, and ns-3 a third time
with ns-3's own receiver (TcpSocketBase, which delays its ACKs to every second segment as
Linux's does, without Linux's quick ACKs) in place of TcpLinuxSocket's, and a fourth time with
TcpLinuxSocket's receiver acknowledging every segment (PeerPushesEverySegment). Per run it prints
what emusim.analysis.tcp_events derives: elapsed time, timeouts by cause, segments outstanding when
a timeout series began, pauses longer than 150 ms and their total, ACKs per data packet and the
mean window; and how losses are repaired (`repair`): recoveries and the retransmissions each
makes, a recovery's median length, how long a lost segment waited before the lossy stage (its
drop less its first send: the queue in front of it, 90th percentile), how long from its drop to
its retransmission (99th percentile), and how fast the sender sent in its fastest round trips
(frames on the wire per 20 ms against the line rate, 99th percentile). Writes
OUT/lossy_gap_traced.csv. Needs root and the VM (tools/setup mininet vm); about 25 minutes on 2
cores.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from emusim.analysis import tcp_events
from emusim.backends.ns3 import command as ns3
from emusim.core import constants
from emusim.core.paths import REPO_ROOT
from emusim.inputs import scenario, tcp_profiles

PROFILE = "linux-6.1"
CELL = {"delay_ms": [10], "loss": ["0.05"]}
ROUND_TRIP_S = 2 * CELL["delay_ms"][0] / 1000  # the windows of `repair`'s send rate, s
FRAME_BITS = constants.ETH_FRAME_WIRE_B * 8  # a full data segment on the wire
# true: TcpLinuxSocket's receiver takes every full segment as pushed and acknowledges each
EVERY_SEGMENT_PUSHED = "ns3::TcpLinuxSocket::PeerPushesEverySegment"


def cut_scenario(
    out: Path, writes: int, repetitions: int, variants: list[str], cell: dict = CELL
) -> Path:
    """lossy-link with its quick scale replaced by the traced cut of `cell` (its topology
    beside it)."""
    spec = yaml.safe_load((REPO_ROOT / "scenarios/lossy-link.yaml").read_text())
    spec.pop("more_runs", None)  # `repetitions` for every point of the cut
    spec["scales"] = {
        "quick": {
            "workload": {"writes": writes},
            "repetitions": repetitions,
            "cap_s": spec["cap_s"],
            "sweep": {**cell, "variant": variants},
        }
    }
    (out / "topologies").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO_ROOT / "scenarios/topologies/lossy-link.yaml", out / "topologies")
    path = out / "lossy-gap.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def run_ns3(path: Path, out: Path, profile: str, receiver: str | None, *extra: str) -> None:
    """Every point and repetition of the cut, traced; `receiver` replaces the server's socket,
    `extra` are more ns-3 attributes."""
    s = scenario.load(str(path), "quick")
    for point in s.points:
        for rep in range(1, s.repetitions + 1):
            where = out / point.id
            where.mkdir(parents=True, exist_ok=True)
            cmd = ns3.command(
                str(REPO_ROOT / "build/ns3/lossy-link"),
                s,
                point,
                tcp_profiles.get(profile),
                rep,
                0.0,
            )
            if receiver:
                key = "--ns3::TcpBlastServer::SocketType="
                cmd = [a for a in cmd if not a.startswith(key)] + [key + receiver]
            cmd += [*extra, f"--traceFile={where}/run{rep}.csv"]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
            (where / f"run{rep}.json").write_text(proc.stdout)
            print(f"ns-3 {out.name} {point.id} rep {rep}: done", file=sys.stderr, flush=True)


def run_emulation(path: Path, out: Path, profile: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "emusim.backends.mininet", "batch", "--scenario", str(path),
         "--scale", "quick", "--profile", profile, "--results-dir", str(out), "--place", "vm",
         "--trace", "all"],
        check=True, cwd=REPO_ROOT,
    )  # fmt: skip


def measured_in(backend: str, trace_path: Path) -> dict[str, str]:
    """The kernel and the clock of a run: the emulation's batch says them, ns-3 is simulated."""
    if backend != "mininet":
        return {"kernel": "ns-3 3.44 (Linux 6.1 modules)", "clock": "simulated"}
    batch = json.loads((trace_path.parents[1] / "batch.json").read_text())
    return {"kernel": batch["kernel_release"], "clock": batch["clock"]}


def recovery_spans(trace: pd.DataFrame) -> list[tuple[float, float]]:
    """(entered, left) of every recovery entered from an open state, in seconds."""
    state = trace[trace["event"] == "state"][["t_s", "value"]].to_numpy()
    spans, entered, previous = [], None, 0
    for t, value in state:
        opening = previous not in (tcp_events.STATE_RECOVERY, tcp_events.STATE_LOSS)
        if value == tcp_events.STATE_RECOVERY and opening:
            entered = t
        elif previous == tcp_events.STATE_RECOVERY and value != previous and entered is not None:
            spans.append((entered, t))
        previous = value
    return spans


def repair(trace: pd.DataFrame) -> dict:
    """How the run repaired its losses (see the module's docstring)."""
    lengths = [left - entered for entered, left in recovery_spans(trace)]
    tx = trace[trace["event"] == "tx"]
    first = tx[tx["value"] == 0].groupby("segment")["t_s"].min()
    again = tx[tx["value"] == 1].groupby("segment")["t_s"].min()
    drops = trace[(trace["event"] == "drop") & (trace["value"] == 0)]
    dropped = drops.groupby("segment")["t_s"].min()
    dropped = dropped[dropped.index.isin(again.index) & dropped.index.isin(first.index)]
    waited_ms = (dropped - first[dropped.index]) * 1e3
    to_retransmission_ms = (again[dropped.index] - dropped) * 1e3
    t = tx["t_s"].to_numpy()
    sent = np.histogram(t, np.arange(t[0], t[-1], ROUND_TRIP_S))[0]
    recoveries = max(len(lengths), 1)
    return {
        "recoveries": len(lengths),
        "retransmissions_per_recovery": round(int(tx["value"].sum()) / recoveries, 2),
        "recovery_ms_median": round(float(np.median(lengths)) * 1e3, 1),
        "wait_before_loss_ms_q90": round(float(np.percentile(waited_ms, 90)), 2),
        "drop_to_retransmission_ms_q99": round(float(np.percentile(to_retransmission_ms, 99)), 2),
        "send_rate_of_line_q99": round(
            float(np.percentile(sent * FRAME_BITS / ROUND_TRIP_S / constants.LINK_RATE_bps, 99)),
            3,
        ),
    }


def row(backend: str, trace_path: Path) -> dict:
    trace = tcp_events.read(trace_path)
    series = tcp_events.timeouts(trace)
    acks = int((trace["event"] == "ack").sum())
    summary = tcp_events.summary(trace)
    return {
        "backend": backend,
        "variant": trace_path.parent.name.split("variant=")[1],
        "run": trace_path.name.split(".")[0],
        "elapsed_s": round(summary["elapsed_s"], 1),
        "timeout_series": summary["timeout_series"],
        "retransmission_lost": summary["timeouts_retransmission_lost"],
        "too_few_dupacks": summary["timeouts_too_few_dupacks"],
        "outstanding_le_3": int((series["outstanding"] <= 3).sum()),
        "outstanding_median": float(series["outstanding"].median()) if len(series) else 0.0,
        "pauses_over_150ms": summary["rto_waits"],
        "pause_s": round(summary["rto_wait_s"], 1),
        "acks_per_data_packet": round(acks / summary["data_packets"], 3),
        "mean_cwnd_segments": round(summary["mean_cwnd_segments"], 2),
        **repair(trace),
        **measured_in(backend, trace_path),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "results/benchmarks/lossy-gap")
    parser.add_argument("--writes", type=int, default=69061)
    parser.add_argument("--repetitions", type=int, default=2)
    parser.add_argument("--variant", action="append", dest="variants")
    parser.add_argument("--profile", default=PROFILE, help=f"TCP profile (default {PROFILE})")
    parser.add_argument(
        "--keep-emulation",
        action="store_true",
        help="use OUT's emulated runs as they are (ns-3's are made again)",
    )
    args = parser.parse_args()
    variants = args.variants or ["reno", "cubic"]
    args.out.mkdir(parents=True, exist_ok=True)
    path = cut_scenario(args.out, args.writes, args.repetitions, variants)
    run_ns3(path, args.out / "ns3", args.profile, None)
    run_ns3(path, args.out / "ns3-delayed-acks", args.profile, "ns3::TcpSocketBase")
    run_ns3(
        path, args.out / "ns3-every-segment", args.profile, None, f"--{EVERY_SEGMENT_PUSHED}=true"
    )
    if not args.keep_emulation:
        run_emulation(path, args.out / "emulation", args.profile)
    rows = [
        row(backend, trace)
        for backend, pattern in (
            ("ns3", "ns3/*/run*.csv"),
            ("ns3, ns-3's receiver", "ns3-delayed-acks/*/run*.csv"),
            ("ns3, ACK every segment", "ns3-every-segment/*/run*.csv"),
            ("mininet", "emulation/mininet/lossy-gap/*/*/run*.csv.gz"),
        )
        for trace in sorted(args.out.glob(pattern))
    ]
    table = pd.DataFrame(rows).sort_values(["variant", "backend", "run"])
    table.to_csv(args.out / "lossy_gap_traced.csv", index=False)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
