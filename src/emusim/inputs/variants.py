"""TCP variants: the registry in config/tcp_variants.yaml and what each backend runs for one.

A variant is a congestion-control algorithm with its implementation on each side: an ns-3
TypeId with attribute defaults, and a Linux congestion-control name with the kernel module
that provides it. A scenario sweeps variants with the ``variant`` axis (emusim.inputs.scenario).

Composition with the TCP profiles (config/tcp_profiles.yaml): a variant replaces the profile's
congestion control and nothing else. In ns-3 the profile's ``ns3::TcpL4Protocol::SocketType``
is dropped and the variant's type and attributes are set after the profile's attributes; in
Linux the sender's socket gets the variant's algorithm (TCP_CONGESTION), whatever the
profile's ``tcp_congestion_control`` sysctl says. docs/variants.md has the rule and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from emusim.core import schema_errors, yaml_text
from emusim.core.backend_registry import BACKENDS
from emusim.core.paths import CONFIG_DIR

VARIANTS_PATH = CONFIG_DIR / "tcp_variants.yaml"
SCHEMA_PATH = Path(__file__).parents[1] / "schemas" / "variants.schema.yaml"

SOCKET_TYPE = "ns3::TcpL4Protocol::SocketType"
"""The ns-3 attribute that selects the congestion control of every new TCP socket."""

LINUX_IN_NS3 = "linux"
"""The registry's ``ns3: linux``: Linux's own module, compiled into ns-3 (docs/linux-cc.md)."""

LINUX_CC_TYPE = "ns3::TcpLinuxCongestion"
"""The ns-3 class that runs a Linux congestion-control module (sim/ns3/model/
tcp-linux-congestion.h); its attributes name the algorithm and the module parameters."""
LINUX_CC_ALGORITHM = f"{LINUX_CC_TYPE}::Algorithm"
LINUX_CC_PARAMETERS = f"{LINUX_CC_TYPE}::ModuleParameters"

USE_ECN = "ns3::TcpSocketBase::UseEcn"
"""ns-3's ECN switch; ``On`` for a variant with ``ecn: true``."""

BACKEND_SIDES = {name: b.variant_side for name, b in BACKENDS.items()}
"""Which implementation of a variant each backend runs (the hardware runs Linux)."""


class VariantError(ValueError):
    """The registry is invalid, or names a variant it does not have."""


@dataclass(frozen=True)
class Ns3Implementation:
    """The ns-3 class of a variant and the attribute defaults it needs; ``linux_code`` when
    the class runs Linux's own module (``ns3: linux``)."""

    type_id: str
    attributes: dict[str, str] = field(default_factory=dict)
    linux_code: bool = False


@dataclass(frozen=True)
class LinuxImplementation:
    """The Linux congestion control of a variant, its module and module parameters."""

    congestion_control: str
    module: str | None
    module_parameters: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Variant:
    """One registry entry; an implementation is None where that side has none."""

    name: str
    description: str
    ns3: Ns3Implementation | None
    linux: LinuxImplementation | None
    sources: str
    models: str | None = None
    """The variant this one is ns-3's own model of: the emulation's runs of that variant are
    its reference (docs/variants.md, "ns-3's own models")."""
    ecn: bool = False
    """Whether the algorithm needs ECN negotiated (Linux's TCP_CONG_NEEDS_ECN)."""
    random: bool = False
    """Whether its runs differ by chance where nothing else is random (bbr's random gain
    phase; lp's reading of the peer's randomly offset timestamps), so each backend repeats
    its points."""

    def implementation(self, backend: str) -> Ns3Implementation | LinuxImplementation | None:
        """What `backend` runs for this variant, or None if it has no implementation."""
        side = BACKEND_SIDES.get(backend)
        if side is None:
            raise VariantError(f"no backend {backend!r}; known: {', '.join(BACKEND_SIDES)}")
        return getattr(self, side)


class _UniqueKeys(yaml_text.SafeLoader):
    """YAML's loader keeps the last of two equal keys silently; a registry must not: a variant
    entered twice would shadow the first."""

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(key, deep=deep) for key, _ in node.value]
        twice = sorted({str(k) for k in keys if keys.count(k) > 1})
        if twice:
            raise VariantError(
                f"line {node.start_mark.line + 1}: key(s) {', '.join(twice)} given twice"
            )
        return super().construct_mapping(node, deep)


def _check(data: object, path: Path) -> None:
    message = schema_errors.first_error(data, yaml_text.safe_load(SCHEMA_PATH.read_text()))
    if message:
        raise VariantError(f"{path}: {message}")


def _linux_in_ns3(linux: LinuxImplementation) -> Ns3Implementation:
    """``ns3: linux``: TcpLinuxCongestion running the Linux side's algorithm, with the same
    module parameters (kernel-wide in both: ModuleParameters sets them as sysfs would)."""
    attributes = {LINUX_CC_ALGORITHM: linux.congestion_control}
    if linux.module_parameters:
        attributes[LINUX_CC_PARAMETERS] = ";".join(
            f"{linux.module}.{name}={value}" for name, value in linux.module_parameters.items()
        )
    return Ns3Implementation(LINUX_CC_TYPE, attributes, linux_code=True)


