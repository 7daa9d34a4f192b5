"""TcpBlastClient::StartDelay: the blast connects that many seconds after the application starts,
and its elapsed time still runs from connect(), so a delay within one jiffy moves the transfer
against the hosts' timer ticks (docs/variants.md, "The tick phase") and nothing else."""

import json
import subprocess

import pytest

pytestmark = pytest.mark.ns3

ARGS = ["--workload=tcp", "--writes=2000", "--dropMode=regular", "--everyN=50"]
LINUX_61 = [
    "--ns3::TcpBlastClient::SocketType=ns3::TcpLinuxSocket",
    "--ns3::TcpBlastServer::SocketType=ns3::TcpLinuxSocket",
]


def _run(programs, *extra: str) -> dict:
    proc = subprocess.run(
        [str(programs / "testbed-2001"), *ARGS, *LINUX_61, *extra],
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
        f"--ns3::TcpBlastClient::StartDelay=ns3::ConstantRandomVariable[Constant={delay_s}]",
    )
    m = late["metrics"]
    assert late["ns3"]["simulated_s"] - m["elapsed_s"] == pytest.approx(delay_s, abs=1e-9)
    # the same transfer: every write, every drop of the regular dropper
    assert m["writes"] == 2000 and m["packets_dropped"] == plain["metrics"]["packets_dropped"]


def test_a_negative_draw_is_refused(ns3_programs):
    proc = subprocess.run(
        [str(ns3_programs / "testbed-2001"), *ARGS,
         "--ns3::TcpBlastClient::StartDelay=ns3::ConstantRandomVariable[Constant=-0.001]"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode != 0 and "StartDelay drew -0.001" in proc.stderr
