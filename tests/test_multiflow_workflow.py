"""The multi-flow study through `snakemake all` at quick scale, in a copy of the repository:
its runs, per-phase tables, four figures and the paper section, with the phase tables checked
against the runs' own series and against what FAST's design predicts."""

import json
import os
import subprocess

import numpy as np
import pandas as pd
import pytest
from workflow_copy import SNAKEMAKE, copy_workflow

from emusim import multiflow as mf
from emusim import scenario as sc
from emusim import variants

SCENARIOS = ["multiflow-dynamic-i", "multiflow-dynamic-ii", "multiflow-buffer"]
FIGURES = [
    "fig_multiflow_dynamic_i_throughput",
    "fig_multiflow_dynamic_i_queue",
    "fig_multiflow_dynamic_ii",
    "fig_multiflow_buffer",
]


@pytest.mark.ns3
@pytest.mark.slow
def test_snakemake_all_makes_the_multiflow_study(tmp_path, ns3_programs):
    root = copy_workflow(tmp_path, ns3_programs)
    proc = subprocess.run(
        [*SNAKEMAKE, "--cores", "2", "all", "--config", "scale=quick", "backends=[ns3]",
         f"scenarios=[{','.join(SCENARIOS)}]"],
        cwd=root, env=dict(os.environ, EMUSIM_ROOT=str(root)),
        capture_output=True, text=True, timeout=3600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    quick = root / "scales" / "quick"
    for stem in FIGURES:
        for ext in ("pdf", "png"):
            assert (quick / "figures" / f"{stem}.{ext}").stat().st_size > 10_000, stem
    for name in SCENARIOS:
        s = sc.load(name, "quick")
        phases = pd.read_csv(quick / "results" / "multiflow" / f"{name}.csv")
        assert (quick / "paper" / "tables" / f"{name}-phases.tex").exists()
        # one row per point and phase, every variant of the scenario there
        assert len(phases) == len(s.points) * s.settings["workload"]["phases"]
        assert set(phases["variant"]) == {p.variant for p in s.points}
        for point in s.points:
            run_path = quick / "results/ns3" / name / "linux-6.1-wan" / point.id / "run1.json"
            run = json.loads(run_path.read_text())
            # the variant asked for is the one ns-3's sockets got
            want = variants.get(point.variant).ns3.type_id
            assert run["provenance"]["ns3"]["congestion_control"] == want
            # the table's aggregate is the runs' series, recomputed here: the last half of
            # each phase, summed over flows
            series = run["series"]
            t = np.asarray(series["t_s"])
            total = np.asarray(series["flow_Mbps"]).sum(axis=0)
            phase_s = s.settings["workload"]["phase_s"]
            rows = phases[phases["point"] == point.id].sort_values("phase")
            for k, row in enumerate(rows.itertuples()):
                settled = (t > (k + 0.5) * phase_s + 1e-9) & (t <= (k + 1) * phase_s + 1e-9)
                assert row.aggregate_Mbps == pytest.approx(total[settled].mean())
    # FAST in scenario I: no drops, the link full, a steady queue, the first flow alone keeps
    # between alpha and beta packets queued (its baseRTT is exact: it met an empty queue)
    alpha, beta = mf.queue_target_pkts("fast")
    one = pd.read_csv(quick / "results/multiflow/multiflow-dynamic-i.csv")
    fast = one[one["variant"] == "fast"].sort_values("phase")
    assert fast["drops_phase"].sum() == 0
    assert (fast["utilisation"] > 0.97).all()
    assert (fast["queue_sd_pkts"] < 0.05 * fast["queue_mean_pkts"]).all()
    assert alpha * 0.95 <= fast.iloc[0]["queued_per_flow_pkts"] <= beta
    # the paper gained the section, its numbers generated
    numbers = (quick / "paper" / "generated" / "numbers.tex").read_text()
    assert r"\newcommand{\MultiflowDynamicIFastAlpha}{100}" in numbers
    assert (quick / "paper" / "build" / "paper.pdf").stat().st_size > 50_000
