"""Tracing the emulated TCP sender in a Mininet batch (docs/mininet.md, "Tracing the emulated
TCP"): which runs are traced, the tracing around a run where it runs (host or guest), and the
trace's way to the host's results.

- On the host, `select` marks the plan's traced runs (an entry's ``trace``: the CSV's path,
  beside the run's JSON) and, for a traced batch (`TraceRequest.only`), leaves the others
  out; a traced run whose CSV is missing is run again even if its JSON is there.
- Where the batch runs, `traced` wraps one run: a tracefs session (`emusim.linux.tcp_tracefs`)
  from before the blast starts to after it ends, then the conversion to ns-3's CSV
  (`emusim.linux.tracefs_convert`), gzipped; its facts go into the run's
  ``provenance.mininet.trace``. `emit` sends the CSV before the run's RUN record, as
  ``EMUSIM-TRACE`` records of base64 chunks (the guest's root is read-only; its console is
  the way out), so a run JSON on disk always has its trace beside it.
- On the host, `Receiver` puts the chunks together and writes the file atomically.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import io
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from emusim import workloads
from emusim.backends.mininet.host import PORT
from emusim.backends.mininet.topology import LOSSY_EGRESS
from emusim.linux import tcp_tracefs
from emusim.linux import tracefs_convert as convert

TRACE_SUFFIX = ".csv.gz"
RAW_SUFFIX = ".tracefs.txt.gz"
"""The tracefs text a traced run's CSV was made from, kept when asked (`TraceRequest.raw`)."""
CHUNK_CHARS = 48 * 1024
"""Base64 characters per EMUSIM-TRACE record (one console line)."""


def trace_path(run_path: str | Path, suffix: str = TRACE_SUFFIX) -> Path:
    """The trace of a run: its JSON's path with ``.csv.gz`` for ``.json``."""
    path = Path(run_path)
    return path.with_name(path.name[: -len(".json")] + suffix)


@dataclass(frozen=True)
class TraceRequest:
    """Which runs of a batch are traced: points (None: every point) and repetitions (None:
    every one); ``only`` leaves the other runs out of the batch (a traced batch); ``raw``
    keeps the tracefs text too (``RUN.tracefs.txt.gz``)."""

    points: frozenset[str] | None = None
    repetitions: frozenset[int] | None = None
    only: bool = False
    raw: bool = False

    def wants(self, entry: dict) -> bool:
        return (self.points is None or entry["point"] in self.points) and (
            self.repetitions is None or entry["repetition"] in self.repetitions
        )


def select(plan: dict, request: TraceRequest | None) -> dict:
    """The plan with its traced runs marked (``trace``: the CSV to write)."""
    if request is None:
        return plan
    runs, skipped = [], []
    for entry in plan["runs"] + plan["skipped"]:
        wanted = request.wants(entry)
        if request.only and not wanted:
            continue
        entry = dict(entry)
        if wanted:
            kind = entry["workload"]["kind"]
            if not workloads.get(kind).traced:
                traced = [k for k, w in workloads.registry().items() if w.traced]
                raise ValueError(
                    f"point {entry['point']}: only a {' or '.join(traced)} workload can be "
                    f"traced, not a {kind}"
                )
            entry["trace"] = str(trace_path(entry["path"]))
            if request.raw:
                entry["trace_raw"] = str(trace_path(entry["path"], RAW_SUFFIX))
        done = Path(entry["path"]).exists() and (not wanted or Path(entry["trace"]).exists())
        (skipped if done else runs).append(entry)
    if request.points is not None:
        missing = request.points - {e["point"] for e in runs + skipped}
        if missing:
            raise ValueError(f"traced point(s) not in the batch: {', '.join(sorted(missing))}")
    return {**plan, "runs": runs, "skipped": skipped}


# --- where the batch runs -----------------------------------------------------------------


