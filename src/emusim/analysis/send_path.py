"""Why a lost segment's retransmission waited, from an emulated run's tracefs text with the
send-path probes (emusim.linux.tcp_tracefs; `batch --trace all --trace-raw --trace-send-path`).

Linux 6.1 retransmits a segment marked lost only from `tcp_xmit_retransmit_queue`, which an ACK
calls (`tcp_xmit_recovery`, net/ipv4/tcp_input.c:3851-3866) and the pacing timer's or small
queues' work calls (`tcp_tsq_write`, net/ipv4/tcp_output.c:1011-1027), each before it sends new
data; the application's write sends new data only (`tcp_push`, `tcp_push_one` ->
`tcp_write_xmit`, net/ipv4/tcp.c:1445-1466). Every one of them sends nothing while the pacing
clock is ahead of the socket's clock (`tcp_pacing_check`, tcp_output.c:2486-2502), and a sent
packet moves the pacing clock on by its length at the pacing rate. So a packet of new data
takes the next slot, and the lost segment waits a packet longer, when what sends it finds the
clock passed where the last retransmission check did not: the application's write, reaching
`tcp_write_xmit` after the clock passed; or the ACK's own `tcp_write_xmit`, which reads the
clock again (`tcp_mstamp_refresh`, tcp_output.c:2643) after the ACK's processing.

- `events`: the run's send-path events, one row each (`KINDS`), times from the SYN as the
  trace's CSV has them (emusim.linux.tracefs_convert).
- `new_data_ahead`: each packet of new data sent while a segment marked lost had not been
  retransmitted, with what sent it (the event just before it).
- `waits`: each retransmitted lost segment's wait from the first ACK that SACKed a segment
  above it to its retransmission, and the packets of new data sent in that time by sender.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from emusim.linux import tracefs_convert as tc

KINDS = {
    "rtxq": "retransmit_check",
    "push": "application_write",
    "push_one": "application_write",
    "kick": "pacing_timer",
    "release_cb": "release_cb",
    "ack": "ack",
}
"""Each probe's row kind; transmissions are `new` or `retransmission` (below snd_nxt)."""
SENDERS = ("application_write", "ack", "pacing_timer", "release_cb")
TCP_SYN = 0x02


