"""One-way link delay from a ping sweep, as in §3.2 of the 2001 report.

The report's model of an echo over Madrid → Dublin → Prague and back: the request and the reply
are each serialised twice (two links), so

    RTT = 2·delay + 4·(request_size + 54)/rate
        = request_size·(4/rate) + (2·delay + 216/rate)

with 54 = ICMP 8 + IP 20 + Ethernet wrapper 26 bytes and rate = 12.5 B/µs. The intercept b of a
line RTT = a·size + b therefore gives delay = (b − 216/rate)/2. The report draws its line
through two per-size averages (256 and 1408 bytes) and gets 71.8878 µs; a least-squares fit
over every ping uses all 140 echoes and gives a confidence interval as well.
"""

import numpy as np
import pandas as pd
from scipy import stats

from emusim.core.constants import (
    LINK_RATE_B_PER_US,
    PING_HOPS_PER_RTT,
    PING_OVERHEAD_REPORT_B,
    TWO_POINT_FIT_SIZES_B,
)

_P1, _P2 = TWO_POINT_FIT_SIZES_B


def _per_size_mean(sizes, rtts) -> pd.Series:
    return pd.Series(np.asarray(rtts, dtype=float)).groupby(np.asarray(sizes)).mean()


def two_point_fit(sizes, rtts, p1: int = _P1, p2: int = _P2) -> tuple[float, float]:
    """Line through the average RTT at request sizes p1 and p2: the report's method (§3.2).

    ``sizes`` and ``rtts`` are parallel sequences, raw pings or per-size averages alike (the
    RTTs are averaged per size first). Returns (a, b) of RTT = a·size + b, in µs/B and µs.
    """
    means = _per_size_mean(sizes, rtts)
    missing = [p for p in (p1, p2) if p not in means.index]
    if missing or p1 == p2:
        raise ValueError(
            f"two_point_fit: need two distinct request sizes present in the data; "
            f"got p1={p1}, p2={p2}, sizes present: {sorted(means.index.tolist())}"
        )
    a = (means[p2] - means[p1]) / (p2 - p1)
    return float(a), float(means[p1] - a * p1)


def least_squares_fit(sizes, rtts) -> dict:
    """Ordinary least squares of RTT on request size over every ping, not over averages.

    Averages would hide the scatter that the interval is meant to show, and would weight a
    size by one point whatever its number of echoes. The 95% intervals are Student's t with
    n − 2 degrees of freedom on the standard errors of scipy.stats.linregress.
    """
    x = np.asarray(sizes, dtype=float)
    y = np.asarray(rtts, dtype=float)
    if x.shape != y.shape or x.size < 3 or np.unique(x).size < 2:
        raise ValueError(
            f"least_squares_fit: need >= 3 pings over >= 2 sizes, parallel arrays; "
            f"got {x.size} sizes and {y.size} RTTs"
        )
    fit = stats.linregress(x, y)
    t = stats.t.ppf(0.975, x.size - 2)
    return {
        "slope": float(fit.slope),
        "intercept": float(fit.intercept),
        "slope_ci95": (float(fit.slope - t * fit.stderr), float(fit.slope + t * fit.stderr)),
        "intercept_ci95": (
            float(fit.intercept - t * fit.intercept_stderr),
            float(fit.intercept + t * fit.intercept_stderr),
        ),
        "slope_stderr": float(fit.stderr),
        "intercept_stderr": float(fit.intercept_stderr),
        "r_squared": float(fit.rvalue**2),
        "n": int(x.size),
    }


def delay_from_intercept_us(
    intercept_us: float,
    rate_Bpus: float = LINK_RATE_B_PER_US,
    header_bytes: int = PING_OVERHEAD_REPORT_B,
) -> float:
    """One-way delay from the intercept b of RTT = a·size + b: (b − 4·header_bytes/rate)/2.

    The 4 serialisations of the header bytes (216/rate in the report) are what b holds besides
    twice the delay. The report's 54 header bytes leave out the 12-byte inter-frame gap; pass
    66 to count it.
    """
    return (intercept_us - PING_HOPS_PER_RTT * header_bytes / rate_Bpus) / 2


def fit_report(ping_df: pd.DataFrame) -> dict:
    """Both fits of a ping sweep (columns ``request_size_B``, ``rtt_us``) and both delays.

    Returns {"two_point": {a, b, one_way_delay_us}, "least_squares": {the fields of
    :func:`least_squares_fit`, one_way_delay_us, one_way_delay_ci95_us}}. The delay is linear
    in the intercept, so the intercept's interval maps onto the delay's.
    """
    sizes, rtts = ping_df["request_size_B"], ping_df["rtt_us"]
    a, b = two_point_fit(sizes, rtts)
    ls = least_squares_fit(sizes, rtts)
    low, high = ls["intercept_ci95"]
    ls["one_way_delay_us"] = delay_from_intercept_us(ls["intercept"])
    ls["one_way_delay_ci95_us"] = (delay_from_intercept_us(low), delay_from_intercept_us(high))
    return {
        "two_point": {"a": a, "b": b, "one_way_delay_us": delay_from_intercept_us(b)},
        "least_squares": ls,
    }
