"""The multi-flow study's per-phase analysis (docs/multiflow.md): what each phase of a run
settled to (its second half), aggregate throughput, Jain's fairness index over the active
flows, the queue, and the packets each flow keeps queued; and the paper's per-phase table.
The workload itself (phases, flows, the ns-3 program's arguments) is emusim.workloads.multiflow.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from emusim.workloads.multiflow import (
    SETTLED_FRACTION,
    buffers_by_phase,
    flows,
    payload_capacity_Mbps,
)


def jain_index(rates: np.ndarray | list[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one
    flow has everything (Jain, Chiu, Hawe, DEC-TR-301, 1984)."""
    x = np.asarray(rates, dtype=float)
    if x.size == 0 or not np.any(x):
        return float("nan")
    return float(x.sum() ** 2 / (x.size * (x * x).sum()))


def phase_table(run: dict[str, Any], settings: dict[str, Any]) -> pd.DataFrame:
    """One row per phase of a run: its settled half's throughput, fairness and queue."""
    workload = settings["workload"]
    phase_s = float(workload["phase_s"])
    series = run["series"]
    t = np.asarray(series["t_s"], dtype=float)
    mbps = np.asarray(series["flow_Mbps"], dtype=float)  # [flow, sample]
    flow_q = np.asarray(series["flow_queue_pkts"], dtype=float)
    q_mean = np.asarray(series["queue_mean_pkts"], dtype=float)
    q_max = np.asarray(series["queue_max_pkts"], dtype=float)
    q_min = np.asarray(series["queue_min_pkts"], dtype=float)
    drops = np.asarray(series["drops"], dtype=float)
    specs = flows(workload)
    buffers = buffers_by_phase(settings)
    capacity = payload_capacity_Mbps(settings["topology"]["link_rate_Mbps"])
    rows = []
    eps = 1e-9
    for k in range(int(workload["phases"])):
        start, end = k * phase_s, (k + 1) * phase_s
        settled = (t > start + SETTLED_FRACTION * phase_s + eps) & (t <= end + eps)
        whole = (t > start + eps) & (t <= end + eps)
        active = [i for i, f in enumerate(specs) if f.start_phase <= k < f.stop_phase]
        rates = mbps[active][:, settled].mean(axis=1) if active else np.array([])
        queued = flow_q[active][:, settled].mean(axis=1) if active else np.array([])
        aggregate = float(mbps[:, settled].sum(axis=0).mean()) if settled.any() else np.nan
        rows.append(
            {
                "phase": k + 1,
                "start_s": start,
                "end_s": end,
                "flows_active": len(active),
                "buffer_pkts": buffers[k],
                "aggregate_Mbps": aggregate,
                "utilisation": aggregate / capacity,
                "jain_index": jain_index(rates),
                "rate_min_Mbps": float(rates.min()) if rates.size else np.nan,
                "rate_max_Mbps": float(rates.max()) if rates.size else np.nan,
                "queue_mean_pkts": float(q_mean[settled].mean()),
                "queue_sd_pkts": float(q_mean[settled].std()),
                "queue_min_pkts": float(q_min[settled].min()),
                "queue_max_pkts": float(q_max[settled].max()),
                "queued_per_flow_pkts": float(queued.mean()) if queued.size else np.nan,
                "drops_settled": int(drops[settled].sum()),
                "drops_phase": int(drops[whole].sum()),
            }
        )
    return pd.DataFrame(rows)


def phase_rows(runs: list[dict[str, Any]], scenario) -> pd.DataFrame:
    """Every run's phase table, with its identity and axis values in front."""
    frames = []
    for run in runs:
        if "series" not in run:
            continue
        table = phase_table(run, scenario.point(run["point"]).settings)
        ident = {
            "scenario": run["scenario"],
            "backend": run["backend"],
            "profile": run["profile"],
            "point": run["point"],
            **run["params"],
            "repetition": run["repetition"],
        }
        for key, value in reversed(ident.items()):
            table.insert(0, key, value)
        frames.append(table)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def queue_target_pkts(variant_name: str | None) -> tuple[float, float] | None:
    """(alpha, beta) in packets per flow for a variant with a queueing target (FAST: the
    registry's ns3::TcpFast::Alpha and ::Beta), else None."""
    from emusim import variants

    if variant_name is None:
        return None
    impl = variants.get(variant_name).ns3
    attrs = impl.attributes if impl else {}
    if impl is None or impl.type_id != "ns3::TcpFast":
        return None
    return float(attrs["ns3::TcpFast::Alpha"]), float(attrs["ns3::TcpFast::Beta"])


PAPER_COLUMNS = {
    "flows_active": "flows",
    "buffer_pkts": "buffer (pkts)",
    "utilisation": "utilisation",
    "jain_index": "Jain",
    "queue_mean_pkts": "queue (pkts)",
    "queue_sd_pkts": "queue sd",
    "queued_per_flow_pkts": "queued/flow (pkts)",
    "drops_phase": "drops",
}
"""The per-phase table's columns in the paper, and their headings."""


def paper_table(phases: pd.DataFrame, axes: list[str]) -> pd.DataFrame:
    """The per-phase table as the paper prints it: one row per axis values and phase."""
    keep = [a for a in axes if a in phases] + ["phase", *PAPER_COLUMNS]
    return phases[keep].rename(columns=PAPER_COLUMNS).reset_index(drop=True)
