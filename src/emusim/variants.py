"""TCP variants: the registry in config/tcp_variants.yaml and what each backend runs for one.

A variant is a congestion-control algorithm with its implementation on each side: an ns-3
TypeId with attribute defaults, and a Linux congestion-control name with the kernel module
that provides it. A scenario sweeps variants with the ``variant`` axis (emusim.scenario).

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

from emusim import schema_errors
from emusim.backends import BACKENDS
from emusim.paths import CONFIG_DIR

VARIANTS_PATH = CONFIG_DIR / "tcp_variants.yaml"
SCHEMA_PATH = Path(__file__).parent / "schemas" / "variants.schema.yaml"

SOCKET_TYPE = "ns3::TcpL4Protocol::SocketType"
"""The ns-3 attribute that selects the congestion control of every new TCP socket."""

BACKEND_SIDES = {name: b.variant_side for name, b in BACKENDS.items()}
"""Which implementation of a variant each backend runs (the hardware runs Linux)."""


class VariantError(ValueError):
    """The registry is invalid, or names a variant it does not have."""


@dataclass(frozen=True)
class Ns3Implementation:
    """The ns-3 class of a variant and the attribute defaults it needs."""

    type_id: str
    attributes: dict[str, str] = field(default_factory=dict)


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

    def implementation(self, backend: str) -> Ns3Implementation | LinuxImplementation | None:
        """What `backend` runs for this variant, or None if it has no implementation."""
        side = BACKEND_SIDES.get(backend)
        if side is None:
            raise VariantError(f"no backend {backend!r}; known: {', '.join(BACKEND_SIDES)}")
        return getattr(self, side)


class _UniqueKeys(yaml.SafeLoader):
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
    message = schema_errors.first_error(data, yaml.safe_load(SCHEMA_PATH.read_text()))
    if message:
        raise VariantError(f"{path}: {message}")


def _variant(name: str, raw: dict) -> Variant:
    ns3 = raw["ns3"]
    linux = raw["linux"]
    return Variant(
        name=name,
        description=raw["description"],
        ns3=Ns3Implementation(ns3["type"], dict(ns3.get("attributes") or {})) if ns3 else None,
        linux=LinuxImplementation(
            linux["congestion_control"],
            linux["module"],
            dict(linux.get("module_parameters") or {}),
        )
        if linux
        else None,
        sources=" ".join(raw["sources"].split()),
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
    return {name: _variant(name, raw) for name, raw in data["variants"].items()}


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
    return (
        f"variant {variant.name!r} has no {side} implementation in {VARIANTS_PATH.name}: "
        f"{backend} skips its points ({variant.sources})"
    )


def ns3_attributes(profile_attributes: dict[str, str], variant: Variant) -> dict[str, str]:
    """The profile's ns-3 attributes with its congestion control replaced by the variant's.

    The variant's own attribute defaults come last, so they win over the profile's where both
    set one (e.g. BBR's pacing)."""
    if variant.ns3 is None:
        raise VariantError(not_implemented(variant, "ns3"))
    attrs = {k: v for k, v in profile_attributes.items() if k != SOCKET_TYPE}
    attrs[SOCKET_TYPE] = variant.ns3.type_id
    attrs.update(variant.ns3.attributes)
    return attrs
