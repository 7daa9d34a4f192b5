"""Reading the TCP event traces of sim/ns3 (TcpEventTrace) and explaining a run from them.

A trace is CSV ``time_ns,event,segment,value`` (sim/ns3/model/tcp-event-trace.h): `tx` (value
1 = retransmission), `drop` (value 0 = the dropper, 1 = a full queue), `ack` (value 1 =
duplicate), `cwnd`, `ssthresh` (bytes), `rto` (s), `state` (0 open … 3 recovery, 4 loss).
The emulation's traces of Linux's sender are in the same CSV (emusim.linux.tracefs_convert;
docs/mininet.md, "Tracing the emulated TCP") with four events more, `timeout`, `inflight`,
`sack` and `pto`, which what follows does not read.

What this module derives, each from the trace alone:

- `timeouts`: every entry into the Loss state (a retransmission timeout that starts a series)
  and its cause: the head segment had been retransmitted before (its retransmission was lost),
  or not (too few duplicate ACKs came back for a fast retransmit).
- `dropper_slots`: for the regular dropper, the place of every transmitted data packet in the
  dropper's count (1 … N; the N-th is dropped), so one sees which retransmissions fell on the
  dropped slot.
- `summary`: counts and times: elapsed, RTO waiting time, timeouts by cause, mean window.
- `reductions`: every cut of the window (a recovery or a timeout series begun from an open
  state) with the window it cut, and `window_trap`: how often the cut leaves the window at
  its floor of two segments. There CUBIC, with its origin at the window (a last maximum no
  larger), grows only when its growth is recomputed, at most every HZ/32 while the window does
  not change (32 ms at HZ 250; tcp_cubic.c:221-223), so at a few percent loss the next loss
  comes first.
- `ack_stalls`: the pauses of the ACK clock that no loss explains (an emulator's artefact when
  it has any: docs/mininet.md, "One CPU for every machine").
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

STATE_LOSS = 4
STATE_RECOVERY = 3
RTO_GAP_S = 0.15
"""A pause between two transmissions longer than this is a retransmission timeout's wait
(the smallest RTO of any profile here is 200 ms; a LAN round trip is under 1 ms)."""


def read(path: str | Path) -> pd.DataFrame:
    """A trace as a frame with `t_s` (seconds) added; gzip is read transparently."""
    frame = pd.read_csv(path)
    expected = ["time_ns", "event", "segment", "value"]
    if list(frame.columns) != expected:
        raise ValueError(f"{path}: columns {list(frame.columns)}, expected {expected}")
    return frame.assign(t_s=frame["time_ns"] / 1e9)


def timeouts(trace: pd.DataFrame) -> pd.DataFrame:
    """One row per timeout series: time, head segment, its transmissions so far, cause, and
    segments outstanding (highest sent − head + 1)."""
    sent: Counter[int] = Counter()
    head = 0
    highest = -1
    state = 0
    rows = []
    for event, segment, value, t in trace[["event", "segment", "value", "t_s"]].itertuples(
        index=False, name=None
    ):
        if event == "tx":
            sent[segment] += 1
            highest = max(highest, segment)
        elif event == "ack" and value == 0:
            head = max(head, segment)
        elif event == "state":
            if value == STATE_LOSS and state != STATE_LOSS:
                rows.append(
                    {
                        "t_s": t,
                        "segment": head,
                        "transmissions": sent[head],
                        "cause": "retransmission lost" if sent[head] >= 2 else "too few dupacks",
                        "outstanding": highest - head + 1,
                    }
                )
            state = value
    return pd.DataFrame(rows, columns=["t_s", "segment", "transmissions", "cause", "outstanding"])


def dropper_slots(trace: pd.DataFrame, every_n: int) -> pd.DataFrame:
    """Every data transmission with its slot in the regular dropper's count.

    The dropper counts the packets to the receiver and drops the N-th. Data packets reach the
    router in the order they were sent, so a transmission's slot is one more than the number
    of transmissions since the last one dropped; the dropped ones are those a `drop` event of
    the dropper names (the latest transmission of that segment before the drop). Packets the
    trace does not hold (the SYN, the handshake's ACK) shift only the first cycle.
    """
    tx = trace[trace["event"] == "tx"].reset_index(drop=True)
    drops = trace[(trace["event"] == "drop") & (trace["value"] == 0)]
    dropped = np.zeros(len(tx), dtype=bool)
    times = tx["t_s"].to_numpy()
    by_segment = {seg: idx.to_numpy() for seg, idx in tx.groupby("segment").groups.items()}
    for seg, t in drops[["segment", "t_s"]].itertuples(index=False, name=None):
        candidates = by_segment.get(seg)
        if candidates is None:
            continue
        before = candidates[times[candidates] <= t]
        if len(before):
            dropped[before[-1]] = True
    slots = np.zeros(len(tx), dtype=int)
    count = 0
    for i in range(len(tx)):
        count += 1
        slots[i] = count
        if dropped[i]:
            count = 0
    out = tx[["t_s", "segment"]].assign(
        retransmission=tx["value"].astype(int) == 1, slot=slots, dropped=dropped
    )
    if every_n > 0 and (out.loc[out["dropped"], "slot"].iloc[1:] != every_n).any():
        raise ValueError(
            f"drops at slots {sorted(set(out.loc[out['dropped'], 'slot']))}, not every {every_n}: "
            "is this a regular-dropper trace?"
        )
    return out


ACK_STALL_S = 0.002
"""A pause between two ACKs longer than this, with data outstanding, stops the ACK clock: on the
2001 study's LAN a round trip is under 1 ms, and the delayed-ACK timer is 40 ms."""


def ack_stalls(trace: pd.DataFrame, gap_s: float = ACK_STALL_S) -> pd.DataFrame:
    """Every pause of more than `gap_s` between two ACKs while data was outstanding and none
    of the outstanding segments (from the last ACK's segment to the highest sent) was
    dropped: time the sender waited for an ACK that no loss delayed. Columns `t_s` (the last
    ACK before the pause), `gap_s`, `outstanding` (segments)."""
    dropped: set[int] = set()
    highest, acked, last_ack = -1, 0, None
    rows = []
    for event, segment, t in trace[["event", "segment", "t_s"]].itertuples(index=False, name=None):
        if event == "drop":
            dropped.add(segment)
        elif event == "tx":
            highest = max(highest, segment)
        elif event == "ack":
            if (
                last_ack is not None
                and t - last_ack > gap_s
                and highest >= acked
                and not any(s in dropped for s in range(acked, highest + 1))
            ):
                rows.append((last_ack, t - last_ack, highest - acked + 1))
            last_ack, acked = t, max(acked, segment)
    return pd.DataFrame(rows, columns=["t_s", "gap_s", "outstanding"])


def reductions(trace: pd.DataFrame, segment_B: int = 1448) -> pd.DataFrame:
    """One row per cut of the window: time, kind (`recovery`, or `timeout` for a Loss state
    entered from an open one), the window it found, in whole segments (the last `cwnd` row
    before the state row: both backends write a window only when it changes), and the
    ssthresh it set, in segments, so that 1 − ssthresh / cwnd is the decrease it applied.
    Both backends write ssthresh only when it changes, the emulation at the first probe after
    the state change: the cut's is the first `ssthresh` row after its state row and before
    the next one, or the ssthresh it found where none comes (the cut left it as it was)."""
    cwnd = ssthresh = float("nan")
    state = 0
    rows: list[list] = []
    waiting = False  # a cut whose ssthresh row may still come
    for event, value, t in trace[["event", "value", "t_s"]].itertuples(index=False, name=None):
        if event == "cwnd":
            cwnd = value / segment_B
        elif event == "ssthresh":
            ssthresh = value / segment_B
            if waiting:
                rows[-1][3] = ssthresh
                waiting = False
        elif event == "state":
            new = int(value)
            waiting = False
            if new in (STATE_RECOVERY, STATE_LOSS) and state not in (STATE_RECOVERY, STATE_LOSS):
                kind = "recovery" if new == STATE_RECOVERY else "timeout"
                rows.append([t, kind, round(cwnd), ssthresh])
                waiting = True
            elif new == STATE_LOSS and state == STATE_RECOVERY:
                rows.append([t, "timeout in recovery", round(cwnd), ssthresh])
                waiting = True
            state = new
    return pd.DataFrame(rows, columns=["t_s", "kind", "cwnd_segments", "ssthresh_segments"])


FLOOR_SEGMENTS = 2
"""The least window a cut leaves (the ssthresh floor of CUBIC, tcp_cubic.c:355, and of Reno)."""


def window_trap(cuts: pd.DataFrame, largest: int = 6) -> dict[str, float]:
    """How the window falls to its floor and stays there: recoveries found at the floor,
    and for a recovery found at k segments (2 … LARGEST) the share whose next cut is a recovery
    found at the floor again."""
    recovery = cuts["kind"].to_numpy() == "recovery"
    found = cuts["cwnd_segments"].to_numpy()
    at_floor = recovery & (found == FLOOR_SEGMENTS)
    out: dict[str, float] = {
        "recoveries": int(recovery.sum()),
        "recoveries_at_floor": int(at_floor.sum()),
    }
    for k in range(FLOOR_SEGMENTS, largest + 1):
        here = recovery[:-1] & (found[:-1] == k)
        n = int(here.sum())
        out[f"next_at_floor_after_{k}"] = float(at_floor[1:][here].mean()) if n else float("nan")
    return out


# CUBIC's beta, 717/1024 (tcp_cubic.c:34, 50); fast convergence keeps (1 + beta) / 2 of the window
CUBIC_BETA_SCALE = 1024
CUBIC_BETA = 717


def cubic_origin_above(cuts: pd.DataFrame) -> pd.Series:
    """Per recovery, whether CUBIC's origin lies above the window the recovery leaves: its last
    maximum, replayed from the windows the cuts found (tcp_cubic.c:341-356: fast convergence
    when the window is below the last maximum; a timeout's Loss state resets it to 0,
    :358-364), against the ssthresh it sets. Where it does not, the window grows only at CUBIC's
    time-gated updates."""
    last_max = 0
    above = []
    for kind, window in cuts[["kind", "cwnd_segments"]].itertuples(index=False, name=None):
        if kind != "recovery":
            last_max = 0
            above.append(False)
            continue
        fast_convergence = window < last_max
        if fast_convergence:
            last_max = window * (CUBIC_BETA_SCALE + CUBIC_BETA) // (2 * CUBIC_BETA_SCALE)
        else:
            last_max = window
        ssthresh = max(window * CUBIC_BETA // CUBIC_BETA_SCALE, FLOOR_SEGMENTS)
        above.append(last_max > ssthresh)
    return pd.Series(above, index=cuts.index)


def mean_cwnd_segments(trace: pd.DataFrame, segment_B: int = 1448) -> float:
    """The congestion window averaged over time, in segments."""
    cwnd = trace[trace["event"] == "cwnd"]
    if cwnd.empty:
        return float("nan")
    t = cwnd["t_s"].to_numpy()
    durations = np.diff(np.append(t, trace["t_s"].max()))
    if durations.sum() <= 0:
        return float(cwnd["value"].iloc[-1] / segment_B)
    return float((cwnd["value"].to_numpy() / segment_B * durations).sum() / durations.sum())


def summary(trace: pd.DataFrame) -> dict[str, float]:
    """The numbers that explain a run's elapsed time."""
    tx = trace[trace["event"] == "tx"]
    gaps = np.diff(tx["t_s"].to_numpy())
    waits = gaps[gaps > RTO_GAP_S]
    series = timeouts(trace)
    causes = series["cause"].value_counts()
    return {
        "elapsed_s": float(trace["t_s"].max()),
        "data_packets": len(tx),
        "retransmissions": int(tx["value"].sum()),
        "dropper_drops": int(((trace["event"] == "drop") & (trace["value"] == 0)).sum()),
        "fast_recoveries": int(
            ((trace["event"] == "state") & (trace["value"] == STATE_RECOVERY)).sum()
        ),
        "timeout_series": len(series),
        "timeouts_retransmission_lost": int(causes.get("retransmission lost", 0)),
        "timeouts_too_few_dupacks": int(causes.get("too few dupacks", 0)),
        "rto_waits": len(waits),
        "rto_wait_s": float(waits.sum()),
        "mean_cwnd_segments": mean_cwnd_segments(trace),
    }
