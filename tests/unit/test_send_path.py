"""Why a retransmission waited (emusim.analysis.send_path), on a tracefs text written by hand in
the format of the guest's (tests/data/tcp_trace/), worked through below."""

import numpy as np
import pandas as pd
import pytest

from emusim.analysis import send_path

SK = 0xFF44DB1044275100
ISN = 1000
TIMER_OFFSET = 1888  # tcp_sock.pacing_timer, bytes


def line(t_us: int, name: str, body: str) -> str:
    s, us = divmod(t_us, 1_000_000)
    return f"        tcpblast-460     [000]    {s}.{us:06d}: {name}: (fn+0x0/0x10) {body}"


def tx(t_us: int, seq: int, end: int, nxt: int, flags: int = 16) -> str:
    return line(
        t_us, "tx", f"sk={SK:#x} dport=516 seqs={(end << 32) | seq:#x} flags={flags} nxt={nxt} "
        f"win=0xa7fffffff mss=1448",
    )  # fmt: skip


def rtxq(t_us: int, lost: int, retrans: int, ahead_ns: int) -> str:
    clock = 5_000_000_000 + t_us * 1000
    return line(
        t_us, "rtxq", f"sk={SK:#x} dport=516 win=0xa7fffffff out={(retrans << 32) | 100:#x} "
        f"marks={(50 << 32) | lost:#x} wmem=1 pacing_rate=11000000 wstamp={clock + ahead_ns} "
        f"clock={clock}",
    )  # fmt: skip


def other(t_us: int, name: str) -> str:
    return line(t_us, name, f"sk={SK:#x} dport=516")


SEG = 1448
TEXT = [
    "# tracer: nop",
    tx(0, ISN, ISN + 1, ISN, flags=2),  # the SYN
    # a packet of 7 new segments (0-6)
    tx(100, ISN + 1, ISN + 1 + 7 * SEG, ISN + 1),
    # an ACK marks one segment lost; its check finds the pacing clock 50 µs ahead: nothing sent
    other(1000, "ack"),
    rtxq(1002, lost=1, retrans=0, ahead_ns=50_000),
    # the application's write, 60 µs on, sends 7 new segments (7-13) ahead of the lost one
    other(1062, "push"),
    tx(1064, ISN + 1 + 7 * SEG, ISN + 1 + 14 * SEG, ISN + 1 + 7 * SEG),
    # the next ACK's check: the clock has passed, the lost segment (2) goes
    other(1900, "ack"),
    rtxq(1902, lost=1, retrans=0, ahead_ns=-10_000),
    tx(1903, ISN + 1 + 2 * SEG, ISN + 1 + 3 * SEG, ISN + 1 + 14 * SEG),
    # the pacing timer (this socket's, and another's), then new data with nothing lost
    line(2800, "kick", f"timer={SK + TIMER_OFFSET:#x}"),
    line(2801, "kick", f"timer={SK + 4096 + TIMER_OFFSET:#x}"),
    tx(2805, ISN + 1 + 14 * SEG, ISN + 1 + 21 * SEG, ISN + 1 + 14 * SEG),
]


@pytest.fixture(scope="module")
def ev():
    return send_path.events(TEXT, TIMER_OFFSET)


def test_events_keep_the_connections_send_path_from_its_syn(ev):
    assert list(ev["kind"]) == [
        "new", "ack", "retransmit_check", "application_write", "new", "ack",
        "retransmit_check", "retransmission", "pacing_timer", "new",
    ]  # fmt: skip
    assert list(ev["t_s"].round(6)) == [
        0.0001, 0.001, 0.001002, 0.001062, 0.001064, 0.0019, 0.001902, 0.001903, 0.0028, 0.002805
    ]  # fmt: skip
    checks = ev[ev["kind"] == "retransmit_check"]
    assert list(checks["pending"]) == [1, 1]
    assert list(checks["ahead_us"]) == [50.0, -10.0]
    assert list(ev.loc[ev["kind"].isin(["new", "retransmission"]), "segments"]) == [7, 7, 1, 7]


def test_only_the_new_data_sent_while_a_lost_segment_waited_is_ahead_of_it(ev):
    ahead = send_path.new_data_ahead(ev)
    # the application's write sent segments 7-13 while segment 2 waited; the last packet went
    # after segment 2's retransmission, with nothing pending
    assert ahead.to_dict("records") == [
        {"t_s": pytest.approx(0.001064), "sender": "application_write", "ahead_us": 50.0,
         "segments": 7}
    ]  # fmt: skip


def test_a_lost_segments_wait_and_what_was_sent_ahead_of_it():
    # segment 2 sent at 0, dropped at 1 ms, segment 3 SACKed at 21 ms, retransmitted at 23.5 ms;
    # a new-data packet by the application at 22 ms and one by an ACK at 22.5 ms came first;
    # one after (23.9 ms) did not
    trace = pd.DataFrame(
        [
            (0.0, "tx", 2, 0), (0.001, "drop", 2, 0), (0.021, "ack", 2, 1),
            (0.021, "sack", 3, 1), (0.0235, "tx", 2, 1),
        ],
        columns=["t_s", "event", "segment", "value"],
    )  # fmt: skip
    ahead = pd.DataFrame(
        {"t_s": [0.022, 0.0225, 0.0239], "sender": ["application_write", "ack", "ack"]}
    )
    (w,) = send_path.waits(trace, ahead).to_dict("records")
    assert w["segment"] == 2
    assert w["drop_to_retransmission_ms"] == pytest.approx(22.5)
    assert w["sacked_above_to_retransmission_ms"] == pytest.approx(2.5)
    assert (w["new_by_application_write"], w["new_by_ack"], w["new_by_pacing_timer"]) == (1, 1, 0)
    assert w["new_ahead"] == 2


def test_a_trace_without_the_connections_syn_is_refused():
    with pytest.raises(ValueError, match="no SYN"):
        send_path.events(TEXT[2:], TIMER_OFFSET)


def test_no_lost_segment_no_wait():
    trace = pd.DataFrame([(0.0, "tx", 1, 0)], columns=["t_s", "event", "segment", "value"])
    empty = pd.DataFrame({"t_s": np.array([]), "sender": np.array([], dtype=object)})
    assert send_path.waits(trace, empty).empty
