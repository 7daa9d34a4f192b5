"""Scenarios: one YAML description per experiment, the same for every backend.

A scenario names a topology, a workload, an impairment, the TCP profiles to run, the number of
repetitions and the sweeps. This module loads it, resolves its topology and scale, validates it
(errors name the file, the key, the value and what is accepted) and expands its sweeps into
points. See config/README.md for every key.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import Any

from emusim import workloads
from emusim.core import schema_errors, yaml_text
from emusim.core.paths import SCENARIO_DIR
from emusim.core.where import values_match

SCALES = ("paper", "quick")
"""`paper` is the report's design exactly; `quick` a documented reduction for tests and CI."""

SCHEMA_PATH = Path(__file__).parents[1] / "schemas" / "scenario.schema.yaml"


@dataclass(frozen=True)
class Axis:
    """A sweep axis: which key of the scenario a point's value sets, and of which type."""

    path: tuple[str, ...]
    # "int", "decimal" (kept as its string), "choice" or "variant" (a name of the TCP variant
    # registry, config/tcp_variants.yaml)
    kind: str
    choices: tuple[str, ...] = ()


AXES: dict[str, Axis] = {
    "drop_rate": Axis(("impairment", "dropper", "rate"), "decimal"),
    "every_n": Axis(("impairment", "dropper", "every_n"), "int"),
    "mode": Axis(("impairment", "dropper", "mode"), "choice", ("off", "random", "regular")),
    "iterations": Axis(("workload", "writes"), "int"),
    "request_size_B": Axis(("workload", "request_size_B"), "int"),
    "variant": Axis(("tcp", "variant"), "variant"),
    "loss": Axis(("impairment", "link", "loss"), "decimal"),
    "delay_ms": Axis(("impairment", "link", "delay_ms"), "int"),
    # the router-forwarding study (workload udp-flood, emusim.workloads.udp_flood)
    "payload_B": Axis(("workload", "payload_B"), "int"),
    "path": Axis(("workload", "path"), "choice", ("direct", "routed")),
    # the multi-flow study (workload multiflow, emusim.workloads.multiflow): identical flows' number
    "n_flows": Axis(("workload", "flows", "count"), "int"),
}
"""Every axis a scenario may sweep. Adding an axis is one entry here."""

ALL_VARIANTS = "all"
"""`sweep: {variant: all}`: every variant of the registry, in its order, so a variant added to
config/tcp_variants.yaml joins the sweep without the scenario file changing."""


class ScenarioError(ValueError):
    """A scenario file is invalid; the message names file, key, value and what is accepted."""


@dataclass(frozen=True)
class Point:
    """One combination of sweep values, with the scenario it resolves to."""

    id: str
    values: dict[str, Any]
    settings: dict[str, Any] = field(repr=False)

    @property
    def dropper(self) -> dict[str, Any]:
        return self.settings["impairment"]["dropper"]

    @property
    def dropper_target(self) -> str:
        """The address whose packets the dropper decides on: the scenario's `target`, by
        default its receiver (the one default of every backend)."""
        receiver = self.settings["topology"]["hosts"]["receiver"]["address"]
        return self.dropper.get("target", receiver)

    @property
    def workload(self) -> dict[str, Any]:
        return self.settings["workload"]

    @property
    def link(self) -> dict[str, Any] | None:
        """The impaired link's loss and delay (a topology with `router2`), else None."""
        return self.settings["impairment"].get("link")

    @property
    def variant(self) -> str | None:
        """The point's TCP variant (config/tcp_variants.yaml), None for the profile's own."""
        return (self.settings.get("tcp") or {}).get("variant")

    @property
    def is_random(self) -> bool:
        """Whether anything in the point is drawn at random: the random dropper, or random
        loss on the impaired link."""
        dropper = self.dropper["mode"] == "random" and Decimal(self.dropper.get("rate", "0")) > 0
        return dropper or Decimal(str((self.link or {}).get("loss", "0"))) > 0


