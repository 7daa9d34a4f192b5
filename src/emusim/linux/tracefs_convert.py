"""From the text of a tracefs instance (`emusim.linux.tcp_tracefs`) to the CSV of ns-3's
TcpEventTrace (sim/ns3/model/tcp-event-trace.h), so that `emusim.analysis.tcp_events` reads both.

Pure functions: `parse` reads the trace's lines, `convert` follows one connection through
them and returns the rows ``time_ns,event,segment,value`` with what it counted.

The events, as ns-3's trace defines them, from what the kernel recorded:

- ``tx``: a segment carrying data left the socket (``__tcp_transmit_skb``); value 1 when it
  starts below ``snd_nxt`` (a retransmission, as the kernel counts them; ns-3 decides it by
  the highest byte sent, which is the same unless a transmission failed in the sender's own
  queue and went again as new data).
- ``ack``: the socket took an ACK while it had data outstanding (``tcp_rate_gen``, from
  ``tcp_ack``; after the first data was sent); segment = the ACK number's segment, value 1 if
  it acknowledged nothing new. ACKs that find nothing outstanding (after the last byte and the
  FIN are acknowledged) are not traced; ns-3 writes those too.
- ``cwnd``, ``ssthresh`` (bytes: segments × the socket's MSS), ``rto`` (seconds): written
  when a probe sees a new value, as ns-3 writes them when they change: the window an ACK
  leaves shows at the transmission it lets out (the same microsecond), else at the next ACK;
  ssthresh's initial "infinite" (0x7fffffff segments) is not written.
- ``state``: the congestion state entered (``tcp:tcp_cong_state_set``; 0 Open, 1 Disorder,
  2 CWR, 3 Recovery, 4 Loss: Linux's numbering is ns-3's), when it differs from the last.
- ``drop``: a data segment toward the receiver dropped on its way (``kfree_skb_reason``);
  value 0 when netfilter dropped it (the dropper) or a qdisc of the impaired link did (its
  random loss; an overflow of that qdisc is not told apart), 1 when another qdisc did (a
  full queue).

and three only this trace has (`emusim.analysis.tcp_events` ignores what it does not know):

- ``timeout``: a retransmission timeout fired (``tcp_retransmit_timer`` with packets out);
  segment = the first unacknowledged segment (-1 for the SYN's), value = the timeout that
  expired (s).
- ``inflight``: packets in flight once each ACK's acknowledgements and loss marks are taken,
  before what it lets out: packets out − (SACKed + lost) + retransmitted, Linux's
  ``tcp_packets_in_flight``.
- ``sack``: each SACK block an ACK carries (its TCP options): segment = the block's first
  segment, value = segments it covers.

Time is the guest's CLOCK_MONOTONIC (the ``mono`` trace clock) less the time the connection's
SYN left, in ns; tracefs prints microseconds, so times are whole microseconds. A segment is
``(seq − ISN − 1) // MSS``, the ISN being the SYN's sequence number: ns-3's data starts at
sequence 1, so the two traces number segments alike.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from emusim.linux.tcp_tracefs import RAW_ONLY_EVENTS  # not converted: the tracefs text has them

HEADER = "time_ns,event,segment,value"
TCP_FIN, TCP_SYN = 0x01, 0x02
INFINITE_SSTHRESH = 0x7FFFFFFF
MOD = 1 << 32

_LINE = re.compile(
    r"^\s*(?P<task>.*?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(?P<cpu>\d+)\]\s+"
    r"(?:(?P<flags>\S+)\s+)?(?P<ts>\d+)\.(?P<us>\d{6}):\s+(?P<name>\w+):\s?(?P<body>.*)$"
)
_FIELD = re.compile(r'(\w+)=("[^"]*"|\{[^}]*\}|\S+)')


@dataclass(frozen=True)
class Event:
    ts_us: int
    name: str
    fields: dict[str, str]

    def int(self, key: str) -> int:
        return int(self.fields[key], 0)


def parse(lines: Iterable[str]) -> Iterator[Event]:
    """The events of a tracefs ``trace`` file, one by one (comment lines skipped): a long
    run's trace is read and converted as it streams, never held whole."""
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            raise ValueError(f"not a trace line: {line!r}")
        fields = dict(_FIELD.findall(m["body"]))
        yield Event(int(m["ts"]) * 1_000_000 + int(m["us"]), m["name"], fields)


