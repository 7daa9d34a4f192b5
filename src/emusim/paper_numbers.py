"""The paper's numbers: result files in, LaTeX macros out (``{PREFIX}paper/generated/numbers.tex``).

The paper's text types no result: every number it states is a macro defined here from the
results of one scale, so a rerun on another testbed, variant or scale rewrites the numbers
with the results. Each ``*_numbers`` function maps already-read results (DataFrames, dicts;
``None`` where the workflow did not produce them) to ``{macro name: LaTeX text}`` and defines
the same names whether or not its input exists (``n/a`` then), so a section whose part was
not run still compiles. `render` writes the file, with the ``\\if`` switches that say what ran
and the figures and tables that exist at this scale.

Macro names are TeX control words, letters only. `macro_name` joins the parts of a key in
CamelCase and spells digits as words: ``macro_name("RelDiffMedian", "random-drop", "ns3",
"linux-2.2", "throughput_report_Bps")`` is ``RelDiffMedianRandomDropNsThreeLinuxTwoTwoThroughput``
(a metric is shortened by `METRIC_NAMES`). The families are listed in paper/README.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

import pandas as pd

from emusim import constants as c
from emusim.backends import HARDWARE as HARDWARE_BACKEND
from emusim.backends import MODELS
from emusim.backends.mininet.calibration import DELAY_TOLERANCE_REL
from emusim.profiles import Profile
from emusim.stats import STALL_FACTOR, stalled_runs
from emusim.tables import tex_escape

#: What a macro holds when its result was not produced at this scale.
NA = "n/a"

_DIGIT_WORDS = ("Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")

#: Short names of the compared metrics, as they appear in macro names.
METRIC_NAMES = {"throughput_report_Bps": "Throughput", "elapsed_s": "Elapsed", "rtt_us": "Rtt"}

#: The backend that stands for the hardware, and its only profile.
HARDWARE = (HARDWARE_BACKEND.name, HARDWARE_BACKEND.profile)

#: Compared backends other than the hardware, in the order the paper names them.
EMULATED = MODELS

Numbers = dict[str, str]


# --- names and formats -------------------------------------------------------------------------


def macro_name(*parts: str) -> str:
    """A letters-only TeX control word for a key: each run of letters with its first letter
    capitalised, each digit spelled out, everything else dropped ("linux-2.2" -> LinuxTwoTwo).
    """
    words = []
    for part in parts:
        for chunk in re.findall(r"[A-Za-z]+|[0-9]", str(part)):
            words.append(
                _DIGIT_WORDS[int(chunk)] if chunk.isdigit() else chunk[0].upper() + chunk[1:]
            )
    name = "".join(words)
    if not name:
        raise ValueError(f"no letters or digits in macro key {parts!r}")
    return name


def _missing(value: object) -> bool:
    if value is None:
        return True
    try:
        return math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def fixed(value: object, decimals: int) -> str:
    """``value`` with ``decimals`` digits after the point, or n/a."""
    return NA if _missing(value) else f"{float(value):.{decimals}f}"


def significant(value: object, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits in positional notation (0.00193, 0.115,
    4.11, 71.9), never in exponent form; whole numbers of more digits keep them all."""
    if _missing(value):
        return NA
    x = float(value)
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    text = f"{x:.{decimals}f}"
    # Rounding can add a digit (0.09996 -> 0.1000): format again at the rounded magnitude.
    rounded = float(text)
    if rounded != 0 and math.floor(math.log10(abs(rounded))) != math.floor(math.log10(abs(x))):
        text = f"{rounded:.{max(0, digits - 1 - math.floor(math.log10(abs(rounded))))}f}"
    return text


def integer(value: object) -> str:
    """A count, digits grouped by thin spaces from 10 000 on (the report's own style)."""
    if _missing(value):
        return NA
    n = round(float(value))
    text = f"{abs(n):,}".replace(",", r"\,") if abs(n) >= 10_000 else str(abs(n))
    return ("-" if n < 0 else "") + text


def text(value: object) -> str:
    """A string result (a parameter's name, a point id), escaped for LaTeX, or n/a."""
    return NA if _missing(value) or value == "" else tex_escape(str(value))


#: How a sweep axis reads in the text, by its name in point ids (emusim.scenario AXES).
AXIS_LABELS = {
    "drop_rate": "drop rate {}",
    "every_n": "N = {}",
    "iterations": "{} writes",
    "mode": "{} dropper",
    "request_size_B": "{}-byte requests",
}


