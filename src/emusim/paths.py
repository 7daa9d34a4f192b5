"""Where things are: one place for the repository's directories."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = REPO_ROOT / "build"
SCENARIO_DIR = REPO_ROOT / "scenarios"
CONFIG_DIR = REPO_ROOT / "config"
SPEC_DIR = REPO_ROOT / "spec"
