"""Which runs of a Mininet batch are traced, and the trace's way from the guest to the file
beside the run's JSON (emusim.backends.mininet.tracing), without root."""

import base64
import gzip
import json
from pathlib import Path

import pytest

from emusim.backends.mininet import tracing


def _entry(tmp_path, point, rep, kind="tcp-blast"):
    return {
        "point": point,
        "repetition": rep,
        "workload": {"kind": kind, "writes": 10},
        "path": str(tmp_path / point / f"run{rep}.json"),
    }


@pytest.fixture
def plan(tmp_path):
    runs = [_entry(tmp_path, p, r) for p in ("a", "b") for r in (1, 2)]
    return {"runs": runs, "skipped": [], "batch_id": "0001"}


def test_nothing_is_traced_unless_asked(plan):
    assert tracing.select(plan, None) is plan
    assert all("trace" not in e for e in plan["runs"])


def test_a_traced_batch_runs_only_its_traced_runs(plan, tmp_path):
    out = tracing.select(plan, tracing.TraceRequest(frozenset({"b"}), frozenset({1}), only=True))
    assert [(e["point"], e["repetition"]) for e in out["runs"]] == [("b", 1)]
    assert out["runs"][0]["trace"] == str(tmp_path / "b" / "run1.csv.gz")
    assert "trace_raw" not in out["runs"][0]
    # beside the others, every other repetition traced (the benchmark's design)
    mixed = tracing.select(plan, tracing.TraceRequest(repetitions=frozenset({2}), raw=True))
    assert [bool(e.get("trace")) for e in mixed["runs"]] == [False, True, False, True]
    assert mixed["runs"][1]["trace_raw"].endswith("run2.tracefs.txt.gz")


def test_a_run_without_its_trace_is_run_again(plan, tmp_path):
    run = tmp_path / "a" / "run1.json"
    run.parent.mkdir()
    run.write_text("{}")
    plan = {**plan, "runs": plan["runs"][1:], "skipped": plan["runs"][:1]}
    untraced = tracing.select(plan, tracing.TraceRequest(frozenset({"b"})))
    assert [e["point"] for e in untraced["skipped"]] == ["a"]  # not traced: it stays done
    traced = tracing.select(plan, tracing.TraceRequest(frozenset({"a"}), only=True))
    assert sorted(e["repetition"] for e in traced["runs"]) == [1, 2] and not traced["skipped"]
    (tmp_path / "a" / "run1.csv.gz").write_bytes(b"")
    traced = tracing.select(plan, tracing.TraceRequest(frozenset({"a"}), only=True))
    assert [e["repetition"] for e in traced["skipped"]] == [1]


def test_only_tcp_blasts_and_known_points(plan, tmp_path):
    with pytest.raises(ValueError, match="not in the batch: zz"):
        tracing.select(plan, tracing.TraceRequest(frozenset({"zz"})))
    pings = {**plan, "runs": [_entry(tmp_path, "p", 1, kind="ping")]}
    with pytest.raises(ValueError, match="only a tcp-blast workload can be traced"):
        tracing.select(pings, tracing.TraceRequest())


def test_a_trace_goes_in_chunks_before_the_run_and_is_written_whole(plan, tmp_path):
    entry = tracing.select(plan, tracing.TraceRequest(raw=True))["runs"][0]
    csv = ("time_ns,event,segment,value\n" + "0,tx,0,0\n" * 20000).encode()
    out = {
        "key": [entry["point"], entry["repetition"]],
        "trace_csv_gz": base64.b64encode(gzip.compress(csv)).decode(),
        "trace_raw_gz": base64.b64encode(gzip.compress(b"raw text")).decode(),
        "metrics": {},
    }
    records = []
    tracing.emit(out, lambda kind, obj: records.append((kind, obj)))
    assert "trace_csv_gz" not in out and "trace_raw_gz" not in out  # not in the RUN record
    assert {k for k, _ in records} == {"TRACE"}
    receiver = tracing.Receiver({(entry["point"], entry["repetition"]): entry})
    written = [receiver.receive(obj) for _, obj in records]
    assert [str(p) for p in written if p] == [entry["trace_raw"], entry["trace"]]
    assert gzip.decompress((tmp_path / "a" / "run1.csv.gz").read_bytes()) == csv
    assert not list(tmp_path.glob("a/*.tmp"))
    # a part out of order is an error, not a file
    obj = dict(records[-1][1], part=5)
    with pytest.raises(ValueError, match="part 5 after 0 parts"):
        receiver.receive(obj)


def test_an_untraced_run_emits_nothing():
    records = []
    tracing.emit({"key": ["a", 1], "metrics": {}}, lambda *r: records.append(r))
    run = tracing.RunTrace()
    assert run.attach({"metrics": {}}) == {"metrics": {}} and records == []


def test_a_stopped_session_is_converted_as_it_streams():
    """RunTrace.read on the real capture (tests/data/tcp_trace), through a stand-in session."""
    data = Path(__file__).parents[3] / "data" / "tcp_trace"
    meta = json.loads((data / "lossy-reno-5pct.json").read_text())
    with gzip.open(data / "lossy-reno-5pct.tracefs.txt.gz", "rt") as f:
        text = f.read()

    class Session:
        def __init__(self):
            self.facts = {"hz": meta["hz"], "drop_reasons": meta["drop_reasons"], "overrun": 0}

        def lines(self):
            yield from text.splitlines(keepends=True)

    run = tracing.RunTrace(Session(), meta["impaired_devs"], raw=True)
    run.read()
    out = run.attach({"key": ["p", 1], "metrics": {}})
    facts = out["mininet"]["trace"]
    assert facts["tx"] == meta["metrics"]["packets_sent"] and facts["overrun"] == 0
    csv = gzip.decompress(base64.b64decode(out["trace_csv_gz"])).decode()
    assert csv.startswith("time_ns,event,segment,value\n") and facts["csv_gz_bytes"] > 0
    assert gzip.decompress(base64.b64decode(out["trace_raw_gz"])).decode() == text
