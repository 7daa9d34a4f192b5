"""The lossy-link family at quick scale on ns-3 and on Mininet in the VM, through Snakemake in a
copy of the repository: every variant Linux has ran with its own congestion control (read back
from the connection), the ones a backend lacks are comparison rows saying so, and the impaired
link lost its share in each direction. Needs root and the VM (under five minutes here).

The copy's registry gains README.md's "Add a TCP variant" (a) entry as the README prints it (a
module with other parameters), and the shipped dctcp without `ecn: true`: Linux then falls back
to dctcp-reno, and both backends record those runs as such and go on (issue 30)."""

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from scipy.stats import binom
from test_lossy_workflow import SCENARIO, TARGETS, readme_entry, snakemake
from workflow_copy import copy_workflow

from emusim.backends.mininet.calibration import THROUGHPUT_TOLERANCE
from emusim.inputs import scenario as sc
from emusim.inputs import variants

pytestmark = [
    pytest.mark.ns3,
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.vm,
    # 6.5 minutes; CI runs the emulation through the workflow in test_workflow_mininet.py
    pytest.mark.extended,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
]


ADDED = readme_entry()[1]
DCTCP = "dctcp"
WITHOUT_ECN = "dctcp-noecn"
WITHOUT_ECN_ENTRY = f"""  {WITHOUT_ECN}:
    description: the shipped dctcp without ecn (Linux falls back to dctcp-reno)
    ns3: linux
    linux: {{congestion_control: dctcp, module: tcp_dctcp}}
    sources: tests/system/test_lossy_vm.py
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory, ns3_programs, mininet_ready) -> Path:
    root = copy_workflow(
        tmp_path_factory.mktemp("emusim-lossy"), ns3_programs, ("emu", "kernel-dropper")
    )
    registry = root / "config" / "tcp_variants.yaml"
    registry.write_text(registry.read_text() + readme_entry()[0] + WITHOUT_ECN_ENTRY)
    proc = snakemake(root, *TARGETS, backends="[ns3,mininet]", timeout=3000)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    return root / "scales" / "quick"


def _runs(study: Path) -> tuple[dict, list[dict]]:
    path = study / "results/mininet" / SCENARIO / "linux-6.1" / "batch.json"
    batch = json.loads(path.read_text())
    # run_files are relative to the workflow's directory (the copy), two levels above `study`
    return batch, [json.loads((study.parents[1] / p).read_text()) for p in batch["run_files"]]


def _registry(study: Path) -> dict:
    return variants.registry(study.parents[1] / "config" / "tcp_variants.yaml")


def _point_ids() -> list[str]:
    """The quick design's point ids with the copy's two added variants (`variant: all`)."""
    quick = sc.load(SCENARIO, "quick")
    cells = {p.id.rsplit("+variant=", 1)[0] for p in quick.points}
    added = [f"{cell}+variant={v}" for cell in sorted(cells) for v in (ADDED, WITHOUT_ECN)]
    return [p.id for p in quick.points] + added


def _variant_of(point_id: str) -> str:
    return point_id.rsplit("+variant=", 1)[1]


def test_every_linux_variant_ran_with_its_own_congestion_control(study):
    batch, runs = _runs(study)
    reg = _registry(study)
    linux = [p for p in _point_ids() if reg[_variant_of(p)].linux is not None]
    assert batch["place"] == "vm"
    assert sorted(r["point"] for r in runs) == sorted(linux)
    for r in runs:
        wanted = reg[r["params"]["variant"]].linux.congestion_control
        if r["params"]["variant"] == WITHOUT_ECN:
            # Linux's fallback, recorded with its reason; the batch went on
            assert r["status"] == "other-algorithm", r["point"]
            assert r["provenance"]["congestion_control"] == "dctcp-reno", r["point"]
            assert "not 'dctcp'" in r["provenance"]["mininet"]["congestion_control_note"]
            continue
        m = r["metrics"]
        if wanted == "dctcp" and r["provenance"]["congestion_control"] == "dctcp-reno":
            # A lost SYN (or SYN-ACK) is retransmitted without ECN (RFC 3168 §6.1.1.1,
            # tcp_ecn_clear_syn, tcp_output.c:3282-3284) and dctcp falls back: only where the
            # link loses packets, after the 1 s initial RTO, recorded as another algorithm
            assert r["params"]["loss"] != "0" and m["elapsed_s"] > 1.0, r["point"]
            assert r["status"] == "other-algorithm", r["point"]
            continue
        assert r["provenance"]["congestion_control"] == wanted, r["point"]
        assert m["goodput_Bps"] == pytest.approx(m["bytes_delivered"] / m["elapsed_s"], abs=0.01)
    modules = {v.linux.module for v in reg.values() if v.linux and v.linux.module}
    assert set(batch["variants"]["modules_loaded"]) <= modules
    assert {"tcp_htcp", "tcp_vegas", "tcp_cdg"} <= set(batch["variants"]["modules_loaded"])
    lacking = {p for p in _point_ids() if reg[_variant_of(p)].linux is None}
    assert {n["point"] for n in batch["not_implemented"]} == lacking
    # dilated time: the emulation holds the impaired link's delay; its line rate is judged
    if batch["clock"] == "guest-icount":
        check = batch["selfcheck"]
        assert check["delay"]["ok"] is True, check
        tput = check["throughput"]
        lo, hi = THROUGHPUT_TOLERANCE
        assert tput["ok"] is (lo <= tput["fraction_of_line_rate"] <= hi), tput
        # The window is whole segments of whole scale units (docs/mininet.md, "The self-check's
        # window"): linux-6.1 scales by 2^7, lcm(1448, 128) = 23168, 2 x 23168 <= 65535. With
        # 65535 B this line read 0.988-0.9998 (4 of 14 batches under 0.995).
        assert tput["window_clamp_B"] == 46336, tput
        assert tput["ok"] is True, tput
        assert check["delay"]["configured_us"] == pytest.approx(
            float(sc.load(SCENARIO, "quick").points[0].link["delay_ms"]) * 1000
        )


def test_the_impaired_link_lost_its_share_in_each_direction(study):
    _, runs = _runs(study)
    lossy = [r for r in runs if r["params"]["loss"] == "0.05"]
    for direction in ("forward", "reverse"):
        seen = sum(r["metrics"][f"link_packets_{direction}"] for r in lossy)
        lost = sum(r["metrics"][f"link_dropped_{direction}"] for r in lossy)
        # netem's loss is p = 0.05 exactly (to 2^-32), and at 5 % the window stays too small
        # to fill the queue, so every drop is a loss: binomial, 99.9 % interval
        lo, hi = binom.interval(0.999, seen, 0.05)
        assert lo <= lost <= hi, (direction, lost, seen)
    # Without loss the ACKs never queue. Data may: under software emulation the router
    # sometimes forwards slower than the link's rate, its queue fills (RTTs of 25-80 ms
    # instead of 20) and overflows; every such drop is then retransmitted.
    for r in (r for r in runs if r["params"]["loss"] == "0"):
        m = r["metrics"]
        assert m["link_dropped_reverse"] == 0, r["point"]
        assert m["link_dropped_forward"] <= m["retransmissions"], r["point"]


def test_each_run_records_the_senders_recovery_counters(study):
    batch, runs = _runs(study)
    # linux-6.1 is the kernel's loss detection as shipped, read back from the namespaces
    shipped = {"tcp_recovery": "1", "tcp_early_retrans": "3", "tcp_frto": "2", "tcp_dsack": "1"}
    assert {k: batch["tcp_sysctls"][f"net.ipv4.{k}"] for k in shipped} == shipped
    probes = 0
    for r in runs:
        counters = r["provenance"]["mininet"]["recovery_counters"]
        m = r["metrics"]
        # the same /proc/net/netstat deltas as the run's own metrics
        assert counters["TCPTimeouts"] == m["rto_timeouts"], r["point"]
        assert counters["TCPSackRecovery"] <= m["fast_recoveries"], r["point"]
        # a D-SACK reports a segment that arrived twice: only a retransmission makes one
        assert counters["TCPDSACKRecv"] <= m["retransmissions"], r["point"]
        if r["params"]["loss"] == "0":
            assert counters["TCPSackRecovery"] == 0 or m["link_dropped_forward"] > 0, r["point"]
            # one FIFO path and no loss: nothing arrives out of order, so Linux sees no
            # reordering (what the ns-3 model assumes everywhere, RackReoWindowUs)
            reorder = ("TCPSACKReorder", "TCPTSReorder", "TCPRenoReorder")
            assert [counters[name] for name in reorder] == [0, 0, 0], r["point"]
        else:
            probes += counters["TCPLossProbes"]
    assert probes > 0  # tail loss probes are on


def test_an_added_linux_variant_runs_the_same_code_in_ns3(study):
    # dctcp: ECN on at both ends, so Linux's dctcp ran as itself in ns-3 too; without ECN
    # ns-3's copy of the module fell back as Linux's did; README's entry ran its module
    for variant, status, algorithm in (
        (DCTCP, "ok", "dctcp"),
        (WITHOUT_ECN, "other-algorithm", "dctcp-reno"),
        (ADDED, "ok", _registry(study)[ADDED].linux.congestion_control),
    ):
        runs = sorted(
            (study / "results/ns3" / SCENARIO / "linux-6.1").glob(f"*variant={variant}/run1.json")
        )
        assert len(runs) == 3, variant
        for path in runs:
            run = json.loads(path.read_text())
            assert run["status"] == status, path
            assert run["provenance"]["ns3"]["linux_congestion_control"] == algorithm, path
            command = " ".join(run["provenance"]["command"])
            assert ("UseEcn=On" in command) == (variant == DCTCP), path


def test_the_comparison_has_a_row_for_every_cell_saying_what_is_missing(study):
    table = pd.read_csv(study / "results/compare" / f"{SCENARIO}-ns3-vs-mininet.csv")
    reg = _registry(study)
    assert len(table) == 2 * len(_point_ids())  # goodput and completion time
    cell = {(r.delay_ms, str(r.loss), r.variant, r.metric): r for r in table.itertuples()}
    for row in table.itertuples():
        v = reg[row.variant]
        if v.models is not None:
            # ns-3's own class against the emulation's runs of the Linux variant it models
            twin = cell[(row.delay_ms, str(row.loss), v.models, row.metric)]
            assert row.mininet == twin.mininet and row.status == twin.status, row
            assert row.rel_diff == pytest.approx((row.mininet - row.ns3) / row.mininet)
        elif v.linux is None:
            assert row.status == "mininet: not implemented" and pd.isna(row.mininet)
        elif v.ns3 is None:
            assert row.status == "ns3: not implemented" and not pd.isna(row.mininet)
        elif row.variant == WITHOUT_ECN:
            # runs of another algorithm are left out of the statistics, and the row says so
            assert row.status == (
                "mininet: other-algorithm (1 of 1 runs); ns3: other-algorithm (1 of 1 runs)"
            ), row
            assert pd.isna(row.ns3) and pd.isna(row.mininet), row
        elif row.variant == DCTCP and pd.isna(row.mininet):
            # the emulation's one run fell back to dctcp-reno after a lost SYN (above,
            # tcp_output.c:3282-3284): left out, and the row says so
            assert float(row.loss) > 0 and not pd.isna(row.ns3), row
            assert row.status == "mininet: other-algorithm (1 of 1 runs)", row
        else:
            assert not pd.isna(row.ns3) and not pd.isna(row.mininet), row
            assert row.rel_diff == pytest.approx((row.mininet - row.ns3) / row.mininet)
    for target in TARGETS[:2]:
        assert (study.parents[1] / target).stat().st_size > 1000


def test_without_loss_both_backends_agree_on_every_variant_both_implement(study):
    # issue 30: Linux's own modules in ns-3 (ns3: linux) on Linux's RTT, RTO and receiver ACKs
    # (TcpLinuxSocket): a loss-free 1 MB transfer is deterministic on both sides, and its
    # goodput agrees within 5 % for every variant. A variant whose runs differ by chance
    # (random: bbr, lp) is one draw on each side here, compared by its spread elsewhere.
    table = pd.read_csv(study / "results/compare" / f"{SCENARIO}-ns3-vs-mininet.csv")
    reg = _registry(study)
    both = {n for n, v in reg.items() if v.ns3 and v.linux and not v.random} - {WITHOUT_ECN}
    rows = table[(table["loss"].astype(float) == 0) & table["variant"].isin(both)]
    rows = rows[rows["metric"] == "goodput_Bps"]
    assert set(rows["variant"]) == both
    assert (rows["status"] == "ok").all(), rows[["variant", "status"]]
    worst = rows.loc[rows["rel_diff"].abs().idxmax()]
    assert rows["rel_diff"].abs().max() <= 0.05, (worst["variant"], worst["rel_diff"])


def test_a_parameter_variant_runs_in_a_kernel_of_its_own_and_records_its_parameters(study):
    # cubic-nohystart is tcp_cubic with hystart 0 (config/tcp_variants.yaml): module
    # parameters are kernel-wide, so the batch ran it in a session (a VM) of its own beside
    # cubic's, and each of its runs records the parameter as read back from /sys/module.
    # HyStart ends slow start without a loss (tcp_cubic.c, hystart_update): loss-free, cubic's
    # connection ends with a finite ssthresh; without HyStart it keeps the initial one,
    # TCP_INFINITE_SSTHRESH (0x7fffffff, include/net/tcp.h), as tcp_info reports it.
    batch, runs = _runs(study)
    cubic = [r for r in runs if r["params"]["variant"] == "cubic"]
    nohystart = [r for r in runs if r["params"]["variant"] == "cubic-nohystart"]
    assert cubic and nohystart
    assert all(
        r["provenance"]["module_parameters"] == {"tcp_cubic.hystart": "0"} for r in nohystart
    )
    assert not any("module_parameters" in r["provenance"] for r in cubic)
    kernels = {r["provenance"]["batch_id"] for r in nohystart}
    assert kernels.isdisjoint(r["provenance"]["batch_id"] for r in cubic)
    assert len(batch["sessions"]) >= 2
    # joined with the README's parameter variant's, which had a session of its own too
    assert batch["variants"]["module_parameters"]["tcp_cubic.hystart"] == "0"

    def loss_free(rs):
        return next(r for r in rs if r["params"]["loss"] == "0")["provenance"]["mininet"]

    assert loss_free(cubic)["snd_ssthresh"] < 0x7FFFFFFF
    assert loss_free(nohystart)["snd_ssthresh"] == 0x7FFFFFFF
