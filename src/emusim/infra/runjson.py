"""Run one backend command and write its run JSON (docs/results-schema.md), atomically.

    python -m emusim.infra.runjson --meta '{"scenario": ...}' --out RUN.json -- COMMAND ARGS...

The command prints (or writes with --output) {"status", "metrics", <backend>: {...}}; this adds
the scenario, point, repetition and provenance from META and writes the result whole or not at
all. It imports nothing heavy: it starts once per run (jsonschema only once a run is assembled).

Every backend's run passes through `assemble` (ns-3 and ns3-model through `main`, Mininet's batch
writer in emusim.backends.mininet, the testbed's emusim.backends.testbed.execute), which checks
it against schemas/run.schema.json: a run the schema refuses is never written.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from functools import cache
from importlib import resources
from pathlib import Path

SCHEMA_VERSION = 1
SCHEMA_RESOURCE = ("schemas", "run.schema.json")
"""The run JSON's schema, package data of emusim (docs/results-schema.md)."""


class RunSchemaError(ValueError):
    """A run JSON the schema refuses; the message names the file, the key and the value."""


@cache
def run_schema() -> dict:
    """The run JSON's schema, read once per process from the installed package."""
    return json.loads(resources.files("emusim").joinpath(*SCHEMA_RESOURCE).read_text())


def validate_run(doc: object, where: str) -> None:
    """Raise RunSchemaError if `doc` is not a valid run JSON; `where` names its file."""
    # imported here: the wrapper starts once per run, and most of its imports must stay light
    from emusim.core import schema_errors

    message = schema_errors.first_error(doc, run_schema())
    if message is not None:
        raise RunSchemaError(
            f"{where}: not a valid run JSON (schema_version {SCHEMA_VERSION}): {message}"
        )


def run_path(
    results_dir: str | Path, backend: str, scenario: str, profile: str, point: str, rep: int
) -> Path:
    """Where a run's JSON lives: RESULTS/BACKEND/SCENARIO/PROFILE/POINT/runK.json, for every
    backend (docs/results-schema.md)."""
    return Path(results_dir) / backend / scenario / profile / point / f"run{rep}.json"


def run_name(run: dict) -> str:
    """The run's file relative to the results directory, for messages before it has a path."""
    keys = ("backend", "scenario", "profile", "point", "repetition")
    return str(run_path("", *(str(run.get(k)) for k in keys)))


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


def assemble(meta: dict, output: dict, backend_key: str, where: str | None = None) -> dict:
    """The run JSON: meta's identification, the command's status and metrics, provenance.

    Validated here, the one step every backend's run passes through before it is written:
    raises RunSchemaError naming `where` (default: the run's path under the results
    directory), the key and the value."""
    provenance = dict(meta.get("provenance", {}))
    if backend_key in output:
        provenance[backend_key] = output[backend_key]
    # time series, where the program records them (the multi-flow study): kept whole
    series = {"series": output["series"]} if "series" in output else {}
    run = {
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
    validate_run(run, where or run_name(run))
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--meta", required=True, help="JSON object: the run's identity")
    parser.add_argument("--out", required=True, type=Path, help="run JSON to write")
    parser.add_argument("--backend-key", default="ns3", help="key of the command's own facts")
    parser.add_argument("command", nargs="+", help="the backend command")
    args = parser.parse_args(argv)

    meta = json.loads(args.meta)
    started = time.monotonic()
    # the command's standard error goes straight to ours (the rule's log), as it is written: a
    # long run's progress lines (sim/ns3/helper/progress.h) and, on failure, its error
    proc = subprocess.run(args.command, stdout=subprocess.PIPE, text=True, check=False)
    if proc.returncode != 0:
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
    try:
        run = assemble(meta, output, args.backend_key, where=str(args.out))
    except RunSchemaError as err:
        print(f"runjson: {err}", file=sys.stderr)
        return 1
    write_atomically(args.out, json.dumps(run, indent=1, sort_keys=True) + "\n")
    print(
        f"{args.out}: {run['status']} in {time.monotonic() - started:.2f} s wall", file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
