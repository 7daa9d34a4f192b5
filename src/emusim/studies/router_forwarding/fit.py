"""The router processing model's parameters, fitted to a backend's direct and routed runs.

The ns-3 model (sim/ns3/model/router-processor.h) has a generator that spends CPU time on
each datagram and a router that spends ``a + b L`` on each packet it forwards (L its IP
length). Both are read off the backend being modelled, as the measurement-tool paper read its
router off its two setups:

- The generator: a ``direct`` run whose sender kept below 95 % of the line rate was held back
  by its CPU, so its time per datagram, 1 / tx_pps, is the CPU time one datagram costs the
  sender and the sink. Fitted as ``c + f (k − 1) + g B`` over those runs, k the datagram's
  frames and B its IP bytes: a cost per datagram (the system calls, the sink's wakeup), per
  fragment beyond the first, and per byte (copies, checksums).
- The router: in the emulation every namespace runs on the same CPU, and Linux forwards a
  packet arriving on a veth in softirq context on the CPU that sent it, before the sender runs
  again: forwarding slows the sender down instead of queueing behind a busy router (shared
  CPU). A routed run then costs the CPU the direct run's time plus the router's, so the
  router's time per datagram is the difference of the two paces, Δ = 1 / tx_pps(routed) −
  1 / tx_pps(direct), taken pairwise (same size, same repetition: the two runs follow each
  other in a batch, so the emulator's drift over the batch cancels). Fitted as ``a k + b B``
  (per packet, per byte; the router handles each fragment as a packet) over the pairs where
  both runs were held back by the CPU.

Each fit is ordinary least squares without intercept, with 95 % Student-t intervals from the
residuals. The estimates and intervals are reported as they come out. A term the sizes cannot
tell apart from the others (the per-fragment cost when no fragmented size was held back by the
CPU) is 0, and so is a term whose estimate is negative (a cost cannot be): the model refits
the others and the ``notes`` say so. With no run held back by the CPU at all a cost is 0 and
the ``status`` says why: it did not limit anything the backend showed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from emusim.core import constants
from emusim.workloads import udp_flood

CPU_BOUND_FRACTION = 0.95
"""A run whose sender kept below this fraction of the line rate was held back by its CPU."""

SHARED_CPU = {"mininet": True}
"""Whether the backend's router shares the sender's CPU (module docstring): the emulation's
does; a hardware router has its own."""

REGRESSORS: dict[str, Callable[[int], float]] = {
    "per_datagram": lambda p: 1.0,
    "per_extra_frame": lambda p: udp_flood.frames(p) - 1.0,
    "per_packet": lambda p: float(udp_flood.frames(p)),
    "per_byte": lambda p: float(udp_flood.ip_bytes(p)),
}
"""What each cost is paid for, per datagram of payload p."""

HOST_TERMS = ("per_datagram", "per_byte", "per_extra_frame")
ROUTER_TERMS = ("per_packet", "per_byte")
"""The generator's and the router's costs, in the order they are kept when the sizes cannot
tell them all apart."""


def design(payloads: Sequence[int], terms: Sequence[str]) -> np.ndarray:
    """The regressors of ``terms`` for datagrams of these payloads (one row each)."""
    return np.array([[REGRESSORS[t](int(p)) for t in terms] for p in payloads], dtype=float)


def ols(x: np.ndarray, y: np.ndarray) -> dict:
    """Least squares without intercept: coefficients, their 95 % intervals and covariance,
    the residual SD and the degrees of freedom (intervals NaN without any)."""
    n, p = x.shape
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x @ coef
    dof = n - p
    if dof >= 1 and np.linalg.matrix_rank(x) == p:
        s2 = float(resid @ resid) / dof
        cov = s2 * np.linalg.inv(x.T @ x)
        half = float(sps.t.ppf(0.975, dof)) * np.sqrt(np.diag(cov))
    else:
        s2, cov, half = math.nan, np.full((p, p), math.nan), np.full(p, math.nan)
    return {
        "coef": coef,
        "low": coef - half,
        "high": coef + half,
        "cov": cov,
        "residual_sd": math.sqrt(s2) if math.isfinite(s2) else math.nan,
        "dof": dof,
    }


def identifiable(x: np.ndarray, terms: Sequence[str]) -> tuple[list[int], list[str]]:
    """The columns the data can tell apart, in the order of ``terms`` (a column that adds no
    rank to those before it is left out), and a note for each left out."""
    keep: list[int] = []
    notes = []
    for i, term in enumerate(terms):
        if x.shape[0] and np.linalg.matrix_rank(x[:, [*keep, i]]) > len(keep):
            keep.append(i)
        elif x.shape[0]:
            notes.append(f"{term}: the sizes held back by the CPU cannot tell it apart: 0")
    return keep, notes


def fit_costs(payloads: Sequence[int], seconds: Sequence[float], terms: Sequence[str]) -> dict:
    """The costs ``terms`` (s) of datagrams of these payloads, from their measured times per
    datagram: ``{term}_estimate_s`` and ``{term}_ci_s``, the least-squares estimate and its
    95 % interval; ``{term}_s``, the cost the model uses (module docstring)."""
    y = np.asarray(seconds, dtype=float)
    x_all = design(payloads, terms).reshape(len(y), len(terms))
    keep, notes = identifiable(x_all, terms)
    out: dict = {"terms": list(terms), "n": len(y), "notes": notes}
    for term in terms:
        out.update({f"{term}_s": 0.0, f"{term}_estimate_s": math.nan,
                    f"{term}_ci_s": [math.nan, math.nan]})  # fmt: skip
    out.update({"dof": 0, "model_dof": 0, "residual_sd_s": math.nan, "cov": None})
    if not keep:
        return out
    full = ols(x_all[:, keep], y)
    for j, i in enumerate(keep):
        out[f"{terms[i]}_estimate_s"] = float(full["coef"][j])
        out[f"{terms[i]}_ci_s"] = [float(full["low"][j]), float(full["high"][j])]
    out.update({"dof": full["dof"], "residual_sd_s": full["residual_sd"]})
    result = full
    while keep:
        negative = [k for k, c in zip(keep, result["coef"], strict=True) if c < 0]
        if not negative:
            break
        worst = min(negative, key=lambda k: result["coef"][keep.index(k)])
        notes.append(
            f"{terms[worst]}: estimate {result['coef'][keep.index(worst)]:.3g} s < 0, left out"
        )
        keep.remove(worst)
        if keep:
            result = ols(x_all[:, keep], y)
    cov = np.zeros((len(terms), len(terms)))
    for j, i in enumerate(keep):
        out[f"{terms[i]}_s"] = float(result["coef"][j])
        for j2, i2 in enumerate(keep):
            cov[i, i2] = result["cov"][j, j2]
    out["cov"] = cov.tolist() if keep else None
    out["model_dof"] = result["dof"] if keep else 0
    return out


def cost(costs: Mapping, payload_B: int) -> float:
    """The cost the model uses for one datagram of ``payload_B`` bytes (s)."""
    terms = costs["terms"]
    return float(design([payload_B], terms)[0] @ np.array([costs[f"{t}_s"] for t in terms]))


def cost_interval(costs: Mapping, payload_B: int) -> tuple[float, float, float]:
    """The model's cost for one datagram of ``payload_B`` bytes: (value, 95 % low, high), the
    interval from the covariance of the costs it uses (NaN where there is none)."""
    terms = costs["terms"]
    x = design([payload_B], terms)[0]
    value = cost(costs, payload_B)
    cov, dof = costs.get("cov"), costs.get("model_dof", 0)
    if cov is None or dof < 1 or not np.all(np.isfinite(cov)):
        return value, math.nan, math.nan
    half = float(sps.t.ppf(0.975, dof)) * math.sqrt(max(float(x @ np.asarray(cov) @ x), 0.0))
    return value, value - half, value + half


def cpu_bound(runs: pd.DataFrame, link_rate_bps: float) -> pd.Series:
    """Runs whose sender kept below CPU_BOUND_FRACTION of the line rate for its size."""
    line = runs["payload_B"].map(lambda p: udp_flood.line_rate_pps(int(p), link_rate_bps))
    return runs["tx_pps"] < CPU_BOUND_FRACTION * line


def pairs(runs: pd.DataFrame) -> pd.DataFrame:
    """Direct and routed runs of the same size and repetition side by side, with Δ, the
    router's time per datagram (module docstring)."""
    cols = ["payload_B", "repetition", "tx_pps", "packets_per_s", "cpu_bound"]
    direct = runs[runs["path"] == "direct"][cols]
    routed = runs[runs["path"] == "routed"][cols]
    both = direct.merge(routed, on=["payload_B", "repetition"], suffixes=("_direct", "_routed"))
    both["delta_s"] = 1 / both["tx_pps_routed"] - 1 / both["tx_pps_direct"]
    both["cpu_bound"] = both["cpu_bound_direct"] & both["cpu_bound_routed"]
    return both


