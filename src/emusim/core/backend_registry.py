"""The backends a scenario runs on, in one registry that every list, colour and comparison
reads: `hardware` (what the others are measured against: the 2001 tables or a testbed), `ns3`
(simulation) and `mininet` (emulation). A leaf module, so that any layer can name a backend
without importing the backends' code (emusim.backends).

What `emusim list backends` shows is data here too: each backend's description and where its
results go, the hardware backend's two sources (config.yaml's `hardware.source`), and the
runs derived from a backend under a name of their own (`ns3-model`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """One way the hardware backend gets its runs (config.yaml's `hardware.source`)."""

    name: str
    """Its value of `hardware.source`."""
    listed_as: str
    """Its row's name in `emusim list backends`."""
    description: str
    results: str
    """Where its results go at paper scale (SCENARIO, POINT, K stand for their values)."""


@dataclass(frozen=True)
class Derived:
    """Runs of a backend with something added, under a backend name of their own in results/:
    not a backend of config.yaml, they run when each of `needs` is configured."""

    name: str
    description: str
    results: str
    """Where its results go at paper scale (SCENARIO, PROFILE, POINT, K stand for theirs)."""
    needs: tuple[str, ...]
    """The configured backends it needs."""


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
    description: str = ""
    """What it is, in a few words (`emusim list backends`)."""
    results: str = ""
    """Where its results go at paper scale (SCENARIO, PROFILE, POINT, K stand for theirs)."""
    sources: tuple[Source, ...] = ()
    """Where its runs come from, if it has more than one way; the first is the default."""
    derived: tuple[Derived, ...] = ()
    """Runs derived from its own, each under its own name."""


HARDWARE = Backend(
    "hardware",
    "hardware",
    "#000000",
    "reference",
    "linux",
    profile="native",
    description="what the others are measured against: the 2001 report or a testbed",
    results="results/hardware/SCENARIO.csv",
    sources=(
        Source(
            "reference",
            "hardware",
            "the 2001 report's measurements (data/reference/)",
            "results/hardware/SCENARIO.csv",
        ),
        Source(
            "testbed",
            "testbed",
            "the hardware backend on your three hosts over SSH (docs/testbed.md)",
            "results/hardware/SCENARIO/native/POINT/runK.json",
        ),
    ),
)
NS3_MODEL = Derived(
    "ns3-model",
    "ns-3 with the router processing model fitted to Mininet (router-forwarding)",
    "results/ns3-model/SCENARIO/PROFILE/POINT/runK.json",
    needs=("ns3", "mininet"),
)
"""ns-3's runs with the router processing model (emusim.workloads.udp_flood.MODEL_BACKEND names
them too)."""
NS3 = Backend(
    "ns3",
    "ns-3",
    "#D55E00",
    "model",
    "ns3",
    description="ns-3 3.44 simulation (sim/ns3/, build/ns3/)",
    results="results/ns3/SCENARIO/PROFILE/POINT/runK.json",
    derived=(NS3_MODEL,),
)
MININET = Backend(
    "mininet",
    "Mininet",
    "#0072B2",
    "model",
    "linux",
    description="real Linux TCP in Mininet, here or in a VM; one batch per scenario and profile",
    results="results/mininet/SCENARIO/PROFILE/batch.json, …/POINT/runK.json",
)

BACKENDS: dict[str, Backend] = {b.name: b for b in (HARDWARE, NS3, MININET)}
"""Every backend, the reference first; the order of every list and legend."""

REFERENCE = HARDWARE.name
MODELS: tuple[str, ...] = tuple(n for n, b in BACKENDS.items() if b.role == "model")
"""The backends compared with the reference, in order: ("ns3", "mininet")."""