@dataclass(frozen=True)
class Scenario:
    """A validated scenario at one scale."""

    name: str
    path: Path
    scale: str
    settings: dict[str, Any] = field(repr=False)
    points: tuple[Point, ...] = ()

    @property
    def axes(self) -> list[str]:
        return list(self.points[0].values) if self.points else []

    @property
    def profiles(self) -> list[str]:
        return list(self.settings["profiles"])

    @property
    def repetitions(self) -> int:
        return int(self.settings["repetitions"])

    def repetitions_of(self, point: Point, cap: int | None = None) -> int:
        """The runs a design makes of ``point``: ``repetitions``, or more where a ``more_runs``
        entry selects it (the most any asks). ``cap`` is a design's "at most" (config
        ``*.design.SCALE.repetitions``, a batch's ``--repetitions``): below ``repetitions`` it
        thins every point to at most ``cap``; at or above, the design is the scenario's own and
        keeps its ``more_runs``."""
        wanted = max(
            [self.repetitions]
            + [
                int(rule["repetitions"])
                for rule in self.settings.get("more_runs") or []
                if self.points_where(rule["where"], (point,))
            ]
        )
        return wanted if cap is None or cap >= self.repetitions else min(cap, wanted)

    @property
    def workload_kind(self) -> str:
        return self.settings["workload"]["kind"]

    def one_way_delay_us(self, measured_us: float | None, hint: str = "") -> float:
        """The scenario's one-way delay (``topology.delay``): its number, or `measured_us`,
        the delay fitted to the ping sweep (emusim.inputs.delay), for ``delay: measured``; `hint`
        says how to give the fitted delay."""
        delay = self.settings["topology"]["delay"]
        if delay != "measured":
            return float(delay)
        if measured_us is None:
            raise ScenarioError(
                f"{self.path}: key 'topology.delay' has value 'measured' and no fitted delay "
                f"was given{': ' + hint if hint else ''}"
            )
        return float(measured_us)

    def thinned_points(self, stride: int) -> tuple[Point, ...]:
        """Every ``stride``-th value of the first sweep axis (from the first), with every
        combination of the other axes: a coarser sweep of the same design."""
        if stride < 1:
            raise ValueError(f"point stride {stride}: must be at least 1")
        if not self.axes:
            return self.points
        first = self.axes[0]
        values = list(dict.fromkeys(repr(p.values[first]) for p in self.points))
        keep = set(values[::stride])
        return tuple(p for p in self.points if repr(p.values[first]) in keep)

    def points_where(
        self, where: dict, points: tuple[Point, ...] | None = None
    ) -> tuple[Point, ...]:
        """The points (of ``points``, default all) whose value of every axis named in ``where``
        is the one given, or one of a list given: equal as text or as numbers ("0.05" and
        0.05; a name is no number). Config `traces.points` and the emulation's design
        (`mininet.design.SCALE.points`) select points this way."""

        chosen = self.points if points is None else points
        return tuple(p for p in chosen if values_match(p.values, where))

    def point(self, point_id: str) -> Point:
        for p in self.points:
            if p.id == point_id:
                return p
        raise KeyError(f"scenario {self.name} has no point {point_id!r}")


_key = schema_errors.key


def where_text(where: dict) -> str:
    """Axis values as a reader names them: "delay_ms 10, loss 0.01 or 0.05"
    (`Scenario.points_where`'s selection)."""
    return ", ".join(
        f"{axis} {' or '.join(map(str, v)) if isinstance(v, (list, tuple)) else v}"
        for axis, v in where.items()
    )


def _deep_merge(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in override.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict) and k != "sweep":
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _read_yaml(path: Path) -> dict:
    return schema_errors.read_mapping(path, ScenarioError)


@cache
def _schema() -> dict:
    return workloads.scenario_schema(yaml_text.safe_load(SCHEMA_PATH.read_text()))


def validate(settings: dict, path: Path) -> None:
    """Raise ScenarioError for the first schema violation, naming file, key and value."""
    message = schema_errors.first_error(settings, _schema())
    if message:
        raise ScenarioError(f"{path}: {message}")


def _decimal_range(spec: dict, path: Path, axis: str) -> list[str]:
    try:
        start, stop, step = (Decimal(spec[k]) for k in ("start", "stop", "step"))
    except (InvalidOperation, KeyError):
        raise ScenarioError(
            f"{path}: key 'sweep.{axis}': start, stop, step must be decimals"
        ) from None
    if step <= 0 or stop < start:
        raise ScenarioError(
            f"{path}: key 'sweep.{axis}' has value {spec!r}; accepted: step > 0 and stop >= start"
        )
    values = []
    v = start
    while v <= stop:
        values.append(str(v))
        v += step
    return values


def _variant_names() -> list[str]:
    from emusim.inputs import variants

    try:
        return list(variants.registry(variants.VARIANTS_PATH))
    except variants.VariantError as err:
        raise ScenarioError(str(err)) from None


