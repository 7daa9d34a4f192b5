"""The run wrapper writes whole files only; the collector flattens runs into the tidy table."""

import json
import sys

from emusim.analysis import collect
from emusim.infra import runjson
from emusim.inputs import scenario


def _meta(point="drop_rate=0.004", rep=1):
    return {
        "scenario": "random-drop",
        "backend": "ns3",
        "profile": "linux-2.2",
        "point": point,
        "params": {"drop_rate": point.split("=")[1]},
        "repetition": rep,
        "seed": 7,
        "provenance": {"git_revision": "abc"},
    }


def test_wrapper_merges_identity_metrics_and_provenance(tmp_path):
    out = tmp_path / "run1.json"
    program = 'print(\'{"status": "ok", "metrics": {"elapsed_s": 12.5}, "ns3": {"run": 1}}\')'
    code = runjson.main(
        ["--meta", json.dumps(_meta()), "--out", str(out), "--", sys.executable, "-c", program]
    )
    assert code == 0
    run = json.loads(out.read_text())
    assert run["schema_version"] == 1 and run["metrics"] == {"elapsed_s": 12.5}
    assert run["provenance"] == {"git_revision": "abc", "ns3": {"run": 1}}
    assert run["point"] == "drop_rate=0.004" and run["status"] == "ok"


def test_failed_command_leaves_no_file(tmp_path):
    out = tmp_path / "run1.json"
    code = runjson.main(
        [
            "--meta",
            json.dumps(_meta()),
            "--out",
            str(out),
            "--",
            sys.executable,
            "-c",
            "import sys; sys.exit(3)",
        ]
    )
    assert code == 3
    assert not out.exists() and not list(tmp_path.iterdir())


def test_tidy_orders_points_as_the_scenario_and_explodes_echoes():
    s = scenario.load("random-drop", "paper")
    runs = [
        {**_meta("drop_rate=0.008", 1), "status": "ok", "metrics": {"elapsed_s": 3.0}},
        {**_meta("drop_rate=0.004", 2), "status": "ok", "metrics": {"elapsed_s": 2.0}},
        {**_meta("drop_rate=0.004", 1), "status": "ok", "metrics": {"elapsed_s": 1.0}},
    ]
    frame = collect.tidy(runs, s)
    assert list(frame["point"]) == ["drop_rate=0.004", "drop_rate=0.004", "drop_rate=0.008"]
    assert list(frame["elapsed_s"]) == [1.0, 2.0, 3.0]
    assert list(frame.columns[:5]) == ["scenario", "backend", "profile", "point", "drop_rate"]

    ping = scenario.load("ping-sweep", "quick")
    run = {
        **_meta("request_size_B=56"),
        "params": {"request_size_B": 56},
        "status": "ok",
        "metrics": {"rtt_us": [1.0, 2.0, 3.0]},
    }
    rows = collect.tidy([run], ping)
    assert list(rows["echo"]) == [1, 2, 3] and list(rows["rtt_us"]) == [1.0, 2.0, 3.0]


def _restored(meta: dict, revision: str) -> dict:
    """A run the workflow wrote from the run archive (docs/archive.md)."""
    provenance = {
        "git_revision": revision,
        "archive": {"path": "data/archive/x/run1.json", "cost": {"cpu_s": 1.0}},
    }
    return {**meta, "provenance": provenance}


def test_a_restored_run_says_its_revision_in_a_last_column_only_it_fills():
    s = scenario.load("random-drop", "paper")
    made = {**_meta("drop_rate=0.004", 1), "status": "ok", "metrics": {"elapsed_s": 1.0}}
    # the kept file itself (cost, no path) is a run like any other until restored
    kept = {
        **_meta("drop_rate=0.004", 2),
        "status": "ok",
        "metrics": {"elapsed_s": 2.0},
        "provenance": {"git_revision": "abc", "archive": {"cost": {"cpu_s": 1.0}}},
    }
    restored = _restored(
        {**_meta("drop_rate=0.008", 1), "status": "ok", "metrics": {"elapsed_s": 3.0}}, "d80beaf"
    )
    frame = collect.tidy([restored, made, kept], s)
    assert frame.columns[-1] == collect.ARCHIVE_COLUMN
    assert frame[collect.ARCHIVE_COLUMN].iloc[:2].isna().all()
    assert frame[collect.ARCHIVE_COLUMN].iloc[2] == "d80beaf"
    # a table without a restored run has no such column: the same bytes as before it existed
    assert collect.ARCHIVE_COLUMN not in collect.tidy([made, kept], s)
