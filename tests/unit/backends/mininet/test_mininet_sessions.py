"""batch.json over sessions: a batch resumed, or rerun with every run there, keeps the record
and self-check of each session that made its runs (emusim.backends.mininet.batch.compose_batch).
No root."""

import json
from pathlib import Path

from emusim.backends.mininet import selfcheck
from emusim.backends.mininet.batch import compose_batch


def session(bid: str, started: str, written: int, tput_ok: bool, impl="module") -> dict:
    return {
        "batch_id": bid, "started_utc": started, "scenario": "s", "backend": "mininet",
        "profile": "linux-2.2", "place": "vm", "kvm": False, "kernel_release": "6.1",
        "dropper_impl": impl, "runs_written": written,
        "selfcheck": {
            "throughput": {"fraction_of_line_rate": 0.98 if tput_ok else 0.5,
                           "tolerance": [0.95, 1.005], "ok": tput_ok},
            "delay": {"configured_us": 71.9, "fitted_two_point_us": 75.0, "ok": True},
        },
    }  # fmt: skip


def write_runs(profile_dir: Path, batch_ids: list[str]) -> list[str]:
    paths = []
    for i, bid in enumerate(batch_ids, 1):
        path = profile_dir / "base" / f"run{i}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"provenance": {"batch_id": bid}}))
        paths.append(str(path))
    return paths


def write_session(profile_dir: Path, rec: dict) -> None:
    (profile_dir / "sessions").mkdir(parents=True, exist_ok=True)
    (profile_dir / "sessions" / f"{rec['batch_id']}.json").write_text(json.dumps(rec))


def test_rerun_with_every_run_there_rebuilds_from_the_records(tmp_path):
    runs = write_runs(tmp_path, ["aaaa", "aaaa", "bbbb"])
    write_session(tmp_path, session("aaaa", "2026-01-01T00:00:00Z", 2, True))
    write_session(tmp_path, session("bbbb", "2026-01-02T00:00:00Z", 1, False))
    out = compose_batch(runs, None)
    # the latest session that wrote runs speaks for the batch; both are listed, oldest first
    assert out["batch_id"] == "bbbb" and out["run_files"] == runs
    assert [s["batch_id"] for s in out["sessions"]] == ["aaaa", "bbbb"]
    # one of the sessions failed its throughput check: the batch is flagged
    assert selfcheck.batch_row(out)["selfcheck"] == "failed: throughput"


def test_missing_record_needs_a_session(tmp_path):
    runs = write_runs(tmp_path, ["aaaa", "cccc"])
    write_session(tmp_path, session("aaaa", "2026-01-01T00:00:00Z", 1, True))
    assert compose_batch(runs, None) is None
    # a self-check-only session (no runs written, no dropper) does not describe the runs
    now = session("dddd", "2026-01-03T00:00:00Z", 0, True, impl="none")
    out = compose_batch(runs, now)
    assert out["batch_id"] == "aaaa" and out["dropper_impl"] == "module"
    assert [s["batch_id"] for s in out["sessions"]] == ["aaaa", "dddd"]
    assert selfcheck.batch_row(out)["selfcheck"] == "ok"


def test_runs_without_records_are_described_by_their_provenance(tmp_path):
    runs = write_runs(tmp_path, ["eeee"])
    rec = json.loads(Path(runs[0]).read_text())
    rec["provenance"].update(place="vm", kernel_release="6.1", dropper_impl_batch="module")
    Path(runs[0]).write_text(json.dumps(rec))
    now = session("ffff", "2026-01-03T00:00:00Z", 0, True, impl="none")
    out = compose_batch(runs, now)
    assert out["dropper_impl"] == "module" and out["kernel_release"] == "6.1"
    # the self-check is this session's, the only one there is
    assert out["selfcheck"] == now["selfcheck"]
