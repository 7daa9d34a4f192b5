"""The one-way delay fitted to the hardware's ping sweep (emusim.inputs.delay; the workflow's rule
delay_fit writes it): where the file is, which scenarios need it, and its value. Every backend
that runs a ``delay: measured`` scenario reads it through here."""

from __future__ import annotations

import json
from pathlib import Path

RESULTS_RELATIVE = "delay/one_way_delay.json"
"""The fitted delay's file under a scale's results directory."""


def path(results_dir: str | Path) -> str:
    """The fitted delay's file under `results_dir` (a scale's results/)."""
    return f"{results_dir}/{RESULTS_RELATIVE}"


def is_measured(scenario) -> bool:
    """Whether the scenario's delay is the fitted one (``topology.delay: measured``)."""
    return scenario.settings["topology"]["delay"] == "measured"


def read_us(delay_json: str | Path) -> float:
    """The fitted one-way delay in µs from its file (OSError, KeyError or ValueError when the
    file is missing or not the fit's)."""
    return float(json.loads(Path(delay_json).read_text())["one_way_delay_us"])