def events(lines: Iterable[str], pacing_timer_offset: int) -> pd.DataFrame:
    """The traced connection's send-path events: `t_s` (from its SYN), `kind`, `pending`
    (segments marked lost and not retransmitted, lost_out − retrans_out, at a retransmission
    check), `ahead_us` (the pacing clock ahead of the socket's clock there), `pacing_Bps`,
    `segments` (of a transmission). ``pacing_timer_offset``: the byte offset of `pacing_timer`
    in `tcp_sock` (the run's `provenance.mininet.trace.offsets`), which names the socket a
    timer belongs to."""
    rows = []
    sk = isn = t0 = None
    mss = 0
    for e in tc.parse(lines):
        if sk is None:
            if e.name == "tx" and e.int("flags") & TCP_SYN and e.int("dport"):
                sk, t0 = e.fields["sk"], e.ts_us
                isn = tc._two(e, "seqs", "seq", "end")[0]
            continue
        t = (e.ts_us - t0) / 1e6
        if e.name == "kick":
            if e.int("timer") - pacing_timer_offset == int(sk, 16):
                rows.append((t, "pacing_timer", np.nan, np.nan, np.nan, 0))
            continue
        if e.fields.get("sk") != sk:
            continue
        if e.name == "tx":
            seq, end = tc._two(e, "seqs", "seq", "end")
            flags = e.int("flags")  # a SYN and a FIN take a sequence number each
            payload = (end - seq) % tc.MOD - bool(flags & TCP_SYN) - bool(flags & tc.TCP_FIN)
            if payload <= 0:
                continue
            mss = mss or e.int("mss")
            below_nxt = (seq - isn - 1) % tc.MOD < (e.int("nxt") - isn - 1) % tc.MOD
            kind = "retransmission" if below_nxt else "new"
            rows.append((t, kind, np.nan, np.nan, np.nan, -(-payload // mss)))
        elif e.name == "rtxq":
            lost, _sacked = tc._two(e, "marks", "lost", "sacked")
            _pout, retrans = tc._two(e, "out", "pout", "retrans")
            ahead_us = (e.int("wstamp") - e.int("clock")) / 1e3
            rows.append((t, "retransmit_check", lost - retrans, ahead_us, e.int("pacing_rate"), 0))
        elif e.name in KINDS:
            rows.append((t, KINDS[e.name], np.nan, np.nan, np.nan, 0))
    if sk is None:
        raise ValueError("the trace has no SYN of the traced connection")
    return pd.DataFrame(
        rows, columns=["t_s", "kind", "pending", "ahead_us", "pacing_Bps", "segments"]
    )


def new_data_ahead(ev: pd.DataFrame) -> pd.DataFrame:
    """Each packet of new data sent while a segment marked lost waited (`pending` of the last
    retransmission check, less the segments retransmitted since, above 0): its time, its
    `sender` (the last event before it other than a transmission or a retransmission check),
    `ahead_us` of that check (how far the pacing clock was ahead when it sent nothing) and its
    `segments` (a GSO packet's)."""
    out = []
    pending, ahead, sender = 0, np.nan, None
    columns = ["t_s", "kind", "pending", "ahead_us", "segments"]
    for t, kind, p, a, segments in ev[columns].itertuples(index=False):
        if kind == "retransmit_check":
            pending, ahead = p, a
        elif kind == "retransmission":
            pending -= segments
        elif kind == "new":
            if pending > 0:
                out.append((t, sender, ahead, segments))
        else:
            sender = kind
    return pd.DataFrame(out, columns=["t_s", "sender", "ahead_us", "segments"])


def waits(trace: pd.DataFrame, ahead: pd.DataFrame) -> pd.DataFrame:
    """Each lost segment (dropped on its way, then retransmitted) of a trace read by
    emusim.analysis.tcp_events: `drop_to_retransmission_ms`, `sacked_above_to_retransmission_ms`
    (from the first ACK that SACKed a segment above it, which RACK with no reordering seen
    marks it lost on), and how many packets of `new_data_ahead` each sender sent in that time."""
    tx = trace[trace["event"] == "tx"]
    again = tx[tx["value"] == 1].groupby("segment")["t_s"].min()
    drops = trace[(trace["event"] == "drop") & (trace["value"] == 0)]
    dropped = drops.groupby("segment")["t_s"].min()
    dropped = dropped[dropped.index.isin(again.index)]
    sack = trace[trace["event"] == "sack"]
    ends = (sack["segment"] + sack["value"]).groupby(sack["t_s"]).max()
    at, highest = ends.index.to_numpy(), np.maximum.accumulate(ends.to_numpy())
    t_ahead, by = ahead["t_s"].to_numpy(), ahead["sender"].to_numpy()
    rows = []
    for segment, t_drop in dropped.items():
        i = np.searchsorted(at, t_drop)
        j = i + int(np.argmax(highest[i:] > segment)) if (highest[i:] > segment).any() else None
        if j is None:
            continue
        t_sacked, t_again = at[j], again[segment]
        a, b = np.searchsorted(t_ahead, t_sacked, "right"), np.searchsorted(t_ahead, t_again)
        counts = {s: int((by[a:b] == s).sum()) for s in SENDERS}
        rows.append(
            {
                "segment": segment,
                "drop_to_retransmission_ms": (t_again - t_drop) * 1e3,
                "sacked_above_to_retransmission_ms": (t_again - t_sacked) * 1e3,
                **{f"new_by_{s}": n for s, n in counts.items()},
                "new_ahead": sum(counts.values()),
            }
        )
    return pd.DataFrame(rows)
