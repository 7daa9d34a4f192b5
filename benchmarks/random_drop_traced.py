"""random-drop traced side by side (issue 30): why ns-3's Linux 6.1 is slower than the emulated
one between drop rates 0.03 and 0.11.

    .venv/bin/python benchmarks/random_drop_traced.py --emulated E.csv.gz [...] --ns3 N.csv [...]

The traces come from the two backends at one drop rate (docs/variants.md, "random-drop traced"):

    python -m emusim.backends.mininet batch --scenario scenarios/random-drop.yaml --scale paper \\
        --profile linux-6.1 --delay-json results/delay/one_way_delay.json --results-dir DIR \\
        --place vm --where drop_rate=0.044 --trace all --trace-only --repetitions 1
    build/ns3/testbed-2001 <a run JSON's provenance.command> --traceFile=N.csv --output=N.json

Per trace it prints what emusim.analysis.tcp_events derives: elapsed time, timeouts by cause, the
share of transmissions sent with a window of at most 3 segments, the recoveries and how many found
the window at its floor (2 segments), also with the window read one ACK late as the
emulation's trace reads it (for ns-3's traces: the number comparable with the emulation's),
and for a recovery found at k segments the share whose next cut finds the floor again, split
for recoveries found at 3-4 segments by whether CUBIC's origin, replayed from the cuts, lies
above the window they leave. Writes OUT/random_drop_traced.csv.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from emusim.analysis import tcp_events

SEGMENT_B = 1448
SMALL_WINDOW_SEGMENTS = 3


def trap_by_origin(cuts: pd.DataFrame) -> dict[str, float]:
    """For recoveries found at 3 or 4 segments: the share whose next cut is a recovery found at
    the floor, where the replayed origin lies above the window left and where it does not."""
    above = tcp_events.cubic_origin_above(cuts).to_numpy()[:-1]
    found = cuts["cwnd_segments"].to_numpy()
    recovery = cuts["kind"].to_numpy() == "recovery"
    small = recovery[:-1] & ((found[:-1] == 3) | (found[:-1] == 4))
    next_floor = recovery[1:] & (found[1:] == tcp_events.FLOOR_SEGMENTS)
    out = {}
    for name, where in (("origin_above", small & above), ("origin_not_above", small & ~above)):
        out[f"after_3_4_{name}_n"] = int(where.sum())
        out[f"after_3_4_{name}_next_at_floor"] = (
            float(next_floor[where].mean()) if where.any() else float("nan")
        )
    return out


def floor_entries_read_late(trace: pd.DataFrame) -> int:
    """Recoveries found at the floor, the window read as the emulation's trace reads it: at
    tcp_rate_gen, before that ACK's congestion control (tcp_input.c:4033-4034), so the last
    window written before the entry is the one from before the ACK preceding the entry's ACK.
    For an ns-3 trace (which writes every change of the window as it happens) this gives the
    number comparable with the emulation's."""
    events = trace["event"].to_numpy()
    values = trace["value"].to_numpy()
    cwnd = float("nan")
    before_ack = [float("nan"), float("nan")]  # the window before the last two ACKs
    state = 0
    found = 0
    for event, value in zip(events, values, strict=True):
        if event == "cwnd":
            cwnd = value / SEGMENT_B
        elif event == "ack":
            before_ack = [before_ack[1], cwnd]
        elif event == "state":
            new = int(value)
            entering = new == tcp_events.STATE_RECOVERY and state not in (
                tcp_events.STATE_RECOVERY,
                tcp_events.STATE_LOSS,
            )
            if entering and round(before_ack[0]) == tcp_events.FLOOR_SEGMENTS:
                found += 1
            state = new
    return found


def small_window_share(trace: pd.DataFrame) -> float:
    """The share of transmissions sent while the window was at most SMALL_WINDOW_SEGMENTS."""
    cwnd = trace[trace["event"] == "cwnd"]
    tx = trace[trace["event"] == "tx"]
    at = np.searchsorted(cwnd["time_ns"].to_numpy(), tx["time_ns"].to_numpy(), side="right") - 1
    window = cwnd["value"].to_numpy()[np.clip(at, 0, None)] / SEGMENT_B
    return float((window[at >= 0] <= SMALL_WINDOW_SEGMENTS).mean())


def row(backend: str, path: Path) -> dict:
    trace = tcp_events.read(path)
    summary = tcp_events.summary(trace)
    cuts = tcp_events.reductions(trace, SEGMENT_B)
    trap = tcp_events.window_trap(cuts)
    return {
        "backend": backend,
        "trace": str(path),
        "elapsed_s": round(summary["elapsed_s"], 3),
        "dropper_drops": summary["dropper_drops"],
        "timeouts_retransmission_lost": summary["timeouts_retransmission_lost"],
        "timeouts_too_few_dupacks": summary["timeouts_too_few_dupacks"],
        "tx_at_small_window": round(small_window_share(trace), 3),
        # the emulation's own trace is already read late
        "recoveries_at_floor_read_late": (
            floor_entries_read_late(trace) if backend == "ns3" else trap["recoveries_at_floor"]
        ),
        **{
            k: round(v, 3) if isinstance(v, float) else v
            for k, v in {**trap, **trap_by_origin(cuts)}.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--emulated", nargs="+", type=Path, default=[])
    parser.add_argument("--ns3", nargs="+", type=Path, default=[])
    parser.add_argument("--out", type=Path, default=Path("benchmarks/out"))
    args = parser.parse_args()
    rows = [row("mininet", p) for p in args.emulated] + [row("ns3", p) for p in args.ns3]
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", None):
        print(table.drop(columns="trace").T.to_string())
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "random_drop_traced.csv", index=False)


if __name__ == "__main__":
    main()
