"""A batch split into shards (emusim.backends.mininet.plan.Shard): each shard's share of the
design, the join of the shards' records into batch.json (batch.merge_shards), the lock that
keeps real-time batches apart, and where a batch runs without root or in a SLURM job. No root.
"""

import json
import multiprocessing
import time
from pathlib import Path

import pytest

from emusim.backends.mininet import batch as batch_mod
from emusim.backends.mininet import plan as plan_mod
from emusim.backends.mininet import selfcheck
from emusim.backends.mininet.batch import compose_batch, merge_shards, realtime_lock, shard_record
from emusim.backends.mininet.plan import BatchError, Shard, decide_place, make_plan
from emusim.inputs import scenario as sc


def _keys(plan: dict) -> list[tuple[str, int]]:
    return [(r["point"], r["repetition"]) for r in plan["runs"]]


def test_shard_text_round_trips_and_bad_values_are_named():
    assert Shard.parse("2/3") == Shard(2, 3) == Shard.parse("2-of-3")
    assert str(Shard(2, 3)) == "2-of-3"
    for bad in ("0/2", "3/2", "a/b", "2"):
        with pytest.raises(BatchError, match=f"--shard '{bad}'"):
            Shard.parse(bad)


def test_shards_deal_out_the_design_in_turn_and_cover_it_once(tmp_path):
    rd = sc.load("random-drop", "quick")  # rate 0 once, the three random rates twice: 7 runs
    whole = make_plan(rd, "linux-2.2", 71.89, "auto", tmp_path, repeat_deterministic=False)
    design = _keys(whole)
    assert len(design) == whole["design_runs"] == 7
    parts = [
        make_plan(
            rd, "linux-2.2", 71.89, "auto", tmp_path, repeat_deterministic=False, shard=Shard(i, 3)
        )
        for i in (1, 2, 3)
    ]
    # run k (from 1, in design order) goes to shard ((k - 1) mod 3) + 1
    assert [_keys(p) for p in parts] == [design[0::3], design[1::3], design[2::3]]
    assert all(p["shard"] == f"{i}-of-3" and p["design_runs"] == 7 for i, p in enumerate(parts, 1))


def test_runs_the_archive_restores_are_dealt_last_so_the_rest_is_shared_evenly(tmp_path):
    rd = sc.load("random-drop", "quick")
    whole = make_plan(rd, "linux-2.2", 71.89, "auto", tmp_path, repeat_deterministic=False)
    design = [(r["point"], r["repetition"]) for r in whole["runs"]]
    kept = [r["path"] for r in whole["runs"][:3]]  # the first three are in the archive

    def share(i, archived=kept):
        plan = make_plan(rd, "linux-2.2", 71.89, "auto", tmp_path, repeat_deterministic=False,
                         shard=Shard(i, 2), archived=archived)  # fmt: skip
        return _keys(plan)

    # dealt in the order design[3:] + design[:3]: the four to make go two and two
    assert share(1) == [design[0], design[2], design[3], design[5]]
    assert share(2) == [design[1], design[4], design[6]]
    # without an archive the old order holds
    assert share(1, archived=()) == design[0::2]


def test_a_resumed_shard_finds_the_same_runs(tmp_path):
    rd = sc.load("random-drop", "quick")
    first = make_plan(rd, "linux-2.2", 71.89, "auto", tmp_path, shard=Shard(2, 2))
    done = first["runs"][0]["path"]
    Path(done).parent.mkdir(parents=True)
    Path(done).write_text("{}")
    again = make_plan(rd, "linux-2.2", 71.89, "auto", tmp_path, shard=Shard(2, 2))
    assert _keys(again) == _keys(first)[1:]
    assert [r["path"] for r in again["skipped"]] == [done]


def _shard_record(shard: str, runs: list[str], sessions: list[dict]) -> dict:
    main = sessions[-1] if sessions else {}
    return {
        "scenario": "s", "profile": "linux-6.1", "backend": "mininet", "shard": shard,
        "batch_id": main.get("batch_id"), "selfcheck": main.get("selfcheck"),
        "kernel_release": "6.1.0-56-amd64", "clock": "guest-icount",
        "run_files": runs, "sessions": sessions,
    }  # fmt: skip


def _session(bid: str, started: str, written: int, tput_ok: bool) -> dict:
    return {"batch_id": bid, "started_utc": started, "runs_written": written,
            "selfcheck_run": True, "throughput_ok": tput_ok, "delay_ok": True,
            "selfcheck": {"throughput": {"ok": tput_ok}, "delay": {"ok": True}}}  # fmt: skip


