"""The 2001 report's study: its numbers for the paper (paper/sections/report_2001.tex).

What the report printed (data/reference/published.csv), the one-way delay fitted from the
hardware's ping sweep, the baselines, the calibration ablation, the traced runs (the 1-in-6
pathology and random dropping), Table 4.4's distribution and what each random drop cost. Each
function maps already-read results (``None`` where the workflow did not make them) to
``{macro name: LaTeX text}`` and defines the same names either way (emusim.report.macros).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from emusim.analysis.stats import STALL_FACTOR, stalled_runs
from emusim.core import constants as c
from emusim.report.macros import (
    NA,
    Numbers,
    PaperInputs,
    fixed,
    integer,
    is_missing,
    macro_name,
    merge,
    significant,
    text,
)
from emusim.report.shared_numbers import EMULATED, HARDWARE, line_rate_limit_report_Bps, series
from emusim.studies.report_2001 import decomposition


def published_value(published: pd.DataFrame, table: str, row_key: str, column: str) -> str:
    """A derived value the report printed, with its printed number of decimals."""
    rows = published[
        (published["table"].astype(str) == table)
        & (published["row_key"].astype(str) == row_key)
        & (published["column"] == column)
    ]
    if rows.empty:
        raise KeyError(f"published.csv has no value for table {table}, {row_key}, {column}")
    row = rows.iloc[0]
    return fixed(row["value"], int(row["decimals"]))


def report_numbers(published: pd.DataFrame) -> Numbers:
    """Derived values the report printed (data/reference/published.csv), as printed."""
    return {
        "ReportDelayUs": published_value(published, "3.3", "two_point_fit", "delay_us_rounded"),
        "ReportDelayExactUs": published_value(published, "3.3", "two_point_fit", "delay_us"),
        "ReportPctBelowIdeal": published_value(published, "3.1", "elapsed_s", "pct_below_ideal"),
    }


# --- delay -------------------------------------------------------------------------------------


def delay_numbers(delay: Mapping | None, published: pd.DataFrame) -> Numbers:
    """The one-way delay fitted from the hardware's ping sweep (results/delay/
    one_way_delay.json), both fits, and whether the report's value (§3.2) lies inside the
    least-squares interval."""
    two = (delay or {}).get("fits", {}).get("two_point", {})
    lsq = (delay or {}).get("fits", {}).get("least_squares", {})
    low, high = lsq.get("one_way_delay_ci95_us", (None, None))
    report_us = float(published_value(published, "3.3", "two_point_fit", "delay_us"))
    inside = None if low is None else low <= report_us <= high
    return {
        "FittedDelayUs": fixed((delay or {}).get("one_way_delay_us"), 2),
        "DelayMethod": text((delay or {}).get("method")),
        "TwoPointDelayUs": fixed(two.get("one_way_delay_us"), 2),
        "TwoPointSlopeUsPerB": fixed(two.get("a"), 4),
        "TwoPointInterceptUs": fixed(two.get("b"), 2),
        "LsqDelayUs": fixed(lsq.get("one_way_delay_us"), 2),
        "LsqDelayCiLowUs": fixed(low, 2),
        "LsqDelayCiHighUs": fixed(high, 2),
        "LsqSlopeUsPerB": fixed(lsq.get("slope"), 4),
        "LsqEchoes": integer(lsq.get("n")),
        "ReportDelayInsideCi": NA if inside is None else ("inside" if inside else "outside"),
        "ModelSlopeUsPerB": fixed(c.PING_HOPS_PER_RTT / c.LINK_RATE_B_PER_US, 2),
    }


def _mean(stats: pd.DataFrame | None, backend: str, profile: str, metric: str) -> float | None:
    """The mean of a metric at a scenario's first point (a baseline has only one)."""
    if stats is None or stats.empty:
        return None
    rows = stats[
        (stats["backend"] == backend) & (stats["profile"] == profile) & (stats["metric"] == metric)
    ]
    return None if rows.empty else float(rows["mean"].iloc[0])


def baseline_numbers(stats: Mapping[str, pd.DataFrame | None], profiles: Sequence[str]) -> Numbers:
    """Per baseline scenario and (backend, profile): throughput in the report's accounting
    (10^6 B/s), its fraction of the line-rate limit, the mean elapsed time and the writes."""
    limit = line_rate_limit_report_Bps()
    out: Numbers = {}
    for scenario in ("baseline-tcp", "baseline-udp"):
        table = stats.get(scenario)
        for backend, profile in series(profiles):
            tput = _mean(table, backend, profile, "throughput_report_Bps")
            key = (scenario, backend, profile)
            out[macro_name("ThroughputMBps", *key)] = fixed(None if tput is None else tput / 1e6, 3)
            out[macro_name("LineRateFraction", *key)] = fixed(
                None if tput is None else tput / limit, 3
            )
            out[macro_name("ElapsedS", *key)] = fixed(
                _mean(table, backend, profile, "elapsed_s"), 2
            )
            out[macro_name("Writes", *key)] = integer(_mean(table, backend, profile, "writes"))
        # The hardware's shortfall from the raw byte rate, and how much of it the inter-frame
        # gap explains (the report's accounting leaves the gap out).
        hw = _mean(table, *HARDWARE, "throughput_report_Bps")
        short = None if hw is None or hw >= c.LINK_RATE_Bps else c.LINK_RATE_Bps - hw
        out[macro_name("GapShareOfShortfallPercent", scenario)] = fixed(
            None if short is None else 100 * (c.LINK_RATE_Bps - limit) / short, 0
        )
    return out


