"""Linux's bbr on ns-3's own socket (the multi-flow study's senders): what each ACK's rate sample
tells the module, read from the running module.

    sudo .venv/bin/python benchmarks/own_socket_losses_traced.py [--seconds 2.2] [--keep FILTER]
        [--scenario multiflow-buffer] [--point n_flows=2+variant=bbr] [--scale paper]

Two things in ns-3 3.44's own `TcpSocketBase` (docs/linux-cc.md, "What is not carried"):

- **Losses.** Linux counts a segment lost once, when it is marked (tp->lost, tcp_mark_skb_lost,
  tcp_input.c:1105-1128), and an ACK's sample reports what it marked (rs->losses, :4031); a
  timeout marks every outstanding segment at once, so in Loss an ACK reports a loss only for a
  retransmission lost again. `TcpSocketBase::ReceivedAck` hands `cong_control` the *unsigned*
  change of its scoreboard's lost bytes over the ACK (tcp-socket-base.cc:1944-1946): a lost
  segment acknowledged or retransmitted reads as a new loss. tcp_bbr.c deducts each reported
  loss from cwnd before it adds what the ACK delivered (bbr_set_cwnd_to_recover_or_restore), so
  after a timeout its window cannot grow.
- **The round.** `TcpRateSample::m_priorDelivered` is 32 bits of bytes (tcp-rate-ops.h:135).
  Past 4 GiB delivered the sample's start is 2^32 bytes behind the round's end, so
  `bbr_update_bw` starts no round again, and PROBE_RTT, which ends a round after its 200 ms,
  never ends.

A uprobe (host tracefs, CONFIG_UPROBE_EVENTS; root) on the entry of `bbr_main` in
`build/ns3/libemusim-ns3.so` reads the socket's congestion state, cwnd and delivered, the rate
sample's losses, acked_sacked and prior_delivered, and bbr's next_rtt_delivered and mode; the
offsets come from tcp_bbr.c compiled against the shim (`illinois_params_traced.field_offsets`).
The run is the study's (same program, same seed), cut to `--seconds` simulated seconds; the
tracefs filter `--keep` chooses the calls kept. Prints, per congestion state: calls, the share
whose sample reports losses, mean losses and acked_sacked, median cwnd (segments), the share in
PROBE_RTT, the share whose sample starts 2^32 bytes back, and the most delivered. About 6 s for
2.2 simulated seconds, 400 CPU-s for 166.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import pandas as pd

from emusim.backends.ns3 import command as ns3
from emusim.core.paths import REPO_ROOT
from emusim.inputs import scenario, tcp_profiles

sys.path.insert(0, str(Path(__file__).resolve().parent))
from illinois_params_traced import LIBRARY, Probes, field_offsets, symbol_offsets

MODULE_SOURCE = REPO_ROOT / "build/ns3/linux-source/net/ipv4/tcp_bbr.c"
GROUP = f"own_socket_losses_{os.getpid()}"
MSS_BYTES = 1448  # linux-6.1-wan's segment size (ns3::TcpSocket::SegmentSize)
# half of 2^32 bytes in segments: far beyond any window of the study (at most 6900 + 4000)
WRAPPED_GAP_SEGS = 2**31 // MSS_BYTES
STATES = {0: "Open", 1: "Disorder", 2: "CWR", 3: "Recovery", 4: "Loss"}
# (struct, field, fetch type, register): what the probe reads (x86-64: sk in %di, rs in %si)
FIELDS = (
    ("inet_connection_sock", "icsk_ca_state", "u8", "%di"),
    ("tcp_sock", "snd_cwnd", "u32", "%di"),
    ("tcp_sock", "delivered", "u32", "%di"),
    ("rate_sample", "losses", "s32", "%si"),
    ("rate_sample", "acked_sacked", "u32", "%si"),
    ("rate_sample", "prior_delivered", "u32", "%si"),
)
# struct bbr's, in the socket's icsk_ca_priv: the round's end, and the word after cycle_mstamp
# whose low 3 bits are `mode` (tcp_bbr.c:89-106; 3 = BBR_PROBE_RTT)
BBR_FIELDS = ("next_rtt_delivered", "cycle_mstamp")
PROBE_RTT = 3
EVENT = re.compile(r"main: \(0x[0-9a-f]+\) (.*)$")


def definition() -> str:
    """The uprobe_events line: the fields at bbr_main's entry."""
    wanted = [(s, f) for s, f, _, _ in FIELDS] + [("bbr", f) for f in BBR_FIELDS]
    at = field_offsets(MODULE_SOURCE, [*wanted, ("inet_connection_sock", "icsk_ca_priv")])
    priv = at["icsk_ca_priv"]
    where = symbol_offsets(("bbr_main",))["bbr_main"]
    reads = " ".join(f"{f}=+{at[f]}({reg}):{t}" for _, f, t, reg in FIELDS)
    reads += f" next_rtt_delivered=+{priv + at['next_rtt_delivered']}(%di):u32"
    reads += f" mode_word=+{priv + at['cycle_mstamp'] + 8}(%di):u32"
    return f"p:{GROUP}/main {LIBRARY}:{where:#x} sk=%di:x64 {reads}"


