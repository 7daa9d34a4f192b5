"""Tracing the emulated TCP sender (emusim.linux.tcp_tracefs, tracefs_convert): the probes
from the guest kernel's offsets, and the conversion of a real tracefs capture into ns-3's CSV.

The capture (tests/data/tcp_trace/lossy-reno-5pct.*) is the tracefs text of one traced run of
lossy-link's reno cell at 5 % loss each way and 10 ms, quick scale (691 writes of 1448 B,
linux-6.1), in the VM booting Debian's 6.1.0-56-amd64 in dilated time, with the run's own
counts (TCP_INFO and the namespace's MIB) beside it: the trace must agree with them.
"""

import gzip
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from emusim.analysis import tcp_events
from emusim.linux import tcp_tracefs
from emusim.linux import tracefs_convert as conv
from emusim.linux.btf import Field

DATA = Path(__file__).parents[2] / "data" / "tcp_trace"
PORT = 1026


@pytest.fixture(scope="module")
def capture():
    meta = json.loads((DATA / "lossy-reno-5pct.json").read_text())
    with gzip.open(DATA / "lossy-reno-5pct.tracefs.txt.gz", "rt") as f:
        text = f.read()
    return meta, text


@pytest.fixture(scope="module")
def converted(capture):
    meta, text = capture
    return conv.convert(
        conv.parse(text.splitlines()), PORT, meta["hz"], meta["drop_reasons"],
        meta["impaired_devs"],
    )  # fmt: skip


