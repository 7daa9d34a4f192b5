"""The blast tools of emu/blast (C), built with -Wall -Wextra -Werror and run over loopback.

No root needed: the TCP client and server, the UDP sender and receiver, and their JSON.
"""

import json
import socket
import subprocess
from pathlib import Path

import pytest

from emusim.core.paths import REPO_ROOT


@pytest.fixture(scope="module")
def tools(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("blast")
    proc = subprocess.run(
        ["make", "-C", str(REPO_ROOT / "emu" / "blast"), f"OUT={out}"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "-Werror" in proc.stdout
    return out


def free_port(kind=socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(argv: list[str]) -> subprocess.Popen:
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("READY"), proc.stderr.read()
    return proc


def test_tcp_blast_over_loopback(tools):
    port = free_port()
    # No window clamp here: loopback's MSS (65483) exceeds a 31856-byte window, and the
    # sender's silly-window avoidance then stalls on the persist timer (seen as a rare hang).
    server = start([str(tools / "tcpblast"), "server", "-p", str(port)])
    client = subprocess.run(
        [str(tools / "tcpblast"), "client", "-a", "127.0.0.1", "-p", str(port),
         "-n", "2000", "-s", "1448"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert client.returncode == 0, client.stderr
    res = json.loads(client.stdout)
    served = json.loads(server.communicate(timeout=30)[0])
    assert res["completed"] is True and served["completed"] is True
    assert res["writes"] == res["writes_done"] == 2000 and res["write_size_B"] == 1448
    assert res["payload_bytes"] == served["bytes_received"] == 2000 * 1448
    assert res["elapsed_s"] > 0
    # TCP_INFO: data segments carry the payload (loopback's MSS is large: at least one)
    assert 1 <= res["packets_sent"] <= res["segments_sent"]
    assert res["retransmissions"] == 0
    # the machine's busy share (-1 when no clock tick passed) and TCP's chrono times: the
    # limited times are parts of the time spent sending, which cannot exceed the run (plus
    # two jiffies (at most 10 ms each) that TCP's chrono clock rounds its ends to)
    assert res["cpu_busy_fraction"] == -1 or 0 <= res["cpu_busy_fraction"] <= 1
    assert res["rwnd_limited_us"] + res["sndbuf_limited_us"] <= res["busy_us"]
    assert res["busy_us"] <= res["elapsed_s"] * 1e6 + 20_000


def _available_congestion_controls() -> list[str]:
    path = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
    return path.read_text().split() if path.exists() else []


def test_tcp_blast_client_sets_and_reports_its_congestion_control(tools):
    available = _available_congestion_controls()
    if len(available) < 2:
        pytest.skip("one congestion control only: nothing to choose")
    wanted = available[-1]  # not necessarily the default
    port = free_port()
    server = start([str(tools / "tcpblast"), "server", "-p", str(port)])
    client = subprocess.run(
        [str(tools / "tcpblast"), "client", "-a", "127.0.0.1", "-p", str(port),
         "-n", "100", "-s", "1448", "-C", wanted],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert client.returncode == 0, client.stderr
    res = json.loads(client.stdout)
    server.communicate(timeout=30)
    assert res["congestion_control"] == wanted
    # every payload byte acknowledged, plus one each for the SYN and the FIN
    assert res["bytes_acked"] == 100 * 1448 + 2


def test_tcp_blast_servers_connection_inherits_its_listeners_congestion_control(tools):
    # a listener's algorithm (-C) is what the accepted connection runs (tcp_ca_openreq_child):
    # how the emulation lets dctcp's ECN-capable SYN be accepted
    available = _available_congestion_controls()
    if len(available) < 2:
        pytest.skip("one congestion control only: nothing to choose")
    default = Path("/proc/sys/net/ipv4/tcp_congestion_control").read_text().strip()
    wanted = next(cc for cc in available if cc != default)
    port = free_port()
    server = start([str(tools / "tcpblast"), "server", "-p", str(port), "-C", wanted])
    client = subprocess.run(
        [str(tools / "tcpblast"), "client", "-a", "127.0.0.1", "-p", str(port),
         "-n", "10", "-s", "1448"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    out, _ = server.communicate(timeout=30)
    assert client.returncode == 0, client.stderr
    assert json.loads(client.stdout)["congestion_control"] == default
    assert json.loads(out.splitlines()[-1])["congestion_control"] == wanted


def test_tcp_blast_client_refuses_an_unknown_congestion_control(tools):
    port = free_port()
    server = start([str(tools / "tcpblast"), "server", "-p", str(port), "-t", "5"])
    client = subprocess.run(
        [str(tools / "tcpblast"), "client", "-a", "127.0.0.1", "-p", str(port),
         "-n", "1", "-s", "1448", "-C", "nosuchcc"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    server.kill()
    server.communicate()
    assert client.returncode == 1 and "TCP_CONGESTION" in client.stderr


def test_tcp_blast_server_applies_the_window_clamp(tools):
    port = free_port()
    server = start([str(tools / "tcpblast"), "server", "-p", str(port), "-w", "31856"])
    client = subprocess.run(
        [str(tools / "tcpblast"), "client", "-a", "127.0.0.1", "-p", str(port),
         "-n", "4", "-s", "1448"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert client.returncode == 0, client.stderr
    served = json.loads(server.communicate(timeout=30)[0])
    assert served["completed"] is True and served["bytes_received"] == 4 * 1448
    # The value read back is only reported: this host's 6.18 kernel raises the clamp on its
    # own (82944 seen); Debian's 6.1 in the VM keeps 31856
    # (tests/integration/mininet/test_mininet.py).
    assert served["window_clamp"] == 31856 and served["window_clamp_read"] > 0


def test_tcp_blast_times_out_with_lower_bounds(tools):
    # a server that accepts but never reads: the client's writes block until -t ends them
    port = free_port()
    with socket.socket() as lsock:
        lsock.bind(("127.0.0.1", port))
        lsock.listen(1)
        client = subprocess.run(
            [str(tools / "tcpblast"), "client", "-a", "127.0.0.1", "-p", str(port),
             "-n", "1000000", "-s", "1448", "-t", "1"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
    assert client.returncode == 3, client.stderr
    res = json.loads(client.stdout)
    assert res["completed"] is False and 0 < res["writes_done"] < 1_000_000
    assert res["elapsed_s"] == pytest.approx(1.0, abs=0.3)


def test_udp_blast_over_loopback(tools):
    port = free_port(socket.SOCK_DGRAM)
    receiver = start([str(tools / "udpblast"), "recv", "-p", str(port), "-e", "500", "-i", "2000"])
    sender = subprocess.run(
        [str(tools / "udpblast"), "send", "-a", "127.0.0.1", "-p", str(port),
         "-n", "500", "-s", "1472", "-m", "2"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert sender.returncode == 0, sender.stderr
    sent = json.loads(sender.stdout)
    got = json.loads(receiver.communicate(timeout=30)[0])
    assert sent["datagrams_sent"] == 500 and sent["send_errors"] == 0
    assert got["datagrams_received"] == 500 and got["end"] == "expected"
    assert got["bytes_received"] == 500 * 1472 and got["highest_seq"] == 499


def test_udp_receiver_ends_at_a_marker_or_when_idle(tools):
    port = free_port(socket.SOCK_DGRAM)
    receiver = start([str(tools / "udpblast"), "recv", "-p", str(port), "-i", "300"])
    subprocess.run(
        [str(tools / "udpblast"), "send", "-a", "127.0.0.1", "-p", str(port),
         "-n", "10", "-s", "100", "-m", "1"],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    got = json.loads(receiver.communicate(timeout=30)[0])
    assert got["datagrams_received"] == 10 and got["end"] == "marker"
    port = free_port(socket.SOCK_DGRAM)
    receiver = start([str(tools / "udpblast"), "recv", "-p", str(port), "-i", "300"])
    subprocess.run(
        [str(tools / "udpblast"), "send", "-a", "127.0.0.1", "-p", str(port),
         "-n", "10", "-s", "100"],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    got = json.loads(receiver.communicate(timeout=30)[0])
    assert got["datagrams_received"] == 10 and got["end"] == "idle"


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["bogus"],
        ["client"],
        ["client", "-a", "1.2.3.4", "-n", "-5", "-s", "1"],
        ["server", "x"],
    ],
)
def test_tcpblast_usage_errors(tools, argv):
    proc = subprocess.run([str(tools / "tcpblast"), *argv], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr


def test_udpblast_usage_errors(tools):
    proc = subprocess.run(
        [str(tools / "udpblast"), "send", "-a", "x", "-n", "1", "-s", "4"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "size" in proc.stderr
