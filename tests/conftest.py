"""Shared fixtures: the built ns-3 programs."""

import subprocess

import pytest

from emusim import ns3build


@pytest.fixture(scope="session")
def ns3_programs():
    """Build sim/ns3 (incrementally) and return the build directory."""
    try:
        return ns3build.build()
    except ns3build.Ns3BuildError as err:
        pytest.fail(f"ns-3 build failed: {err}")


def run_json(cmd: list[str]) -> dict:
    import json

    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)
