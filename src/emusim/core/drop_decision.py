"""The dropper's decision, shared by every backend (spec/drop-decision.md).

Neutral ground: ns-3's program arguments, the emulation's netfilter rules and module writes,
and the testbed's consistency check all turn a scenario's drop rate into the same 16-bit
cutoff here. It imports nothing heavy, because the emulation imports it inside its VM, where
every module read crosses to the host.
"""

from __future__ import annotations

from decimal import Decimal

from emusim.core import constants


def cutoff_from_rate(rate: str) -> int:
    """floor(rate x 65535) on the exact decimal (spec/drop-decision.md)."""
    value = Decimal(rate)
    if not 0 <= value <= 1:
        raise ValueError(f"drop rate {rate!r} is outside [0, 1]")
    return int(value * constants.RANDOM_DROPPER_SCALE)
