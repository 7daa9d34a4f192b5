"""emusim.pipeline.kept: whether the workflow still runs a kept ns-3 run's recorded command
(what `archive renew` asks before re-making a run, so that it never re-makes one that could
not be restored)."""

import json
import subprocess
import sys

from emusim.core.paths import REPO_ROOT
from emusim.pipeline import kept, ns3

POINT = "delay_ms=10+loss=0.01+variant=reno"


def _keep(archive, command, point=POINT, scenario="lossy-link"):
    """A kept run at its place in `archive` whose only content that matters is its command."""
    path = archive / "quick" / "ns3" / scenario / "linux-6.1" / point / "run1.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"provenance": {"command": command}}))
    return path


def _now():
    setup = kept._setup("quick", {})
    return ns3.run(setup, "lossy-link", "linux-6.1", POINT, 1)["cmd"]


def test_a_run_made_by_the_command_the_workflow_runs_now_is_the_same(tmp_path):
    path = _keep(tmp_path, _now())
    assert kept.command_now(path, tmp_path)["verdict"] == kept.SAME


def test_a_run_of_a_variant_now_run_by_another_implementation_names_what_differs(tmp_path):
    # as the multi-flow study's bbr runs: kept with ns-3's own class, now Linux's module
    now = _now()
    linux = "--ns3::TcpLinuxCongestion::Algorithm=reno"
    assert linux in now
    then = [a for a in now if a != linux] + ["--ns3::TcpL4Protocol::SocketType=ns3::TcpNewReno"]
    row = kept.command_now(_keep(tmp_path, then), tmp_path)
    assert row["verdict"] == kept.OTHER
    assert row["why"] == f"kept --ns3::TcpL4Protocol::SocketType=ns3::TcpNewReno; now {linux}"


def test_what_cannot_be_told_is_unknown_not_other(tmp_path):
    gone = _keep(tmp_path, _now(), point="delay_ms=10+loss=0.01+variant=nosuch")
    assert kept.command_now(gone, tmp_path)["verdict"] == kept.UNKNOWN
    elsewhere = tmp_path / "quick" / "mininet" / "lossy-link" / "run1.json"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text("{}")
    assert kept.command_now(elsewhere, tmp_path)["verdict"] == kept.UNKNOWN


def test_the_command_line_prints_one_row_per_file(tmp_path):
    same = _keep(tmp_path, _now())
    proc = subprocess.run(
        [sys.executable, "-m", "emusim.pipeline.kept", "--archive", str(tmp_path), str(same)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(proc.stdout) == [{"file": str(same), "verdict": "same", "why": ""}]


def test_a_scale_the_workflow_cannot_set_up_is_unknown(tmp_path):
    path = _keep(tmp_path, _now())
    elsewhere = tmp_path / "noscale" / path.relative_to(tmp_path / "quick")
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text(path.read_text())
    row = kept.command_now(elsewhere, tmp_path)
    assert row["verdict"] == kept.UNKNOWN and row["why"].startswith("the workflow's setup")
