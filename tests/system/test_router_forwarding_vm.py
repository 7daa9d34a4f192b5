"""The router-forwarding study at quick scale through `snakemake all` in a copy of the
repository, on ns-3 and on Mininet in the VM: every run there with its kernel recorded, ns-3
at line rate without the processing model, the model fitted to the emulation with intervals
and run, both comparisons complete, the figures and the paper's section made from them, and a
rerun with nothing to do. Needs root and the VM (about five minutes here)."""

import json
import os
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
from workflow_copy import SNAKEMAKE, copy_workflow

from emusim.inputs import scenario as sc
from emusim.workloads import udp_flood

pytestmark = [
    # CI's tier leaves it out (README, "Tests"): `make test-all` runs it
    pytest.mark.extended,
    pytest.mark.ns3,
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.vm,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
]

SCENARIO = "router-forwarding"
STEM = "fig_router_forwarding"


def snakemake(root: Path, *args: str, timeout: float = 3000) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*SNAKEMAKE, "--cores", "2", *args, "--config", "scale=quick",
         "backends=[ns3,mininet]", f"scenarios=[{SCENARIO}]"],
        cwd=root, env=dict(os.environ, EMUSIM_ROOT=str(root)),
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


@pytest.fixture(scope="module")
def study(tmp_path_factory, ns3_programs, mininet_ready) -> Path:
    root = copy_workflow(
        tmp_path_factory.mktemp("emusim-forwarding"), ns3_programs, ("emu", "kernel-dropper")
    )
    start = time.monotonic()
    proc = snakemake(root, "all")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    print(f"snakemake all, router-forwarding at quick scale: {time.monotonic() - start:.0f} s")
    return root


def _results(root: Path) -> Path:
    return root / "scales/quick/results"


def _runs(root: Path, backend: str) -> list[dict]:
    return [
        json.loads(p.read_text())
        for p in sorted((_results(root) / backend / SCENARIO).glob("*/*/run*.json"))
    ]


def test_every_point_ran_in_the_vm_with_its_kernel_recorded(study):
    quick = sc.load(SCENARIO, "quick")
    batch_json = _results(study) / "mininet" / SCENARIO / "linux-2.2/batch.json"
    batch = json.loads(batch_json.read_text())
    assert batch["place"] == "vm" and batch["kernel_release"]
    if batch["clock"] == "guest-icount":  # dilated time: line rate and delay within bounds
        check = batch["selfcheck"]
        assert check["throughput"]["ok"] is True and check["delay"]["ok"] is True, check
    runs = _runs(study, "mininet")
    assert len(runs) == len(quick.points) * quick.repetitions
    for run in runs:
        assert run["provenance"]["kernel_release"] == batch["kernel_release"]
        m = run["metrics"]
        payload = run["params"]["payload_B"]
        assert m["tx_datagrams"] > 0 and 0 <= m["rx_datagrams"] <= m["tx_datagrams"]
        # no sender outruns its link
        assert m["tx_pps"] <= udp_flood.line_rate_pps(payload) * 1.05
        assert m["loss"] == pytest.approx(1 - m["rx_datagrams"] / m["tx_datagrams"])
        if run["params"]["path"] == "routed":
            # every frame the sink got passed the router's egress
            frames = m["rx_datagrams"] * udp_flood.frames(payload)
            assert m["router_forwarded_frames"] >= frames
        else:
            assert m["router_forwarded_frames"] == 0


def test_ns3_without_the_model_forwards_at_line_rate(study):
    for run in _runs(study, "ns3"):
        payload = run["params"]["payload_B"]
        assert run["metrics"]["packets_per_s"] == pytest.approx(
            udp_flood.line_rate_pps(payload), rel=1e-3
        )
        assert run["metrics"]["loss"] == 0


