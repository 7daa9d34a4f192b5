"""The multi-flow study's per-phase analysis (docs/multiflow.md): what each phase of a run
settled to (its second half), aggregate throughput, Jain's fairness index over the active
flows, the queue, and the packets each flow keeps queued; and the paper's per-phase table.
The workload itself (phases, flows, the ns-3 program's arguments) is emusim.workloads.multiflow.
"""

from __future__ import annotations

from collections.abc import Sequence
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


SMOOTHING_PER_PHASE = 20
"""Goodput is drawn as a moving mean over phase_s / 20 (1 s at quick scale): a sample is a
tenth of an RTT or so, and a sink's counter jumps when a loss is repaired and the data behind
it is delivered at once. The phase tables average the raw samples; settling (settle_time_s)
is judged on the smoothed rate."""


def smooth(values: Sequence[float], settings: dict[str, Any]) -> np.ndarray:
    """Trailing moving mean over phase_s / SMOOTHING_PER_PHASE (at least one sample)."""
    workload = settings["workload"]
    width = max(
        1, round(float(workload["phase_s"]) / SMOOTHING_PER_PHASE / float(workload["sample_s"]))
    )
    x = np.asarray(values, dtype=float)
    kernel = np.ones(width) / width
    head = np.cumsum(x[: width - 1]) / np.arange(1, min(width, x.size + 1))[: width - 1]
    return np.concatenate([head, np.convolve(x, kernel, mode="valid")])[: x.size]


SETTLE_BAND_FRACTION = 0.1
"""A phase has settled once every active flow's rate, smoothed as the figures draw it, stays
within a tenth of the fair share (the link's payload rate over the active flows) of its
settled-half mean to the phase's end: the dummynet report's "fast, stable convergence"
measured per arrival and departure. The fair share, not the flow's own rate, sets the band, so
a starved flow is not held to a band of nothing."""


def settle_time_s(
    t_s: np.ndarray, rates: np.ndarray, final: np.ndarray, band: float, start_s: float
) -> float:
    """Seconds from ``start_s`` until every flow (rows of ``rates``, at the sample ends
    ``t_s``) stays within ``band`` of its ``final`` rate: the end of the last sample outside
    it, 0 when none is, NaN when the last sample is (the phase never settled)."""
    outside = (np.abs(rates - final[:, None]) > band).any(axis=0)
    if not outside.any():
        return 0.0
    last = int(np.flatnonzero(outside)[-1])
    if last == outside.size - 1:
        return float("nan")
    return float(t_s[last] - start_s)


def phase_table(run: dict[str, Any], settings: dict[str, Any]) -> pd.DataFrame:
    """One row per phase of a run: its settled half's throughput, fairness and queue."""
    workload = settings["workload"]
    phase_s = float(workload["phase_s"])
    series = run["series"]
    t = np.asarray(series["t_s"], dtype=float)
    mbps = np.asarray(series["flow_Mbps"], dtype=float)  # [flow, sample]
    drawn = np.array([smooth(rates, settings) for rates in mbps]).reshape(mbps.shape)
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
        band = SETTLE_BAND_FRACTION * capacity / max(len(active), 1)
        settle_s = (
            settle_time_s(t[whole], drawn[active][:, whole], rates, band, start)
            if active
            else np.nan
        )
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
                "settle_s": settle_s,
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


def queue_target_pkts(variant_name: str | None) -> float | None:
    """The packets per flow a variant keeps queued at equilibrium, for one with such a target
    (FAST: the registry's ns3::TcpFast::Alpha), else None."""
    from emusim.inputs import variants

    if variant_name is None:
        return None
    impl = variants.get(variant_name).ns3
    attrs = impl.attributes if impl else {}
    if impl is None or impl.type_id != "ns3::TcpFast":
        return None
    return float(attrs["ns3::TcpFast::Alpha"])


PAPER_COLUMNS = {
    "flows_active": "flows",
    "buffer_pkts": "buffer (pkts)",
    "utilisation": "utilisation",
    "jain_index": "Jain",
    "settle_s": "settled after (s)",
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
