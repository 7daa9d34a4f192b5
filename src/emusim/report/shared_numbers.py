"""The paper's numbers that every study shares (numbers.tex; emusim.report.macros says how a
number becomes a macro): the constants and the testbed, the TCP profiles and variants, the
comparisons, the emulation's design and self-check, the archive and its audit, the sweeps.
Each ``*_numbers`` function maps already-read results (``None`` where the workflow did not
produce them) to ``{macro name: LaTeX text}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from emusim.analysis.collect import ARCHIVE_COLUMN, ID_COLUMNS
from emusim.backends.mininet.calibration import DELAY_TOLERANCE_REL
from emusim.core import constants as c
from emusim.core.backend_registry import HARDWARE as HARDWARE_BACKEND
from emusim.core.backend_registry import MODELS
from emusim.infra.archive import IDENTITY
from emusim.inputs.scenario import where_text
from emusim.inputs.tcp_profiles import Profile
from emusim.report.macros import (
    NA,
    Numbers,
    fixed,
    integer,
    is_missing,
    macro_name,
    point_label,
    significant,
    text,
)

#: Short names of the compared metrics, as they appear in macro names.
METRIC_NAMES = {"throughput_report_Bps": "Throughput", "elapsed_s": "Elapsed", "rtt_us": "Rtt"}


#: The backend that stands for the hardware, and its only profile.
HARDWARE = (HARDWARE_BACKEND.name, HARDWARE_BACKEND.profile)


#: Compared backends other than the hardware, in the order the paper names them.
EMULATED = MODELS


def line_rate_limit_report_Bps() -> float:
    """The highest throughput the report's accounting (1526 B per frame) can show at line
    rate: frames occupy 1538 byte-times on the wire, but are counted as 1526 bytes."""
    return c.LINK_RATE_Bps * c.ETH_FRAME_REPORT_B / c.ETH_FRAME_WIRE_B


def constant_numbers() -> Numbers:
    """The study's constants (emusim.core.constants), so the text states them from one place."""
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


def series(profiles: Iterable[str]) -> list[tuple[str, str]]:
    """(backend, profile) pairs the paper may name: the hardware, then every backend with every
    profile (the universe of names; pairs that did not run are n/a)."""
    return [HARDWARE] + [(b, p) for b in EMULATED for p in profiles]


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
                if (s, b, p) == (scenario, backend, profile) and not is_missing(r.get("selfcheck"))
            ]
            # ns-3 has no self-check: its verdict is n/a, as for a pair that did not run.
            out[macro_name("Selfcheck", scenario, backend, profile)] = text(
                verdicts[0] if verdicts else None
            )
    return out


def emulation_design_numbers(design: Mapping | None, repeat_deterministic: bool) -> Numbers:
    """The emulation's design at this scale (config mininet.design.SCALE): at most how many
    repetitions of a random point, how often a deterministic one runs (config
    mininet.repeat_deterministic), the scenarios it leaves out, wholly (`skip`) or but for
    the cells its `points` keep, and why (`skip_why`, one sentence each). A scale without a
    design runs every scenario's own."""
    design = design or {}
    reps = design.get("repetitions")
    skipped = list(design.get("skip", []))
    kept = dict(design.get("points", {}) or {})
    why = design.get("skip_why", {}) or {}
    missing = [name for name in [*skipped, *kept] if name not in why]
    if missing:
        raise ValueError(
            f"config mininet.design: skip or points names {missing} without a reason in skip_why"
        )

    left = [(name, name) for name in skipped]
    left += [(name, f"{name} but for {where_text(keep)}") for name, keep in kept.items()]
    return {
        "MininetDesignRepetitions": integer(reps) if reps else "the scenario's number of",
        "MininetDesignDeterministic": "as often" if repeat_deterministic else "once",
        "MininetDesignSkipped": text(", ".join(shown for _, shown in left)) if left else "none",
        "MininetDesignSkipWhy": (
            text("; ".join(f"{shown}: {' '.join(str(why[name]).split())}" for name, shown in left))
            if left
            else "nothing"
        ),
    }


#: The backends whose runs the run archive can hold (docs/archive.md).
ARCHIVED_BACKENDS = tuple(IDENTITY)


#: Digits of a git revision the paper shows.
REVISION_DIGITS = 7


