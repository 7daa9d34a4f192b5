"""The ecn-marking study's numbers for paper/sections/ecn_marking.tex: the queue's parameters
and, per TCP variant, ns-3's and Mininet's goodput and marked fraction and how far apart they
are (rel_diff = (mininet - ns3) / mininet, results/compare/NAME-ns3-vs-mininet.csv)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

import pandas as pd

from emusim.report.macros import (
    Numbers,
    PaperInputs,
    fixed,
    is_missing,
    macro_name,
    merge,
    significant,
    text,
)

METRICS = {"goodput_Bps": ("Goodput", 1e-6), "link_ce_fraction_forward": ("Marked", 100.0)}
"""The compared metrics: the macro word and the scale (10^6 B/s, per cent)."""


def setting(value: object) -> str:
    """A parameter as the scenario gives it (50, 0.5), without added digits, or n/a."""
    return text(None if is_missing(value) else format(Decimal(str(value)).normalize(), "f"))


def ecn_numbers(scenario: str, compare: pd.DataFrame | None, spec: Mapping) -> Numbers:
    """One scenario's numbers; a variant's are ``n/a`` where a backend did not run it."""
    key = macro_name(scenario)
    aqm = spec["aqm"]
    out = {
        f"{key}LinkMbps": setting(spec["link_rate_Mbps"]),
        f"{key}AccessMbps": setting(spec["access_rate_Mbps"]),
        f"{key}DelayMs": setting(spec["delay_ms"]),
        f"{key}TransferMB": significant(spec["transfer_bytes"] / 1e6),
        f"{key}QueuePackets": setting(spec["queue_packets"]),
        f"{key}TargetMs": setting(aqm["target_us"] / 1000),
        f"{key}IntervalMs": setting(aqm["interval_us"] / 1000),
        f"{key}CeThresholdMs": setting(
            aqm["ce_threshold_us"] / 1000 if "ce_threshold_us" in aqm else None
        ),
    }
    for variant in spec["variants"]:
        for metric, (word, scale) in METRICS.items():
            row = _row(compare, variant, metric)
            for backend in ("ns3", "mininet"):
                value = row.get(backend)
                out[macro_name(key, variant, word, backend)] = fixed(
                    None if is_missing(value) else value * scale, 3 if scale < 1 else 2
                )
            out[macro_name(key, variant, word, "RelDiff")] = fixed(row.get("rel_diff"), 3)
    return out


def _row(compare: pd.DataFrame | None, variant: str, metric: str) -> dict:
    if compare is None or compare.empty:
        return {}
    rows = compare[(compare["variant"] == variant) & (compare["metric"] == metric)]
    return rows.iloc[0].to_dict() if len(rows) else {}


def paper_numbers(inputs: PaperInputs) -> Numbers:
    """Every scenario of the study (its rules file's ``paper_params``)."""
    return merge(
        *(
            ecn_numbers(name, inputs.table(f"ecn_{name}"), spec)
            for name, spec in inputs.params["scenarios"].items()
        )
    )