def point_label(point_id: object) -> str:
    """A point id (``drop_rate=0.02``, ``iterations=10000+mode=regular``) as readable text
    ("drop rate 0.02", "10000 writes, regular dropper")."""
    if _missing(point_id) or point_id == "":
        return NA
    parts = []
    for part in str(point_id).split("+"):
        axis, _, value = part.partition("=")
        parts.append(AXIS_LABELS.get(axis, axis.replace("_", " ") + " {}").format(value).strip())
    return tex_escape(", ".join(parts))


# --- constants and testbed --------------------------------------------------------------------


def line_rate_limit_report_Bps() -> float:
    """The highest throughput the report's accounting (1526 B per frame) can show at line
    rate: frames occupy 1538 byte-times on the wire, but are counted as 1526 bytes."""
    return c.LINK_RATE_Bps * c.ETH_FRAME_REPORT_B / c.ETH_FRAME_WIRE_B


def constant_numbers() -> Numbers:
    """The study's constants (emusim.constants), so the text states them from one place."""
    return {
        "LinkRateMbps": integer(c.LINK_RATE_bps / 1e6),
        "LinkRateBps": integer(c.LINK_RATE_Bps),
        "IpMtuB": integer(c.IP_MTU_B),
        "EthWrapperReportB": integer(c.ETH_WRAPPER_REPORT_B),
        "InterframeGapB": integer(c.ETH_INTERFRAME_GAP_B),
        "EthFrameReportB": integer(c.ETH_FRAME_REPORT_B),
        "EthFrameWireB": integer(c.ETH_FRAME_WIRE_B),
        "FrameTimeUs": fixed(c.ETH_FRAME_WIRE_B / c.LINK_RATE_B_PER_US, 2),
        "TcpWriteSizeB": integer(c.TCP_WRITE_SIZE_B),
        "UdpDatagramSizeB": integer(c.UDP_DATAGRAM_SIZE_B),
        "PingOverheadB": integer(c.PING_OVERHEAD_REPORT_B),
        "NsThreeHeaderB": integer(c.NS3_P2P_HEADER_B),
        "NsThreeInterframeGapB": integer(c.NS3_INTERFRAME_GAP_B),
        "NsThreeLateArrivalB": integer(c.NS3_LATE_ARRIVAL_B),
        "TwoPointSizeLowB": integer(c.TWO_POINT_FIT_SIZES_B[0]),
        "TwoPointSizeHighB": integer(c.TWO_POINT_FIT_SIZES_B[1]),
        "LineRateLimitReportMBps": fixed(line_rate_limit_report_Bps() / 1e6, 3),
        "RandomDropperScale": integer(c.RANDOM_DROPPER_SCALE),
        "PingHopsPerRtt": integer(c.PING_HOPS_PER_RTT),
    }


def testbed_numbers(hosts: pd.DataFrame) -> Numbers:
    """Names and kernels of the three hosts by role (data/reference/hosts.csv)."""
    out: Numbers = {}
    for role in ("sender", "router", "receiver"):
        row = hosts[hosts["role"] == role].iloc[0]
        key = role.capitalize()
        out[f"{key}Host"] = text(str(row["host"]).capitalize())
        out[f"{key}Kernel"] = text(row["kernel"])
        out[f"{key}CpuMhz"] = fixed(row["cpu_mhz"], 0)
    return out


def profile_numbers(registry: Mapping[str, Profile]) -> Numbers:
    """Each TCP profile's parameter values (config/tcp_profiles.yaml), as the registry states
    them ("200 ms"): ``Profile`` + profile + parameter, e.g. ProfileLinuxTwoTwoMinimumRTO."""
    return {
        macro_name("Profile", name, p.name): text(p.value)
        for name, profile in registry.items()
        for p in profile.parameters
    }


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


# --- baselines ---------------------------------------------------------------------------------


def series(profiles: Iterable[str]) -> list[tuple[str, str]]:
    """(backend, profile) pairs the paper may name: the hardware, then every backend with every
    profile (the universe of names; pairs that did not run are n/a)."""
    return [HARDWARE] + [(b, p) for b in EMULATED for p in profiles]


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


# --- comparison with the hardware ----------------------------------------------------------------


