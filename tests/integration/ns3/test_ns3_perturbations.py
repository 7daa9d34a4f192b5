"""The two perturbations the 2001 testbed program offers for what-if runs (docs/variants.md, "The
slow cycle"): TcpBlastClient::StartDelay, after which the blast connects (its elapsed time still
runs from connect(), so a delay within one jiffy moves the transfer against the hosts' timer
ticks and nothing else), and --freezePeriodS / --freezeS, which freeze the receiver's link as
the emulator's stalls do."""

import json
import subprocess

import pytest

from emusim.analysis import tcp_events

pytestmark = pytest.mark.ns3

ARGS = ["--workload=tcp", "--writes=2000", "--dropMode=regular", "--everyN=50"]
LINUX_61 = [
    "--ns3::TcpBlastClient::SocketType=ns3::TcpLinuxSocket",
    "--ns3::TcpBlastServer::SocketType=ns3::TcpLinuxSocket",
]


def _run(programs, *extra: str, args: list[str] = ARGS) -> dict:
    proc = subprocess.run(
        [str(programs / "testbed-2001"), *args, *LINUX_61, *extra],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_the_delay_is_spent_before_connect_and_not_counted(ns3_programs):
    plain = _run(ns3_programs)
    assert plain["ns3"]["simulated_s"] == pytest.approx(plain["metrics"]["elapsed_s"], abs=1e-9)
    delay_s = 0.0025
    late = _run(
        ns3_programs,
        f"--ns3::TcpBlastClient::StartDelay={delay_s}s",
    )
    m = late["metrics"]
    assert late["ns3"]["simulated_s"] - m["elapsed_s"] == pytest.approx(delay_s, abs=1e-9)
    # the same transfer: every write, every drop of the regular dropper
    assert m["writes"] == 2000 and m["packets_dropped"] == plain["metrics"]["packets_dropped"]


def test_a_negative_delay_is_refused(ns3_programs):
    proc = subprocess.run(
        [str(ns3_programs / "testbed-2001"), *ARGS, "--ns3::TcpBlastClient::StartDelay=-1ms"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode != 0
    assert "Invalid command-line argument: --ns3::TcpBlastClient::StartDelay=-1ms" in proc.stderr


FREEZE_PERIOD_S = 0.5
FREEZE_S = 0.05
CHANNEL_DELAY_S = 37_864e-9  # testbed-2001's default --channelDelayNs


def test_a_frozen_link_delivers_nothing_until_the_freeze_ends(ns3_programs, tmp_path):
    args = ["--workload=tcp", "--writes=20000", "--dropMode=off"]
    plain = _run(ns3_programs, args=args)
    trace_file = tmp_path / "frozen.csv"
    frozen = _run(
        ns3_programs, f"--freezePeriodS={FREEZE_PERIOD_S}", f"--freezeS={FREEZE_S}",
        f"--traceFile={trace_file}", args=args,
    )  # fmt: skip
    elapsed_s = frozen["metrics"]["elapsed_s"]
    assert elapsed_s > plain["metrics"]["elapsed_s"]
    trace = tcp_events.read(trace_file)
    acks_s = trace.loc[trace["event"] == "ack", "time_ns"].to_numpy() / 1e9
    freezes = int(elapsed_s // FREEZE_PERIOD_S)
    assert freezes >= 4
    for k in range(1, freezes + 1):
        start, end = k * FREEZE_PERIOD_S, k * FREEZE_PERIOD_S + FREEZE_S
        # an ACK already on the wire at the start arrives one channel delay later (two hops:
        # the receiver's link, then the sender's); after that none until the end
        quiet = acks_s[(acks_s > start + 2 * CHANNEL_DELAY_S + 150e-6) & (acks_s < end)]
        assert quiet.size == 0, (k, quiet[:5])
        # what the freeze held arrives at its end
        assert ((acks_s >= end) & (acks_s < end + 0.001)).any(), k


def test_a_freeze_as_long_as_its_period_is_refused(ns3_programs):
    proc = subprocess.run(
        [str(ns3_programs / "testbed-2001"), *ARGS, "--freezePeriodS=0.1", "--freezeS=0.1"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode != 0 and "shorter than its period" in proc.stderr
