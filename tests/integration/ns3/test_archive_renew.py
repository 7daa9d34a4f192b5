"""`archive renew` (emusim.infra.audit.renew, docs/archive.md): a kept ns-3 run made stale by a
code change is made again with this checkout's code, and kept under this code's identity only
where the new run is the old one's bytes; a run that comes out different stays as it was,
stale, its differences named."""

import json
import subprocess
import sys

import pytest

from emusim.backends.ns3 import command as ns3
from emusim.backends.ns3 import run_identity
from emusim.core.paths import REPO_ROOT
from emusim.infra import archive, audit, code_identity
from emusim.inputs import scenario, tcp_profiles

pytestmark = pytest.mark.ns3

POINT = "delay_ms=10+loss=0.01+variant=reno"
OLD_IDENTITY = "0123456789abcdef"


@pytest.fixture
def kept(ns3_programs, tmp_path):
    """A quick lossy-link run made as the workflow makes it (its command relative to the
    checkout, as rule ns3_run records it), kept in an archive under tmp_path, then made stale:
    its code identity names a manifest with one source file more than the code has now."""
    quick = scenario.load("lossy-link", "quick")
    point = quick.point(POINT)
    profile = tcp_profiles.get("linux-6.1")
    program = (ns3_programs / "lossy-link").relative_to(REPO_ROOT)
    cmd = ns3.command(str(program), quick, point, profile, 1, 0.0)
    now = code_identity.current("ns3")
    meta = run_identity.run_meta(
        "ns3", quick, point, profile, 1, "quick", 0.0, cmd, code_identity=now["digest"]
    )
    made = tmp_path / "results" / "ns3" / "lossy-link" / "linux-6.1" / POINT / "run1.json"
    made.parent.mkdir(parents=True)
    wrapper = [sys.executable, "-m", "emusim.infra.runjson", "--meta", json.dumps(meta)]
    subprocess.run([*wrapper, "--out", str(made), "--", *cmd], cwd=REPO_ROOT, check=True)
    store = tmp_path / "archive"
    path = archive.add(made, store, repo=tmp_path)
    then = {**now, "digest": OLD_IDENTITY}
    then["sources"] = sorted([*now["sources"], "ffffffffffffffff"])
    then["names"] = {**now["names"], "sources": {"ffffffffffffffff": "sim/ns3/model/gone.cc"}}
    code_identity.write_manifest(store, then)
    run = json.loads(path.read_text())
    run["provenance"]["code_identity"] = OLD_IDENTITY
    path.write_text(json.dumps(run, indent=1, sort_keys=True) + "\n")
    return store, path


def _fresh(store):
    return {row["file"]: row["fresh"] for row in archive.status(store)}


def test_a_stale_run_made_the_same_is_kept_under_this_code(kept):
    store, path = kept
    before = json.loads(path.read_text())
    assert _fresh(store) == {str(path): False}
    result = audit.renew(store)
    assert result["renewed"] == 1 and result["stale"] == 1, result
    after = json.loads(path.read_text())
    now = code_identity.current("ns3")["digest"]
    assert after["provenance"]["code_identity"] == now
    assert after["provenance"]["archive"]["renewed_from"] == OLD_IDENTITY
    # what the run measured and the command that made it are the kept run's, to the byte
    assert after["metrics"] == before["metrics"]
    assert after["provenance"]["command"] == before["provenance"]["command"]
    assert _fresh(store) == {str(path): True}
    # nothing left to renew
    assert audit.renew(store)["stale"] == 0


def test_a_stale_run_made_differently_stays_stale_and_untouched(kept):
    store, path = kept
    run = json.loads(path.read_text())
    # the kept run says it measured one byte per second more than this code measures
    run["metrics"]["goodput_Bps"] += 1
    path.write_text(json.dumps(run, indent=1, sort_keys=True) + "\n")
    before = path.read_bytes()
    result = audit.renew(store, scenario="lossy-link")
    assert result["renewed"] == 0
    assert result["runs"][0]["differences"] == ["metrics.goodput_Bps"]
    assert path.read_bytes() == before
    assert _fresh(store) == {str(path): False}
    # another scenario's filter renews nothing, nor do other axis values
    assert audit.renew(store, scenario="random-drop")["stale"] == 0
    assert audit.renew(store, where={"variant": ["cubic", "bbr"]})["stale"] == 0
    assert audit.renew(store, where={"loss": ["0.010"], "variant": ["reno"]})["stale"] == 1


def test_replace_changed_keeps_the_run_this_code_makes_in_the_stale_ones_place(kept):
    store, path = kept
    run = json.loads(path.read_text())
    run["metrics"]["goodput_Bps"] += 1
    path.write_text(json.dumps(run, indent=1, sort_keys=True) + "\n")
    result = audit.renew(store, replace_changed=True)
    assert result["renewed"] == 0
    row = result["runs"][0]
    assert row["replaced"] and row["differences"] == ["metrics.goodput_Bps"]
    after = json.loads(path.read_text())
    # what this code measures, one byte per second less than the stale run said
    assert row["goodput_Bps"] == [run["metrics"]["goodput_Bps"], after["metrics"]["goodput_Bps"]]
    assert after["metrics"]["goodput_Bps"] == run["metrics"]["goodput_Bps"] - 1
    assert after["provenance"]["archive"]["replaces"] == OLD_IDENTITY
    assert after["provenance"]["code_identity"] == code_identity.current("ns3")["digest"]
    assert _fresh(store) == {str(path): True}


def test_a_run_whose_point_now_runs_another_command_is_not_remade(kept):
    store, path = kept
    run = json.loads(path.read_text())
    # kept as if its variant had been another implementation's when it was made
    linux = "--ns3::TcpLinuxCongestion::Algorithm=reno"
    run["provenance"]["command"].remove(linux)
    path.write_text(json.dumps(run, indent=1, sort_keys=True) + "\n")
    before = path.read_bytes()
    result = audit.renew(store, replace_changed=True)
    assert result["runs"] == []
    assert result["other_command"] == {str(path): f"now {linux}"}
    assert path.read_bytes() == before
    assert _fresh(store) == {str(path): False}