def fit(
    runs: pd.DataFrame,
    backend: str,
    link_rate_bps: float = constants.LINK_RATE_bps,
    queue_packets: int | None = None,
) -> dict:
    """The processing model of ``backend`` from its tidy per-run table (columns payload_B,
    path, repetition, tx_pps, packets_per_s): the generator's and the router's costs with
    their intervals, the router's queue, the per-size means, and the forwarding ceilings."""
    if backend not in SHARED_CPU:
        raise udp_flood.ForwardingError(
            f"no processing-model fit for backend {backend!r}: the fit knows how the router "
            f"of {', '.join(SHARED_CPU)} shares its CPU (SHARED_CPU of "
            "emusim.studies.router_forwarding.fit)"
        )
    need = {"payload_B", "path", "repetition", "tx_pps", "packets_per_s"}
    missing = sorted(need - set(runs.columns))
    if missing:
        raise udp_flood.ForwardingError(f"the {backend} run table lacks column(s) {missing}")
    runs = runs[runs["tx_pps"] > 0].copy()
    runs["payload_B"] = runs["payload_B"].astype(int)
    runs["cpu_bound"] = cpu_bound(runs, link_rate_bps)
    direct = runs[(runs["path"] == "direct") & runs["cpu_bound"]]
    matched = pairs(runs)
    router_pairs = matched[matched["cpu_bound"]]
    status = []
    if direct.empty:
        status.append("generator: no direct run was held back by its CPU (cost 0)")
    if router_pairs.empty:
        status.append("router: no size where both setups were held back by the CPU (cost 0)")
    host = fit_costs(direct["payload_B"].tolist(), (1 / direct["tx_pps"]).tolist(), HOST_TERMS)
    router = fit_costs(
        router_pairs["payload_B"].tolist(), router_pairs["delta_s"].tolist(), ROUTER_TERMS
    )
    smallest = int(runs["payload_B"].min()) if len(runs) else None
    return {
        "backend": backend,
        "shared_cpu": SHARED_CPU[backend],
        "link_rate_bps": link_rate_bps,
        "cpu_bound_fraction": CPU_BOUND_FRACTION,
        "queue_packets": int(queue_packets or udp_flood.PROCESSOR_QUEUE_DEFAULT),
        "host": host,
        "router": router,
        "status": "; ".join(status) or "ok",
        "sizes": size_table(runs, matched, host, router, link_rate_bps),
        "ceilings": ceilings(runs, router, smallest),
    }