def traced_run(name: str, point_id: str, scale: str, seconds: float, keep: str) -> str:
    """The study's run of the point, cut to `seconds`, with the probe on, recording the calls
    that match tracefs filter `keep`: the events' text."""
    s = scenario.load(name, scale)
    cmd = ns3.command(
        str(REPO_ROOT / "build/ns3/multiflow"),
        s,
        s.point(point_id),
        tcp_profiles.get("linux-6.1-wan"),
        1,
        0.0,
    )
    cmd = [a for a in cmd if not a.startswith("--durationS=")] + [f"--durationS={seconds}"]
    with Probes([definition()], GROUP, ("main",)) as probes:
        (probes.instance / "events" / GROUP / "main" / "filter").write_text(keep)
        status, _, stderr = probes.run(cmd)
        if status:
            raise SystemExit(f"{cmd[0]}: exit {status}: {stderr[-2000:]}")
        return probes.text()


def calls(text: str) -> pd.DataFrame:
    """One row per bbr_main call: the socket, its state and cwnd, the sample's losses and
    acked_sacked."""
    rows = []
    for line in text.split("\n"):
        m = EVENT.search(line)
        if m:
            rows.append(dict(kv.split("=", 1) for kv in m[1].split()))
    frame = pd.DataFrame(rows)
    for column in frame.columns.drop("sk"):
        frame[column] = pd.to_numeric(frame[column])
    return frame


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per congestion state: calls, share reporting losses, mean losses and acked_sacked,
    median cwnd."""
    # how far the sample's start is behind the round's end, in segments (u32 arithmetic): at
    # most a window in Linux; 2^32 bytes / MSS when ns-3's byte count has wrapped
    gap = (frame["next_rtt_delivered"] - frame["prior_delivered"]) % 2**32
    frame = frame.assign(
        probe_rtt=(frame["mode_word"] & 7) == PROBE_RTT,
        wrapped=(gap >= WRAPPED_GAP_SEGS) & (gap < 2**31),
        lost=frame["losses"] > 0,
    )
    by = frame.groupby("icsk_ca_state")
    table = pd.DataFrame(
        {
            "calls": by.size(),
            "share_with_losses": by["lost"].mean(),
            "mean_losses": by["losses"].mean(),
            "mean_acked_sacked": by["acked_sacked"].mean(),
            "median_cwnd_segs": by["snd_cwnd"].median(),
            "share_probe_rtt": by["probe_rtt"].mean(),
            "share_prior_wrapped": by["wrapped"].mean(),
            "max_delivered_GiB": by["delivered"].max() * MSS_BYTES / 2**30,
        }
    )
    table.index = [STATES.get(i, str(i)) for i in table.index]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default="multiflow-buffer")
    parser.add_argument("--point", default="n_flows=2+variant=bbr")
    parser.add_argument("--scale", default="paper")
    parser.add_argument("--seconds", type=float, default=2.2, help="simulated seconds")
    parser.add_argument(
        "--keep",
        default="delivered > 10 && (icsk_ca_state == 4 || snd_cwnd <= 4)",
        help="tracefs filter of the calls recorded (default: a sender's, in Loss or at 4 "
        "segments; a receiver's socket, whose delivered stays at its SYN's 1, calls bbr_main on "
        "every segment too)",
    )
    args = parser.parse_args()
    frame = calls(traced_run(args.scenario, args.point, args.scale, args.seconds, args.keep))
    print(f"{args.scenario} {args.point} ({args.scale}), {args.seconds} simulated s:")
    print(f"{len(frame)} bbr_main calls on {frame['sk'].nunique()} sockets")
    print(summary(frame).to_string(float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
