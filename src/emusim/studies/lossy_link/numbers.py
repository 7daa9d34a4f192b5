"""The lossy-link study's numbers for the paper (paper/sections/lossy_link.tex): its design,
and how far ns-3's goodput is from Mininet's per TCP variant (emusim.report.macros says how a
number becomes a macro)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

import pandas as pd

from emusim.inputs import variants
from emusim.report.macros import (
    Numbers,
    PaperInputs,
    integer,
    is_missing,
    macro_name,
    merge,
    significant,
    text,
)
from emusim.studies.lossy_link.variants_table import headline_rows


def lossy_link_numbers(
    scenario: str,
    compare: pd.DataFrame | None,
    headline: Mapping[str, object],
    transfer_bytes: float | None,
    cap_s: float | None,
    queue_packets: int | None = None,
) -> Numbers:
    """The lossy-link study (results/compare/NAME-ns3-vs-mininet.csv): its design, and how far
    ns-3's goodput is from Mininet's, |rel_diff| = |(mininet - ns3) / mininet|, over every
    cell both ran and at the headline cell (variants_table.HEADLINE) per variant: the median,
    the closest and farthest variant, the best goodput on each backend, and the cells that hit
    the cap. ns-3's own models of Linux variants (``models`` in the registry) are counted apart
    (``…Model…``): their rows set ns-3's class against Linux's code. Loss-free cells of the
    variants whose runs are deterministic give the largest loss-free |rel_diff|. Every macro is
    ``n/a`` where the study or one backend did not run."""
    registry = variants.registry()
    models = {n for n, v in registry.items() if v.models is not None}
    deterministic = {n for n, v in registry.items() if v.ns3 and v.linux and not v.random}
    good = None
    if compare is not None and not compare.empty:
        good = compare[compare["metric"] == "goodput_Bps"]
    ran = None if good is None else good[good["mininet"].notna() & good["ns3"].notna()]
    both = None if ran is None else ran[~ran["variant"].isin(models)]
    of_models = None if ran is None else ran[ran["variant"].isin(models)]
    have = both is not None and not both.empty
    models_have = of_models is not None and not of_models.empty
    loss_free = (
        None
        if not have
        else both[(both["loss"].astype(float) == 0) & both["variant"].isin(deterministic)]
    )
    top = headline_rows(good, dict(headline)) if good is not None else None
    if top is not None:
        top_models = top[top["variant"].isin(models)]
        top = top[~top["variant"].isin(models)]
    top_both = None if top is None else top[top["mininet"].notna() & top["ns3"].notna()]
    top_have = top_both is not None and not top_both.empty
    top_models = None if top is None else top_models[top_models["mininet"].notna()]

    def extreme(rows, column, how):
        if rows is None or rows.empty or rows[column].dropna().empty:
            return {}
        return rows.loc[getattr(rows[column], how)()].to_dict()

    abs_top = None if not top_have else top_both.assign(abs_rel=top_both["rel_diff"].abs())
    closest = extreme(abs_top, "abs_rel", "idxmin")
    farthest = extreme(abs_top, "abs_rel", "idxmax")
    best = {b: extreme(top, b, "idxmax") if top is not None else {} for b in ("ns3", "mininet")}
    timeouts = (
        None if good is None else int(good["status"].astype(str).str.contains("timeout").sum())
    )
    verdicts = [] if good is None else [v for v in good["selfcheck"].dropna().unique() if v]
    key = macro_name(scenario)
    out = {
        f"{key}TransferMB": significant(None if transfer_bytes is None else transfer_bytes / 1e6),
        f"{key}CapS": integer(cap_s),
        f"{key}QueuePackets": integer(queue_packets),
        f"{key}Cells": integer(None if good is None else len(good)),
        f"{key}CellsCompared": integer(len(both) if have else None),
        f"{key}CellsTimeout": integer(timeouts),
        f"{key}RelDiffMedian": significant(both["rel_diff"].abs().median() if have else None),
        f"{key}LossFreeRelDiffMax": significant(
            loss_free["rel_diff"].abs().max() if have and not loss_free.empty else None
        ),
        f"{key}ModelCellsCompared": integer(len(of_models) if models_have else None),
        f"{key}ModelRelDiffMedian": significant(
            of_models["rel_diff"].abs().median() if models_have else None
        ),
        f"{key}HeadlineModelRelDiffMedian": significant(
            top_models["rel_diff"].abs().median()
            if top_models is not None and not top_models.empty
            else None
        ),
        f"{key}HeadlineLossPercent": text(
            format((Decimal(str(headline["loss"])) * 100).normalize(), "f")
        ),
        f"{key}HeadlineDelayMs": integer(headline["delay_ms"]),
        f"{key}HeadlineCompared": integer(len(top_both) if top_have else None),
        f"{key}HeadlineRelDiffMedian": significant(
            top_both["rel_diff"].abs().median() if top_have else None
        ),
        f"{key}HeadlineWithinQuarter": integer(
            (top_both["rel_diff"].abs() <= 0.25).sum() if top_have else None
        ),
        f"{key}HeadlineClosest": text(closest.get("variant")),
        f"{key}HeadlineClosestRelDiff": significant(closest.get("rel_diff")),
        f"{key}HeadlineFarthest": text(farthest.get("variant")),
        f"{key}HeadlineFarthestRelDiff": significant(farthest.get("rel_diff")),
        f"{key}Selfcheck": text("; ".join(verdicts) if verdicts else None),
    }
    both_names = [n for n, v in registry.items() if v.ns3 and v.linux and n not in models]
    out.update(_largest_gaps(key, both if have else None, both_names))
    out.update(_beyond_spread(key, both if have else None))
    for backend in ("ns3", "mininet"):
        row = best[backend]
        value = row.get(backend)
        out[macro_name(scenario, "HeadlineBest", backend)] = text(row.get("variant"))
        out[macro_name(scenario, "HeadlineBest", backend, "MBps")] = significant(
            None if is_missing(value) else value / 1e6
        )
    return out


#: The |rel_diff| above which the paper names a variant's cells (issue 30: "every variant
#: above 0.25 anywhere is named with its mechanism").
NAMED_ABOVE = 0.25


def _cell_text(row: Mapping) -> str:
    loss = format((Decimal(str(row["loss"])) * 100).normalize(), "f")
    return f"{row['variant']} at {loss} % and {int(float(row['delay_ms']))} ms"


def _largest_gaps(key: str, both: pd.DataFrame | None, names: list[str]) -> Numbers:
    """The largest |rel_diff| over the cells both backends ran and where it is, the cells
    above NAMED_ABOVE (``none`` when there are none), and the largest of each variant of
    ``names`` (``{key}RelDiffMax{Variant}``, n/a where it has no such cell: reno's and cubic's
    are the reference the paper quotes)."""
    out: Numbers = {
        f"{key}RelDiffMax": significant(None),
        f"{key}RelDiffMaxCell": text(None),
        f"{key}AboveQuarter": text(None),
        **{macro_name(key, "RelDiffMax", name): significant(None) for name in names},
    }
    if both is None or both.empty:
        return out
    gaps = both.assign(abs_rel=both["rel_diff"].abs()).dropna(subset=["abs_rel"])
    if gaps.empty:
        return out
    top = gaps.loc[gaps["abs_rel"].idxmax()]
    above = gaps[gaps["abs_rel"] > NAMED_ABOVE].sort_values("abs_rel", ascending=False)
    out[f"{key}RelDiffMax"] = significant(top["abs_rel"])
    out[f"{key}RelDiffMaxCell"] = text(_cell_text(top))
    out[f"{key}AboveQuarter"] = text(
        ", ".join(f"{_cell_text(r)} ({r['rel_diff']:+.2f})" for _, r in above.iterrows()) or "none"
    )
    for variant, rows in gaps.groupby("variant", sort=True):
        if variant in names:
            out[macro_name(key, "RelDiffMax", variant)] = significant(rows["abs_rel"].max())
    return out


#: The p-value of Welch's test below which a cell's gap is beyond both sides' spread.
BEYOND_SPREAD_P = 0.05


def _p_text(p: float) -> str:
    return f"p {p:.2g}" if p >= 0.001 else "p < 0.001"


def _beyond_spread(key: str, both: pd.DataFrame | None) -> Numbers:
    """How many cells both backends ran two or more times have a Welch p-value
    (`emusim.analysis.compare.welch_p`), how many of those differ beyond both sides' spread
    (p < BEYOND_SPREAD_P), and which (``none`` when there are none)."""
    tested = None if both is None or "welch_p" not in both else both.dropna(subset=["welch_p"])
    threshold = {f"{key}BeyondSpreadP": text(f"{BEYOND_SPREAD_P:g}")}
    if tested is None or tested.empty:
        return {
            **threshold,
            f"{key}CellsSpreadTested": integer(None),
            f"{key}CellsBeyondSpread": integer(None),
            f"{key}BeyondSpread": text(None),
        }
    beyond = tested[tested["welch_p"] < BEYOND_SPREAD_P].sort_values("welch_p")
    return {
        **threshold,
        f"{key}CellsSpreadTested": integer(len(tested)),
        f"{key}CellsBeyondSpread": integer(len(beyond)),
        f"{key}BeyondSpread": text(
            ", ".join(
                f"{_cell_text(r)} ({r['rel_diff']:+.2f}, {_p_text(r['welch_p'])})"
                for _, r in beyond.iterrows()
            )
            or "none"
        ),
    }


def paper_numbers(inputs: PaperInputs) -> Numbers:
    """Every lossy-link scenario's numbers (its rules file's ``paper_params``: per scenario the
    headline cell, the transfer size, the cap and the queue)."""
    return merge(
        *(
            lossy_link_numbers(
                name,
                inputs.table(f"lossy_{name}"),
                spec["headline"],
                spec["transfer_bytes"],
                spec["cap_s"],
                spec["queue_packets"],
            )
            for name, spec in inputs.params["scenarios"].items()
        )
    )
