"""The router-forwarding study's numbers for the paper (paper/sections/router_forwarding.tex).

Like every family of emusim.report.macros: results in, ``{macro name: LaTeX text}`` out, the
same names whether or not a result exists (``n/a`` then). Names start with the scenario's
(``RouterForwarding…`` for scenarios/router-forwarding.yaml):

- design: ``<S>Sizes``, ``<S>SmallestB``, ``<S>LargestB``, ``<S>DurationS``, ``<S>Repetitions``,
  ``<S>LineRatePpsSmallest``, ``<S>LineRateMbpsLargest``;
- measured, per backend (``Mininet``, ``NsThree``, ``NsThreeModel``): ``<S><Backend>RunsPerPoint``,
  ``<S><Backend>GeneratorPps`` (the direct sender's pace at the smallest size: the generator's
  ceiling), ``<S><Backend>GeneratorLineFraction``, ``<S><Backend>RoutedPps`` (datagrams through
  the router per second at the smallest size: its forwarding ceiling),
  ``<S><Backend>RoutedPpsShare`` (of the direct rate), ``<S><Backend>MbpsLargest``,
  ``<S><Backend>LossMaxPercent``, and the most packets a routed point lost per run in the
  router and at the sink, ``<S><Backend><RouterDropsMax, SinkDropsMax>``;
- the fit (results/forwarding/NAME/model-fit.json): ``<S>Generator<PerDatagramUs,
  PerExtraFrameUs, PerByteNs>`` and
  ``<S>Router<PerPacketUs, PerByteNs>`` (the cost the model uses), each also as ``…Estimate…``
  (least squares) with its interval ``…CiLow…``/``…CiHigh…`` and as a phrase with its unit
  and interval, ``<S><Cost>Estimate`` (for the text), ``<S>RouterAlone`` (its
  ceiling on a CPU of its own, in words), ``<S>FitStatus``, ``<S>FitPairs``, ``<S>FitDirectRuns``,
  ``<S>QueuePackets``, ``<S>EmulationPlace``, ``<S>EmulationKernel``, ``<S>CpuShared``;
- ns-3 against Mininet (results/compare/NAME-ns3[-model]-vs-mininet.csv): the median |rel_diff|
  of Mbit/s and packets/s, ``<S>RelDiffMedian<NsThree, NsThreeModel><Mbps, Pps>``, and the largest
  difference of loss in percentage points, ``<S>LossDiffMax<NsThree, NsThreeModel>Points``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from emusim.inputs import scenario as sc
from emusim.report.macros import Numbers, PaperInputs, fixed, integer, macro_name, significant, text
from emusim.studies.router_forwarding.fit import SHARED_CPU
from emusim.workloads import udp_flood

BACKENDS = ("mininet", "ns3", udp_flood.MODEL_BACKEND)
"""The backends the paper's text names, Mininet (the reference) first."""

SHORT = {"throughput_Mbps": "Mbps", "packets_per_s": "Pps", "loss": "Loss"}


def _mean(stats: pd.DataFrame | None, backend: str, path: str, payload: int, metric: str):
    if stats is None or stats.empty:
        return None
    rows = stats[
        (stats["backend"] == backend)
        & (stats["path"] == path)
        & (stats["payload_B"] == payload)
        & (stats["metric"] == metric)
    ]
    return float(rows["mean"].iloc[0]) if len(rows) else None


def _seconds(value: float) -> str:
    return integer(value) if float(value).is_integer() else significant(value)


def design_numbers(key: str, scenario) -> Numbers:
    """The study's design at this scale and the line rate it is measured against."""
    sizes = sorted({int(p.workload["payload_B"]) for p in scenario.points})
    rate = scenario.settings["topology"]["link_rate_Mbps"] * 1e6
    return {
        f"{key}Sizes": integer(len(sizes)),
        f"{key}SmallestB": integer(sizes[0]),
        f"{key}LargestB": integer(sizes[-1]),
        f"{key}DurationS": _seconds(scenario.settings["workload"]["duration_s"]),
        f"{key}Repetitions": integer(scenario.repetitions),
        f"{key}LineRatePpsSmallest": integer(udp_flood.line_rate_pps(sizes[0], rate)),
        f"{key}LineRateMbpsLargest": fixed(udp_flood.line_rate_Mbps(sizes[-1], rate), 1),
    }


