"""The lossy-link program (sim/ns3/programs/lossy-link.cc) and its command line: four hosts, the
middle link's loss per direction checked from its counters, goodput = bytes / time, the
congestion control each variant really got, the cap, determinism."""

import itertools
import json
import math
import os
import re
import signal
import subprocess

import pytest
from scipy.stats import binom

from emusim.backends.ns3 import command as ns3
from emusim.inputs import scenario, tcp_profiles, variants

SCENARIO = "lossy-link"
PROFILE = "linux-6.1"


def _command(programs, point_id: str, rep: int = 1, scale: str = "quick", **overrides):
    s = scenario.load(SCENARIO, scale)
    cmd = ns3.command(
        str(programs / "lossy-link"), s, s.point(point_id), tcp_profiles.get(PROFILE), rep, 0.0
    )
    for key, value in overrides.items():
        cmd = [a for a in cmd if not a.startswith(f"--{key}=")] + [f"--{key}={value}"]
    return cmd


def _run(programs, point_id: str, **kw) -> dict:
    proc = subprocess.run(_command(programs, point_id, **kw), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _arg(cmd: list[str], key: str) -> str:
    values = [a.split("=", 1)[1] for a in cmd if a.startswith(f"--{key}=")]
    assert len(values) == 1, (key, values)
    return values[0]


# --- the command line -------------------------------------------------------------------------


def test_command_of_a_lossy_point(tmp_path):
    s = scenario.load(SCENARIO, "quick")
    cmd = ns3.command("lossy-link", s, s.point("delay_ms=10+loss=0.05+variant=htcp"),
                      tcp_profiles.get(PROFILE), 1, 0.0)  # fmt: skip
    assert ns3.program_name(s) == "lossy-link"
    # floor(0.05 x 65535) = 3276 (spec/drop-decision.md)
    assert _arg(cmd, "lossCutoff") == "3276"
    # 10 ms plus the 24 byte-times of Ethernet framing every link gets: 24 x 80 ns
    assert _arg(cmd, "linkDelayNs") == str(10_000_000 + 1920)
    assert _arg(cmd, "channelDelayNs") == "1920"
    assert _arg(cmd, "writes") == "691"
    # htcp is Linux's own module in ns-3 (sim/ns3/linux), ns3-htcp ns-3's class
    assert _arg(cmd, "ns3::TcpL4Protocol::SocketType") == "ns3::TcpLinuxCongestion"
    assert _arg(cmd, "ns3::TcpLinuxCongestion::Algorithm") == "htcp"
    own = ns3.command("lossy-link", s, s.point("delay_ms=10+loss=0.05+variant=ns3-htcp"),
                      tcp_profiles.get(PROFILE), 1, 0.0)  # fmt: skip
    assert _arg(own, "ns3::TcpL4Protocol::SocketType") == "ns3::TcpHtcp"
    assert not [a for a in own if a.startswith("--ns3::TcpLinuxCongestion::")]
    # the profile's other settings stay: its 200 ms RTO, its buffers
    assert _arg(cmd, "ns3::TcpSocketBase::MinRto") == "200ms"
    assert _arg(cmd, "ns3::TcpSocket::RcvBufSize") == "2097152"
    # TCP small queues: the socket's own model, and no pacing in its place
    assert _arg(cmd, "ns3::TcpLinuxSocket::SmallQueues") == "true"
    assert not [a for a in cmd if a.startswith("--ns3::TcpSocketState::")]
    # linux-6.1-wan keeps the stand-in, pacing at the payload rate of back-to-back full
    # frames: 10^8 x 1448 / 1538 = 94 148 244.47 bit/s, rounded down
    wan = ns3.command("lossy-link", s, s.point("delay_ms=10+loss=0.05+variant=htcp"),
                      tcp_profiles.get("linux-6.1-wan"), 1, 0.0)  # fmt: skip
    assert _arg(wan, "ns3::TcpSocketState::MaxPacingRate") == "94148244bps"
    assert "--dropMode=off" not in cmd  # the 2001 dropper is not part of this program


def test_the_report_programs_commands_are_unchanged():
    # A scenario without variants: the profile's attributes alone, as before variants existed.
    s = scenario.load("random-drop", "quick")
    cmd = ns3.command("t", s, s.point("drop_rate=0.02"), tcp_profiles.get("linux-2.2"), 1, 71.8878)
    # ns-3's CommandLine syntax, --TypeId::Attribute=value, for each of the profile's attributes
    attrs = tcp_profiles.get("linux-2.2").ns3_attributes()
    assert cmd[-len(attrs) :] == [f"--{k}={v}" for k, v in attrs.items()]


# --- the program ----------------------------------------------------------------------------------


@pytest.mark.ns3
def test_a_loss_free_transfer(ns3_programs):
    out = _run(ns3_programs, "delay_ms=10+loss=0+variant=reno")
    m = out["metrics"]
    assert out["status"] == "ok"
    assert m["bytes_delivered"] == m["payload_bytes"] == 691 * 1448
    # goodput is bytes over time, computed here independently
    assert m["goodput_Bps"] == pytest.approx(m["bytes_delivered"] / m["elapsed_s"], abs=0.001)
    # no faster than 691 full frames back to back plus one round trip of 2 x 10 ms
    assert m["elapsed_s"] > 691 * 1538 * 8 / 1e8 + 0.020
    assert m["link_dropped_forward"] == m["link_dropped_reverse"] == 0
    assert m["retransmissions"] == 0  # the sender never overflows its own queue (TSQ)
    # every data segment crossed the middle link: 691 + SYN + FIN
    assert m["link_packets_forward"] == 693
    assert out["ns3"]["congestion_control"] == "ns3::TcpLinuxCongestion"
    assert out["ns3"]["linux_congestion_control"] == "reno"


@pytest.mark.ns3
def test_loss_is_applied_in_each_direction(ns3_programs):
    # 5 % of the packets toward each end, drawn independently: binomial in what each egress
    # saw, p = 3276 / 65536 (the dropper's 16-bit decision)
    p = 3276 / 65536
    for rep in (1, 2):
        m = _run(ns3_programs, "delay_ms=10+loss=0.05+variant=cubic", rep=rep)["metrics"]
        for direction in ("forward", "reverse"):
            seen = m[f"link_packets_{direction}"]
            lost = m[f"link_random_drops_{direction}"]
            lo, hi = binom.interval(0.999, seen, p)
            assert lo <= lost <= hi, (direction, lost, seen)
            assert m[f"link_dropped_{direction}"] >= lost
        assert m["retransmissions"] >= m["link_random_drops_forward"] - 1


@pytest.mark.ns3
@pytest.mark.parametrize("variant", ["htcp", "vegas", "westwood", "bbr", "ledbat"])
def test_each_variant_runs_its_own_class(ns3_programs, variant):
    out = _run(ns3_programs, f"delay_ms=10+loss=0.01+variant={variant}")
    assert out["status"] == "ok"
    assert out["ns3"]["congestion_control"] == variants.get(variant).ns3.type_id


@pytest.mark.ns3
def test_cdg_backs_off_into_cwr_on_linuxs_socket(ns3_programs):
    # cdg's backoff enters CWR itself (tcp_enter_cwr), which TcpLinuxSocket carries out
    # (docs/linux-cc.md, "CWR"); the socket logs each episode's start with its window and
    # threshold, which cdg's backoff sets to max(2, cwnd x 724 >> 10) segments (tcp_cdg.c:
    # 333-334, backoff_beta 0.7071 x 1024), and its end. 20 000 writes at 1 % back off often.
    proc = subprocess.run(
        _command(ns3_programs, "delay_ms=10+loss=0.01+variant=cdg", writes=20000),
        capture_output=True,
        text=True,
        env={**os.environ, "NS_LOG": "TcpLinuxSocketLoss=debug"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out["status"] == "ok" and out["ns3"]["linux_congestion_control"] == "cdg"
    mss = 1448
    entries = re.findall(r"CWR: cwnd (\d+) ssthresh (\d+)", proc.stderr)
    assert len(entries) >= 5, proc.stderr[-2000:]
    for cwnd, ssthresh in entries:
        assert int(ssthresh) == max(2, (int(cwnd) // mss) * 724 >> 10) * mss, (cwnd, ssthresh)
    assert "CWR ends" in proc.stderr  # beyond high_seq; an episode may also go on in recovery


@pytest.mark.ns3
def test_yeah_at_a_paper_cell_runs_where_ns3s_own_class_dies(ns3_programs):
    # 12.5 % loss, 0 ms, paper scale: ns-3 3.44's TcpYeah wraps its ssThresh (one segment in
    # flight, a reduction of two), PRR sets cwnd 0, pacing 0 bps, and the RTO's send divides
    # by it (docs/variants.md, "YeAH in ns-3"); the variant's TcpYeahNoWrap runs to the cap.
    point = "delay_ms=0+loss=0.125+variant=ns3-yeah"
    out = _run(ns3_programs, point, scale="paper")
    assert out["ns3"]["congestion_control"] == "ns3::TcpYeahNoWrap"
    assert out["status"] == "timeout" and out["metrics"]["rto_timeouts"] > 0
    assert out["metrics"]["bytes_delivered"] > 0
    # (with ns-3's own PRR, as ns3-default has it: that is the one that sets cwnd 0; linux-6.1
    # uses Linux's tcp_cwnd_reduction, TcpLinuxPrrRecovery; and with pacing, whose rate of 0
    # is the divisor: linux-6.1 models TCP small queues instead since 28 November)
    own = _command(ns3_programs, point, scale="paper",
                   **{"ns3::TcpL4Protocol::SocketType": "ns3::TcpYeah",
                      "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpPrrRecovery",
                      "ns3::TcpSocketState::EnablePacing": "true"})  # fmt: skip
    proc = subprocess.run(own, capture_output=True, text=True)
    assert proc.returncode == -signal.SIGFPE, "ns-3's TcpYeah no longer dies: is it fixed?"


@pytest.mark.ns3
def test_a_capped_transfer_is_a_timeout_with_a_lower_bound(ns3_programs):
    # (this run's SYN is lost: the connection starts after the 1 s initial RTO)
    out = _run(ns3_programs, "delay_ms=10+loss=0.05+variant=reno", maxSimTimeS="2")
    m = out["metrics"]
    assert out["status"] == "timeout"
    assert m["elapsed_s"] == pytest.approx(2.0)
    assert 0 < m["bytes_delivered"] < m["payload_bytes"]
    assert m["goodput_Bps"] == pytest.approx(m["bytes_delivered"] / 2.0, abs=0.001)


@pytest.mark.ns3
def test_same_seed_same_bytes_and_runs_differ(ns3_programs):
    a = _run(ns3_programs, "delay_ms=10+loss=0.05+variant=htcp", rep=1)
    b = _run(ns3_programs, "delay_ms=10+loss=0.05+variant=htcp", rep=1)
    c = _run(ns3_programs, "delay_ms=10+loss=0.05+variant=htcp", rep=2)
    assert a == b
    assert a["metrics"]["link_random_drops_forward"] != c["metrics"]["link_random_drops_forward"]


@pytest.mark.ns3
def test_delay_is_on_the_middle_link(ns3_programs):
    # One write: the handshake (one round trip), then the segment with the FIN out and the
    # server's reply back (another): four crossings of the middle link, so 50 ms of one-way
    # delay instead of 10 adds 4 x 40 ms, and nothing else changes.
    short = _run(ns3_programs, "delay_ms=10+loss=0+variant=reno", writes="1")["metrics"]
    long = _run(ns3_programs, "delay_ms=50+loss=0+variant=reno", scale="paper", writes="1")
    extra = long["metrics"]["elapsed_s"] - short["elapsed_s"]
    assert math.isclose(extra, 4 * 0.040, rel_tol=1e-3), extra


def _ack_steps(ns3_programs, tmp_path, **overrides) -> list[int]:
    """Segments each ACK at the sender advances by, from the ACK of segment 1 on."""
    trace = tmp_path / "trace.csv"
    out = _run(ns3_programs, "delay_ms=10+loss=0+variant=reno", traceFile=str(trace), **overrides)
    assert out["status"] == "ok"
    acked = [int(line.split(",")[2]) for line in trace.read_text().splitlines()[1:]
             if line.split(",")[1] == "ack"]  # fmt: skip
    assert acked[0] == 1 and acked[-1] == 691  # the FIN is not a segment of data here
    return [b - a for a, b in itertools.pairwise(acked)]


@pytest.mark.ns3
def test_the_receiver_acknowledges_every_segment_while_its_window_grows(ns3_programs, tmp_path):
    # Worked from linux-source-6.1 (docs/linux-cc.md, "The receiver's window"): rcv_ssthresh
    # starts at 65535 (tcp_select_initial_window) and each segment adds 2 x 1448 = 2896 while
    # it is at most 1 MiB (the profile's WindowGrowthLimit): 65535 + 2896 (k - 1) <= 1048576
    # gives k = 340 segments, each acknowledged at once (icsk_ack.quick |= 1). The first data
    # gave min(16, 65535 / 2896) = 16 quick-ACK credits; each ACK spends one and each growth
    # sets the low bit again, so 16 remain when growth ends: 340 + 16 = 356 single-segment
    # ACKs, then every second segment. 8 of the emulation's 12 loss-free traces of this link
    # have 356 (docs/linux-cc.md).
    steps = _ack_steps(ns3_programs, tmp_path)
    assert 1 + steps.index(2) == 340 + 16  # the ACK of segment 1, then 355 more of one
    # without the limit the window grows to the 2 MiB buffer: (2097152 - 65535) / 2896 > 701
    # segments, more than the 691 sent, so every segment is acknowledged at once
    unlimited = {"ns3::TcpLinuxSocket::WindowGrowthLimit": "0"}
    assert max(_ack_steps(ns3_programs, tmp_path, **unlimited)) == 1


def _ssthresh_changes(trace) -> list[float]:
    """The sender's ssthresh, each time it changed (bytes), from the TCP event trace."""
    rows = [line.split(",") for line in trace.read_text().splitlines()[1:]]
    return [float(r[3]) for r in rows if r[1] == "ssthresh"]


@pytest.mark.ns3
def test_cubic_without_hystart_is_another_variant_of_the_same_module(ns3_programs, tmp_path):
    # cubic-nohystart is tcp_cubic with hystart 0 (config/tcp_variants.yaml; tcp_cubic.c:55,
    # 75): its command sets the parameter, its run reads it back, cubic's sets and records
    # none. What HyStart does (tcp_cubic.c, hystart_update): it ends slow start without a
    # loss (ssthresh = cwnd) once a round's ACK train or delay says the path is full; without
    # it slow start ends only on a loss, so a loss-free transfer keeps the initial ssthresh.
    point = "delay_ms=10+loss=0+variant={}"
    cmd = _command(ns3_programs, point.format("cubic-nohystart"))
    assert _arg(cmd, "ns3::TcpLinuxCongestion::ModuleParameters") == "tcp_cubic.hystart=0"
    assert not [a for a in _command(ns3_programs, point.format("cubic")) if "ModuleParam" in a]
    runs = {}
    for variant in ("cubic", "cubic-nohystart"):
        trace = tmp_path / f"{variant}.csv"
        out = _run(ns3_programs, point.format(variant), traceFile=str(trace))
        assert out["status"] == "ok" and out["ns3"]["linux_congestion_control"] == "cubic"
        assert out["metrics"]["retransmissions"] == 0  # loss-free: no loss ends slow start
        runs[variant] = (out, _ssthresh_changes(trace))
    (cubic, with_hystart), (nohystart, without) = runs["cubic"], runs["cubic-nohystart"]
    assert "module_parameters" not in cubic["ns3"]
    assert nohystart["ns3"]["module_parameters"] == {"tcp_cubic.hystart": "0"}
    initial = 2**32 - 1  # ns-3's InitialSlowStartThreshold, the profile's (Linux: infinite)
    assert math.isclose(without[-1], initial, rel_tol=1e-5) and len(without) == 1
    assert with_hystart[-1] < 1e6 and with_hystart[-1] % 1448 == 0  # a window, in segments
