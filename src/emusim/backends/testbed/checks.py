"""The consistency check of each testbed run: is it what the dropper and the network allow?

The measurement-tool discipline the study follows (Kovácsházy and Szabó,
../shared/seeds/002_914fa6f1fc42fb8f.txt: "consistency check of the data and repeating the
measurement in case of inconsistency") applied to the report's runs:

- **Drops.** The dropper counts the target packets it saw (`packets` of /proc/dropperInfo/
  dropper, read before and after the run) and those it dropped (`numDropped`, reset before).
  Regular mode (every N-th) must have dropped exactly floor(seen / N); random mode a count in
  the central 99.9 % of Binomial(seen, cutoff / 65536) (spec/drop-decision.md); an idle
  dropper none. A count outside means the dropper was not set as the run needed, or saw
  traffic that was not the run's.
- **Elapsed time.** Where the dropper drops nothing, a TCP or UDP blast is deterministic up
  to noise, so a run far from the point's earlier runs means interference (cross traffic, a
  busy host): its robust z-score M = 0.6745 (x − median) / MAD against the accepted runs of
  the point must stay within 3.5 (Iglewicz and Hoaglin, *How to Detect and Handle Outliers*,
  ASQC 1993), from the 4th run of a point on. With drops, long runs are the subject of the
  study (the report's heavy tail, Figure 4.4) and are never rejected.
- **Echoes.** A ping sweep (no dropper) must get every echo back; UDP can lose datagrams at
  the receiver, but never fewer than the dropper dropped.

A run that fails is repeated, at most `max_attempts` times in all (inventory `checks`); the
rejected attempts are recorded in the accepted run's provenance.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from emusim import workloads
from emusim.core.drop_decision import cutoff_from_rate
from emusim.linux.dropper import dropper_active

DROP_INTERVAL = 0.999
"""Central probability of the binomial interval a random drop count must fall in."""
ROBUST_Z_MAX = 3.5
"""Iglewicz and Hoaglin's bound on the modified z-score."""
ROBUST_Z_SCALE = 0.6745
"""Φ⁻¹(0.75): makes the MAD of normal data comparable to its standard deviation."""
MIN_RUNS_FOR_Z = 3
"""Accepted runs of a point needed before a new one can be called an outlier."""
MAD_FLOOR_REL = 0.001
"""The MAD counts as at least 0.1 % of the median: runs that agree to the microsecond must
not make a 1-ms difference an outlier."""


def drop_check(dropper: dict, seen: int, dropped: int) -> dict:
    """Dropped against what the point's dropper must drop of the ``seen`` target packets."""
    mode = dropper.get("mode", "off")
    out = {"check": "drops", "seen": seen, "dropped": dropped}
    if not dropper_active(dropper):
        return {**out, "expected": 0, "ok": dropped == 0}
    if mode == "regular":
        expected = seen // int(dropper["every_n"])
        return {**out, "expected": expected, "ok": dropped == expected}
    # imported here: scipy.stats takes a second to import, and the Snakefile imports this module
    # (through emusim.pipeline) on every Snakemake start
    from scipy.stats import binom

    p = cutoff_from_rate(str(dropper["rate"])) / 65536
    low, high = (int(x) for x in binom.interval(DROP_INTERVAL, seen, p))
    return {
        **out,
        "expected": round(seen * p, 3),
        "interval": [low, high],
        "ok": low <= dropped <= high,
    }


def robust_z(value: float, accepted: Sequence[float]) -> float:
    """The modified z-score of ``value`` against the accepted values."""
    med = statistics.median(accepted)
    mad = statistics.median(abs(a - med) for a in accepted)
    mad = max(mad, MAD_FLOOR_REL * abs(med))
    if mad == 0:
        return 0.0 if value == med else float("inf")
    return ROBUST_Z_SCALE * (value - med) / mad


def elapsed_check(elapsed_s: float, accepted_s: Sequence[float], dropper_active: bool) -> dict:
    """The elapsed time against the point's accepted runs (only where nothing is dropped)."""
    out = {"check": "elapsed", "elapsed_s": elapsed_s, "accepted": len(accepted_s)}
    if dropper_active:
        return {**out, "applied": False, "ok": True, "why": "drops: long runs are the subject"}
    if len(accepted_s) < MIN_RUNS_FOR_Z:
        return {**out, "applied": False, "ok": True, "why": f"fewer than {MIN_RUNS_FOR_Z} runs"}
    z = robust_z(elapsed_s, accepted_s)
    return {
        **out,
        "applied": True,
        "robust_z": round(z, 3),
        "bound": ROBUST_Z_MAX,
        "ok": abs(z) <= ROBUST_Z_MAX,
    }


def run_checks(
    kind: str,
    metrics: dict,
    dropper: dict,
    seen: int | None,
    accepted_s: Sequence[float],
    workload: dict,
) -> list[dict]:
    """Every check that applies to a run of this workload: the drops, the elapsed time of a
    workload whose runs are timed, and the workload's own (emusim.workloads:
    `consistency_checks`)."""
    out = []
    if seen is not None:
        out.append(drop_check(dropper, seen, int(metrics.get("packets_dropped", 0))))
    active = dropper_active(dropper)
    kind_of = workloads.get(kind)
    if kind_of.timed:
        out.append(elapsed_check(float(metrics["elapsed_s"]), accepted_s, active))
    out += kind_of.consistency_checks(metrics, workload, active)
    return out
