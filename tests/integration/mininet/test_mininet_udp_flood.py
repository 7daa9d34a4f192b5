"""A router-forwarding batch of the Mininet backend on this machine's kernel (no VM: the
scenario's delay is set to 0, so no netem is needed): every run's counters agree with each
other and with the wire's arithmetic, and a fragmented flood loses no fragment at the sender.
Needs root (network namespaces); about half a minute."""

import json
import os
from pathlib import Path

import pytest
import yaml

from emusim.backends.mininet.batch import run_batch
from emusim.core.paths import REPO_ROOT
from emusim.inputs import scenario as sc
from emusim.workloads import udp_flood

pytestmark = [
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
]

SIZES = [64, 1472, 8192]


@pytest.fixture(scope="module")
def batch(tmp_path_factory, mininet_ready) -> tuple[dict, list[dict]]:
    root = tmp_path_factory.mktemp("forwarding-host")
    spec = yaml.safe_load((REPO_ROOT / "scenarios/router-forwarding.yaml").read_text())
    topology = yaml.safe_load((REPO_ROOT / "scenarios/topologies/lin2001.yaml").read_text())
    spec["topology"] = {**topology, "delay": 0}
    spec["scales"]["quick"] = {
        "workload": {"duration_s": 2},
        "repetitions": 1,
        "sweep": {"payload_B": SIZES, "path": list(udp_flood.PATHS)},
    }
    path = root / "router-forwarding-host.yaml"
    path.write_text(yaml.safe_dump(spec))
    out = run_batch(sc.load(path, "quick"), "linux-2.2", root / "results", place="host")
    return out, [json.loads(Path(p).read_text()) for p in out["run_files"]]


def test_the_batch_ran_here_with_its_kernel_recorded(batch):
    out, runs = batch
    assert out["place"] == "host" and len(runs) == len(SIZES) * 2
    assert all(r["provenance"]["kernel_release"] == os.uname().release for r in runs)


def test_counters_agree(batch):
    _, runs = batch
    for run in runs:
        m, facts = run["metrics"], run["provenance"]["mininet"]
        payload, path = run["params"]["payload_B"], run["params"]["path"]
        assert m["frames_per_datagram"] == udp_flood.frames(payload)
        assert m["tx_pps"] <= udp_flood.line_rate_pps(payload) * 1.05, run["point"]
        assert 0 < m["rx_datagrams"] <= m["tx_datagrams"]
        assert m["loss"] == pytest.approx(1 - m["rx_datagrams"] / m["tx_datagrams"])
        assert m["throughput_Mbps"] == pytest.approx(m["packets_per_s"] * payload * 8 / 1e6)
        assert facts["sink_end"] == "marker" and facts["sink_rcvbuf_B"] >= 16 << 20
        if path == "routed":
            # every frame of every datagram the sink got passed the router's egress queue
            assert m["router_forwarded_frames"] >= m["rx_datagrams"] * m["frames_per_datagram"]
            assert facts["router_ip_forwarded"] >= m["router_forwarded_frames"]
        else:
            assert m["router_forwarded_frames"] == facts["router_ip_forwarded"] == 0


def test_a_fragmented_flood_is_paced_and_loses_no_fragment_at_the_sender(batch):
    _, runs = batch
    for run in (r for r in runs if r["params"]["payload_B"] == 8192):
        m, facts = run["metrics"], run["provenance"]["mininet"]
        assert m["send_errors"] == 0 and facts["sink_reassembly_fails"] == 0, run["point"]
        assert m["tx_pps"] <= udp_flood.line_rate_pps(8192) * 1.01