def _variant(name: str, raw: dict, path: Path) -> Variant:
    ns3 = raw["ns3"]
    linux = (
        LinuxImplementation(
            raw["linux"]["congestion_control"],
            raw["linux"]["module"],
            dict(raw["linux"].get("module_parameters") or {}),
        )
        if raw["linux"]
        else None
    )
    if ns3 == LINUX_IN_NS3:
        if linux is None:
            raise VariantError(
                f"{path}: key 'variants.{name}.ns3' has value 'linux' (Linux's own module in "
                "ns-3), which needs the linux side: it has none (linux: null)"
            )
        if linux.module_parameters and linux.module is None:
            raise VariantError(
                f"{path}: key 'variants.{name}.linux.module_parameters': a built-in algorithm "
                "(module: null) has no module parameters"
            )
        impl = _linux_in_ns3(linux)
    elif ns3:
        impl = Ns3Implementation(ns3["type"], dict(ns3.get("attributes") or {}))
    else:
        impl = None
    return Variant(
        name=name,
        description=raw["description"],
        ns3=impl,
        linux=linux,
        sources=" ".join(raw["sources"].split()),
        models=raw.get("models"),
        ecn=bool(raw.get("ecn", False)),
        random=bool(raw.get("random", False)),
    )


def _check_models(reg: dict[str, Variant], path: Path) -> None:
    """A model of a variant is ns-3's only (linux: null) and names a variant with a Linux
    side, which is not itself a model."""
    for v in reg.values():
        if v.models is None:
            continue
        key = f"key 'variants.{v.name}.models' has value {v.models!r}"
        target = reg.get(v.models)
        if v.ns3 is None or v.linux is not None:
            raise VariantError(
                f"{path}: {key}: a model is ns-3's own class of another variant, so it has an "
                "ns3 implementation and linux: null"
            )
        if target is None or target.linux is None or target.models is not None:
            raise VariantError(
                f"{path}: {key}: it must name a variant of the registry with a linux side; "
                f"those are: {', '.join(n for n, t in reg.items() if t.linux and not t.models)}"
            )


@cache
def registry(path: Path = VARIANTS_PATH) -> dict[str, Variant]:
    """Every variant by name, in file order; raises VariantError naming file, key and value."""
    try:
        data = yaml.load(Path(path).read_text(), Loader=_UniqueKeys)  # a SafeLoader
    except FileNotFoundError:
        raise VariantError(f"{path}: no such file (the TCP variant registry)") from None
    except yaml.YAMLError as err:
        raise VariantError(f"{path}: not valid YAML: {err}") from None
    except VariantError as err:
        raise VariantError(f"{path}: {err}") from None
    _check(data, Path(path))
    reg = {name: _variant(name, raw, Path(path)) for name, raw in data["variants"].items()}
    _check_models(reg, Path(path))
    return reg


def get(name: str, path: Path = VARIANTS_PATH) -> Variant:
    reg = registry(path)
    if name not in reg:
        raise VariantError(f"no TCP variant {name!r} in {path}; known: {', '.join(reg)}")
    return reg[name]


def not_implemented(variant: Variant, backend: str) -> str | None:
    """Why `backend` cannot run `variant` (a sentence for logs and tables), or None."""
    if variant.implementation(backend) is not None:
        return None
    side = BACKEND_SIDES[backend]
    if variant.models is not None and side == "linux":
        return (
            f"variant {variant.name!r} is ns-3's own model of {variant.models!r}: {backend} "
            f"does not run it, its runs of {variant.models!r} are the reference"
        )
    return (
        f"variant {variant.name!r} has no {side} implementation in {VARIANTS_PATH.name}: "
        f"{backend} skips its points ({variant.sources})"
    )


def skipped_points(points, backend: str) -> dict[str, str]:
    """Point id → why, for the points (emusim.inputs.scenario.Point) whose TCP variant `backend` has
    no implementation of: they are not run, and the logs and the comparison table say why."""
    out = {}
    for point in points:
        if point.variant is not None:
            why = not_implemented(get(point.variant), backend)
            if why:
                out[point.id] = why
    return out


def stand_in_points(points, path: Path = VARIANTS_PATH) -> dict[str, str]:
    """Point id → the id of the point whose Linux runs stand for it: for a point of a variant
    that models another (``models``), the same point with that variant, if the design has it.
    ``points`` are a scenario's points (emusim.inputs.scenario.Point)."""

    def key(values: dict) -> tuple:
        return tuple(sorted((k, str(v)) for k, v in values.items()))

    by_values = {key(p.values): p.id for p in points}
    out = {}
    for p in points:
        if p.variant is None or "variant" not in p.values:
            continue
        modelled = get(p.variant, path).models
        if modelled is not None:
            twin = by_values.get(key({**p.values, "variant": modelled}))
            if twin is not None:
                out[p.id] = twin
    return out


def is_random(name: str | None, path: Path = VARIANTS_PATH) -> bool:
    """Whether a point's variant (by name; None: the profile's own) makes its runs differ by
    chance (``random`` in the registry)."""
    return name is not None and get(name, path).random


def ns3_attributes(profile_attributes: dict[str, str], variant: Variant) -> dict[str, str]:
    """The profile's ns-3 attributes with its congestion control replaced by the variant's.

    The variant's own attribute defaults come last, so they win over the profile's where both
    set one (e.g. BBR's pacing)."""
    if variant.ns3 is None:
        raise VariantError(not_implemented(variant, "ns3"))
    replaced = {SOCKET_TYPE, LINUX_CC_ALGORITHM, LINUX_CC_PARAMETERS}
    attrs = {k: v for k, v in profile_attributes.items() if k not in replaced}
    attrs[SOCKET_TYPE] = variant.ns3.type_id
    attrs.update(variant.ns3.attributes)
    if variant.ecn:
        attrs[USE_ECN] = "On"
    return attrs