# --- the calibration ablation --------------------------------------------------------------------


def ablation_numbers(
    ablation: pd.DataFrame | None, scenarios: Sequence[str], parameters: Sequence[str]
) -> Numbers:
    """Throughput |rel_diff| after each ablation step (results/ablation/summary.csv), per
    scenario: every step's median and maximum, the endpoints, and the best and worst of the
    steps that apply a parameter.
    ``parameters`` are the steps' parameter names in order (step 0 first)."""
    out: Numbers = {"AblationSteps": integer(len(parameters) - 1) if parameters else NA}
    tput = (
        None
        if ablation is None or ablation.empty
        else ablation[ablation["metric"] == "throughput_report_Bps"]
    )
    for scenario in scenarios:
        rows = None if tput is None else tput[tput["scenario"] == scenario].sort_values("step")
        have = rows is not None and not rows.empty
        medians = {}
        for i, parameter in enumerate(parameters):
            step = rows[rows["step"] == i] if have else None
            found = step is not None and not step.empty
            for stat, col in (("Median", "median_abs_rel_diff"), ("Max", "max_abs_rel_diff")):
                value = step[col].iloc[0] if found else None
                out[macro_name("Ablation", stat, scenario, "Step", parameter)] = significant(value)
                if stat == "Median":
                    medians[i] = value
            # The median just before this step: what the step changed, whatever the order.
            out[macro_name("Ablation", "Median", scenario, "Before", parameter)] = significant(
                medians.get(i - 1)
            )
        for end, pick in (("Start", 0), ("End", -1)):
            for stat, col in (("Median", "median_abs_rel_diff"), ("Max", "max_abs_rel_diff")):
                value = rows[col].iloc[pick] if have else None
                out[macro_name("Ablation", end, stat, scenario)] = significant(value)
        # Best and worst "on the way": among the steps that apply a parameter (not step 0).
        applied = rows[rows["step"] > 0] if have else None
        for which, idx in (("Best", "idxmin"), ("Worst", "idxmax")):
            found = applied is not None and not applied.empty
            row = applied.loc[getattr(applied["median_abs_rel_diff"], idx)()] if found else {}
            out[macro_name("Ablation", which, "Median", scenario)] = significant(
                row.get("median_abs_rel_diff")
            )
            out[macro_name("Ablation", which, "Parameter", scenario)] = text(row.get("parameter"))
    return out


# --- traces: the 1-in-6 pathology and random dropping ---------------------------------------------


def _point_value(point_id: str, axis: str) -> str | None:
    for part in str(point_id).split("+"):
        name, _, value = part.partition("=")
        if name == axis:
            return value
    return None