def measured_numbers(key: str, scenario, stats: pd.DataFrame | None) -> Numbers:
    """Per backend: the generator's ceiling, the router's, the largest size's Mbit/s, the
    worst loss."""
    sizes = sorted({int(p.workload["payload_B"]) for p in scenario.points})
    small, large = sizes[0], sizes[-1]
    rate = scenario.settings["topology"]["link_rate_Mbps"] * 1e6
    out: Numbers = {}
    for backend in BACKENDS:
        b = macro_name(key, backend)
        generator = _mean(stats, backend, "direct", small, "tx_pps")
        direct = _mean(stats, backend, "direct", small, "packets_per_s")
        routed = _mean(stats, backend, "routed", small, "packets_per_s")
        losses = [_mean(stats, backend, path, p, "loss") for path in udp_flood.PATHS for p in sizes]
        losses = [x for x in losses if x is not None]
        rows = None if stats is None or stats.empty else stats[stats["backend"] == backend]
        out[f"{b}RunsPerPoint"] = integer(None if rows is None or rows.empty else rows["n"].max())
        out[f"{b}GeneratorPps"] = integer(generator)
        out[f"{b}GeneratorLineFraction"] = fixed(
            None if generator is None else generator / udp_flood.line_rate_pps(small, rate), 3
        )
        out[f"{b}RoutedPps"] = integer(routed)
        out[f"{b}RoutedPpsShare"] = fixed(
            None if routed is None or not direct else routed / direct, 3
        )
        out[f"{b}MbpsLargest"] = fixed(_mean(stats, backend, "routed", large, "throughput_Mbps"), 1)
        out[f"{b}LossMaxPercent"] = fixed(max(losses) * 100 if losses else None, 1)
        for name, metric in (("RouterDropsMax", "router_dropped_frames"),
                             ("SinkDropsMax", "sink_dropped_datagrams")):  # fmt: skip
            drops = [_mean(stats, backend, "routed", p, metric) for p in sizes]
            drops = [x for x in drops if x is not None]
            out[f"{b}{name}"] = integer(max(drops) if drops else None)
    return out


def _us(seconds) -> str:
    return significant(None if seconds is None else seconds * 1e6)


def _ns(seconds) -> str:
    return significant(None if seconds is None else seconds * 1e9)


def _ci(values, index: int):
    return None if not values or values[index] is None else values[index]


#: Each fitted cost: macro name, which part of the fit, its term, unit, unit in the text, words.
COSTS = (
    ("GeneratorPerDatagram", "host", "per_datagram", _us, r"\us{}", "per datagram"),
    ("GeneratorPerExtraFrame", "host", "per_extra_frame", _us, r"\us{}",
     "per fragment beyond the first"),
    ("GeneratorPerByte", "host", "per_byte", _ns, r"\,ns", "per byte"),
    ("RouterPerPacket", "router", "per_packet", _us, r"\us{}", "per packet"),
    ("RouterPerByte", "router", "per_byte", _ns, r"\,ns", "per byte"),
)  # fmt: skip

WHO = {"host": "sender", "router": "router"}


def _estimate(part: Mapping, term: str, unit, tex_unit: str, words: str) -> str:
    """A cost's least-squares estimate as the text says it: value, unit, what it is paid for
    and its interval, or that the sizes gave none."""
    value = part.get(f"{term}_estimate_s")
    if value is None:
        return f"none {words} (no size that held the sender back tells it apart)"
    ci = part.get(f"{term}_ci_s") or [None, None]
    interval = (
        f" (confidence interval {unit(ci[0])} to {unit(ci[1])})"
        if ci[0] is not None and ci[1] is not None
        else ""
    )
    return f"{unit(value)}{tex_unit} {words}{interval}"


