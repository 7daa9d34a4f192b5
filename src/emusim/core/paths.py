"""Where things are: one place for the repository's directories.

The root is the repository holding this package, unless EMUSIM_ROOT names another checkout
(the Snakefile sets it to its own directory, so a copy of the workflow reads its own
scenarios, configuration and reference data).
"""

import os
from pathlib import Path

REPO_ROOT = Path(os.environ.get("EMUSIM_ROOT") or Path(__file__).resolve().parents[3])
BUILD_DIR = REPO_ROOT / "build"
SCENARIO_DIR = REPO_ROOT / "scenarios"
CONFIG_DIR = REPO_ROOT / "config"
SPEC_DIR = REPO_ROOT / "spec"
REFERENCE_DIR = REPO_ROOT / "data" / "reference"

PAPER_SCALE = "paper"


def scale_prefix(scale: str) -> str:
    """Where a scale's results, figures, tables and logs go, relative to the repository: the
    paper scale at the top, every other scale under scales/<scale>/."""
    return "" if scale == PAPER_SCALE else f"scales/{scale}/"


def scale_of_prefix(prefix: str) -> str:
    """The scale that writes under `prefix` (the inverse of `scale_prefix`); ValueError for a
    prefix no scale has."""
    if prefix == "":
        return PAPER_SCALE
    parts = prefix.split("/")
    if len(parts) != 3 or parts[0] != "scales" or not parts[1] or parts[2]:
        raise ValueError(f"prefix {prefix!r}: no scale writes there (accepted: '', scales/NAME/)")
    return parts[1]
