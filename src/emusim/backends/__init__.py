"""The backends a scenario runs on, in one registry that every list, colour and comparison
reads: `hardware` (what the others are measured against: the 2001 tables or a testbed), `ns3`
(simulation) and `mininet` (emulation).

Each backend's code is a package here (`reference`, `testbed`, `ns3`, `mininet`). No backend
imports another (a contract `make test` checks: `lint-imports`, pyproject.toml): what
they share lives in neutral modules (emusim.drop_decision, emusim.linux, emusim.runjson,
emusim.teardown).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Backend:
    """One backend: its name in config.yaml and results/, and how it is shown."""

    name: str
    label: str
    """Its name in figures and tables."""
    color: str
    """Its colour in every figure (Okabe-Ito, distinguishable with colour blindness)."""
    role: str
    """"reference" (what the others are compared to) or "model" (compared to it)."""
    variant_side: str
    """Which implementation of a TCP variant runs there (config/tcp_variants.yaml): "ns3" or
    "linux"."""
    profile: str | None = None
    """The one TCP profile of a reference backend's runs (its hosts' own kernels)."""


HARDWARE = Backend("hardware", "hardware", "#000000", "reference", "linux", profile="native")
NS3 = Backend("ns3", "ns-3", "#D55E00", "model", "ns3")
MININET = Backend("mininet", "Mininet", "#0072B2", "model", "linux")

BACKENDS: dict[str, Backend] = {b.name: b for b in (HARDWARE, NS3, MININET)}
"""Every backend, the reference first; the order of every list and legend."""

REFERENCE = HARDWARE.name
MODELS: tuple[str, ...] = tuple(n for n, b in BACKENDS.items() if b.role == "model")
"""The backends compared with the reference, in order: ("ns3", "mininet")."""