def packet_bytes(value: str, width: int = 8) -> bytes:
    """A kprobe's array of ``width``-byte words (``{0x...,0x...}``; x86 reads memory as
    little-endian words) as the bytes in memory."""
    words = [int(x, 16) for x in value.strip("{}").split(",") if x]
    return b"".join(w.to_bytes(width, "little") for w in words)


def sack_blocks(header: bytes) -> list[tuple[int, int]]:
    """(start, end) sequence numbers of the SACK option of a TCP header with its options."""
    if len(header) < 20:
        return []
    end = min(len(header), (header[12] >> 4) * 4)
    i, out = 20, []
    while i < end:
        kind = header[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= end or header[i + 1] < 2:
            break
        size = header[i + 1]
        if kind == 5:
            for j in range(i + 2, min(i + size, end) - 7, 8):
                out.append((int.from_bytes(header[j : j + 4], "big"),
                            int.from_bytes(header[j + 4 : j + 8], "big")))  # fmt: skip
        i += size
    return out


def _two(e: Event, name: str, lo: str, hi: str) -> tuple[int, int]:
    """Two 32-bit members a probe read as one 64-bit word ``name``, or as two."""
    if name in e.fields:
        v = e.int(name)
        return v & 0xFFFFFFFF, v >> 32
    return e.int(lo), e.int(hi)


def data_segment(pkt: bytes, port: int) -> tuple[int, int] | None:
    """(sequence number, payload bytes) of a TCP segment to ``port`` whose head is ``pkt``
    (from the MAC header, as a qdisc holds it, or from the IP header, as netfilter's output
    hooks do); None for anything else."""
    if len(pkt) >= 34 and pkt[12:14] == b"\x08\x00" and pkt[14] >> 4 == 4:
        ip = 14
    elif pkt and pkt[0] >> 4 == 4:
        ip = 0
    else:
        return None
    ihl = (pkt[ip] & 0x0F) * 4
    tcp = ip + ihl
    if len(pkt) < tcp + 13 or pkt[ip + 9] != 6:
        return None
    if int.from_bytes(pkt[tcp + 2 : tcp + 4], "big") != port:
        return None
    total = int.from_bytes(pkt[ip + 2 : ip + 4], "big")
    payload = total - ihl - (pkt[tcp + 12] >> 4) * 4
    return int.from_bytes(pkt[tcp + 4 : tcp + 8], "big"), payload


def csv_line(t: int, event: str, segment: int, value: float | int) -> str:
    """One row of the CSV, with its newline."""
    v = repr(value) if isinstance(value, float) else str(value)
    return f"{t},{event},{segment},{v}\n"


@dataclass
class Conversion:
    """The rows (kept only when `convert` has no sink) and what the conversion counted."""

    rows: list[tuple[int, str, int, float | int]] = field(default_factory=list)
    facts: dict = field(default_factory=dict)

    def csv(self) -> str:
        return HEADER + "\n" + "".join(csv_line(*row) for row in self.rows)


def _seconds(jiffies: int, hz: int) -> float:
    return round(jiffies / hz, 9)


def convert(
    events: Iterable[Event],
    port: int,
    hz: int,
    drop_reasons: dict[str, int] | None = None,
    impaired_devs: Iterable[str] = (),
    sink: Callable[[str], object] | None = None,
) -> Conversion:
    """The rows of the connection to ``port`` whose SYN comes first in ``events`` (one pass).

    With a ``sink``, each row goes to it as a CSV line (`csv_line`) as it is made, and the
    conversion keeps none: a paper-scale run has millions of rows, more than the guest's
    memory holds as Python objects (a 1 GB lossy-link transfer at 5 % loss: about 3 million).

    ``hz`` converts icsk_rto (jiffies) to seconds; ``drop_reasons`` maps the drop probe's
    reason names to their values (`tcp_trace.DROP_REASONS`); ``impaired_devs`` are the
    devices whose qdisc drops are the impairment's (netem's random loss). The segment size
    is the socket's MSS when it sends its first data (before, ``mss_cache`` holds a default).
    """
    sk, isn, t0 = None, 0, 0  # the connection: its SYN's socket, sequence number and time
    netfilter = (drop_reasons or {}).get("SKB_DROP_REASON_NETFILTER_DROP")
    impaired = set(impaired_devs)
    out = Conversion()
    rows = out.rows
    counts: Counter[str] = Counter()
    last: dict[str, float] = {}
    state = 0
    mss = 0  # the segment size, from the first data segment on
    high = 0  # one past the highest data byte sent (relative to ISN + 1)
    high_ack: int | None = None
    sacks: list[tuple[int, int]] | None = None  # the SACK blocks of the ACK being taken

    def rel(seq: int) -> int:
        return (seq - isn - 1) % MOD

    last_t = n_rows = 0

    def put(t: int, event: str, segment: int, value: float | int) -> None:
        nonlocal last_t, n_rows
        if sink is None:
            rows.append((t, event, segment, value))
        else:
            sink(csv_line(t, event, segment, value))
        counts[event] += 1
        n_rows += 1
        last_t = t
        if event == "ack" and value == 1:
            counts["duplicate_acks"] += 1
        elif event == "state":
            counts[f"state_{value}"] += 1

    def snapshot(e: Event, t: int) -> None:
        ssthresh, cwnd = _two(e, "win", "ssthresh", "cwnd")
        values: dict[str, float] = {"cwnd": cwnd * mss}
        if "rto" in e.fields:
            values["rto"] = _seconds(e.int("rto"), hz)
        if ssthresh < INFINITE_SSTHRESH:
            values["ssthresh"] = ssthresh * mss
        for key in ("cwnd", "ssthresh", "rto"):
            if key in values and last.get(key) != values[key]:
                last[key] = values[key]
                put(t, key, -1, values[key])

    for e in events:
        if sk is None:  # before the connection's SYN
            if e.name != "tx" or not e.int("flags") & TCP_SYN or not e.int("dport"):
                continue
            sk, isn, t0 = e.fields["sk"], _two(e, "seqs", "seq", "end")[0], e.ts_us
        t = (e.ts_us - t0) * 1000
        name = e.name
        if name == "tcp_cong_state_set":
            if e.fields.get("skaddr") in (None, sk) and e.int("cong_state") != state:
                state = e.int("cong_state")
                put(t, "state", -1, state)
            continue
        if name == "tcp_retransmit_skb":
            if e.fields.get("skaddr") in (None, sk):
                counts["kernel_retransmits"] += 1
            continue
        if name == "drop":
            seg = data_segment(packet_bytes(e.fields.get("pkt", "")), port)
            if seg is not None and (seg[1] <= 0 or not mss):
                counts["control_drops"] += 1  # a SYN, a FIN or an ACK without data
            elif seg is not None:
                dev = e.fields.get("dev", "").strip('"')
                by_impairment = e.int("reason") == netfilter or dev in impaired
                put(t, "drop", rel(seg[0]) // mss, 0 if by_impairment else 1)
            continue
        if e.fields.get("sk") != sk or name in RAW_ONLY_EVENTS:
            continue  # another socket's; or a send-path probe's (in the tracefs text only)
        if name == "tx":
            sacks = None
            flags = e.int("flags")
            seq, end = _two(e, "seqs", "seq", "end")
            control = bool(flags & TCP_SYN) + bool(flags & TCP_FIN)
            payload = (end - seq) % MOD - control
            if payload > 0:
                if not mss:
                    mss = e.int("mss")
                # one skb may hold several segments (tcp_skb_pcount): one tx each, as on
                # the wire
                start = rel(seq)
                # below snd_nxt: a retransmission (a new segment's sequence number is
                # snd_nxt, advanced only once it is sent); else below the highest byte sent
                limit = rel(e.int("nxt")) if "nxt" in e.fields else high
                for offset in range(0, payload, mss):
                    retransmission = start + offset < limit
                    put(t, "tx", (start + offset) // mss, 1 if retransmission else 0)
                    counts["retransmitted_segments" if retransmission else "new_segments"] += 1
                high = max(high, start + payload)
            elif control:
                # a SYN or a FIN without data: no tx row (ns-3's trace has none), but the
                # kernel counts its retransmission (tcpi_total_retrans, the tracepoint)
                key = "syn" if flags & TCP_SYN else "fin"
                counts["control_retransmissions"] += bool(counts[f"{key}_sent"])
                counts[f"{key}_sent"] += 1
            if flags & TCP_FIN and payload > 0:
                counts["fin_sent"] += 1  # the FIN rode on the last data
        elif name == "ack" and mss:
            # tcp_rate_gen: the ACK's acknowledgements are taken, snd_una is its number
            ack = rel(e.int("una"))
            duplicate = high_ack is not None and ack <= high_ack
            if not duplicate:
                high_ack = ack
            put(t, "ack", ack // mss, 1 if duplicate else 0)
            pout, retrans = _two(e, "out", "pout", "retrans")
            lost, sacked = _two(e, "marks", "lost", "sacked")
            put(t, "inflight", -1, pout - (sacked + lost) + retrans)
            # tcp_ack read this ACK's SACK blocks (tcp_sacktag_write_queue) before it
            for start, stop in sacks or []:
                put(t, "sack", rel(start) // mss, ((stop - start) % MOD) // mss)
            sacks = None
        elif name == "sack":
            # an ACK with SACK blocks, its header from the data offset on; its ack event
            # follows before any transmission (one that ends otherwise was an old ACK's)
            sacks = sack_blocks(bytes(12) + packet_bytes(e.fields.get("hdr", "")))
            continue
        elif name == "pto" and mss:
            # the probe timer expired (whether a probe went out: the next tx): srtt, s
            put(t, "pto", rel(e.int("una")) // mss, round(e.int("srtt") / 8e6, 9))
        elif name == "rto" and e.int("pout") > 0:
            # segment -1: the SYN's timeout, before any data
            segment = rel(e.int("una")) // mss if mss else -1
            put(t, "timeout", segment, _seconds(e.int("rto"), hz))
        if mss:
            snapshot(e, t)
    if sk is None:
        raise ValueError("the trace has no SYN of the traced connection")
    out.facts = {
        "isn": isn,
        "mss": mss,
        "events": n_rows,
        "tx": counts["tx"],
        "retransmissions": counts["retransmitted_segments"],
        "syn_sent": counts["syn_sent"],
        "fin_sent": counts["fin_sent"],
        "control_retransmissions": counts["control_retransmissions"],
        "kernel_retransmits": counts["kernel_retransmits"],
        "acks": counts["ack"],
        "duplicate_acks": counts["duplicate_acks"],
        "timeouts": counts["timeout"],
        "probe_timeouts": counts["pto"],
        "state_changes": counts["state"],
        "recoveries": counts["state_3"],
        "losses": counts["state_4"],
        "drops": counts["drop"],
        "control_drops": counts["control_drops"],
        "sack_blocks": counts["sack"],
        "bytes_sent": high,
        "highest_ack": high_ack,
        "duration_ns": last_t,
    }
    return out
