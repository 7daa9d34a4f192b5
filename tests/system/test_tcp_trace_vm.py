"""Tracing the emulated TCP sender for real (docs/mininet.md, "Tracing the emulated TCP"): a
traced batch of lossy-link's reno cell at 5 % loss each way and 10 ms, quick scale (691
writes), in the VM in dilated time, and its trace checked against facts of the run the trace
did not make: the blast tool's TCP_INFO, the namespace's MIB counters and netem's own drop
count; with `--trace-ca tcp_reno_cong_avoid`, the module-function probe against the ACKs the
trace saw. Needs root and the VM (about 3 minutes here)."""

import gzip
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from emusim.analysis import tcp_events
from emusim.backends.mininet.tracing import trace_path
from emusim.inputs import scenario as sc
from emusim.linux import tracefs_convert

pytestmark = [
    # CI's tier leaves it out (README, "Tests"): `make test-all` runs it
    pytest.mark.extended,
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.vm,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
]

POINT = "delay_ms=10+loss=0.05+variant=reno"


@pytest.fixture(scope="module")
def traced(tmp_path_factory, mininet_ready) -> tuple[dict, Path]:
    root = tmp_path_factory.mktemp("tcp-trace")
    body = yaml.safe_load((sc.SCENARIO_DIR / "lossy-link.yaml").read_text())
    (root / "topologies").mkdir()
    for name in ("lossy-link.yaml",):
        src = sc.SCENARIO_DIR / "topologies" / name
        (root / "topologies" / name).write_text(src.read_text())
    path = root / "lossytrace.yaml"
    path.write_text(yaml.safe_dump(body))
    proc = subprocess.run(
        [sys.executable, "-m", "emusim.backends.mininet", "batch", "--scenario", str(path),
         "--scale", "quick", "--profile", "linux-6.1", "--results-dir", str(root / "r"),
         "--place", "vm", "--trace", POINT, "--trace-only", "--trace-raw",
         "--trace-ca", "tcp_reno_cong_avoid"],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    run_file = root / "r" / "mininet" / "lossytrace" / "linux-6.1" / POINT / "run1.json"
    batch = json.loads((run_file.parents[1] / "batch.json").read_text())
    assert [Path(p).name for p in batch["run_files"]] == ["run1.json"]  # only the traced run
    return json.loads(run_file.read_text()), trace_path(run_file)


def test_the_trace_agrees_with_what_the_run_counted(traced):
    run, path = traced
    m, facts = run["metrics"], run["provenance"]["mininet"]["trace"]
    assert run["status"] == "ok" and run["provenance"]["clock"] == "guest-icount"
    assert facts["complete"] and facts["overrun"] == 0
    trace = tcp_events.read(path)
    tx = trace[trace["event"] == "tx"]
    # every write went out at least once, each data segment sent is a tx (TCP_INFO's
    # tcpi_data_segs_out counts retransmissions too)
    assert len(tx) >= m["writes"]
    assert len(tx) == m["packets_sent"]
    assert set(tx.loc[tx["value"] == 0, "segment"]) == set(range(m["writes"]))
    # retransmissions: the trace's, the kernel's own tracepoint and tcpi_total_retrans (which
    # also counts a lost SYN's, which ns-3's CSV has no row for: `control_retransmissions`)
    retransmitted = int(tx["value"].sum()) + facts["control_retransmissions"]
    assert retransmitted == m["retransmissions"] == facts["kernel_retransmits"]
    # the last ACK acknowledges every byte (and the FIN): segment = bytes / 1448
    acks = trace[trace["event"] == "ack"]
    assert acks["segment"].max() == m["payload_bytes"] // 1448
    assert facts["highest_ack"] == m["payload_bytes"] + 1
    # RTO firings against TCPTimeouts, recoveries against TCPSackRecovery, drops toward the
    # receiver against netem's count on the lossy egress
    assert (trace["event"] == "timeout").sum() == m["rto_timeouts"]
    s = tcp_events.summary(trace)
    assert s["fast_recoveries"] == m["fast_recoveries"]
    assert s["dropper_drops"] + facts["control_drops"] == m["link_dropped_forward"]
    assert s["retransmissions"] + facts["control_retransmissions"] == m["retransmissions"]
    # the connection's time: from its SYN to its last ACK, in the guest's clock; the run's
    # ends at the server's reply, later by a timeout where the reply was lost
    assert 0.5 * m["elapsed_s"] < s["elapsed_s"] <= m["elapsed_s"] + 1e-3
    # 5 % loss each way: every lost segment is retransmitted; a timeout series is an RTO
    # that entered Loss (a repeated RTO of one series does not start another)
    assert s["retransmissions"] >= s["dropper_drops"] > 0
    assert s["timeout_series"] <= m["rto_timeouts"]


def test_the_ca_probe_sees_each_window_growth_on_its_ack(traced):
    """`ca` fires in `tcp_reno_cong_avoid` on the sender's socket: each event follows the `ack`
    event of the same ACK (`tcp_rate_gen`, earlier in `tcp_ack`), with its ACK number as the
    argument and the window that ACK left (reno grows only in Open or Disorder, never in a
    reduction: not on every ACK)."""
    _, path = traced
    raw = path.with_name(path.name.replace(".csv.gz", ".tracefs.txt.gz"))
    with gzip.open(raw, "rt") as f:
        events = [e for e in tracefs_convert.parse(f) if e.name in ("ack", "ca")]
    calls = [(before, e) for before, e in itertools.pairwise(events) if e.name == "ca"]
    acks = sum(e.name == "ack" for e in events)
    assert 0 < len(calls) < acks
    for before, call in calls:
        assert before.name == "ack" and before.fields["sk"] == call.fields["sk"]
        assert call.int("ack") == before.int("una")
        assert call.int("win") == before.int("win")