def test_merge_joins_run_files_and_keeps_every_sessions_check(tmp_path):
    a = _shard_record("1-of-2", ["r/p1/run1.json", "r/p2/run1.json"],
                      [_session("aaaa", "2026-11-27T03:00:00Z", 2, True)])  # fmt: skip
    b = _shard_record("2-of-2", ["r/p1/run2.json"],
                      [_session("bbbb", "2026-11-27T03:00:05Z", 1, False)])  # fmt: skip
    paths = []
    for rec in (a, b):
        paths.append(tmp_path / f"{rec['shard']}.json")
        paths[-1].write_text(json.dumps(rec))
    out = merge_shards(paths, tmp_path / "batch.json")
    assert json.loads((tmp_path / "batch.json").read_text()) == out
    assert out["run_files"] == ["r/p1/run1.json", "r/p1/run2.json", "r/p2/run1.json"]
    assert [s["batch_id"] for s in out["sessions"]] == ["aaaa", "bbbb"]
    assert out["shards"] == 2 and "shard" not in out
    # the latest session that made runs speaks for the batch; shard 2's failed check fails it
    assert out["batch_id"] == "bbbb"
    assert selfcheck.batch_row(out)["selfcheck"] == "failed: throughput"


def test_records_the_shards_write_merge(tmp_path):
    # each shard's record as run_batch writes it (compose_batch from its runs and session
    # records, then shard_record): until 28 November the record had no "shard", and every
    # merge of shards that ran failed ("found [None, None]")
    paths = []
    for i, bid in ((1, "aaaa"), (2, "bbbb")):
        run = tmp_path / "r" / f"p{i}" / "run1.json"
        run.parent.mkdir(parents=True)
        run.write_text(json.dumps({"provenance": {"batch_id": bid}}))
        session = _session(bid, f"2026-11-28T12:0{i}:00Z", 1, True)
        session |= {"scenario": "s", "profile": "linux-6.1", "backend": "mininet"}
        (tmp_path / "r" / "sessions").mkdir(exist_ok=True)
        (tmp_path / "r" / "sessions" / f"{bid}.json").write_text(json.dumps(session))
        record = shard_record(compose_batch([str(run)], None), Shard(i, 2))
        paths.append(tmp_path / f"{i}-of-2.json")
        paths[-1].write_text(json.dumps(record))
    out = merge_shards(paths, tmp_path / "batch.json")
    assert out["shards"] == 2 and [s["batch_id"] for s in out["sessions"]] == ["aaaa", "bbbb"]
    # a whole batch's record is left as it is
    assert shard_record({"run_files": []}, None) == {"run_files": []}


def test_merge_refuses_a_missing_or_foreign_shard(tmp_path):
    one = tmp_path / "1-of-3.json"
    one.write_text(json.dumps(_shard_record("1-of-3", [], [_session("a", "t", 0, True)])))
    with pytest.raises(BatchError, match=r"1 shards, found \['1-of-3'\]"):
        merge_shards([one], tmp_path / "batch.json")
    with pytest.raises(BatchError, match=r"nothere\.json"):
        merge_shards([one, tmp_path / "nothere.json"], tmp_path / "batch.json")
    assert not (tmp_path / "batch.json").exists()


def _hold(path, started, seconds):
    with realtime_lock(True, path):
        started.set()
        time.sleep(seconds)


def test_real_time_batches_wait_for_each_other_dilated_ones_do_not(tmp_path):
    lock = tmp_path / "rt.lock"
    started = multiprocessing.Event()
    holder = multiprocessing.Process(target=_hold, args=(lock, started, 1.0))
    holder.start()
    assert started.wait(10)
    t0 = time.monotonic()
    with realtime_lock(False, lock):  # dilated: no wait
        assert time.monotonic() - t0 < 0.5
    with realtime_lock(True, lock):  # real time: after the holder ends
        waited = time.monotonic() - t0
    holder.join()
    assert waited > 0.5


def test_not_root_or_in_a_slurm_job_a_batch_runs_in_a_vm(tmp_path, monkeypatch):
    reg = sc.load("regular-drop", "quick")
    plan = make_plan(reg, "linux-2.2", 71.89, "auto", tmp_path)
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.setattr(plan_mod.os, "geteuid", lambda: 1000)
    where, why = decide_place(plan, "auto")
    assert where == "vm" and "not root" in why
    monkeypatch.setattr(plan_mod.os, "geteuid", lambda: 0)
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    where, why = decide_place(plan, "auto")
    assert where == "vm" and "job 42" in why


def test_the_lock_path_is_machine_wide():
    assert str(batch_mod.REALTIME_LOCK).startswith("/run/lock/")
