"""Run one backend command and write its run JSON (docs/results-schema.md), atomically.

    python -m emusim.runjson --meta '{"scenario": ...}' --out RUN.json -- COMMAND ARGS...

The command prints (or writes with --output) {"status", "metrics", <backend>: {...}}; this adds
the scenario, point, repetition and provenance from META and writes the result whole or not at
all. It imports nothing heavy: it starts once per run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

SCHEMA_VERSION = 1


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` via a temporary file and rename: never a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def git_revision() -> str:
    """The checkout's commit, for provenance; "unknown" outside a git checkout."""
    proc = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() or "unknown"


def assemble(meta: dict, output: dict, backend_key: str) -> dict:
    """The run JSON: meta's identification, the command's status and metrics, provenance."""
    provenance = dict(meta.get("provenance", {}))
    if backend_key in output:
        provenance[backend_key] = output[backend_key]
    # time series, where the program records them (the multi-flow study): kept whole
    series = {"series": output["series"]} if "series" in output else {}
    return {
        "schema_version": SCHEMA_VERSION,
        "scenario": meta["scenario"],
        "backend": meta["backend"],
        "profile": meta["profile"],
        "point": meta["point"],
        "params": meta["params"],
        "repetition": meta["repetition"],
        "seed": meta["seed"],
        "status": output["status"],
        "metrics": output["metrics"],
        "provenance": provenance,
        **series,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--meta", required=True, help="JSON object: the run's identity")
    parser.add_argument("--out", required=True, type=Path, help="run JSON to write")
    parser.add_argument("--backend-key", default="ns3", help="key of the command's own facts")
    parser.add_argument("command", nargs="+", help="the backend command")
    args = parser.parse_args(argv)

    meta = json.loads(args.meta)
    started = time.monotonic()
    proc = subprocess.run(args.command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        print(
            f"runjson: {args.command[0]} exited with {proc.returncode} for {args.out}",
            file=sys.stderr,
        )
        return proc.returncode or 1
    try:
        output = json.loads(proc.stdout)
    except json.JSONDecodeError:
        print(f"runjson: {args.command[0]} printed no JSON:\n{proc.stdout}", file=sys.stderr)
        return 1
    meta.setdefault("provenance", {}).setdefault("git_revision", git_revision())
    run = assemble(meta, output, args.backend_key)
    write_atomically(args.out, json.dumps(run, indent=1, sort_keys=True) + "\n")
    print(
        f"{args.out}: {run['status']} in {time.monotonic() - started:.2f} s wall", file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