def comparison_numbers(
    summary: pd.DataFrame | None, scenarios: Sequence[str], profiles: Sequence[str]
) -> Numbers:
    """Median and maximum |rel_diff| (results/compare/summary.csv), the point of the maximum
    and the self-check verdict, for every scenario, backend, profile and compared metric."""
    out: Numbers = {}
    rows = {}
    if summary is not None and not summary.empty:
        for row in summary.to_dict("records"):
            rows[(row["scenario"], row["backend"], row["profile"], row["metric"])] = row
    for scenario in scenarios:
        for backend, profile in series(profiles)[1:]:
            for metric, short in METRIC_NAMES.items():
                row = rows.get((scenario, backend, profile, metric), {})
                key = (scenario, backend, profile, short)
                out[macro_name("RelDiffMedian", *key)] = significant(row.get("median_abs_rel_diff"))
                out[macro_name("RelDiffMax", *key)] = significant(row.get("max_abs_rel_diff"))
                out[macro_name("RelDiffPointOfMax", *key)] = point_label(row.get("point_of_max"))
                out[macro_name("RelDiffPoints", *key)] = integer(row.get("n_points"))
            verdicts = [
                r.get("selfcheck")
                for (s, b, p, _m), r in rows.items()
                if (s, b, p) == (scenario, backend, profile) and not _missing(r.get("selfcheck"))
            ]
            # ns-3 has no self-check: its verdict is n/a, as for a pair that did not run.
            out[macro_name("Selfcheck", scenario, backend, profile)] = text(
                verdicts[0] if verdicts else None
            )
    return out


# --- Mininet's self-check ------------------------------------------------------------------------


def emulation_design_numbers(design: Mapping | None, repeat_deterministic: bool) -> Numbers:
    """The emulation's design at this scale (config mininet.design.SCALE): at most how many
    repetitions of a random point, how often a deterministic one runs (config
    mininet.repeat_deterministic), the scenarios it leaves out and why (`skip_why`, one
    sentence each). A scale without a design runs every scenario's own."""
    design = design or {}
    reps = design.get("repetitions")
    skipped = list(design.get("skip", []))
    why = design.get("skip_why", {}) or {}
    missing = [name for name in skipped if name not in why]
    if missing:
        raise ValueError(
            f"config mininet.design: skip names {missing} without a reason in skip_why"
        )
    return {
        "MininetDesignRepetitions": integer(reps) if reps else "the scenario's number of",
        "MininetDesignDeterministic": "as often" if repeat_deterministic else "once",
        "MininetDesignSkipped": text(", ".join(skipped)) if skipped else "none",
        "MininetDesignSkipWhy": (
            text("; ".join(f"{name}: {' '.join(str(why[name]).split())}" for name in skipped))
            if skipped
            else "nothing"
        ),
    }


def selfcheck_numbers(checks: pd.DataFrame | None) -> Numbers:
    """The Mininet batches' self-check (results/mininet/selfcheck.csv): how many batches, how
    many failed, the range of their line-rate fraction and fitted delay, where they ran."""
    empty = checks is None or checks.empty
    fraction = None if empty else checks["line_rate_fraction"]
    fitted = None if empty else checks["delay_fitted_us"]

    def stat(values, how, fmt):
        return NA if values is None or values.dropna().empty else fmt(getattr(values, how)())

    def joined(column):
        return NA if empty else text(", ".join(sorted({str(v) for v in checks[column].dropna()})))

    kvm = None if empty else bool(checks["kvm"].astype(str).str.lower().eq("true").any())
    places = set() if empty else set(checks["place"].dropna().astype(str))
    return {
        "MininetBatches": NA if empty else integer(len(checks)),
        "MininetBatchesFailed": NA if empty else integer((checks["selfcheck"] != "ok").sum()),
        "MininetLineRateFractionMin": stat(fraction, "min", lambda v: fixed(v, 4)),
        "MininetLineRateFractionMax": stat(fraction, "max", lambda v: fixed(v, 4)),
        "MininetLineRateFractionMedian": stat(fraction, "median", lambda v: fixed(v, 4)),
        "MininetLineRateToleranceMin": stat(
            None if empty else checks["line_rate_fraction_min"], "min", lambda v: fixed(v, 3)
        ),
        "MininetLineRateToleranceMax": stat(
            None if empty else checks["line_rate_fraction_max"], "max", lambda v: fixed(v, 3)
        ),
        "MininetDelayFittedMinUs": stat(fitted, "min", lambda v: fixed(v, 0)),
        "MininetDelayFittedMaxUs": stat(fitted, "max", lambda v: fixed(v, 0)),
        "MininetDelayConfiguredUs": stat(
            None if empty else checks["delay_configured_us"], "median", lambda v: fixed(v, 2)
        ),
        "MininetPlace": joined("place"),
        "MininetWhere": NA if empty else where(places, kvm),
        "MininetKernel": joined("kernel_release"),
        "MininetKvm": NA if kvm is None else ("with" if kvm else "without"),
        "MininetClock": NA if empty else clock_phrase(checks),
        "MininetDelayTolerancePercent": NA if empty else integer(round(DELAY_TOLERANCE_REL * 100)),
        "MininetStackLatencyMinUs": stat(
            _column(checks, "stack_latency_per_hop_us"), "min", lambda v: fixed(v, 1)
        ),
        "MininetStackLatencyMaxUs": stat(
            _column(checks, "stack_latency_per_hop_us"), "max", lambda v: fixed(v, 1)
        ),
    }