def test_the_model_is_fitted_to_the_emulation_and_run(study):
    fit = json.loads((_results(study) / "forwarding" / SCENARIO / "model-fit.json").read_text())
    assert fit["backend"] == "mininet" and fit["shared_cpu"] is True
    assert fit["emulation"]["place"] == "vm" and fit["queue_packets"] > 0
    host, router = fit["host"], fit["router"]
    # the sizes the CPU holds back below line rate are in the fits: at least the 64-byte
    # floods of each path (in dilated time the guest is a 1-GIPS machine: 64 B only)
    quick = sc.load(SCENARIO, "quick")
    assert host["n"] >= quick.repetitions and router["n"] >= quick.repetitions
    low, high = host["per_datagram_ci_s"]
    assert host["per_datagram_s"] > 0 and low < host["per_datagram_estimate_s"] < high
    batch = json.loads(
        (_results(study) / "mininet" / SCENARIO / "linux-2.2" / "batch.json").read_text()
    )
    if batch["clock"] == "guest-icount":
        # every run of a size costs the same instructions: the intervals are narrow and
        # exclude zero (under real-time emulation the router's contained it)
        r_low, r_high = router["per_packet_ci_s"]
        assert low > 0 and 0 < r_low < router["per_packet_s"] < r_high
    for part, terms in ((host, ("per_datagram", "per_extra_frame", "per_byte")),
                        (router, ("per_packet", "per_byte"))):  # fmt: skip
        for term in terms:
            assert part[f"{term}_s"] >= 0, term
    model = {r["point"]: r for r in _runs(study, udp_flood.MODEL_BACKEND)}
    assert set(model) == {p.id for p in quick.points}
    for point in quick.points:
        payload = point.values["payload_B"]
        g = (
            host["per_datagram_s"]
            + host["per_extra_frame_s"] * (udp_flood.frames(payload) - 1)
            + host["per_byte_s"] * udp_flood.ip_bytes(payload)
        )
        m = model[point.id]["metrics"]
        assert m["loss"] == 0  # a shared CPU forwards whatever its sender makes
        if point.values["path"] == "direct":
            expected = min(1 / g, udp_flood.line_rate_pps(payload))
            assert m["packets_per_s"] == pytest.approx(expected, rel=2e-3)


def test_both_comparisons_have_every_point_and_metric(study):
    quick = sc.load(SCENARIO, "quick")
    for other in ("ns3", udp_flood.MODEL_BACKEND):
        table = pd.read_csv(_results(study) / "compare" / f"{SCENARIO}-{other}-vs-mininet.csv")
        assert len(table) == len(quick.points) * len(udp_flood.METRICS)
        assert set(table["metric"]) == set(udp_flood.METRICS)
        rates = table[table["metric"] != "loss"]
        assert rates[["mininet", other]].notna().all().all()
        assert rates["rel_diff"].to_numpy() == pytest.approx(
            ((rates["mininet"] - rates[other]) / rates["mininet"]).to_numpy()
        )


def test_figures_and_the_papers_section(study):
    quick = study / "scales/quick"
    for kind in ("mbps", "pps", "loss", "fit"):
        assert (quick / "figures" / f"{STEM}_{kind}.pdf").stat().st_size > 1000, kind
    numbers = (quick / "paper/generated/numbers.tex").read_text()
    for name in (
        "RouterForwardingMininetGeneratorPps",
        "RouterForwardingRouterPerPacketUs",
        "RouterForwardingRelDiffMedianNsThreeModelPps",
        "RouterForwardingEmulationKernel",
    ):
        line = next(x for x in numbers.splitlines() if f"\\{name}}}" in x)
        assert "n/a" not in line, line
    text = subprocess.run(
        ["pdftotext", "-layout", str(quick / "paper/build/paper.pdf"), "-"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    # the section: from its heading to the next one (other studies did not run in this copy)
    section = text.split("Router forwarding against packet size")[1].split("Threats to validity")[0]
    section = " ".join(section.split())
    assert "What the emulation shows" in section and "The fit." in section
    assert "n/a" not in section and "not produced at this scale" not in section


def test_a_rerun_does_nothing(study):
    proc = snakemake(study, "-n", "all", timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Nothing to be done" in proc.stdout + proc.stderr