def trace_numbers(
    traces: pd.DataFrame | None,
    stats_1in6: pd.DataFrame | None,
    profiles: Sequence[str],
    every_n: int,
) -> Numbers:
    """What the traced ns-3 runs spent their time on (results/traces/summary.csv): for the
    regular-1in6 run with the regular dropper (the pathology) and the traced random-drop run,
    per profile, elapsed time, timeouts, RTO waits and their share of the run; and the
    hardware's runs at the pathology's point (median, range) from the statistics."""
    out: Numbers = {"PathologyEveryN": integer(every_n) if every_n else NA}
    have = traces is not None and not traces.empty
    regular = (
        traces[
            (traces["scenario"] == "regular-1in6") & traces["point"].str.contains("mode=regular")
        ]
        if have
        else None
    )
    random = traces[traces["scenario"] == "random-drop"] if have else None
    for label, rows in (("Pathology", regular), ("TraceRandomDrop", random)):
        for profile in profiles:
            mine = rows[rows["profile"] == profile] if rows is not None else None
            row = mine.iloc[0].to_dict() if mine is not None and not mine.empty else {}
            waits, wait_s, elapsed = (row.get(k) for k in ("rto_waits", "rto_wait_s", "elapsed_s"))
            key = (label, profile)
            out[macro_name(*key, "ElapsedS")] = fixed(elapsed, 1)
            out[macro_name(*key, "Timeouts")] = integer(row.get("timeout_series"))
            out[macro_name(*key, "RtoWaits")] = integer(waits)
            out[macro_name(*key, "RtoWaitS")] = fixed(wait_s, 1)
            out[macro_name(*key, "Retransmissions")] = integer(row.get("retransmissions"))
            out[macro_name(*key, "DropperDrops")] = integer(row.get("dropper_drops"))
            out[macro_name(*key, "FastRecoveries")] = integer(row.get("fast_recoveries"))
            share = None if is_missing(wait_s) or not elapsed else 100 * wait_s / elapsed
            out[macro_name(*key, "RtoWaitPercent")] = fixed(share, 0)
            mean_ms = None if is_missing(wait_s) or not waits else 1000 * wait_s / waits
            out[macro_name(*key, "MeanRtoWaitMs")] = fixed(mean_ms, 0)
    point = regular["point"].iloc[0] if regular is not None and not regular.empty else None
    out["PathologyWrites"] = integer(_point_value(point, "iterations") if point else None)
    drop_rate = random["point"].iloc[0] if random is not None and not random.empty else None
    out["TraceRandomDropRate"] = text(_point_value(drop_rate, "drop_rate") if drop_rate else None)
    hw = None
    if stats_1in6 is not None and point is not None:
        hw = stats_1in6[
            (stats_1in6["backend"] == HARDWARE[0])
            & (stats_1in6["point"] == point)
            & (stats_1in6["metric"] == "elapsed_s")
        ]
    row = hw.iloc[0].to_dict() if hw is not None and not hw.empty else {}
    out["PathologyHardwareRuns"] = integer(row.get("n"))
    out["PathologyHardwareMedianS"] = fixed(row.get("median"), 2)
    out["PathologyHardwareMinS"] = fixed(row.get("min"), 2)
    out["PathologyHardwareMaxS"] = fixed(row.get("max"), 0)
    return out


def one_in_six_numbers(runs: pd.DataFrame | None, profiles: Sequence[str]) -> Numbers:
    """Table 4.4's distribution per backend and profile, regular dropper only (the collected
    regular-1in6 runs): runs, how many stalled (slower than STALL_FACTOR times the fastest
    run of their iteration count, emusim.analysis.stats.stalled_runs), how many are slower than
    STALL_FACTOR times the hardware's fastest run of their iteration count (a model whose
    every run is in a bad cycle has no stall of its own but all of them by this measure), the
    slowest run, and the fastest run at the smallest iteration count. Hardware first, under
    HARDWARE's names."""
    out: Numbers = {"OneInSixStallFactor": integer(STALL_FACTOR)}
    keys = [HARDWARE, *((b, p) for b in EMULATED for p in profiles)]
    regular = None
    hw_fastest = None
    if runs is not None and not runs.empty and "mode" in runs.columns:
        regular = runs[(runs["mode"] == "regular") & runs["elapsed_s"].notna()]
        hw = regular[(regular["backend"] == HARDWARE[0]) & (regular["profile"] == HARDWARE[1])]
        hw_fastest = hw.groupby("iterations")["elapsed_s"].min() if not hw.empty else None
    for backend, profile in keys:
        mine = None
        if regular is not None:
            mine = regular[(regular["backend"] == backend) & (regular["profile"] == profile)]
        key = (
            ("OneInSix", "Hardware")
            if (backend, profile) == HARDWARE
            else ("OneInSix", backend, profile)
        )
        if mine is None or mine.empty:
            for suffix in (
                "Runs", "Stalled", "StalledVsHardware", "Points", "PointsStalled", "MaxS",
                "FastS",
            ):  # fmt: skip
                out[macro_name(*key, suffix)] = NA
            continue
        stalls = stalled_runs(mine, ["iterations"], factor=STALL_FACTOR)
        smallest = mine[mine["iterations"] == mine["iterations"].min()]
        out[macro_name(*key, "Runs")] = integer(stalls["n"].sum())
        out[macro_name(*key, "Stalled")] = integer(stalls["stalled"].sum())
        vs_hw = None
        if hw_fastest is not None:
            fastest = mine["iterations"].map(hw_fastest)
            both = fastest.notna()
            vs_hw = int((mine["elapsed_s"][both] > STALL_FACTOR * fastest[both]).sum())
        out[macro_name(*key, "StalledVsHardware")] = integer(vs_hw)
        out[macro_name(*key, "Points")] = integer(len(stalls))
        out[macro_name(*key, "PointsStalled")] = integer((stalls["stalled"] > 0).sum())
        out[macro_name(*key, "MaxS")] = fixed(mine["elapsed_s"].max(), 0)
        out[macro_name(*key, "FastS")] = fixed(smallest["elapsed_s"].min(), 2)
    return out


