"""The project's measurement tools (emu/blast) and iputils ping run on Linux hosts
(emusim.linux.hosts.Hosts): each starts its server, runs its client and returns what they
printed. The workloads' runs (emusim.workloads) and the emulation's self-check use them alike.
"""

from __future__ import annotations

import re

from emusim.linux.hosts import HostError, Hosts, counters, finish_json, start_server

RECOVERY_COUNTERS = (
    "TCPLossProbes", "TCPLossProbeRecovery", "TCPLostRetransmit", "TCPSackRecovery",
    "TCPTimeouts", "TCPFullUndo", "TCPPartialUndo", "TCPLossUndo", "TCPDSACKUndo",
    "TCPSpuriousRTOs", "TCPDSACKRecv", "TCPSACKReorder", "TCPTSReorder", "TCPRenoReorder",
)  # fmt: skip
"""The sender's loss-recovery counters (/proc/net/netstat, include/uapi/linux/snmp.h) a TCP
blast records: probes, lost retransmissions, recoveries, timeouts, undos and D-SACKs, the
mechanisms the ns-3 model has or lacks (docs/linux-cc.md); and the reordering Linux believed it
saw (tcp_check_sack_reordering and tcp_check_reno_reordering count one of the three each time
they raise `tp->reord_seen`), which the ns-3 model takes to be none (RACK's reordering window,
sim/ns3/model/tcp-linux-socket-loss.cc, RackReoWindowUs)."""

CLIENT_EXIT_OK = (0, 3)
"""tcpblast client's exit statuses with a result: done, or stopped by its time cap."""

RECEIVER_IDLE_MS = 2000
"""The receiver ends this long after the last datagram if no end marker arrives."""


REPLY_WAIT_S = 2
"""How long ping waits for each echo's reply (-W) before it counts it lost."""

_RTT = re.compile(r"time=([0-9.]+) ms")
"""An echo's round trip in iputils ping's output."""


def tcp_blast(
    hosts: Hosts,
    writes: int,
    size: int,
    cap_s: float,
    clamp: str | None = None,
    cc: str | None = None,
    listener_cc: str | None = None,
) -> dict:
    """One TCP blast (emu/blast/tcpblast.c): what the client printed, the server's result and
    the sender's counters over the run. `clamp` is the receiver's window clamp, `cc` the
    client socket's congestion control, `listener_cc` the server's."""
    hosts.run("receiver", ["ip", "tcp_metrics", "flush", "all"], hosts.guard_s(hosts.margin_s))
    server_argv = [hosts.tool("tcpblast"), "server", "-p", str(hosts.port)]
    server_argv += ["-t", str(int(hosts.guard_s(cap_s + hosts.margin_s)))]
    if clamp:
        server_argv += ["-w", clamp]
    if listener_cc:
        server_argv += ["-C", listener_cc]
    server = start_server(hosts, "receiver", server_argv, "the TCP blast server", 30)
    before = counters(hosts, "sender", flush_metrics=True)
    client = hosts.start(
        "sender",
        [
            hosts.tool("tcpblast"), "client", "-a", hosts.address("receiver"),
            "-p", str(hosts.port), "-n", str(writes), "-s", str(size), "-t", str(int(cap_s)),
            *(["-C", cc] if cc else []),
        ],
    )  # fmt: skip
    try:
        result = finish_json(
            client, "the TCP blast client", hosts.guard_s(cap_s + hosts.margin_s), CLIENT_EXIT_OK
        )
    except Exception:
        server.kill()
        raise
    if result["completed"]:
        result["server"] = finish_json(server, "the TCP blast server", hosts.guard_s(60))
    else:  # the cap ended the run: the server may wait for ever
        server.kill()
        result["server"] = {"completed": False}
    after = counters(hosts, "sender")
    delta = {k: after[k] - before.get(k, 0) for k in after}
    result["rto_timeouts"] = delta.get("TcpExt.TCPTimeouts", 0)
    result["fast_recoveries"] = delta.get("TcpExt.TCPRenoRecovery", 0) + delta.get(
        "TcpExt.TCPSackRecovery", 0
    )
    result["loss_probes"] = delta.get("TcpExt.TCPLossProbes", 0)
    result["recovery_counters"] = {
        name: delta.get(f"TcpExt.{name}", 0) for name in RECOVERY_COUNTERS
    }
    result["retrans_segs_netns"] = delta.get("Tcp.RetransSegs", 0)
    return result


def udp_blast(hosts: Hosts, datagrams: int, size: int, cap_s: float) -> tuple[dict, dict]:
    """One UDP blast (emu/blast/udpblast.c): what the sender and the receiver printed."""
    receiver = start_server(
        hosts,
        "receiver",
        [
            hosts.tool("udpblast"), "recv", "-p", str(hosts.port), "-e", str(datagrams),
            "-i", str(RECEIVER_IDLE_MS), "-t", str(int(hosts.guard_s(cap_s))),
        ],
        "the UDP blast receiver",
        30,
    )  # fmt: skip
    sender = hosts.start(
        "sender",
        [
            hosts.tool("udpblast"), "send", "-a", hosts.address("receiver"),
            "-p", str(hosts.port), "-n", str(datagrams), "-s", str(size),
        ],
    )  # fmt: skip
    try:
        sent = finish_json(sender, "the UDP blast sender", hosts.guard_s(cap_s))
    except Exception:
        receiver.kill()
        raise
    got = finish_json(receiver, "the UDP blast receiver", hosts.guard_s(cap_s + 10))
    return sent, got


def ping(hosts: Hosts, size: int, count: int, interval_s: float) -> list[float]:
    """RTTs in µs of `count` echoes of `size`-byte requests from the sender to the receiver
    (iputils ping; a lost echo is left out)."""
    done = hosts.run(
        "sender",
        [
            "ping", "-n", "-c", str(count), "-i", f"{interval_s:g}", "-s", str(size),
            "-W", str(REPLY_WAIT_S), hosts.address("receiver"),
        ],
        hosts.guard_s(count * (interval_s + REPLY_WAIT_S) + hosts.margin_s),
        check=False,
    )  # fmt: skip
    # 1: some echoes got no reply
    if done.returncode not in (0, 1):
        raise HostError(f"ping failed ({done.returncode}): {done.stdout}{done.stderr.strip()}")
    return [float(m) * 1000 for m in _RTT.findall(done.stdout)]
