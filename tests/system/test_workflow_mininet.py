"""The workflow with the Mininet backend at quick scale, in a copy of the repository: random-drop
through `snakemake all` with hardware, ns-3 and Mininet. The emulation runs in a VM (the
scenario's delay is measured and this kernel has no netem), the workflow builds the dropper
module and the blast tools itself, and `auto` picks the module. Needs root and the VM."""

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from scipy.stats import binom
from workflow_copy import SNAKEMAKE, copy_workflow

from emusim.backends.mininet import selfcheck
from emusim.inputs import scenario as sc

pytestmark = [
    pytest.mark.ns3,
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.vm,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
]

SCENARIO = "random-drop"


@pytest.fixture(scope="module")
def study(tmp_path_factory, ns3_programs, mininet_ready) -> Path:
    root = copy_workflow(
        tmp_path_factory.mktemp("emusim-mininet"), ns3_programs, ("emu", "kernel-dropper")
    )
    proc = subprocess.run(
        [*SNAKEMAKE, "all", "--cores", "2", "--config", "scale=quick",
         "backends=[hardware,ns3,mininet]", f"scenarios=[{SCENARIO}]", "ablation={scenarios: []}"],
        cwd=root, env=dict(os.environ, EMUSIM_ROOT=str(root)),
        capture_output=True, text=True, check=False, timeout=3000,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    return root / "scales" / "quick"


def test_every_point_has_mininet_runs_with_the_module_in_the_vm(study):
    s = sc.load(SCENARIO, "quick")
    batch = json.loads(
        (study / "results/mininet" / SCENARIO / "linux-2.2" / "batch.json").read_text()
    )
    assert batch["place"] == "vm" and batch["dropper_impl"] == "module"
    assert batch["kernel_release"] and batch["kvm"] is False
    # run_files are relative to the workflow's directory (the copy), two levels above `study`
    runs = [json.loads((study.parents[1] / p).read_text()) for p in batch["run_files"]]
    # every point and repetition of the quick design, each run recording where it ran and how;
    # in dilated time the rate-0 point, which draws no random numbers, runs once
    # (config mininet.repeat_deterministic: false)
    dilated = batch["clock"] == "guest-icount"

    def reps(point) -> int:
        return s.repetitions if point.is_random or not dilated else 1

    assert sorted((r["point"], r["repetition"]) for r in runs) == sorted(
        (p.id, k) for p in s.points for k in range(1, reps(p) + 1)
    )
    for r in runs:
        prov = r["provenance"]
        rate = float(r["params"]["drop_rate"])
        # a point whose dropper cannot drop runs without one
        assert prov["dropper_impl"] == ("module" if rate > 0 else "none")
        assert prov["place"] == "vm" and prov["kernel_release"] == batch["kernel_release"]
        # the module's random drops: binomial in the packets it decided on (99.9 % interval),
        # its own count. That count is the connection's segments to the receiver: the sender's
        # own count within 1 % (TCP_INFO is read at the end of the transfer; CI saw the module
        # count one more packet at the end of some runs)
        if rate == 0:
            assert r["metrics"]["packets_dropped"] == 0, r["point"]
            continue
        seen = prov["mininet"]["dropper_packets_seen"]
        sent = prov["mininet"]["segments_sent"]
        assert abs(seen - sent) <= 0.01 * sent, (r["point"], seen, sent)
        p = int(rate * 65535) / 65536
        lo, hi = binom.interval(0.999, seen, p)
        assert lo <= r["metrics"]["packets_dropped"] <= hi, (r["point"], seen)


def test_comparison_has_mininet_rows_flagged_by_the_selfcheck(study):
    compare = pd.read_csv(study / "results/compare" / f"{SCENARIO}.csv", keep_default_na=False)
    assert set(compare["backend"]) == {"ns3", "mininet"}
    mininet = compare[compare["backend"] == "mininet"]
    # the scenario's emulated profiles: the report's Linux 2.2 and, for the decomposition of
    # its gap, Linux 6.1 (the VM's own kernel)
    assert set(mininet["profile"]) == {"linux-2.2", "linux-6.1"}
    assert len(mininet) == 2 * len(sc.load(SCENARIO, "quick").points)
    verdicts = {}
    for profile in ("linux-2.2", "linux-6.1"):
        # the flag is the batch's verdict, recomputed here from its ok fields
        batch = json.loads(
            (study / "results/mininet" / SCENARIO / profile / "batch.json").read_text()
        )
        check = batch["selfcheck"]
        expected = selfcheck.verdict(check["throughput"]["ok"], check["delay"]["ok"])
        assert set(mininet.loc[mininet["profile"] == profile, "selfcheck"]) == {expected}
        # in dilated time (a VM without KVM, as on our machines) the emulation holds line rate
        # within 0.5 % and the configured delay within 5 %: the batch passes its self-check
        if batch["clock"] == "guest-icount":
            assert expected == "ok", check
        verdicts[profile] = (expected, check["throughput"]["fraction_of_line_rate"])
    assert set(compare.loc[compare["backend"] == "ns3", "selfcheck"]) == {""}
    summary = pd.read_csv(study / "results/compare/summary.csv", keep_default_na=False)
    row = summary[(summary["backend"] == "mininet") & (summary["scenario"] == SCENARIO)]
    assert dict(zip(row["profile"], row["selfcheck"], strict=True)) == {
        profile: verdict for profile, (verdict, _) in verdicts.items()
    }
    table = pd.read_csv(study / "results/mininet/selfcheck.csv")
    for profile, (_, fraction) in verdicts.items():
        line = table[(table["scenario"] == SCENARIO) & (table["profile"] == profile)]
        assert line["line_rate_fraction"].iloc[0] == pytest.approx(fraction)


def test_figures_and_tables_include_the_emulation(study):
    stats = pd.read_csv(study / "results/stats" / f"{SCENARIO}.csv")
    assert {"hardware", "ns3", "mininet"} <= set(stats["backend"])
    for stem in ("fig4_1_random_drop", "fig5_1_exp_vs_sim", "fig5_2_rel_diff"):
        assert (study / "figures" / f"{stem}.png").stat().st_size > 1000
    for ext in ("pdf", "png"):
        assert (study / "figures" / f"fig_mininet_selfcheck.{ext}").stat().st_size > 1000
    for ext in ("csv", "tex", "html"):
        assert (study / "paper/tables" / f"mininet_selfcheck.{ext}").exists()
    assert "mininet (linux-2.2)" in (study / "paper/tables" / f"{SCENARIO}.csv").read_text()