def _column(checks: pd.DataFrame | None, name: str):
    if checks is None or checks.empty or name not in checks:
        return None
    return pd.to_numeric(checks[name], errors="coerce")


CLOCK_PHRASES = {
    "guest-icount": "in the virtual machine's dilated time (QEMU's instruction counting: the "
    "guest's clock advances {ns} per executed instruction, whatever the host's speed)",
    "tcg-real": "in real time under software emulation",
    "kvm": "in real time under hardware virtualisation",
    "host": "in the host's real time",
}


def clock_phrase(checks: pd.DataFrame) -> str:
    """Which clocks the batches measured in, as a phrase (docs/mininet.md, "Dilated time")."""
    if "clock" not in checks:
        return NA
    parts = []
    for clock in sorted(set(checks["clock"].dropna().astype(str))):
        phrase = CLOCK_PHRASES.get(clock, clock)
        if clock == "guest-icount":
            shifts = sorted({int(v) for v in checks["icount_shift"].dropna()})
            ns = ", ".join(str(2**v) for v in shifts) or "?"
            phrase = phrase.format(ns=f"{ns} ns")
        parts.append(phrase)
    return text(" and ".join(parts)) if parts else NA


def where(places: set[str], kvm: bool) -> str:
    """Where the batches ran, as a phrase: "on the host", "in a virtual machine without
    hardware virtualisation", or both."""
    parts = ["on the host"] if "host" in places else []
    if "vm" in places:
        parts.append(f"in a virtual machine {'with' if kvm else 'without'} hardware virtualisation")
    return " and ".join(parts) or NA


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
            share = None if _missing(wait_s) or not elapsed else 100 * wait_s / elapsed
            out[macro_name(*key, "RtoWaitPercent")] = fixed(share, 0)
            mean_ms = None if _missing(wait_s) or not waits else 1000 * wait_s / waits
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
    run of their iteration count, emusim.stats.stalled_runs), how many are slower than
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


# --- the lossy-link family (TCP variants, ns-3 against Mininet) ----------------------------------


