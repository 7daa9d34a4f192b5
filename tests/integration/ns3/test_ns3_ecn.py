"""scenarios/ecn-marking.yaml in ns-3 (lossy-link with CoDel at router's egress toward router2):
Linux's dctcp runs as itself, is marked and never dropped, and reduces its window by alpha / 2
at each echo, alpha recomputed here from the trace as tcp_dctcp.c does; CUBIC without ECN is
dropped and never marked."""

import csv
import json
import math
import subprocess

import pytest

from emusim.backends.ns3 import command as ns3
from emusim.inputs import scenario, tcp_profiles

pytestmark = pytest.mark.ns3

SCENARIO = "ecn-marking"
PROFILE = "linux-6.1"
MSS = 1448


def _run(programs, variant: str, trace=None) -> dict:
    s = scenario.load(SCENARIO, "quick")
    cmd = ns3.command(
        str(programs / "lossy-link"),
        s,
        s.point(f"variant={variant}"),
        tcp_profiles.get(PROFILE),
        1,
        0,
    )
    if trace is not None:
        cmd.append(f"--traceFile={trace}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _payload_line_rate_Bps(link_rate_bps: float) -> float:
    # full frames back to back: 1448 payload bytes in 1538 bytes on the wire
    return link_rate_bps / 8 * MSS / 1538


def _dctcp_reductions(rows):
    """Each CWR entry's (cwnd before, ssthresh set, ssthresh dctcp_ssthresh gives), segments,
    with alpha replayed from the trace's ACKs: per window (from snd_nxt when the window began,
    the first data's send for the first) alpha = alpha - (alpha >> 4) + (ce << 6) / delivered,
    at most 1024, delivered_ce counting what ECE ACKs acknowledged (tcp_dctcp.c:124-153, with
    dctcp_shift_g 4 and alpha 1024 at init), then ssthresh = max(cwnd - (cwnd x alpha >> 11), 2)
    (:115-122). No loss on this path: an ACK delivers what it newly acknowledges."""
    alpha, next_seq, snd_nxt, snd_una = 1024, 0, 0, 0
    delivered = ce = old_delivered = old_ce = 0
    cwnd, ssthresh_before = 10, None
    out = []
    i = 0
    while i < len(rows):
        t, event, segment, value = rows[i]
        if event == "tx":
            snd_nxt = max(snd_nxt, segment + 1)
        elif event == "cwnd":
            cwnd = round(value) // MSS
        elif event == "ssthresh":
            ssthresh_before = round(value) // MSS
        elif event == "ack" and segment > snd_una:
            ece = i + 1 < len(rows) and rows[i + 1][1] == "ece" and rows[i + 1][0] == t
            delivered += segment - snd_una
            ce += (segment - snd_una) if ece else 0
            snd_una = segment
            if snd_una >= next_seq:  # dctcp_update_alpha's "Expired RTT"
                alpha -= min(alpha, alpha >> 4) if alpha >> 4 else alpha
                if ce - old_ce:
                    alpha = min(
                        alpha + ((ce - old_ce) << 6) // max(1, delivered - old_delivered), 1024
                    )
                next_seq, old_delivered, old_ce = snd_nxt, delivered, ce
            # the CWR this ACK enters, if any: the state and ssthresh lines at the same time;
            # the window it reduces is the one before them (an episode ending on this ACK has
            # set it to ssthresh first)
            j = i + 1
            while j < len(rows) and rows[j][0] == t:
                if rows[j][1] == "cwnd":
                    cwnd = round(rows[j][3]) // MSS
                if rows[j][1] == "state" and rows[j][3] == 2:
                    same_time = [r for r in rows[i + 1 :] if r[0] == t][:8]
                    ssthresh = next(
                        (round(r[3]) // MSS for r in same_time if r[1] == "ssthresh"),
                        ssthresh_before,
                    )
                    out.append((cwnd, ssthresh, max(cwnd - (cwnd * alpha >> 11), 2)))
                    break
                j += 1
        i += 1
    return out


def test_dctcp_is_marked_not_dropped_and_reduces_by_alpha(ns3_programs, tmp_path):
    trace = tmp_path / "dctcp.csv"
    out = _run(ns3_programs, "dctcp", trace)
    m = out["metrics"]
    assert out["status"] == "ok"
    # the module ran as itself: ECN negotiated, no fallback to dctcp-reno (tcp_dctcp.c:108-112)
    assert out["ns3"]["linux_congestion_control"] == "dctcp"
    assert m["bytes_delivered"] == 6906 * MSS
    # every data segment, the SYN and the FIN reached router's egress once: nothing resent
    assert m["retransmissions"] == 0 and m["link_packets_forward"] == 6906 + 2
    # marked, never dropped: ECN-capable packets are marked where CoDel would drop them, and the
    # queue stays far below its 1000 packets
    assert m["link_ce_marks_forward"] > 0 and m["link_dropped_forward"] == 0
    # the link stays busy more than half the time (a 10 MB transfer spends most of it growing
    # its window by one segment a round trip after slow start), never beyond the payload rate
    # of back-to-back frames
    line = _payload_line_rate_Bps(50e6)
    assert 0.5 * line < m["goodput_Bps"] < line

    with open(trace) as f:
        rows = [(int(t), e, int(s), float(v)) for t, e, s, v in list(csv.reader(f))[1:]]
    marks = sum(1 for r in rows if r[1] == "mark")
    eces = sum(1 for r in rows if r[1] == "ece")
    assert marks == m["link_ce_marks_forward"]  # only data goes that way
    # dctcp's receiver echoes each segment's CE state, at once on a change: an ACK with ECE
    # acknowledges one or two marked segments (every second segment, or one at a change)
    assert marks / 2 <= eces <= marks
    # DCTCP's steady state marks about sqrt(2 / W) of the packets, W the window at which the
    # queue reaches the threshold: the path's 20 ms x 50 Mb/s in 1538-byte frames plus 1 ms of
    # queue (Alizadeh et al., SIGCOMM 2010, section 3.3), an approximation for large windows
    # (100 MB measured 0.43 of it, 10 MB 0.73): within a factor of three once the window has
    # first reached W, and the whole run's fraction below its double
    window = (0.020 + 0.001) * 50e6 / 8 / 1538
    expected = math.sqrt(2 / window)
    assert 0 < m["link_ce_marks_forward"] / m["link_packets_forward"] < 2 * expected
    full = next(r[0] for r in rows if r[1] == "cwnd" and r[3] / MSS >= window)
    steady_marks = sum(1 for r in rows if r[0] >= full and r[1] == "mark")
    steady_sent = sum(1 for r in rows if r[0] >= full and r[1] == "tx")
    assert expected / 3 < steady_marks / steady_sent < 3 * expected, steady_marks / steady_sent
    reductions = _dctcp_reductions(rows)
    # at most one CWR per round trip of at least 20 ms (tcp_enter_cwr from Open only)
    assert 1 <= len(reductions) <= out["metrics"]["elapsed_s"] / 0.020 + 1
    assert all(got == want for _, got, want in reductions), reductions


def test_cubic_without_ecn_is_dropped_never_marked(ns3_programs):
    out = _run(ns3_programs, "cubic")
    m = out["metrics"]
    assert out["status"] == "ok" and out["ns3"]["linux_congestion_control"] == "cubic"
    # its packets are not ECN-capable: CoDel drops where it would mark
    assert m["link_ce_marks_forward"] == 0
    assert m["link_dropped_forward"] > 0
    # each drop is a data segment resent
    assert m["retransmissions"] >= m["link_dropped_forward"]
    assert m["link_dropped_reverse"] == 0
