"""One ns-3 run of a shipped scenario's point, as the workflow would make it (the command of
emusim.backends.ns3.command), for tests that set ns-3 beside another backend's runs."""

import json
import subprocess
from pathlib import Path

from emusim.backends.ns3 import command as ns3
from emusim.inputs import tcp_profiles


def run_point(programs: Path, scenario, point_id: str, rep: int = 1, profile="linux-6.1") -> dict:
    """The program's JSON for repetition `rep` of `point_id` of a loaded scenario (its
    program: lossy-link, the program of every scenario these tests compare)."""
    cmd = ns3.command(
        str(programs / "lossy-link"), scenario, scenario.point(point_id), tcp_profiles.get(profile),
        rep, 0.0,
    )  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, (point_id, rep, proc.stderr[-2000:])
    return json.loads(proc.stdout)