def variant_registry_numbers(variants: Mapping[str, object]) -> Numbers:
    """How many TCP variants the registry (config/tcp_variants.yaml) has, and on which side."""
    ns3 = {n for n, v in variants.items() if getattr(v, "ns3", None) is not None}
    linux = {n for n, v in variants.items() if getattr(v, "linux", None) is not None}
    return {
        "VariantsRegistered": integer(len(variants)),
        "VariantsBoth": integer(len(ns3 & linux)),
        "VariantsNsThreeOnly": integer(len(ns3 - linux)),
        "VariantsLinuxOnly": integer(len(linux - ns3)),
        "VariantsNsThreeOnlyNames": text(", ".join(sorted(ns3 - linux))),
        "VariantsLinuxOnlyNames": text(", ".join(sorted(linux - ns3))),
    }


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
    cell both ran and at the headline cell (emusim.lossy.HEADLINE) per variant: the median,
    the closest and farthest variant, the best goodput on each backend, and the cells that hit
    the cap. Every macro is ``n/a`` where the study or one backend did not run."""
    from emusim import lossy

    good = None
    if compare is not None and not compare.empty:
        good = compare[compare["metric"] == "goodput_Bps"]
    both = None if good is None else good[good["mininet"].notna() & good["ns3"].notna()]
    have = both is not None and not both.empty
    top = lossy.headline_rows(good, dict(headline)) if good is not None else None
    top_both = None if top is None else top[top["mininet"].notna() & top["ns3"].notna()]
    top_have = top_both is not None and not top_both.empty

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
    for backend in ("ns3", "mininet"):
        row = best[backend]
        value = row.get(backend)
        out[macro_name(scenario, "HeadlineBest", backend)] = text(row.get("variant"))
        out[macro_name(scenario, "HeadlineBest", backend, "MBps")] = significant(
            None if _missing(value) else value / 1e6
        )
    return out


# --- sweeps --------------------------------------------------------------------------------------


def sweep_numbers(stats: Mapping[str, pd.DataFrame | None], scenarios: Sequence[str]) -> Numbers:
    """How many points each scenario's sweep has at this scale, and the hardware's runs per
    point (the most of any point), from the statistics tables."""
    out: Numbers = {}
    for scenario in scenarios:
        table = stats.get(scenario)
        have = table is not None and not table.empty
        out[macro_name("Points", scenario)] = integer(table["point"].nunique() if have else None)
        hw = table[(table["backend"] == HARDWARE[0])] if have else None
        runs = hw["n"].max() if hw is not None and not hw.empty else None
        out[macro_name("HardwareRuns", scenario)] = integer(runs)
    return out


def merge(*families: Numbers) -> Numbers:
    """The families of numbers as one mapping; a name defined twice is an error, so every
    macro has one source."""
    out: Numbers = {}
    for family in families:
        twice = sorted(set(out) & set(family))
        if twice:
            raise ValueError(f"macro names defined twice: {', '.join(twice)}")
        out.update(family)
    return out


# --- the file ------------------------------------------------------------------------------------


def render(
    numbers: Mapping[str, str],
    switches: Mapping[str, bool],
    available: Mapping[str, Iterable[str]],
    scale: str,
) -> str:
    """numbers.tex: a ``\\newif`` per switch (``\\ifMininetRan``), a ``\\newcommand`` per
    number, and ``\\MarkAvailable{kind}{stem}`` for each figure and table of this scale
    (paper.tex defines \\MarkAvailable before it reads this file). Sorted, so the same results
    give the same bytes."""
    lines = [
        f"% The paper's numbers at scale {scale}: generated by workflow/scripts/paper_numbers.py"
        " from the results (emusim.paper_numbers); do not edit.",
    ]
    for name, on in sorted(switches.items()):
        _check_name(name)
        lines.append(rf"\newif\if{name}\{name}{'true' if on else 'false'}")
    for name, value in sorted(numbers.items()):
        _check_name(name)
        lines.append(rf"\newcommand{{\{name}}}{{{value}}}")
    for kind, stems in sorted(available.items()):
        lines += [rf"\MarkAvailable{{{kind}}}{{{stem}}}" for stem in sorted(stems)]
    return "\n".join(lines) + "\n"


def _check_name(name: str) -> None:
    if not re.fullmatch(r"[A-Za-z]+", name):
        raise ValueError(f"macro name {name!r} is not letters only (use macro_name)")


def render_paths(figures_dir: str, tables_dir: str, generated_dir: str) -> str:
    """paths.tex: where this scale's figures, tables and generated files are, relative to the
    directory LaTeX runs in (the repository)."""
    return "\n".join(
        [
            "% Where the paper reads this scale's results: generated by "
            "workflow/scripts/paper_numbers.py; do not edit.",
            rf"\newcommand{{\FigDir}}{{{figures_dir.rstrip('/')}/}}",
            rf"\newcommand{{\TabDir}}{{{tables_dir.rstrip('/')}/}}",
            rf"\newcommand{{\GenDir}}{{{generated_dir.rstrip('/')}/}}",
            "",
        ]
    )


def render_scenario_appendix(scenarios: Sequence[Mapping[str, object]]) -> str:
    """scenarios.tex: the appendix's entry of each scenario no study presents (one a user
    added to scenarios/): its description, its generic figure and its per-point table. Each
    mapping has `name`, `description`, `figure` (the figure's stem) and `axis` (the figure's
    x axis). Empty of entries when every scenario belongs to a study."""
    lines = [
        "% Scenarios no study of the paper presents: generated by "
        "workflow/scripts/paper_numbers.py; do not edit.",
    ]
    if scenarios:
        lines += [
            r"\subsection*{Scenarios outside the paper's studies}",
            "Scenarios of \\texttt{scenarios/} that no study of this paper presents: each "
            "metric that varies against the first sweep axis, a line per backend and profile, "
            "and the per-point table.",
        ]
    for s in scenarios:
        name = tex_escape(str(s["name"]))
        axis = tex_escape(str(s["axis"]))
        lines += [
            "",
            rf"\paragraph{{\Scn{{{name}}}}} {tex_escape(' '.join(str(s['description']).split()))}",
            rf"\ResultFigure{{{s['figure']}}}{{\Scn{{{name}}}: every metric against {axis}.}}",
            r"\begingroup\let\table\sidewaystable\let\endtable\endsidewaystable",
            rf"\ResultTable{{{s['name']}}}",
            r"\endgroup",
        ]
    return "\n".join([*lines, ""])
