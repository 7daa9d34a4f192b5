"""Tracing one Linux TCP sender with the kernel's own instrumentation (tracefs), as ns-3's
TcpEventTrace traces its sender (sim/ns3/model/tcp-event-trace.h).

What fires, in Debian's 6.1 (``/sys/kernel/tracing/available_filter_functions`` of the
guest lists every kprobed function; file:line in linux-source-6.1 6.1.192):

- ``tx``, kprobe on ``__tcp_transmit_skb`` (net/ipv4/tcp_output.c:1240): every segment the
  socket sends (SYN, data, retransmission, FIN): its sequence numbers and flags
  (``tcp_skb_cb``), and the socket's ``snd_nxt``, window and MSS.
- ``ack``, kprobe on ``tcp_rate_gen`` (net/ipv4/tcp_rate.c:117), which ``tcp_ack``
  (net/ipv4/tcp_input.c:4033) calls for every ACK that finds data outstanding, in every state
  (ESTABLISHED and FIN_WAIT1 alike), after the ACK's cumulative and selective
  acknowledgement, loss marking and state change, before its window update and what it lets
  out: the ACK number (``snd_una`` then), the socket's window, RTO, packets out,
  retransmitted, lost and SACKed. Only a sender with data outstanding gets there: a probe on
  ``tcp_ack`` itself would also fire, and read, for every out-of-order segment the receiver
  takes on its slow path.
- ``sack``, kprobe on ``tcp_sacktag_write_queue`` (net/ipv4/tcp_input.c:1820), which
  ``tcp_ack`` calls for an ACK with SACK blocks (before ``tcp_rate_gen``): that ACK's TCP
  options.
- ``rto``, kprobe on ``tcp_retransmit_timer`` (net/ipv4/tcp_timer.c:485): a retransmission
  timeout firing, with the timeout that expired (``icsk_rto``).
- ``pto``, kprobe on ``tcp_send_loss_probe`` (net/ipv4/tcp_output.c:2830), which the write
  timer calls when a tail loss probe's timeout expires (``tcp_write_timer_handler``,
  net/ipv4/tcp_timer.c): whether or not a probe then goes out, with ``srtt_us`` (the timeout
  was 2 srtt + 2 ms, in jiffies), ``tlp_high_seq`` (a probe still outstanding sends none), the
  packets out, the window, and the socket's charge in its host and pacing rate, which TCP
  small queues weigh before a probe of new data (``sk_wmem_alloc``, ``sk_pacing_rate``).
- ``drop``, kprobe on ``kfree_skb_reason`` (net/core/skbuff.c:885, ``noinline``, so it
  also sees the packets ``kfree_skb_list_reason`` frees): a packet dropped by netfilter (the
  dropper's rule or module) or by a qdisc (netem's loss, a full queue), with its headers.
- tracepoint ``tcp:tcp_cong_state_set`` (in ``tcp_set_ca_state``, net/ipv4/tcp_cong.c:37):
  every congestion-state change (Open, Disorder, CWR, Recovery, Loss); 6.1 sets
  ``icsk_ca_state`` nowhere else.
- tracepoint ``tcp:tcp_retransmit_skb`` (``__tcp_retransmit_skb``,
  net/ipv4/tcp_output.c:3330): each retransmission the stack sent, the kernel's own count
  beside the trace's.

With ``send_path`` (``batch --trace-send-path``; the guest reads SEND_PATH_ENV), what
decides when a lost segment is retransmitted, for `benchmarks/retransmission_wait_traced.py`
(in the trace's tracefs text only, `--trace-raw`; the CSV leaves them out):

- ``rtxq``, kprobe on ``tcp_xmit_retransmit_queue`` (net/ipv4/tcp_output.c:3367), called from
  an ACK (``tcp_xmit_recovery``, net/ipv4/tcp_input.c:3851) and from the pacing timer's or small
  queues' work (``tcp_tsq_write``, tcp_output.c:1011-1027) while segments marked lost wait:
  ``lost_out`` and ``retrans_out``, the window, the charge in the host and the pacing rate,
  and ``tcp_wstamp_ns`` against ``tcp_clock_cache`` (ahead: ``tcp_pacing_check`` stops the
  call, tcp_output.c:2486-2502);
- ``push`` and ``push_one``, kprobes on ``tcp_push`` (net/ipv4/tcp.c:706) and
  ``tcp_push_one`` (tcp_output.c:2915), which the application's write calls
  (``tcp_sendmsg_locked``, tcp.c:1445-1466) to send, through ``tcp_write_xmit``, new data
  only (its rarer forced push calls ``__tcp_push_pending_frames``, which an ACK calls too:
  not probed);
- ``kick``, kprobe on ``tcp_pace_kick`` (tcp_output.c:1190), the pacing timer (its argument
  is the timer inside the socket: ``pacing_timer``'s offset gives the socket);
- ``release_cb``, kprobe on ``tcp_release_cb`` (tcp_output.c:1081): work deferred while the
  application held the socket (a pacing timer that fired then).

With ``ca_function`` (``batch --trace-ca FUNCTION``; the guest reads CA_ENV), ``ca``, a kprobe on
that function of the congestion-control module, e.g. ``tcp_illinois_cong_avoid``: the ACK
number it is called with, the window, ``is_cwnd_limited`` and the module's private area
(``icsk_ca_priv``) whole, as 64-bit words, for `benchmarks/illinois_params_traced.py` to read
the module's own state from (in the tracefs text only, `--trace-raw`).

Why kprobes beside the tracepoints: 6.1 has no tracepoint for a transmission, an ACK's
processing or an RTO, and ``tcp:tcp_probe`` (net/ipv4/tcp_input.c:5988) fires only in
``tcp_rcv_established``, i.e. in ESTABLISHED: the blast client shuts its write side as soon as
its last write is buffered, and with a large send buffer (linux-6.1's 4 MiB holds a quick
transfer whole) nearly every ACK then arrives in FIN_WAIT1 and takes ``tcp_rcv_state_process``,
where tcp_probe never fires; it also reads the state before the ACK is processed and reports
``tcp_current_ssthresh``, not ``snd_ssthresh``. Every probed function is out of line in 6.1
(static ``tcp_ack`` and ``__tcp_transmit_skb`` too: both are in the guest's
available_filter_functions and kallsyms under their own names, not as ``.isra`` or
``.constprop`` clones whose arguments could differ), so a probe on its entry sees every call;
the trace's counts are checked against the run's ``tcpi_data_segs_out``,
``tcpi_total_retrans``, ``TCPTimeouts`` and netem's drops.

A kprobe reads structure members at their byte offsets, taken from the running kernel's BTF
(`emusim.linux.btf`), so nothing is hard-coded for one build. Each probe keeps only the
traced connection (the server's port as the socket's destination port, a filter in the
kernel). Events go to a tracefs instance of their own (``instances/emusim-ID``: its own ring
buffer, sized for the run, never the global one), in the ``mono`` trace clock
(CLOCK_MONOTONIC, the blast tool's clock), read as text after the run; tracefs prints its
timestamps in microseconds. `emusim.linux.tracefs_convert` turns that text into the CSV.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from emusim.linux.btf import BTF, Field

TRACEFS = Path("/sys/kernel/tracing")
BYTES_PER_EVENT = 200
"""Ring-buffer bytes per recorded event, with room to spare (a kprobe event with half a dozen
members and its header is under 100 bytes; the drop and sack probes' arrays add 48-56)."""
EVENTS_PER_SEGMENT = 8
"""Events per data segment a lossy run records at most, with room to spare: measured 2.5
(a transmission, an ACK every segment or two, SACK blocks, state changes, drops; the
regular dropper's 1 in 10, linux-2.2)."""
BUFFER_KB_MIN = 4096
BUFFER_KB_MAX = 262144
"""The ring buffer of one run: at least 4 MiB, at most 256 MiB (the VM has 1 GiB)."""

# The members the probes read, by BTF path.
SOCKET_FIELDS = {
    "una": "tcp_sock.snd_una",
    "nxt": "tcp_sock.snd_nxt",
    "ssthresh": "tcp_sock.snd_ssthresh",
    "cwnd": "tcp_sock.snd_cwnd",
    "mss": "tcp_sock.mss_cache",
    "pout": "tcp_sock.packets_out",
    "retrans": "tcp_sock.retrans_out",
    "lost": "tcp_sock.lost_out",
    "sacked": "tcp_sock.sacked_out",
    "rto": "tcp_sock.inet_conn.icsk_rto",
    "srtt": "tcp_sock.srtt_us",
    "tlp_high": "tcp_sock.tlp_high_seq",
    "wmem": "sock.sk_wmem_alloc.refs.counter",
    "pacing_rate": "sock.sk_pacing_rate",
}
OTHER_FIELDS = {
    "dport": "sock_common.skc_dport",
    "cb": "sk_buff.cb",
    "seq": "tcp_skb_cb.seq",
    "end_seq": "tcp_skb_cb.end_seq",
    "tcp_flags": "tcp_skb_cb.tcp_flags",
    "skb_dev": "sk_buff.dev",
    "skb_data": "sk_buff.data",
}
SEND_PATH_FIELDS = {
    "wstamp": "tcp_sock.tcp_wstamp_ns",
    "clock": "tcp_sock.tcp_clock_cache",
    "pacing_timer": "tcp_sock.pacing_timer",
}
"""The members only the send-path probes read (``pacing_timer``: its offset, not its value)."""
SEND_PATH_EVENTS = ("rtxq", "push", "push_one", "kick", "release_cb")
SEND_PATH_ENV = "EMUSIM_TRACE_SEND_PATH"
"""When it is 1 in the guest's environment (the batch sets it for ``--trace-send-path``), a
session also defines the send-path probes."""
CA_FIELDS = {
    "cwnd_limited": "tcp_sock.is_cwnd_limited",
    "ca_priv": "tcp_sock.inet_conn.icsk_ca_priv",
}
"""The members only the ``ca`` probe reads (``ca_priv`` whole, as words)."""
CA_ENV = "EMUSIM_TRACE_CA"
"""The congestion-control function a session also probes (``ca``), when set in the guest's
environment (the batch sets it for ``--trace-ca``)."""
RAW_ONLY_EVENTS = (*SEND_PATH_EVENTS, "ca")
"""Events in the tracefs text only (the CSV has no columns for them)."""
DROP_REASONS = ("SKB_DROP_REASON_NETFILTER_DROP", "SKB_DROP_REASON_QDISC_DROP")
PACKET_WORDS = 7
"""64-bit words of a dropped packet's head the drop probe reads (56 bytes: a MAC header, an
IPv4 header without options and the TCP header up to its flags). Whole words: a kprobe reads
an array element by element, and each read costs the guest instructions, so its clock."""
HEADER_FROM, HEADER_WORDS = 12, 6
"""The part of an ACK's TCP header the sack probe reads: from its data offset (byte 12) to
byte 60, the longest header (the options, where the SACK blocks are)."""
TRACEPOINTS = ("tcp/tcp_cong_state_set", "tcp/tcp_retransmit_skb")


class TraceError(RuntimeError):
    """Tracing cannot be set up here; the message says what is missing."""


def _fetch(f: Field, base: str, name: str) -> str:
    """A fetch argument reading member ``f`` at ``base`` (e.g. ``$arg1``)."""
    if f.bit_size:
        container = 8 * max(1, f.byte_size)
        inner = f.bit_offset % 8
        return f"{name}=+{f.offset}({base}):b{f.bit_size}@{inner}/{container}"
    kind = {1: "u8", 2: "u16", 4: "u32", 8: "u64"}.get(f.byte_size)
    if kind is None:
        raise TraceError(f"{f.path}: {f.byte_size}-byte member, not a scalar")
    return f"{name}=+{f.offset}({base}):{kind}"


def _pair(lo: Field, hi: Field, base: str, name: str, lo_name: str, hi_name: str) -> str:
    """Two adjacent 32-bit members as one 64-bit read named ``name`` (``lo`` in its low half,
    as x86 lays it out), else two reads: every read costs the guest instructions."""
    plain = not lo.bit_size and not hi.bit_size and lo.byte_size == hi.byte_size == 4
    if plain and hi.offset == lo.offset + 4:
        return f"{name}=+{lo.offset}({base}):x64"
    return f"{_fetch(lo, base, lo_name)} {_fetch(hi, base, hi_name)}"


def port_as_read(port: int) -> int:
    """The value a little-endian u16 fetch of a big-endian port reads (skc_dport)."""
    return ((port & 0xFF) << 8) | (port >> 8)


@dataclass(frozen=True)
class Probes:
    """The kprobe_events lines and the filters of one tracing session."""

    group: str
    kprobes: dict[str, str]  # event name → its kprobe_events line
    filters: dict[str, str]  # "group/event" → filter


def probe_definitions(fields: dict[str, Field], drop_reasons: dict[str, int], group: str,
                      port: int, send_path: bool = False,
                      ca_function: str | None = None) -> Probes:  # fmt: skip
    """The probes (pure: from BTF offsets). ``fields`` maps SOCKET_FIELDS' and OTHER_FIELDS'
    names to their members; ``drop_reasons`` the enumerators of DROP_REASONS.

    Each probe reads what its event needs and no more: in dilated time a read is guest
    instructions, so guest time (measured in the VM: a kprobe hit costs about 0.5 µs and each
    read 0.18 µs more; benchmarks/tcp_trace_cost.py). ``tx``: the segment's sequence numbers
    and flags, ``snd_nxt`` (a segment below it is a retransmission: the kernel's own rule), the
    window (``win``: ssthresh and cwnd) and the MSS; ``ack``: the ACK number and
    the window, the RTO, the packets out and
    retransmitted (``out``), lost and SACKed (``marks``) once the ACK's acknowledgements are
    taken (``tcp_rate_gen``: the sender only); ``sack``: the TCP header from its data offset
    on, with the options, of an ACK with SACK blocks (``tcp_sacktag_write_queue``, so only
    those ACKs pay for it); ``rto``: the first
    unacknowledged byte, the window, the RTO and the packets out; ``drop``: the reason, the
    device and the packet's head."""
    sk, skb, f = "$arg1", "$arg2", fields
    cb = f["cb"].offset

    def in_cb(name: str) -> Field:
        x = f[name]
        return Field(x.path, x.bit_offset + 8 * cb, x.bit_size, x.byte_size)

    win = _pair(f["ssthresh"], f["cwnd"], sk, "win", "ssthresh", "cwnd")
    rto = _fetch(f["rto"], sk, "rto")
    flags = in_cb("tcp_flags")
    head = f"sk={sk}:x64 {_fetch(f['dport'], sk, 'dport')}"
    data = f["skb_data"].offset
    kprobes = {
        "tx": f"p:{group}/tx __tcp_transmit_skb {head} "
        f"{_pair(in_cb('seq'), in_cb('end_seq'), skb, 'seqs', 'seq', 'end')} "
        f"{_fetch(flags, skb, 'flags')} {_fetch(f['nxt'], sk, 'nxt')} {win} "
        f"{_fetch(f['mss'], sk, 'mss')}",
        "ack": f"p:{group}/ack tcp_rate_gen {head} {_fetch(f['una'], sk, 'una')} {win} {rto} "
        f"{_pair(f['pout'], f['retrans'], sk, 'out', 'pout', 'retrans')} "
        f"{_pair(f['lost'], f['sacked'], sk, 'marks', 'lost', 'sacked')}",
        "sack": f"p:{group}/sack tcp_sacktag_write_queue {head} "
        f"hdr=+{HEADER_FROM}(+{data}({skb})):x64[{HEADER_WORDS}]",
        "rto": f"p:{group}/rto tcp_retransmit_timer {head} {_fetch(f['una'], sk, 'una')} {win} "
        f"{rto} {_fetch(f['pout'], sk, 'pout')}",
        "pto": f"p:{group}/pto tcp_send_loss_probe {head} {_fetch(f['una'], sk, 'una')} {win} "
        f"{_fetch(f['pout'], sk, 'pout')} {_fetch(f['srtt'], sk, 'srtt')} "
        f"{_fetch(f['tlp_high'], sk, 'tlp_high')} {_fetch(f['wmem'], sk, 'wmem')} "
        f"{_fetch(f['pacing_rate'], sk, 'pacing_rate')}",
        "drop": f"p:{group}/drop kfree_skb_reason skb=$arg1:x64 reason=$arg2:u32 "
        f"dev=+0(+{f['skb_dev'].offset}($arg1)):string "
        f"pkt=+0(+{data}($arg1)):x64[{PACKET_WORDS}]",
    }
    ours = f"dport == {port_as_read(port)}"
    filters = {f"{group}/{n}": ours for n in ("tx", "ack", "sack", "rto", "pto")}
    if send_path:
        kprobes.update(send_path_probes(f, sk, group, head))
        filters.update({f"{group}/{n}": ours for n in SEND_PATH_EVENTS if n != "kick"})
        filters[f"{group}/kick"] = "timer != 0"  # the timer, not a socket: every one
    if ca_function:
        kprobes["ca"] = ca_probe(f, sk, group, head, ca_function)
        filters[f"{group}/ca"] = ours
    filters[f"{group}/drop"] = " || ".join(f"reason == {v}" for v in drop_reasons.values())
    filters.update({tp: f"dport == {port}" for tp in TRACEPOINTS})
    return Probes(group, kprobes, filters)


def send_path_probes(f: dict[str, Field], sk: str, group: str, head: str) -> dict[str, str]:
    """The send-path probes (the module's docstring): each reads what tells why a marked-lost
    segment waited, and no more."""
    win = _pair(f["ssthresh"], f["cwnd"], sk, "win", "ssthresh", "cwnd")
    return {
        "rtxq": f"p:{group}/rtxq tcp_xmit_retransmit_queue {head} {win} "
        f"{_pair(f['pout'], f['retrans'], sk, 'out', 'pout', 'retrans')} "
        f"{_pair(f['lost'], f['sacked'], sk, 'marks', 'lost', 'sacked')} "
        f"{_fetch(f['wmem'], sk, 'wmem')} {_fetch(f['pacing_rate'], sk, 'pacing_rate')} "
        f"{_fetch(f['wstamp'], sk, 'wstamp')} {_fetch(f['clock'], sk, 'clock')}",
        "push": f"p:{group}/push tcp_push {head}",
        "push_one": f"p:{group}/push_one tcp_push_one {head}",
        "kick": f"p:{group}/kick tcp_pace_kick timer=$arg1:x64",
        "release_cb": f"p:{group}/release_cb tcp_release_cb {head}",
    }


def ca_probe(f: dict[str, Field], sk: str, group: str, head: str, function: str) -> str:
    """The ``ca`` probe on ``function`` (the module's docstring): its ACK number, the window,
    whether the last window was cwnd-limited, and the private area as words."""
    win = _pair(f["ssthresh"], f["cwnd"], sk, "win", "ssthresh", "cwnd")
    words = f["ca_priv"].byte_size // 8
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", function) or not words:
        raise TraceError(f"--trace-ca {function!r}: not a function name, or no private area")
    return (
        f"p:{group}/ca {function} {head} ack=$arg2:u32 {win} "
        f"{_fetch(f['cwnd_limited'], sk, 'limited')} "
        f"priv=+{f['ca_priv'].offset}({sk}):x64[{words}]"
    )


def buffer_kb(segments: int) -> int:
    """Ring-buffer size for a run of ``segments`` data segments (BUFFER_KB_MIN..MAX)."""
    want = segments * EVENTS_PER_SEGMENT * BYTES_PER_EVENT // 1024
    return int(min(max(want, BUFFER_KB_MIN), BUFFER_KB_MAX))


def layout(btf: BTF, send_path: bool = False, ca: bool = False
           ) -> tuple[dict[str, Field], dict[str, int]]:  # fmt: skip
    """The members the probes read (SOCKET_FIELDS, OTHER_FIELDS, SEND_PATH_FIELDS with
    ``send_path``, CA_FIELDS with ``ca``) and the drop reasons."""
    paths = {**SOCKET_FIELDS, **OTHER_FIELDS, **(SEND_PATH_FIELDS if send_path else {})}
    paths.update(CA_FIELDS if ca else {})
    fields = {n: btf.field(p) for n, p in paths.items()}
    reasons = {r: btf.enum_value("skb_drop_reason", r) for r in DROP_REASONS}
    return fields, reasons


@functools.cache
def kernel_layout(send_path: bool = False, ca: bool = False
                  ) -> tuple[dict[str, Field], dict[str, int]]:  # fmt: skip
    """`layout` of the running kernel, read once per process."""
    try:
        return layout(BTF.load(), send_path, ca)
    except (OSError, ValueError) as err:
        raise TraceError(f"the kernel's BTF ({err}): CONFIG_DEBUG_INFO_BTF is needed") from None


def kernel_hz(release: str, boot: Path = Path("/boot")) -> int:
    """CONFIG_HZ of the running kernel (jiffies per second: icsk_rto is in jiffies)."""
    try:
        text = (boot / f"config-{release}").read_text()
    except OSError as err:
        raise TraceError(f"cannot read the kernel's config for CONFIG_HZ: {err}") from None
    m = re.search(r"^CONFIG_HZ=(\d+)$", text, re.M)
    if not m:
        raise TraceError(f"no CONFIG_HZ in {boot}/config-{release}")
    return int(m.group(1))


def parse_stats(text: str) -> dict[str, int]:
    """``per_cpu/cpuN/stats`` of a tracefs instance: its integer counters."""
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        with contextlib.suppress(ValueError):
            out[key.strip().replace(" ", "_")] = int(value.strip())
    return out


def parse_profile(text: str, names) -> tuple[dict[str, int], dict[str, int]]:
    """Hits and misses of the named kprobes (``kprobe_profile``: ``EVENT HITS MISSES``, the
    event without its group). A hit is a firing, for the traced socket or not (a filter drops
    the others after the reads); a miss a firing the kernel skipped because another kprobe's
    handler was running on the CPU (kprobes do not nest: a softirq that runs on an interrupt's
    exit during a handler, and hits a probe, is missed), so its event is not in the trace."""
    hits, misses = {}, {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] in names:
            hits[parts[0]], misses[parts[0]] = int(parts[1]), int(parts[2])
    return hits, misses


@dataclass
class Session:
    """One tracing session in tracefs: `start` before the run, `stop` after it, `close`
    always (removes the instance and the kprobes)."""

    name: str
    port: int
    tracefs: Path = TRACEFS
    btf: BTF | None = None
    probes: Probes | None = None
    facts: dict = field(default_factory=dict)
    send_path: bool = field(default_factory=lambda: os.environ.get(SEND_PATH_ENV) == "1")
    ca_function: str | None = field(default_factory=lambda: os.environ.get(CA_ENV) or None)
    _defined: list[str] = field(default_factory=list)

    @property
    def instance(self) -> Path:
        return self.tracefs / "instances" / self.name

    def _write(self, path: Path, text: str, append: bool = False) -> None:
        """One write(2) of ``text``: tracefs parses each write as a command. Not Python's
        append mode, which seeks (kprobe_events refuses that), and never truncating
        kprobe_events (that would remove every probe of every user)."""
        flags = os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC)
        try:
            fd = os.open(path, flags)
            try:
                os.write(fd, (text + "\n").encode())
            finally:
                os.close(fd)
        except OSError as err:
            detail = ""
            log = self.tracefs / "error_log"
            with contextlib.suppress(OSError):
                detail = log.read_text().strip().splitlines()[-3:]
            raise TraceError(f"writing {text!r} to {path}: {err} {detail}") from None

    def start(self, segments: int, release: str) -> None:
        """Define the probes, make the instance (a ring buffer for ``segments`` data
        segments), filter and enable every event, and start recording."""
        if not (self.tracefs / "kprobe_events").exists():
            raise TraceError(f"{self.tracefs} has no kprobe_events (CONFIG_KPROBE_EVENTS)")
        t0 = time.monotonic()
        send_path, ca = self.send_path, self.ca_function
        fields, reasons = (
            kernel_layout(send_path, bool(ca))
            if self.btf is None
            else layout(self.btf, send_path, bool(ca))
        )
        group = self.name.replace("-", "_")
        self.probes = probe_definitions(fields, reasons, group, self.port, send_path, ca)
        for line in self.probes.kprobes.values():
            self._write(self.tracefs / "kprobe_events", line, append=True)
            self._defined.append(line.split()[0].split(":", 1)[1])
        self.instance.mkdir()
        size = buffer_kb(segments)
        self._write(self.instance / "buffer_size_kb", str(size))
        self._write(self.instance / "trace_clock", "mono")
        for option in ("irq-info", "record-cmd"):
            with contextlib.suppress(TraceError):  # older kernels may lack one
                self._write(self.instance / "options" / option, "0")
        for event, expr in self.probes.filters.items():
            self._write(self.instance / "events" / event / "filter", expr)
            self._write(self.instance / "events" / event / "enable", "1")
        self._write(self.instance / "tracing_on", "1")
        self.facts = {
            "tracefs_instance": self.name,
            "trace_clock": "mono",
            "buffer_size_kb": size,
            "kprobes": dict(self.probes.kprobes),
            "filters": dict(self.probes.filters),
            "offsets": {
                n: [f.path, f.bit_offset, f.bit_size, f.byte_size] for n, f in fields.items()
            },
            "drop_reasons": reasons,
            "hz": kernel_hz(release),
            "setup_guest_s": round(time.monotonic() - t0, 6),
        }

    def stop(self) -> None:
        """Stop recording, and record the instance's counters; `lines` then reads it."""
        t0 = time.monotonic()
        self._write(self.instance / "tracing_on", "0")
        stats = parse_stats((self.instance / "per_cpu" / "cpu0" / "stats").read_text())
        cpus = sorted(p.name for p in (self.instance / "per_cpu").glob("cpu*"))
        overrun = 0
        for cpu in cpus:
            s = parse_stats((self.instance / "per_cpu" / cpu / "stats").read_text())
            overrun += s.get("overrun", 0) + s.get("dropped_events", 0)
        hits, misses = parse_profile(
            (self.tracefs / "kprobe_profile").read_text(),
            set(self.probes.kprobes) if self.probes else set(),
        )
        self.facts.update(
            {
                "probe_hits": hits,
                "probe_misses": misses,
                "entries": stats.get("entries"),
                "overrun": overrun,
                # every event recorded: none overwritten, none missed
                "complete": overrun == 0 and not any(misses.values()),
                "stop_guest_s": round(time.monotonic() - t0, 6),
            }
        )

    def lines(self) -> Iterator[str]:
        """The instance's trace, line by line (tracefs formats it as it is read)."""
        with open(self.instance / "trace") as f:
            yield from f

    def close(self) -> None:
        """Disable and remove everything `start` made (safe to call after a failure)."""
        if self.instance.exists():
            with contextlib.suppress(TraceError):
                self._write(self.instance / "tracing_on", "0")
            for event in self.probes.filters if self.probes else ():
                with contextlib.suppress(TraceError):
                    self._write(self.instance / "events" / event / "enable", "0")
            with contextlib.suppress(OSError):
                self.instance.rmdir()
        for name in self._defined:
            with contextlib.suppress(TraceError):
                self._write(self.tracefs / "kprobe_events", f"-:{name}", append=True)
        self._defined.clear()


SESSION_PREFIX = "emusim-"
"""A session's tracefs instance is SESSION_PREFIX + the batch id; its kprobes' group the same
with ``_`` (a group name is an identifier)."""


def leftover_sessions(tracefs: Path = TRACEFS) -> list[str]:
    """Batch ids of the tracing sessions whose instance is still there (a killed batch's)."""
    try:
        names = [p.name for p in (tracefs / "instances").iterdir()]
    except OSError:
        return []
    return [n[len(SESSION_PREFIX) :] for n in names if n.startswith(SESSION_PREFIX)]


def remove_session(batch_id: str, tracefs: Path = TRACEFS) -> list[str]:
    """Remove a batch's tracefs instance and kprobes; returns what was removed."""
    session = Session(SESSION_PREFIX + batch_id, 0, tracefs)
    group = session.name.replace("-", "_")
    with contextlib.suppress(OSError):
        for line in (tracefs / "kprobe_events").read_text().splitlines():
            name = line.split()[0].split(":", 1)[-1] if line.strip() else ""
            if name.startswith(f"{group}/"):
                session._defined.append(name)
    removed = [f"kprobe {n}" for n in session._defined]
    if session.instance.exists():
        removed.append(f"tracefs instance {session.name}")
    session.close()
    return removed