def _coerce(axis: str, value: Any, path: Path, where: str) -> Any:
    spec = AXES[axis]
    if spec.kind == "variant":
        known = _variant_names()
        if value not in known:
            raise ScenarioError(
                f"{path}: key {where!r} has value {value!r}; accepted: a variant of "
                f"config/tcp_variants.yaml ({', '.join(known)}) or, as the whole list, "
                f"{ALL_VARIANTS!r}"
            )
        return value
    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ScenarioError(
                f"{path}: key {where!r} has value {value!r}; accepted: a whole number >= 0"
            )
        return value
    if spec.kind == "decimal":
        text = str(value)
        try:
            d = Decimal(text)
        except InvalidOperation:
            d = None
        if d is None or not (0 <= d <= 1) or not isinstance(value, (str, int)):
            raise ScenarioError(
                f"{path}: key {where!r} has value {value!r}; accepted: a decimal string in "
                '[0, 1] such as "0.004" (quoted, so it stays exact)'
            )
        return text
    if value not in spec.choices:
        raise ScenarioError(
            f"{path}: key {where!r} has value {value!r}; accepted: one of "
            + ", ".join(spec.choices)
        )
    return value


def expand_points(settings: dict, path: Path) -> list[Point]:
    """The cartesian product of the sweep axes (or its explicit `points`), in file order."""
    sweep = settings.get("sweep") or {}
    combos: list[dict[str, Any]]
    if "points" in sweep:
        if len(sweep) > 1:
            raise ScenarioError(f"{path}: key 'sweep': give either 'points' or axes, not both")
        combos = []
        for i, raw in enumerate(sweep["points"]):
            combo = {}
            for axis, value in raw.items():
                if axis not in AXES:
                    raise ScenarioError(
                        f"{path}: key 'sweep.points.{i}.{axis}' is not a sweep axis; accepted: "
                        + ", ".join(AXES)
                    )
                combo[axis] = _coerce(axis, value, path, f"sweep.points.{i}.{axis}")
            combos.append(combo)
    else:
        lists = {}
        for axis, spec in sweep.items():
            if axis not in AXES:
                raise ScenarioError(
                    f"{path}: key 'sweep.{axis}' is not a sweep axis; accepted: " + ", ".join(AXES)
                )
            if spec == ALL_VARIANTS and AXES[axis].kind == "variant":
                values = _variant_names()
            elif isinstance(spec, dict):
                # the bounds as written first: a range's values lie between them, so a bad
                # bound is named as the user wrote it, not as its first expanded value
                for bound in ("start", "stop"):
                    if bound in spec:
                        _coerce(axis, spec[bound], path, f"sweep.{axis}.{bound}")
                values = _decimal_range(spec, path, axis)
            else:
                values = spec
            lists[axis] = [
                _coerce(axis, v, path, f"sweep.{axis}.{i}") for i, v in enumerate(values)
            ]
        combos = [
            dict(zip(lists, vals, strict=True)) for vals in itertools.product(*lists.values())
        ]
        combos = combos or [{}]

    points, seen = [], set()
    for combo in combos:
        point_settings = copy.deepcopy(settings)
        for axis, value in combo.items():
            target = point_settings
            *parents, leaf = AXES[axis].path
            for key in parents:
                target = target.setdefault(key, {})
            target[leaf] = value
        pid = "+".join(f"{k}={v}" for k, v in combo.items()) or "base"
        if pid in seen:
            raise ScenarioError(f"{path}: key 'sweep': point {pid} appears twice")
        seen.add(pid)
        _check_point(point_settings, path, pid)
        points.append(Point(pid, combo, point_settings))
    return points


def _check_point(settings: dict, path: Path, pid: str) -> None:
    dropper = settings["impairment"]["dropper"]
    if dropper["mode"] == "random" and "rate" not in dropper:
        raise ScenarioError(
            f"{path}: point {pid}: key 'impairment.dropper.rate' is missing; the random "
            "dropper needs a rate (or sweep drop_rate)"
        )
    if dropper["mode"] == "regular" and "every_n" not in dropper:
        raise ScenarioError(
            f"{path}: point {pid}: key 'impairment.dropper.every_n' is missing; the regular "
            "dropper needs N (or sweep every_n)"
        )
    problem = workloads.of(settings).check(settings)
    if problem:
        raise ScenarioError(f"{path}: point {pid}: {problem}")
    has_router2 = "router2" in settings["topology"]["hosts"]
    if "link" in settings["impairment"] and not has_router2:
        raise ScenarioError(
            f"{path}: point {pid}: key 'impairment.link' impairs the link between "
            "'topology.hosts.router' and 'topology.hosts.router2', and there is no router2"
        )
    if has_router2:
        if settings["topology"]["delay"] != 0:
            raise ScenarioError(
                f"{path}: key 'topology.delay' has value {settings['topology']['delay']!r}; "
                "accepted with a router2: 0 (the path's delay is the impaired link's "
                "'impairment.link.delay_ms')"
            )
        link = settings["impairment"].setdefault("link", {})
        link.setdefault("loss", "0")
        link.setdefault("delay_ms", 0)
    variant = (settings.get("tcp") or {}).get("variant")
    if variant is not None:
        _coerce("variant", variant, path, "tcp.variant")