def archive_numbers(runs: pd.DataFrame | None) -> Numbers:
    """How many of the simulated and emulated runs behind the paper's tables the run archive
    gave (collect.ARCHIVE_COLUMN of the tidy run tables, docs/archive.md), per scenario, and
    the git revisions they were made at: the paper says which numbers were not made by the
    checkout that built it. A run is counted once, whatever its rows (a ping's echoes)."""
    if runs is None or runs.empty:
        return {"RunsMade": integer(0), "RunsRestored": "none", "RunsRestoredFrom": ""}
    runs = runs[runs["backend"].isin(ARCHIVED_BACKENDS)]
    one = runs.drop_duplicates([*ID_COLUMNS, "repetition"])
    restored = one[one[ARCHIVE_COLUMN].notna()] if ARCHIVE_COLUMN in one else one.iloc[0:0]
    origin = ""
    if not restored.empty:
        per_scenario = restored.groupby("scenario", sort=True).size()
        revisions = sorted({str(r)[:REVISION_DIGITS] for r in restored[ARCHIVE_COLUMN]})
        origin = text(
            " ("
            + ", ".join(f"{name}: {count}" for name, count in per_scenario.items())
            + "; made at git "
            + ("revision " if len(revisions) == 1 else "revisions ")
            + ", ".join(revisions)
            + ")"
        )
    return {
        "RunsMade": integer(len(one)),
        "RunsRestored": integer(len(restored)) if len(restored) else "none",
        "RunsRestoredFrom": origin,
    }


def audit_numbers(audit: dict | None) -> Numbers:
    """The run archive's last recorded audit (data/archive/audit.json, emusim.infra.audit): how many
    kept ns-3 runs it made again, how many came out byte-identical, when, at which revision."""
    if not audit:
        return {"AuditSentence": "No audit of the kept runs has been recorded."}
    made, same = len(audit["runs"]), int(audit["identical"])
    revision = str(audit["git_revision"])[:REVISION_DIGITS]
    verdict = "all of them" if same == made else f"{same} of them"
    return {
        "AuditRuns": integer(made),
        "AuditIdentical": integer(same),
        "AuditSentence": text(
            f"The last audit ({audit['date_utc'][:10]}, at revision {revision}) made "
            f"{made} kept ns-3 run{'s' if made != 1 else ''}, chosen at random, again: "
            f"{verdict} byte-identical to the kept ones."
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


def variant_registry_numbers(variants: Mapping[str, object]) -> Numbers:
    """How many TCP variants the registry (config/tcp_variants.yaml) has, and on which side:
    both (of which Linux's own module in ns-3, ``ns3: linux``), ns-3's own models of Linux
    variants (``models``), ns-3 only and Linux only. The two phrases read right when a group
    is empty (every algorithm on both sides as Linux's code, nothing on one side only)."""
    ns3 = {n for n, v in variants.items() if getattr(v, "ns3", None) is not None}
    linux = {n for n, v in variants.items() if getattr(v, "linux", None) is not None}
    models = {n for n, v in variants.items() if getattr(v, "models", None) is not None}
    code = {n for n in ns3 if getattr(variants[n].ns3, "linux_code", False)}
    ns3_class = sorted((ns3 & linux) - code)
    ns3_only, linux_only = sorted(ns3 - linux - models), sorted(linux - ns3)
    same_code = (
        "as Linux's own module, compiled into ns-3 from Debian's kernel source, so that both "
        "backends run the same code"
    )
    if not ns3_class:
        both_how = f"{'all' if code else 'none'} of them {same_code}"
    else:
        both_how = (
            f"{len(code)} of them {same_code}, and the rest ({', '.join(ns3_class)}) as "
            "ns-3's own class, where the shim does not carry the module"
        )
    one_side = [f"{len(ns3_only)} only ns-3 has ({', '.join(ns3_only)})"] if ns3_only else []
    if linux_only:
        one_side.append(f"{len(linux_only)} only Linux ({', '.join(linux_only)})")
    return {
        "VariantsRegistered": integer(len(variants)),
        "VariantsBoth": integer(len(ns3 & linux)),
        "VariantsLinuxCode": integer(len(code)),
        "VariantsBothHow": text(both_how),
        "VariantsNsThreeModels": integer(len(models)),
        "VariantsOneSide": text(" and ".join(one_side) or "none is on one side only"),
    }


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