def size_table(
    runs: pd.DataFrame, matched: pd.DataFrame, host: Mapping, router: Mapping, rate_bps: float
) -> list[dict]:
    """Per payload size: the line rate, each setup's mean pace and received rate, the mean Δ,
    and the model's costs for it."""
    out = []
    for payload, group in runs.groupby("payload_B", sort=True):
        direct = group[group["path"] == "direct"]
        routed = group[group["path"] == "routed"]
        mine = matched[matched["payload_B"] == payload]
        out.append(
            {
                "payload_B": int(payload),
                "frames": udp_flood.frames(int(payload)),
                "line_rate_pps": udp_flood.line_rate_pps(int(payload), rate_bps),
                "direct_tx_pps": _mean(direct["tx_pps"]),
                "direct_rx_pps": _mean(direct["packets_per_s"]),
                "routed_tx_pps": _mean(routed["tx_pps"]),
                "routed_rx_pps": _mean(routed["packets_per_s"]),
                "direct_cpu_bound": bool(direct["cpu_bound"].all()) if len(direct) else None,
                "routed_cpu_bound": bool(routed["cpu_bound"].all()) if len(routed) else None,
                "delta_s": _mean(mine["delta_s"]),
                "fitted_generator_s": cost(host, int(payload)),
                "fitted_router_s": cost(router, int(payload)),
            }
        )
    return out


def _mean(values: pd.Series) -> float | None:
    return float(values.mean()) if len(values) else None


def ceilings(runs: pd.DataFrame, router: Mapping, payload_B: int | None) -> dict:
    """The forwarding ceilings at the smallest payload: what the routed setup delivered (the
    emulated router's ceiling as measured, its CPU shared with sender and sink), and what the
    router alone would forward on a CPU of its own, 1 / (a + b L) packets per second with the
    costs the model uses (None: a cost of zero, no limit)."""
    if payload_B is None:
        return {}
    routed = runs[(runs["path"] == "routed") & (runs["payload_B"] == payload_B)]
    direct = runs[(runs["path"] == "direct") & (runs["payload_B"] == payload_B)]
    per_datagram = cost(router, payload_B)
    return {
        "payload_B": payload_B,
        "measured_routed_pps": _mean(routed["packets_per_s"]),
        "measured_direct_pps": _mean(direct["tx_pps"]),
        "router_alone_pps": udp_flood.frames(payload_B) / per_datagram
        if per_datagram > 0
        else None,
        "line_rate_pps": udp_flood.line_rate_pps(payload_B),
    }