def fit_numbers(key: str, fit: Mapping | None) -> Numbers:
    """The processing model's parameters with their 95 % intervals, and where they came from."""
    fit = fit or {}
    parts = {"host": fit.get("host") or {}, "router": fit.get("router") or {}}
    ceilings, emulation = fit.get("ceilings") or {}, fit.get("emulation") or {}
    out: Numbers = {}
    unknown, negative = [], []
    for name, which, term, unit, tex_unit, words in COSTS:
        part = parts[which]
        suffix = "Us" if unit is _us else "Ns"
        out[f"{key}{name}{suffix}"] = unit(part.get(f"{term}_s"))
        out[f"{key}{name}Estimate{suffix}"] = unit(part.get(f"{term}_estimate_s"))
        ci = part.get(f"{term}_ci_s")
        out[f"{key}{name}CiLow{suffix}"] = unit(_ci(ci, 0))
        out[f"{key}{name}CiHigh{suffix}"] = unit(_ci(ci, 1))
        out[f"{key}{name}Estimate"] = (
            _estimate(part, term, unit, tex_unit, words) if fit else text(None)
        )
        estimate = part.get(f"{term}_estimate_s")
        if fit and estimate is None:
            unknown.append(f"the {WHO[which]}'s cost {words}")
        elif fit and part.get(f"{term}_s") == 0 and estimate != 0:
            negative.append(f"the {WHO[which]}'s cost {words}")
    notes = []
    if unknown:
        notes.append("not estimable, so 0: " + ", ".join(unknown))
    if negative:
        notes.append("negative, alone or with the others, so 0: " + ", ".join(negative))
    alone = ceilings.get("router_alone_pps")
    if alone is not None:
        out[f"{key}RouterAlone"] = f"{integer(alone)} packets per second"
    else:
        out[f"{key}RouterAlone"] = text(
            "without a limit: the cost fitted to it is zero" if ceilings else None
        )
    out[f"{key}FitStatus"] = text(fit.get("status"))
    out[f"{key}FitNotes"] = text(
        "; ".join(notes) if notes else ("every estimate is used" if fit else None)
    )
    out[f"{key}FitPairs"] = integer(parts["router"].get("n"))
    out[f"{key}FitDirectRuns"] = integer(parts["host"].get("n"))
    # the model's queue and CPU: the fit's, else the kernel's default and the emulation's CPU
    out[f"{key}QueuePackets"] = integer(fit.get("queue_packets", udp_flood.PROCESSOR_QUEUE_DEFAULT))
    out[f"{key}EmulationPlace"] = text(
        None
        if not emulation
        else {"vm": "a virtual machine", "host": "this machine's kernel"}.get(
            emulation.get("place"), emulation.get("place")
        )
    )
    out[f"{key}EmulationKernel"] = text(emulation.get("kernel_release"))
    shared = fit.get("shared_cpu", SHARED_CPU["mininet"])
    out[f"{key}CpuShared"] = text("shared with the sender" if shared else "its own")
    return out


def comparison_numbers(key: str, compares: Mapping[str, pd.DataFrame | None]) -> Numbers:
    """How far each ns-3 variant is from Mininet: median |rel_diff| of Mbit/s and packets/s
    over every point both ran, and the largest difference in loss (percentage points: Mininet
    loses nothing at most points, where a relative difference is undefined)."""
    out: Numbers = {}
    for backend in ("ns3", udp_flood.MODEL_BACKEND):
        table = compares.get(backend)
        b = macro_name(key, "RelDiffMedian", backend)
        for metric in ("throughput_Mbps", "packets_per_s"):
            rows = None if table is None else table[table["metric"] == metric]
            value = None if rows is None or rows.empty else rows["rel_diff"].abs().median()
            out[f"{b}{SHORT[metric]}"] = significant(value)
        rows = None if table is None else table[table["metric"] == "loss"]
        diff = None
        if rows is not None and not rows.empty:
            both = rows[rows["mininet"].notna() & rows[backend].notna()]
            if len(both):
                diff = float((both["mininet"] - both[backend]).abs().max()) * 100
        out[macro_name(key, "LossDiffMax", backend, "Points")] = fixed(diff, 1)
    return out


def numbers(
    scenarios: Sequence[str],
    scale: str,
    read_table: Callable[[str], pd.DataFrame | None],
    read_json: Callable[[str], Mapping | None],
) -> Numbers:
    """Every macro of every router-forwarding scenario among ``scenarios`` (file names, run or
    not): ``read_table(name)``/``read_json(name)`` give the workflow's named inputs or None."""
    out: Numbers = {}
    for name in scenarios:
        scenario = sc.load(name, scale)
        if not udp_flood.is_flood(scenario):
            continue
        key = macro_name(name)
        stats = read_table(f"stats_{name}")
        compares = {
            "ns3": read_table(f"forwarding_ns3_{name}"),
            udp_flood.MODEL_BACKEND: read_table(f"forwarding_model_{name}"),
        }
        for family in (
            design_numbers(key, scenario),
            measured_numbers(key, scenario, stats),
            fit_numbers(key, read_json(f"forwarding_fit_{name}")),
            comparison_numbers(key, compares),
        ):
            twice = set(out) & set(family)
            if twice:
                raise ValueError(f"macro names defined twice: {sorted(twice)}")
            out.update(family)
    return out


def paper_numbers(inputs: PaperInputs) -> Numbers:
    """Every number of the study's section (emusim.studies)."""
    return numbers(inputs.scenarios, inputs.scale, inputs.table, inputs.read_json)
