"""What holds back Linux's retransmissions at lossy-link's 5 % cell (issue 55): the emulated
sender traced with the send-path probes, and each lost segment's wait taken apart.

    .venv/bin/python benchmarks/retransmission_wait_traced.py [--out DIR] [--writes N]
                                                              [--repetitions N]
                                                              [--variant bbr ...]
                                                              [--keep-emulation]

The cut of `lossy_gap_traced.py` (5 % loss each way, 10 ms, N writes, default 69 061: 100 MB),
emulated with `batch --trace all --trace-raw --trace-send-path` (emusim.linux.tcp_tracefs), then
read by emusim.analysis.send_path. Per run it prints: lost segments; how long from a segment's
drop to its retransmission (median, 99th percentile) and from the first ACK that SACKed a
segment above it (RACK marks it lost on that ACK: no reordering is seen) to its retransmission;
the packets of new data sent while a segment marked lost waited, by what sent them (the
application's write, an ACK's own send after its retransmission check found the pacing clock
ahead, the pacing timer, `tcp_release_cb`); for the slowest 5 % of retransmissions the median
wait and new-data packets sent ahead of them; the least-squares cost of one packet ahead (ms of
wait) beside a 7-segment packet's time at the median pacing rate; and the median length of the
recoveries in which a retransmission waited LONG_WAIT_MS or more, and of the others. ns-3 has
no CPU time and its application writes at the ACK's instant, so neither race exists there
(docs/linux-cc.md, "CPU time on the send path"). Writes OUT/retransmission_wait_traced.csv.
Needs root and the VM; about 8 minutes a run (a VM's boot and a 100 MB run) with 2 cores busy.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from lossy_gap_traced import cut_scenario, measured_in, recovery_spans

from emusim.analysis import send_path, tcp_events
from emusim.core import constants
from emusim.core.paths import REPO_ROOT

PROFILE = "linux-6.1"
LONG_WAIT_MS = 1.5
"""A retransmission that waited this long after the first SACK above its segment waited behind
new data (the body of the waits ends near 1.3 ms, the 90th percentile)."""
GSO_SEGMENTS = 7
"""A full packet of this cell's sender (bbr's TSO goal at about 11 MB/s: the trace's new-data
packets), for the packet time the fit is set beside."""


def run_emulation(path: Path, out: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "emusim.backends.mininet", "batch", "--scenario", str(path),
         "--scale", "quick", "--profile", PROFILE, "--results-dir", str(out), "--place", "vm",
         "--trace", "all", "--trace-raw", "--trace-send-path"],
        check=True, cwd=REPO_ROOT,
    )  # fmt: skip


def recoveries_by_wait(trace: pd.DataFrame, w: pd.DataFrame) -> dict:
    """Median recovery length, ms, of the recoveries none of whose retransmissions waited
    LONG_WAIT_MS and of the others, and the share of the others."""
    tx = trace[trace["event"] == "tx"]
    sent = w["segment"].map(tx[tx["value"] == 1].groupby("segment")["t_s"].min())
    rows = []
    for entered, left in recovery_spans(trace):
        inside = w["sacked_above_to_retransmission_ms"][(sent >= entered) & (sent < left)]
        if len(inside):
            rows.append(((left - entered) * 1e3, inside.max() >= LONG_WAIT_MS))
    spans = pd.DataFrame(rows, columns=["ms", "waited"])
    return {
        "recovery_ms_median_no_long_wait": round(spans.loc[~spans["waited"], "ms"].median(), 1),
        "recovery_ms_median_long_wait": round(spans.loc[spans["waited"], "ms"].median(), 1),
        "recoveries_with_long_wait": round(spans["waited"].mean(), 3),
    }


def row(run_json: Path) -> dict:
    run = json.loads(run_json.read_text())
    offsets = run["provenance"]["mininet"]["trace"]["offsets"]
    timer_offset = offsets["pacing_timer"][1] // 8
    base = run_json.with_suffix("")
    with gzip.open(f"{base}.tracefs.txt.gz", "rt") as f:
        ev = send_path.events(f, timer_offset)
    ahead = send_path.new_data_ahead(ev)
    trace = tcp_events.read(f"{base}.csv.gz")
    w = send_path.waits(trace, ahead)
    tail = w[w["drop_to_retransmission_ms"] >= w["drop_to_retransmission_ms"].quantile(0.95)]
    slope_ms, _ = np.polyfit(w["new_ahead"], w["sacked_above_to_retransmission_ms"], 1)
    pacing = ev.loc[ev["kind"] == "retransmit_check", "pacing_Bps"].median()
    packet_ms = GSO_SEGMENTS * constants.ETH_FRAME_WIRE_B / pacing * 1e3
    by = ahead["sender"].value_counts()
    return {
        "variant": base.parent.name.split("variant=")[1],
        "run": base.name,
        "lost_segments": len(w),
        "drop_to_retransmission_ms_median": round(w["drop_to_retransmission_ms"].median(), 2),
        "drop_to_retransmission_ms_q99": round(w["drop_to_retransmission_ms"].quantile(0.99), 2),
        "sacked_above_to_retransmission_ms_median": round(
            w["sacked_above_to_retransmission_ms"].median(), 2
        ),
        "new_packets_while_lost_waited": len(ahead),
        **{f"by_{s}": int(by.get(s, 0)) for s in send_path.SENDERS},
        "tail_wait_ms_median": round(tail["sacked_above_to_retransmission_ms"].median(), 2),
        "tail_new_ahead_median": float(tail["new_ahead"].median()),
        "tail_ahead_by_application_write": round(
            tail["new_by_application_write"].sum() / max(tail["new_ahead"].sum(), 1), 3
        ),
        "ms_per_packet_ahead": round(slope_ms, 3),
        "packet_ms_at_pacing_rate": round(packet_ms, 3),
        **recoveries_by_wait(trace, w),
        **measured_in("mininet", Path(f"{base}.csv.gz")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT / "results/benchmarks/retransmission-wait"
    )
    parser.add_argument("--writes", type=int, default=69061)
    parser.add_argument("--repetitions", type=int, default=1)
    parser.add_argument("--variant", action="append", dest="variants")
    parser.add_argument(
        "--keep-emulation", action="store_true", help="read OUT's traced runs as they are"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    path = cut_scenario(args.out, args.writes, args.repetitions, args.variants or ["bbr"])
    if not args.keep_emulation:
        run_emulation(path, args.out / "emulation")
    runs = sorted(args.out.glob("emulation/mininet/lossy-gap/*/*/run*.json"))
    table = pd.DataFrame([row(p) for p in runs])
    table.to_csv(args.out / "retransmission_wait_traced.csv", index=False)
    print(table.T.to_string(header=False))


if __name__ == "__main__":
    main()