@pytest.fixture(scope="module")
def frame(converted, tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "run1.csv.gz"
    path.write_bytes(gzip.compress(converted.csv().encode()))
    return tcp_events.read(path)


LATER_MEMBERS = {
    "srtt": Field("tcp_sock.srtt_us", 13376, 0, 4),
    "tlp_high": Field("tcp_sock.tlp_high_seq", 13120, 0, 4),
    "wmem": Field("sock.sk_wmem_alloc.refs.counter", 2720, 0, 4),
    "pacing_rate": Field("sock.sk_pacing_rate", 3648, 0, 8),
    "wstamp": Field("tcp_sock.tcp_wstamp_ns", 13184, 0, 8),
    "clock": Field("tcp_sock.tcp_clock_cache", 13248, 0, 8),
    "cwnd_limited": Field("tcp_sock.is_cwnd_limited", 13119, 1, 1),
    "ca_priv": Field("tcp_sock.inet_conn.icsk_ca_priv", 10688, 0, 104),
}
"""Members probes read that the capture's run did not (the pto, send-path and ca probes came
later), as the same kernel's BTF has them (read in the VM, 6.1.0-56-amd64)."""


def capture_fields(meta: dict) -> dict[str, Field]:
    """The capture's members and LATER_MEMBERS."""
    return {**{n: Field(*v) for n, v in meta["offsets"].items()}, **LATER_MEMBERS}


def test_probes_from_the_guest_kernels_offsets(capture):
    """The kprobe_events lines the run defined follow from its BTF offsets (pure)."""
    meta, _ = capture
    fields = capture_fields(meta)
    group = meta["group"]
    probes = tcp_tracefs.probe_definitions(fields, meta["drop_reasons"], group, PORT)
    pto = probes.kprobes.pop("pto")
    assert probes.kprobes == meta["kprobes"]
    assert probes.filters.pop(f"{group}/pto") == probes.filters[f"{group}/tx"]
    assert probes.filters == meta["filters"]
    assert pto.startswith(f"p:{group}/pto tcp_send_loss_probe sk=$arg1:x64 ")
    for read in ("srtt=+1672($arg1):u32", "tlp_high=+1640($arg1):u32",
                 "wmem=+340($arg1):u32", "pacing_rate=+456($arg1):u64"):  # fmt: skip
        assert read in pto
    tx = probes.kprobes["tx"]
    assert tx.startswith(f"p:{group}/tx __tcp_transmit_skb sk=$arg1:x64 dport=+12($arg1):u16")
    # tcp_skb_cb sits in sk_buff.cb (offset 40): seq and end_seq as one 64-bit read at +40
    assert "seqs=+40($arg2):x64" in tx and "nxt=+1476($arg1):u32" in tx
    # snd_ssthresh and snd_cwnd are adjacent in 6.1's tcp_sock: one read
    assert "win=+1772($arg1):x64" in tx
    ack = probes.kprobes["ack"]
    assert ack.startswith(f"p:{group}/ack tcp_rate_gen ")  # the sender's ACKs only
    assert "una=+1508($arg1):u32" in ack and "out=+1716($arg1):x64" in ack
    # skb->data: the TCP header and options, read only for an ACK with SACK blocks
    assert "hdr=+12(+208($arg2)):x64[6]" in probes.kprobes["sack"]
    assert "tcp_sacktag_write_queue" in probes.kprobes["sack"]
    # the sender's socket has the server's port as destination, read big-endian as a u16
    assert probes.filters[f"{group}/tx"] == f"dport == {0x0204}"
    assert probes.filters["tcp/tcp_cong_state_set"] == "dport == 1026"


def test_the_send_path_probes_when_asked_for(capture):
    """`--trace-send-path`: five more probes, each on its function with its reads; the socket
    filter on each but the pacing timer's, whose argument is the timer."""
    meta, _ = capture
    fields = capture_fields(meta)
    group = meta["group"]
    plain = tcp_tracefs.probe_definitions(fields, meta["drop_reasons"], group, PORT)
    probes = tcp_tracefs.probe_definitions(
        fields, meta["drop_reasons"], group, PORT, send_path=True
    )
    added = {k: v for k, v in probes.kprobes.items() if k not in plain.kprobes}
    assert set(added) == set(tcp_tracefs.SEND_PATH_EVENTS)
    assert {k: probes.kprobes[k] for k in plain.kprobes} == plain.kprobes
    functions = {k: v.split()[1] for k, v in added.items()}
    assert functions == {
        "rtxq": "tcp_xmit_retransmit_queue", "push": "tcp_push", "push_one": "tcp_push_one",
        "kick": "tcp_pace_kick", "release_cb": "tcp_release_cb",
    }  # fmt: skip
    for read in ("marks=+1864($arg1):x64", "out=+1716($arg1):x64", "wstamp=+1648($arg1):u64",
                 "clock=+1656($arg1):u64", "pacing_rate=+456($arg1):u64"):  # fmt: skip
        assert read in added["rtxq"]
    assert added["kick"].endswith("timer=$arg1:x64")
    socket = plain.filters[f"{group}/tx"]
    for name in ("rtxq", "push", "push_one", "release_cb"):
        assert probes.filters[f"{group}/{name}"] == socket
    assert probes.filters[f"{group}/kick"] == "timer != 0"


def test_the_ca_probe_when_asked_for(capture):
    """`--trace-ca FUNCTION`: one more probe on that function, reading its ACK argument, the
    window, the cwnd-limited bit and the 104-byte private area as 13 words, for the socket."""
    meta, _ = capture
    fields = capture_fields(meta)
    group = meta["group"]
    plain = tcp_tracefs.probe_definitions(fields, meta["drop_reasons"], group, PORT)
    probes = tcp_tracefs.probe_definitions(
        fields, meta["drop_reasons"], group, PORT, ca_function="tcp_illinois_cong_avoid"
    )
    assert set(probes.kprobes) - set(plain.kprobes) == {"ca"}
    assert probes.kprobes["ca"] == (
        f"p:{group}/ca tcp_illinois_cong_avoid sk=$arg1:x64 dport=+12($arg1):u16 ack=$arg2:u32 "
        "win=+1772($arg1):x64 limited=+1639($arg1):b1@7/8 priv=+1336($arg1):x64[13]"
    )
    assert probes.filters[f"{group}/ca"] == plain.filters[f"{group}/tx"]
    with pytest.raises(tcp_tracefs.TraceError, match="not a function name"):
        tcp_tracefs.probe_definitions(
            fields, meta["drop_reasons"], group, PORT, ca_function="f x=+0(%di)"
        )


def test_the_converter_leaves_the_send_path_events_out(capture):
    """A trace with send-path events converts to the rows it has without them."""
    meta, text = capture
    lines = text.splitlines()
    syn = next(i for i, x in enumerate(lines) if " tx: " in x)
    sk = lines[syn].split("sk=")[1].split()[0]
    ts = lines[syn].split("]")[1].split(":")[0].strip()
    extra = [f"        tcpblast-460     [000]    {ts}: {name}: (f+0x0/0x10) sk={sk} dport=516"
             for name in ("push", "release_cb")]  # fmt: skip
    lines[syn + 1 : syn + 1] = extra
    args = (PORT, meta["hz"], meta["drop_reasons"], meta["impaired_devs"])
    with_them = conv.convert(conv.parse(lines), *args)
    without = conv.convert(conv.parse(text.splitlines()), *args)
    assert with_them.rows == without.rows


def test_members_that_are_not_adjacent_are_read_apart():
    lo, hi = Field("a.x", 0, 0, 4), Field("a.y", 64, 0, 4)
    assert tcp_tracefs._pair(lo, hi, "$arg1", "xy", "x", "y") == "x=+0($arg1):u32 y=+8($arg1):u32"
    state = Field("a.s", 8 * 1280, 5, 1)
    assert tcp_tracefs._fetch(state, "$arg1", "ca") == "ca=+1280($arg1):b5@0/8"


def test_parse_reads_kprobe_and_tracepoint_lines():
    lines = [
        "# tracer: nop",
        "        tcpblast-464     [000]    930.824533: tx: (__tcp_transmit_skb+0x0/0xc30) "
        "sk=0xff40303905462d00 dport=516 seq=521621240 end=521621241 flags=2",
        "          <idle>-0       [000] ..s1.  931.000001: tcp_cong_state_set: family=AF_INET "
        "sport=53340 dport=1026 saddr=192.168.1.2 daddr=192.168.3.2 saddrv6=::ffff:192.168.1.2 "
        "daddrv6=::ffff:192.168.3.2 cong_state=4",
        '  <idle>-0 [000] 931.5: drop: (kfree_skb_reason+0x0/0xd0) skb=0x1 reason=45 dev="a b" '
        "pkt={0x45,0x0}",
    ]
    with pytest.raises(ValueError, match="not a trace line"):
        list(conv.parse(lines))
    events = list(conv.parse(lines[:3]))
    assert [e.name for e in events] == ["tx", "tcp_cong_state_set"]
    assert events[0].ts_us == 930_824_533 and events[0].int("flags") == 2
    assert events[1].ts_us == 931_000_001 and events[1].int("cong_state") == 4
    drop = next(conv.parse([lines[3].replace("931.5:", "931.500000:")]))
    assert drop.fields["dev"] == '"a b"' and conv.packet_bytes(drop.fields["pkt"], 1) == b"E\0"
    assert conv.packet_bytes("{0x7e39e6b84840204,0x1}")[:8] == bytes.fromhex("040284846b9ee307")


def test_a_dropped_packets_head():
    ip = bytes.fromhex("450005dc565a40003f065a6dc0a80102c0a80302")
    tcp = bytes.fromhex("d05c04021f1770e92c4047c88010")
    mac = bytes(12) + b"\x08\x00"
    assert conv.data_segment(mac + ip + tcp, PORT) == (0x1F1770E9, 1500 - 20 - 32)
    assert conv.data_segment(ip + tcp, PORT) == (0x1F1770E9, 1448)  # netfilter: from IP
    assert conv.data_segment(ip + tcp, 80) is None
    assert conv.data_segment(b"\x60" + bytes(60), PORT) is None  # not IPv4


def test_the_trace_agrees_with_the_runs_own_counts(capture, converted):
    meta, _ = capture
    m, f = meta["metrics"], converted.facts
    # every data segment sent (tcpi_data_segs_out counts retransmissions too)
    assert f["tx"] == m["packets_sent"] == 734
    assert f["retransmissions"] == m["retransmissions"] == f["kernel_retransmits"] == 43
    assert f["timeouts"] == m["rto_timeouts"] == 3  # TCPTimeouts
    assert f["recoveries"] == m["fast_recoveries"] == 27  # TCPSackRecovery
    assert f["drops"] == m["link_dropped_forward"] == 43  # netem's loss toward the receiver
    assert f["control_drops"] == f["control_retransmissions"] == 0  # no SYN or FIN was lost
    # the last ACK acknowledges every byte and the FIN
    assert f["bytes_sent"] == m["payload_bytes"] and f["highest_ack"] == m["payload_bytes"] + 1
    assert f["mss"] == 1448 and f["syn_sent"] == 1
    assert f["duration_ns"] / 1e9 == pytest.approx(m["elapsed_s"], abs=1e-3)


def test_streamed_rows_are_the_kept_rows(capture, converted):
    """With a sink (as the guest converts a paper-scale run) the conversion keeps no rows and
    writes the same CSV, and counts the same facts, as it does keeping them."""
    meta, text = capture
    lines: list[str] = []
    streamed = conv.convert(
        conv.parse(text.splitlines()), PORT, meta["hz"], meta["drop_reasons"],
        meta["impaired_devs"], sink=lines.append,
    )  # fmt: skip
    assert streamed.rows == [] and len(lines) == len(converted.rows) > 1000
    assert conv.HEADER + "\n" + "".join(lines) == converted.csv()
    assert streamed.facts == converted.facts
    assert converted.facts["events"] == len(converted.rows)
    assert converted.facts["recoveries"] == sum(
        1 for r in converted.rows if r[1] == "state" and r[3] == 3
    )


def test_the_csv_is_ns3s(converted, frame):
    text = converted.csv()
    assert text.startswith("time_ns,event,segment,value\n")
    assert list(frame.columns[:4]) == ["time_ns", "event", "segment", "value"]
    assert frame["time_ns"].is_monotonic_increasing and frame["time_ns"].iloc[0] > 0
    assert (frame["time_ns"] % 1000 == 0).all()  # tracefs prints microseconds
    events = set(frame["event"])
    assert {"tx", "ack", "cwnd", "ssthresh", "rto", "state", "drop"} <= events
    assert {"timeout", "inflight", "sack"} <= events  # only the Linux trace has these
    tx = frame[frame["event"] == "tx"]
    assert tx["segment"].min() == 0 and tx["segment"].max() == 690  # 691 segments
    assert set(tx["value"]) == {0, 1}
    # a segment is first sent once; the rest of its transmissions are retransmissions
    first = tx[tx["value"] == 0]
    assert first["segment"].is_unique and len(first) == 691
    cwnd = frame[frame["event"] == "cwnd"]["value"]
    assert cwnd.iloc[0] == 10 * 1448 and (cwnd % 1448 == 0).all()
    assert set(frame[frame["event"] == "state"]["value"]) <= {0, 1, 2, 3, 4}
    timeout = frame[frame["event"] == "timeout"]
    assert (timeout["value"] >= 0.2).all()  # rto_min 200 ms, HZ 250
    # SACK blocks lie above the cumulative ACK and below what was sent
    sack = frame[frame["event"] == "sack"]
    assert (sack["value"] >= 1).all() and sack["segment"].between(0, 690).all()
    inflight = frame[frame["event"] == "inflight"]["value"]
    assert (inflight >= 0).all() and len(inflight) == (frame["event"] == "ack").sum()


def test_tcp_events_reads_it_as_it_reads_ns3s(frame, capture):
    meta, _ = capture
    s = tcp_events.summary(frame)
    assert s["data_packets"] == 734 and s["retransmissions"] == 43
    assert s["fast_recoveries"] == 27 and s["dropper_drops"] == 43
    assert s["elapsed_s"] == pytest.approx(meta["metrics"]["elapsed_s"], abs=1e-3)
    series = tcp_events.timeouts(frame)
    # each of the 3 RTOs entered Loss from another state, its head's retransmission lost
    assert len(series) == s["timeout_series"] == 3
    assert set(series["cause"]) == {"retransmission lost"}
    assert 0 < s["mean_cwnd_segments"] < 64


def test_retransmissions_of_a_multi_segment_skb_are_one_tx_each():
    """One skb may hold two segments (tcp_skb_pcount 2): two tx rows, as on the wire. The
    members read apart (another kernel's layout) give the same rows."""
    snap = "ssthresh=2147483647 cwnd=10 rto=50 mss=1448"
    out = "pout=2 retrans=0 lost=0 sacked=1"
    lines = [
        f"x-1 [000] 1.000000: tx: (f) sk=0x1 dport=516 seq=999 end=1000 flags=2 {snap}",
        f"x-1 [000] 1.000010: tx: (f) sk=0x1 dport=516 seq=1000 end=3896 flags=24 {snap}",
        f"x-1 [000] 1.000020: tx: (f) sk=0x1 dport=516 seq=1000 end=3896 flags=16 {snap}",
        f"x-1 [000] 1.000030: ack: (f) sk=0x1 dport=516 una=3896 {snap} {out}",
        f"x-1 [000] 1.000040: tx: (f) sk=0x2 dport=516 seq=5 end=1453 flags=16 {snap}",
    ]
    out = conv.convert(conv.parse(lines), PORT, 250)
    rows = [r for r in out.rows if r[1] in ("tx", "ack", "inflight")]
    assert rows == [
        (10_000, "tx", 0, 0), (10_000, "tx", 1, 0), (20_000, "tx", 0, 1), (20_000, "tx", 1, 1),
        (30_000, "ack", 2, 0), (30_000, "inflight", -1, 1),
    ]  # fmt: skip
    assert out.facts["retransmissions"] == 2 and out.facts["highest_ack"] == 2896
    frame = pd.read_csv(io.StringIO(out.csv()))
    assert list(frame.columns) == ["time_ns", "event", "segment", "value"]
    with pytest.raises(ValueError, match="no SYN"):
        conv.convert(conv.parse(lines[1:]), PORT, 250)


def test_buffer_size_and_stats():
    assert tcp_tracefs.buffer_kb(691) == tcp_tracefs.BUFFER_KB_MIN
    assert tcp_tracefs.buffer_kb(100_000) == 100_000 * 8 * 200 // 1024
    assert tcp_tracefs.buffer_kb(10**7) == tcp_tracefs.BUFFER_KB_MAX
    stats = tcp_tracefs.parse_stats(
        "entries: 2442\noverrun: 0\ncommit overrun: 0\nbytes: 40\n"
        "oldest event ts:    42.196321\nnow ts:    42.604145\ndropped events: 3\n"
    )
    assert stats == {"entries": 2442, "overrun": 0, "commit_overrun": 0, "bytes": 40,
                     "dropped_events": 3}  # fmt: skip
    assert tcp_tracefs.port_as_read(1026) == 516


def test_kernel_hz(tmp_path):
    (tmp_path / "config-6.1.0-56-amd64").write_text("CONFIG_X=y\nCONFIG_HZ=250\n")
    assert tcp_tracefs.kernel_hz("6.1.0-56-amd64", tmp_path) == 250
    with pytest.raises(tcp_tracefs.TraceError, match="CONFIG_HZ"):
        tcp_tracefs.kernel_hz("other", tmp_path)


def test_sack_blocks_from_the_tcp_options():
    header = bytearray(20)
    header[12] = 11 << 4  # 44 bytes: 20 + NOP NOP TS(10) + NOP NOP SACK(2 + 8)
    options = bytes([1, 1, 8, 10]) + bytes(8) + bytes([1, 1, 5, 10])
    options += (1000).to_bytes(4, "big") + (3896).to_bytes(4, "big")
    assert conv.sack_blocks(bytes(header) + options + bytes(20)) == [(1000, 3896)]
    assert conv.sack_blocks(bytes(20)) == []


def test_a_killed_batchs_session_is_found_and_removed(tmp_path):
    """cleanup's part (emusim.backends.mininet.host.cleanup), on a stand-in tracefs."""
    (tmp_path / "instances" / "emusim-ab12").mkdir(parents=True)
    (tmp_path / "instances" / "other").mkdir()
    (tmp_path / "kprobe_events").write_text(
        "p:emusim_ab12/tx __tcp_transmit_skb sk=$arg1:x64\np:kprobes/mine do_sys_open\n"
    )
    assert tcp_tracefs.leftover_sessions(tmp_path) == ["ab12"]
    removed = tcp_tracefs.remove_session("ab12", tmp_path)
    assert removed == ["kprobe emusim_ab12/tx", "tracefs instance emusim-ab12"]
    assert not (tmp_path / "instances" / "emusim-ab12").exists()
    # a removal is a line appended to kprobe_events (tracefs parses it; a file keeps it)
    assert (tmp_path / "kprobe_events").read_text().endswith("-:emusim_ab12/tx\n")
    assert (tmp_path / "instances" / "other").exists()


def test_a_lost_syn_is_a_timeout_and_a_retransmission_without_a_tx_row():
    """The kernel counts a SYN's retransmission (tcpi_total_retrans) and its RTO
    (TCPTimeouts); ns-3's CSV has no row for a SYN: the trace says so in its facts."""
    snap = "ssthresh=2147483647 cwnd=10 mss=524"
    lines = [
        f"x-1 [000] 1.000000: tx: (f) sk=0x1 dport=516 seq=999 end=1000 flags=2 {snap}",
        "x-1 [000] 2.000000: rto: (f) sk=0x1 dport=516 una=999 ssthresh=2147483647 cwnd=10 "
        "rto=250 pout=1",
        "x-1 [000] 2.000001: tcp_cong_state_set: dport=1026 skaddr=0x1 cong_state=4",
        f"x-1 [000] 2.000002: tx: (f) sk=0x1 dport=516 seq=999 end=1000 flags=2 {snap}",
        "x-1 [000] 2.000003: tcp_retransmit_skb: skaddr=0x1 dport=1026",
        "x-1 [000] 2.100000: tx: (f) sk=0x1 dport=516 seq=1000 end=2448 flags=25 "
        "ssthresh=7 cwnd=1 mss=1448",
    ]
    out = conv.convert(conv.parse(lines), PORT, 250)
    assert (1_000_000_000, "timeout", -1, 1.0) in out.rows
    assert (1_000_001_000, "state", -1, 4) in out.rows
    f = out.facts
    assert f["syn_sent"] == 2 and f["control_retransmissions"] == 1
    assert f["kernel_retransmits"] == 1 and f["retransmissions"] == 0
    assert f["fin_sent"] == 1 and f["tx"] == 1  # the FIN rode on the data


def test_an_expired_probe_timer_is_a_pto_row_with_srtt():
    """tcp_send_loss_probe ran: a pto row at the first unacknowledged segment, valued srtt in
    seconds (srtt_us holds srtt x 8: 7600 is 950 µs), whether or not a probe went out."""
    snap = "ssthresh=2147483647 cwnd=10 mss=1448"
    lines = [
        f"x-1 [000] 1.000000: tx: (f) sk=0x1 dport=516 seq=999 end=1000 flags=2 {snap}",
        f"x-1 [000] 1.000010: tx: (f) sk=0x1 dport=516 seq=1000 end=3896 flags=16 {snap}",
        "x-1 [000] 1.004000: pto: (f) sk=0x1 dport=516 una=2448 ssthresh=2147483647 cwnd=10 "
        "pout=1 srtt=7600 tlp_high=0 wmem=1 pacing_rate=30480000",
    ]
    out = conv.convert(conv.parse(lines), PORT, 250)
    assert (4_000_000, "pto", 1, 0.00095) in out.rows
    assert out.facts["probe_timeouts"] == 1


def test_probe_hits_and_misses():
    text = "  tx        16776               3\n  other       5     0\n  ack    7784    0\n"
    hits, misses = tcp_tracefs.parse_profile(text, {"tx", "ack"})
    assert hits == {"tx": 16776, "ack": 7784} and misses == {"tx": 3, "ack": 0}