def drop_cost_numbers(runs: pd.DataFrame | None, profiles: Sequence[str]) -> Numbers:
    """How a random-drop gap splits into the number of drops and what each drop cost.

    The report pairs every run's time (its Table 4.1) with its drop count (Table 4.2). Per
    backend and profile, from the collected random-drop runs (means per drop rate, rates with
    drops on both sides): the rate at which the mean elapsed time is furthest from the
    hardware's, |(exp - sim) / exp|, and there the relative differences `(exp - sim) / exp` of
    the drops and of the time per drop (mean elapsed / mean drops), in percent, and the two
    times per drop in ms. Names `DropCost<Backend><Profile><Rate, ElapsedPercent, DropsPercent,
    PerDropPercent, HardwareMsPerDrop, MsPerDrop>`."""
    suffixes = (
        "Rate", "ElapsedPercent", "DropsPercent", "PerDropPercent", "HardwareMsPerDrop",
        "MsPerDrop",
    )  # fmt: skip
    out: Numbers = {}
    means = None
    if runs is not None and not runs.empty and {"packets_dropped", "drop_rate"} <= set(runs):
        ok = runs[(runs["status"] == "ok") & runs["elapsed_s"].notna()]
        ok = ok[ok["drop_rate"] > 0]
        means = ok.groupby(["backend", "profile", "drop_rate"])[
            ["elapsed_s", "packets_dropped"]
        ].mean()
    hw = None
    if means is not None and HARDWARE in means.index.droplevel("drop_rate"):
        hw = means.xs(HARDWARE, level=("backend", "profile"))
    for backend in EMULATED:
        for profile in profiles:
            key = ("DropCost", backend, profile)
            mine = None
            if hw is not None and (backend, profile) in means.index.droplevel("drop_rate"):
                mine = means.xs((backend, profile), level=("backend", "profile"))
                both = hw.add_suffix("_hw").join(mine, how="inner")
                mine = both[(both["packets_dropped_hw"] > 0) & (both["packets_dropped"] > 0)]
            if mine is None or mine.empty:
                out.update({macro_name(*key, x): NA for x in suffixes})
                continue
            gap = (mine["elapsed_s_hw"] - mine["elapsed_s"]) / mine["elapsed_s_hw"]
            rate = gap.abs().idxmax()
            row = mine.loc[rate]
            hw_per = row["elapsed_s_hw"] / row["packets_dropped_hw"]
            per = row["elapsed_s"] / row["packets_dropped"]
            drops = (row["packets_dropped_hw"] - row["packets_dropped"]) / row["packets_dropped_hw"]
            out[macro_name(*key, "Rate")] = text(f"{rate:g}")
            out[macro_name(*key, "ElapsedPercent")] = fixed(100 * gap[rate], 1)
            out[macro_name(*key, "DropsPercent")] = fixed(100 * drops, 1)
            out[macro_name(*key, "PerDropPercent")] = fixed(100 * (hw_per - per) / hw_per, 1)
            out[macro_name(*key, "HardwareMsPerDrop")] = fixed(1e3 * hw_per, 1)
            out[macro_name(*key, "MsPerDrop")] = fixed(1e3 * per, 1)
    return out


# --- the emulation's gap taken apart --------------------------------------------------------------


def decomposition_numbers(table: pd.DataFrame | None) -> Numbers:
    """Each part's median |rel_diff| per scenario (results/decomposition.csv), as
    ``Decomposition<Scenario><Part>``; ``n/a`` where it did not run or had no points."""
    out: Numbers = {}
    for scenario in decomposition.DECOMPOSED:
        for part, key in decomposition.KEYS.items():
            value = None
            if table is not None and not table.empty:
                row = table[(table["scenario"] == scenario) & (table["part"] == part)]
                if not row.empty and row["points"].iloc[0] > 0:
                    value = row["median"].iloc[0]
            out[macro_name("Decomposition", scenario, key)] = significant(value)
    return out


def paper_numbers(inputs: PaperInputs) -> Numbers:
    """Every number of the study's section (emusim.studies)."""
    p = inputs.params
    published = pd.read_csv(inputs.path("published"), dtype={"table": str, "row_key": str})
    return merge(
        report_numbers(published),
        delay_numbers(inputs.read_json("delay"), published),
        baseline_numbers(inputs.stats, inputs.profiles),
        ablation_numbers(inputs.table("ablation"), p["ablation_scenarios"], p["ablation_steps"]),
        trace_numbers(
            inputs.table("traces"), inputs.stats.get("regular-1in6"), inputs.profiles, p["every_n"]
        ),
        one_in_six_numbers(inputs.runs("runs_1in6"), inputs.profiles),
        drop_cost_numbers(inputs.runs("runs_random_drop"), inputs.profiles),
        decomposition_numbers(inputs.table("decomposition")),
    )