class RunTrace:
    """One run's tracing, as `traced` yields it; `attach` puts the result into the run."""

    def __init__(self, session: tcp_tracefs.Session | None = None, impaired=(), raw=False):
        self.session = session
        self.impaired = tuple(impaired)
        self.raw = raw
        self.csv_gz: bytes | None = None
        self.raw_gz: bytes | None = None
        self.facts: dict = {}

    def read(self) -> None:
        """Convert the stopped session's trace as it streams from tracefs (and keep its text,
        gzipped, if asked)."""
        assert self.session is not None
        t0 = time.monotonic()
        facts = self.session.facts
        raw = io.BytesIO()
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:

            def lines():
                for line in self.session.lines():
                    if self.raw:
                        gz.write(line.encode())
                    yield line

            # the CSV is compressed as it is made: a paper-scale run's rows do not fit in the
            # guest's memory as objects (its 1 GiB, the ring buffer's 256 MiB within it)
            csv_gz = io.BytesIO()
            with gzip.GzipFile(fileobj=csv_gz, mode="wb", mtime=0) as out_gz:
                out = io.TextIOWrapper(out_gz, encoding="ascii", newline="")
                out.write(convert.HEADER + "\n")
                conversion = convert.convert(
                    convert.parse(lines()),
                    PORT,
                    facts["hz"],
                    facts["drop_reasons"],
                    self.impaired,
                    sink=out.write,
                )
                out.flush()
                out.detach()
        self.csv_gz = csv_gz.getvalue()
        self.raw_gz = raw.getvalue() if self.raw else None
        self.facts = {
            **facts,
            **conversion.facts,
            "impaired_devs": list(self.impaired),
            "csv_gz_bytes": len(self.csv_gz),
            "convert_guest_s": round(time.monotonic() - t0, 6),
        }

    def attach(self, out: dict) -> dict:
        if self.session is None:
            return out
        if self.csv_gz is None:
            raise RuntimeError("the run's trace was not read")
        out.setdefault("mininet", {})["trace"] = self.facts
        out["trace_csv_gz"] = base64.b64encode(self.csv_gz).decode()
        if self.raw_gz is not None:
            out["trace_raw_gz"] = base64.b64encode(self.raw_gz).decode()
        return out


@contextlib.contextmanager
def traced(entry: dict, network, batch_id: str) -> Iterator[RunTrace]:
    """Trace the connection of the run inside the ``with`` if the plan says so."""
    if not entry.get("trace"):
        yield RunTrace()
        return
    session = tcp_tracefs.Session(tcp_tracefs.SESSION_PREFIX + batch_id, PORT)
    impaired = [network.devs[key] for _role, key in LOSSY_EGRESS.values()] if entry.get(
        "link"
    ) is not None else []  # fmt: skip
    handle = RunTrace(session, impaired, bool(entry.get("trace_raw")))
    try:
        session.start(int(entry["workload"]["writes"]), os.uname().release)
        yield handle
        session.stop()
        handle.read()
    finally:
        session.close()


def emit(out: dict, emit_record: Callable[[str, dict], None]) -> None:
    """Send a run's trace (if it has one) as TRACE records, before its RUN record."""
    for kind in ("raw", "csv"):
        data = out.pop(f"trace_{kind}_gz", None)
        if data is None:
            continue
        chunks = [data[i : i + CHUNK_CHARS] for i in range(0, len(data), CHUNK_CHARS)] or [""]
        for i, chunk in enumerate(chunks):
            emit_record(
                "TRACE",
                {"key": out["key"], "file": kind, "part": i, "parts": len(chunks), "data": chunk},
            )


# --- on the host --------------------------------------------------------------------------


class Receiver:
    """Puts TRACE records together and writes each run's trace when its last part comes."""

    def __init__(self, by_key: dict[tuple, dict]):
        self.by_key = by_key
        self.parts: dict[tuple, list[str]] = {}  # (point, repetition, file) → parts so far
        self.written: list[str] = []

    def receive(self, obj: dict) -> Path | None:
        kind = obj.get("file", "csv")
        key = (*obj["key"], kind)
        parts = self.parts.setdefault(key, [])
        if obj["part"] != len(parts):
            raise ValueError(f"trace of {key}: part {obj['part']} after {len(parts)} parts")
        parts.append(obj["data"])
        if len(parts) < obj["parts"]:
            return None
        del self.parts[key]
        entry = self.by_key[key[:-1]]
        path = Path(entry["trace_raw" if kind == "raw" else "trace"])
        data = base64.b64decode("".join(parts))
        gzip.decompress(data)  # whole, or an error before anything is written
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        self.written.append(str(path))
        return path