def _resolve_topology(raw: dict, path: Path) -> dict:
    topo = raw.get("topology")
    if isinstance(topo, dict) and "use" in topo:
        name = topo["use"]
        preset_path = path.parent / "topologies" / f"{name}.yaml"
        if not preset_path.exists():
            available = sorted(p.stem for p in preset_path.parent.glob("*.yaml"))
            raise ScenarioError(
                f"{path}: key 'topology.use' has value {name!r}; accepted: "
                + (", ".join(available) or "a file in scenarios/topologies/")
            )
        raw = dict(raw)
        raw["topology"] = _deep_merge(_read_yaml(preset_path), topo)
    return raw


def _at_scale(raw: dict, scale: str, path: Path, profiles: set[str] | None):
    """The scenario's settings and points at one scale, validated."""
    settings = _deep_merge(raw, raw.get("scales", {}).get(scale) or {})
    settings.pop("scales", None)
    validate(settings, path)
    if profiles is not None:
        for i, prof in enumerate(settings["profiles"]):
            if prof not in profiles:
                raise ScenarioError(
                    f"{path}: key 'profiles.{i}' has value {prof!r}; accepted: "
                    + ", ".join(sorted(profiles))
                )
    points = tuple(expand_points(settings, path))
    _check_more_runs(settings, path)
    return settings, points


def _check_more_runs(settings: dict, path: Path) -> None:
    """Each ``more_runs`` entry selects points by names of sweep axes (`AXES`): a misspelt
    axis would select nothing, silently. An entry no point matches (a scale or a copy of the
    scenario that sweeps other values) asks nothing."""
    for i, rule in enumerate(settings.get("more_runs") or []):
        for axis in rule["where"]:
            if axis not in AXES:
                raise ScenarioError(
                    f"{path}: key 'more_runs.{i}.where.{axis}' is not a sweep axis; accepted: "
                    + ", ".join(AXES)
                )


def load(name_or_path: str | Path, scale: str = "paper", profiles: set[str] | None = None):
    """Load, resolve and validate a scenario; `profiles` (known names) are checked if given.

    The file is validated at every scale, not only at `scale`: a value that only another scale
    reads (a quick-scale override, or the body that paper scale keeps) is refused now rather
    than when that scale runs. The error then names the scale.
    """
    path = Path(name_or_path)
    if path.suffix != ".yaml":
        path = SCENARIO_DIR / f"{name_or_path}.yaml"
    if scale not in SCALES:
        raise ScenarioError(f"config: key 'scale' has value {scale!r}; accepted: paper, quick")
    raw = _resolve_topology(_read_yaml(path), path)
    scales = raw.get("scales") or {}
    if not isinstance(scales, dict):
        raise ScenarioError(f"{path}: key 'scales' must be a mapping of scale names")
    for name, body in scales.items():
        if name not in SCALES:
            raise ScenarioError(
                f"{path}: key 'scales.{name}' is not a scale; accepted: " + ", ".join(SCALES)
            )
        if body is not None and not isinstance(body, dict):
            raise ScenarioError(
                f"{path}: key 'scales.{name}' has value {body!r}; accepted: a mapping of keys "
                "that override the scenario's at that scale"
            )
    raw = {**raw, "scales": scales}
    # the scale asked for first, so that its error is the one reported
    for at in (scale, *(s for s in SCALES if s != scale)):
        try:
            loaded = _at_scale(raw, at, path, profiles)
        except ScenarioError as err:
            detail = str(err).removeprefix(f"{path}: ")
            raise ScenarioError(f"{path}: at scale {at!r}: {detail}") from None
        if at == scale:
            settings, points = loaded
    return Scenario(path.stem, path, scale, settings, points)


def scenario_names() -> list[str]:
    """Every scenario in scenarios/, sorted."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml"))
