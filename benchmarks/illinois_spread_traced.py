"""Why illinois's runs at 1 % loss and 10 ms spread by a quarter of their mean: each of ns-3's
runs of that paper-scale cell made again with a trace, and what Illinois's parameters did in it.

    .venv/bin/python benchmarks/illinois_spread_traced.py [--out DIR] [--runs 1-12] [--writes N]

tcp_illinois.c sets its additive increase alpha (0.3 … 10 segments per round trip) and its
decrease beta (1/8 … 1/2) once a round trip from the average queueing delay da against the
largest ever seen, dm = max_rtt − base_rtt: beta 1/8 while da ≤ dm / 10, 1/2 from 8 dm / 10
(`beta()`), and Reno's 1 and 1/2 while the window is below `win_thresh`, 15 segments
(`update_params`). `max_rtt` never ages (`rtt_reset`: "TODO: age max_rtt?"), so one large
sample moves every later threshold. Per run this prints, from the run's result and its trace
(emusim.analysis.tcp_events):

- `goodput_kBps`, `mean_cwnd` (segments, time-weighted) and `below_thresh`, the share of time
  the window is below 15 segments;
- `growth_per_rtt`: the segments the window gains per round trip while Open, i.e. the alpha
  Illinois grew by, averaged over the run;
- per recovery, the decrease the cut applied, 1 − ssthresh / cwnd (Illinois's beta):
  `cuts_at_beta_min` (≤ 0.15, i.e. beta 1/8), `cuts_at_beta_max` (≥ 0.45) and `mean_beta`;
- `base_rtt_ms` and `max_rtt_ms`: the least and the largest round-trip sample of the ACKs that
  advance the cumulative ACK (`round_trips`: a subset of the module's samples, which include
  SACK-based ones), and `max_rtt_at_s`, when the largest was sent.

The rank correlation of goodput with each is printed last. ns-3's runs are simulated (no
kernel, no wall clock in the numbers); the seeds are the archive's, so each run's goodput is
the kept run's. About 2 minutes of a core per run. Writes OUT/illinois_spread_traced.csv.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from emusim.analysis import tcp_events
from emusim.backends.ns3 import command as ns3
from emusim.core.paths import REPO_ROOT
from emusim.inputs import scenario, tcp_profiles

PROFILE = "linux-6.1"
CELL = "delay_ms=10+loss=0.01+variant=illinois"
SEGMENT_B = 1448
WIN_THRESH_SEGMENTS = 15  # tcp_illinois.c:35
BETA_MIN_AT_MOST = 0.15  # BETA_MIN = 1/8 (tcp_illinois.c:31), with the window's rounding
BETA_MAX_AT_LEAST = 0.45  # BETA_MAX = 1/2 (tcp_illinois.c:32)


def the_point(s: scenario.Scenario) -> scenario.Point:
    matches = [p for p in s.points if p.id == CELL]
    if len(matches) != 1:
        raise SystemExit(f"scenarios/lossy-link.yaml (paper): {len(matches)} points match {CELL}")
    return matches[0]


def run(out: Path, rep: int, writes: int | None) -> Path:
    """ns-3's run `rep` of the cell, traced; its JSON result beside the trace."""
    s = scenario.load(str(REPO_ROOT / "scenarios/lossy-link.yaml"), "paper")
    point = the_point(s)
    binary = str(REPO_ROOT / "build/ns3/lossy-link")
    cmd = ns3.command(binary, s, point, tcp_profiles.get(PROFILE), rep, 0.0)
    if writes:
        cmd = [a for a in cmd if not a.startswith("--writes=")] + [f"--writes={writes}"]
    trace = out / f"run{rep}.csv"
    proc = subprocess.run([*cmd, f"--traceFile={trace}"], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"ns-3 run {rep}: exit {proc.returncode}: {proc.stderr[-2000:]}")
    (out / f"run{rep}.json").write_text(proc.stdout)
    return trace


def round_trips(trace: pd.DataFrame) -> pd.DataFrame:
    """The round-trip samples of the ACKs that advance the cumulative ACK, as
    tcp_clean_rtx_queue takes them (net/ipv4/tcp_input.c): from the newest segment it newly
    acknowledges, and none where it acknowledges a retransmitted one. SACK-based samples are
    not in the trace (it records no SACK blocks), so this is a subset of the module's."""
    tx = trace[trace["event"] == "tx"]
    sends = tx.groupby("segment")["t_s"].agg(["first", "count"])
    size = int(sends.index.max()) + 2
    sent_s = np.full(size, np.nan)
    sent_s[sends.index] = sends["first"].to_numpy()
    retransmitted = np.zeros(size, dtype=np.int64)
    retransmitted[sends.index[sends["count"] > 1]] = 1
    before = np.concatenate([[0], np.cumsum(retransmitted)])  # retransmitted below s
    acks = trace[(trace["event"] == "ack") & (trace["value"] == 0)]
    ack = np.minimum(acks["segment"].to_numpy(), size - 1)
    t = acks["t_s"].to_numpy()
    previous = np.concatenate([[0], np.maximum.accumulate(ack)[:-1]])
    new = ack > previous
    clean = before[ack] - before[np.minimum(previous, ack)] == 0
    use = new & clean & (ack >= 1)
    newest = ack[use] - 1
    return pd.DataFrame({"sent_s": sent_s[newest], "rtt_s": t[use] - sent_s[newest]})


