"""The real router-forwarding program of ns-3: its TestSuite, the line rate without the
processing model, and with it the service rates the model's formulas give."""

import json
import subprocess

import pytest

from emusim.backends.ns3 import command as ns3
from emusim.inputs import scenario as sc
from emusim.inputs import tcp_profiles
from emusim.workloads import udp_flood

pytestmark = pytest.mark.ns3

DELAY_US = 71.8878  # the report's §3.2 value: these tests check the model, not the fit


def _run(programs, point_id: str, *extra: str, duration_s: float = 0.5) -> dict:
    s = sc.load("router-forwarding", "quick")
    cmd = ns3.command(
        str(programs / "router-forwarding"),
        s,
        s.point(point_id),
        tcp_profiles.get("linux-2.2"),
        1,
        DELAY_US,
    )
    cmd = [a for a in cmd if not a.startswith("--durationS=")] + [f"--durationS={duration_s}"]
    proc = subprocess.run([*cmd, *extra], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_router_processor_test_suite_passes(ns3_programs):
    proc = subprocess.run(
        [str(ns3_programs / "emusim-ns3-tests"), "--suite=emusim-router-processor", "--verbose"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS emusim-router-processor" in proc.stdout + proc.stderr


@pytest.mark.parametrize("payload", [64, 1472, 8192])
@pytest.mark.parametrize("path", udp_flood.PATHS)
def test_without_the_model_ns3_forwards_at_line_rate(ns3_programs, payload, path):
    out = _run(ns3_programs, f"payload_B={payload}+path={path}")
    m = out["metrics"]
    assert out["ns3"]["model"] == "off"
    assert m["packets_per_s"] == pytest.approx(udp_flood.line_rate_pps(payload), rel=1e-4)
    assert m["loss"] == 0 and m["rx_datagrams"] == m["tx_datagrams"]
    assert m["frames_per_datagram"] == udp_flood.frames(payload)
    forwarded = m["rx_datagrams"] * udp_flood.frames(payload) if path == "routed" else 0
    assert m["router_forwarded_frames"] == forwarded and m["router_dropped_frames"] == 0
    # the program's metrics are emusim.workloads.udp_flood's, from its own counts
    mine = udp_flood.flood_metrics(payload, m["tx_datagrams"], m["tx_s"], m["rx_datagrams"],
                                    m["rx_s"], 0, m["router_forwarded_frames"], 0)  # fmt: skip
    for key, value in mine.items():
        assert m[key] == pytest.approx(value, rel=1e-6, abs=1e-9), key


def test_a_router_on_its_own_cpu_forwards_one_over_its_service_time(ns3_programs):
    # a = 20 us, b = 10 ns/B: 64 B (92 IP bytes) take 20.92 us, 47 801 packets/s, while the
    # line brings 96 154: about half is dropped, as the measurement-tool paper's router did
    out = _run(ns3_programs, "payload_B=64+path=routed", "--model=on", "--sharedCpu=false",
               "--routerPerPacketNs=20000", "--routerPerByteNs=10")  # fmt: skip
    m, proc = out["metrics"], out["ns3"]["processor"]
    service = 20e-6 + 92 * 10e-9
    assert m["packets_per_s"] == pytest.approx(1 / service, rel=1e-4)
    # the sender's pace: the line's, plus the 100 frames of its queue filled at the start
    queue_share = 100 / (0.5 * udp_flood.line_rate_pps(64))
    assert m["tx_pps"] == pytest.approx(udp_flood.line_rate_pps(64) * (1 + queue_share), rel=1e-3)
    # busy from the first arrival on: 0.5 s, the 1.04 ms in which the sender's queue (100
    # frames of 130 byte-times) empties after its last send, then the full queue (1000) drains
    busy_s = 0.5 + 100 * 130 / 12.5e6
    assert m["rx_datagrams"] == pytest.approx(busy_s / service + 1000, abs=3)
    assert m["loss"] == pytest.approx(1 - m["rx_datagrams"] / m["tx_datagrams"])
    assert proc["forwarding_s"] == pytest.approx(proc["served"] * service, rel=1e-6)
    assert proc["max_waiting"] == 1000 and proc["drops"] == m["router_dropped_frames"]
    assert proc["served"] == m["rx_datagrams"]


def test_a_shared_cpu_runs_sender_and_router_one_after_the_other(ns3_programs):
    # g = 1 ms per datagram (below the line rate of 1462 per second), r = 6 x 40 us +
    # 8320 x 5 ns per 8192-B datagram of 6 packets
    g_ns, a_ns, b_ns = 1_000_000, 40_000, 5
    model = ["--model=on", "--sharedCpu=true", f"--generatorTimeNs={g_ns}",
             f"--routerPerPacketNs={a_ns}", f"--routerPerByteNs={b_ns}"]  # fmt: skip
    routed = _run(ns3_programs, "payload_B=8192+path=routed", *model, duration_s=2)["metrics"]
    direct = _run(ns3_programs, "payload_B=8192+path=direct", *model, duration_s=2)["metrics"]
    router_s = (6 * a_ns + udp_flood.ip_bytes(8192) * b_ns) * 1e-9
    assert direct["packets_per_s"] == pytest.approx(1 / (g_ns * 1e-9), rel=1e-3)
    assert routed["packets_per_s"] == pytest.approx(1 / (g_ns * 1e-9 + router_s), rel=1e-3)
    assert routed["loss"] == 0 and direct["loss"] == 0


def test_a_run_is_deterministic(ns3_programs):
    a = _run(ns3_programs, "payload_B=512+path=routed")
    b = _run(ns3_programs, "payload_B=512+path=routed")
    assert a == b