def decreases(trace: pd.DataFrame) -> np.ndarray:
    """Per recovery entered from an open state, 1 − ssthresh / cwnd: the decrease it applied
    (Illinois's beta)."""
    cuts = tcp_events.reductions(trace, SEGMENT_B)
    cuts = cuts[cuts["kind"] == "recovery"].dropna(subset=["ssthresh_segments"])
    return 1 - (cuts["ssthresh_segments"] / cuts["cwnd_segments"]).to_numpy()


def growth_per_round_trip(trace: pd.DataFrame, round_trip_s: float) -> float:
    """Segments the window gains per round trip while the connection is Open (congestion
    avoidance between recoveries: Illinois's alpha as it acted)."""
    events = trace[trace["event"].isin(["cwnd", "state"])]
    state = events["value"].where(events["event"] == "state").ffill().fillna(0)
    cwnd = events[events["event"] == "cwnd"]
    open_ = state[cwnd.index].to_numpy() == 0
    gain = np.diff(cwnd["value"].to_numpy(), append=np.nan) / SEGMENT_B
    lasts = np.diff(cwnd["t_s"].to_numpy(), append=trace["t_s"].max())
    # a gain is the step from a window to the next, counted when it was Open throughout
    grown = np.nansum(np.where(open_ & (gain > 0), gain, 0))
    return float(grown / (lasts[open_].sum() / round_trip_s))


def row(trace_path: Path) -> dict:
    trace = tcp_events.read(trace_path)
    result = json.loads(trace_path.with_suffix(".json").read_text())
    cwnd = trace[trace["event"] == "cwnd"]
    t = cwnd["t_s"].to_numpy()
    durations = np.diff(np.append(t, trace["t_s"].max()))
    below = (cwnd["value"].to_numpy() / SEGMENT_B < WIN_THRESH_SEGMENTS) * durations
    rtts = round_trips(trace)
    largest = rtts["rtt_s"].idxmax()
    beta = decreases(trace)
    return {
        "run": int(trace_path.stem.removeprefix("run")),
        "goodput_kBps": round(result["metrics"]["goodput_Bps"] / 1e3),
        "recoveries": len(beta),
        "mean_cwnd": round(tcp_events.mean_cwnd_segments(trace), 1),
        "growth_per_rtt": round(growth_per_round_trip(trace, rtts["rtt_s"].min()), 2),
        "below_thresh": round(below.sum() / durations.sum(), 3),
        "cuts_at_beta_min": round(float((beta <= BETA_MIN_AT_MOST).mean()), 3),
        "cuts_at_beta_max": round(float((beta >= BETA_MAX_AT_LEAST).mean()), 3),
        "base_rtt_ms": round(rtts["rtt_s"].min() * 1e3, 2),
        "max_rtt_ms": round(rtts["rtt_s"].max() * 1e3, 2),
        "max_rtt_at_s": round(rtts["sent_s"][largest], 2),
        "mean_beta": round(float(beta.mean()), 3),
    }


def parse_runs(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def parser_for(doc: str, out: str) -> argparse.ArgumentParser:
    """The options of the illinois benchmarks: where to write, which of ns-3's runs, a cut."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "results/benchmarks" / out)
    parser.add_argument("--runs", type=parse_runs, default=parse_runs("1-12"))
    parser.add_argument("--writes", type=int, help="a cut of the transfer (a quick check)")
    return parser


def ns3_rows(args: argparse.Namespace, suffix: str, make, read) -> list[dict]:
    """Each of ns-3's runs made with `make(out, rep, writes)` into OUT/runREP.SUFFIX (kept
    ones read as they are), then read with `read`."""
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for rep in args.runs:
        path = args.out / f"run{rep}.{suffix}"
        if not (path.exists() and path.with_suffix(".json").exists()):
            path = make(args.out, rep, args.writes)
        rows.append(read(path))
        print(f"illinois ns-3 run {rep}: {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    args = parser_for(__doc__, "illinois-spread").parse_args()
    table = pd.DataFrame(ns3_rows(args, "csv", run, row)).sort_values("run")
    table.to_csv(args.out / "illinois_spread_traced.csv", index=False)
    print(table.to_string(index=False))
    others = table.drop(columns=["run", "goodput_kBps"])
    print("\nSpearman's rank correlation with goodput:")
    print(others.corrwith(table["goodput_kBps"], method="spearman").round(2).to_string())


if __name__ == "__main__":
    main()
