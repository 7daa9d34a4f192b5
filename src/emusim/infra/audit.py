"""The archive's audit: re-make kept ns-3 runs and compare them with the kept ones byte for byte.

    python -m emusim.infra.archive audit --sample N [--seed S] [--scale SCALE] [--record]

A kept run is restored because the code that would make it now is the code that made it
(emusim.infra.code_identity). The audit checks that claim where it can be checked: it chooses N kept
ns-3 runs at random among those the checkout's code made (`fresh`), runs each one's recorded
command again through emusim.infra.runjson, as rule ns3_run does, and compares the two run JSONs
less what says when and where a run was made (`MADE_WHERE`). An emulated run cannot be
audited so: the guest kernel's random numbers cannot be seeded, so two emulated runs of one
point differ by design (docs/mininet.md); the audit says so and leaves them out.

`--record` writes the result to ARCHIVE/audit.json, which the paper states
(emusim.report.macros).
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from emusim.core.paths import REPO_ROOT
from emusim.infra import archive
from emusim.infra.runjson import git_revision, write_atomically

AUDITED_BACKENDS = ("ns3",)
"""Backends whose runs are deterministic (same command, same bytes): ns-3's (seed and run
number on the command line). The emulation's are not (the kernel's RNG is not seeded)."""

MADE_WHERE = ("git_revision", "archive", "code_identity_from")
"""Provenance keys that say when and where a run was made, not what it measured: left out of
the comparison."""

AUDIT_FILE = "audit.json"


class AuditError(RuntimeError):
    """A kept run that cannot be re-made (its program is not built, its command fails)."""


def comparable(run: dict) -> str:
    """A run JSON as the audit compares it: without `MADE_WHERE`, keys sorted."""
    run = json.loads(json.dumps(run))
    for key in MADE_WHERE:
        run["provenance"].pop(key, None)
    return json.dumps(run, indent=1, sort_keys=True)


def differences(kept: dict, made: dict, prefix: str = "") -> list[str]:
    """The keys (dotted) whose values differ between two JSON objects."""
    out = []
    for key in sorted(set(kept) | set(made)):
        a, b = kept.get(key), made.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += differences(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key}")
    return out


def remake(kept: dict, out: Path, root: Path = REPO_ROOT) -> dict:
    """Run a kept ns-3 run's command again into `out`, with the identity the workflow gave it
    (everything but what the program printed and `MADE_WHERE`); return the run made."""
    prov = kept["provenance"]
    meta = {k: kept[k] for k in ("scenario", "backend", "profile", "point", "params")}
    meta |= {"repetition": kept["repetition"], "seed": kept["seed"]}
    meta["provenance"] = {
        k: v for k, v in prov.items() if k not in (*MADE_WHERE, "ns3", "processing_model")
    }
    program = root / prov["command"][0]
    if not program.exists():
        raise AuditError(f"{program}: not built (python -m emusim.backends.ns3.build)")
    wrapper = [sys.executable, "-m", "emusim.infra.runjson", "--meta", json.dumps(meta)]
    proc = subprocess.run(
        [*wrapper, "--out", str(out), "--", *prov["command"]],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise AuditError(f"{' '.join(prov['command'])} failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(out.read_text())


def _children_cpu_s() -> float:
    """CPU seconds of this process's finished children (the re-made runs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def audit(
    archive_dir: Path, sample: int, seed: int | None = None, scale: str | None = None
) -> dict:
    """Re-make `sample` kept runs chosen at random (`seed`) among the fresh ns-3 ones and
    compare each with the kept one; the result, one row per run."""
    rows = archive.status(archive_dir)
    candidates = [
        r
        for r in rows
        if r["backend"] in AUDITED_BACKENDS
        and r["fresh"]
        and (scale is None or Path(r["file"]).relative_to(archive_dir).parts[0] == scale)
    ]
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    chosen = random.Random(seed).sample(candidates, min(sample, len(candidates)))
    results = []
    with tempfile.TemporaryDirectory(prefix="emusim-audit-") as tmp:
        for i, row in enumerate(chosen):
            kept = json.loads(Path(row["file"]).read_text())
            started = _children_cpu_s()
            t0 = time.monotonic()
            print(f"audit: re-making {row['file']} ({i + 1}/{len(chosen)})", file=sys.stderr)
            made = remake(kept, Path(tmp) / f"run{i}.json")
            same = comparable(kept) == comparable(made)
            results.append(
                {
                    "file": row["file"],
                    "identical": same,
                    "differences": [] if same else differences(kept, made),
                    "wall_s": round(time.monotonic() - t0, 2),
                    "cpu_s": round(_children_cpu_s() - started, 2),
                }
            )
    return {
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git_revision": git_revision(),
        "seed": seed,
        "sample": sample,
        "candidates": len(candidates),
        "emulated_left_out": sum(1 for r in rows if r["backend"] not in AUDITED_BACKENDS),
        "runs": results,
        "identical": sum(r["identical"] for r in results),
    }


def main_audit(args) -> int:
    """`python -m emusim.infra.archive audit`: print each run's verdict; 1 if any differs."""
    try:
        result = audit(args.archive, args.sample, args.seed, args.scale)
    except AuditError as err:
        print(f"audit: {err}", file=sys.stderr)
        return 1
    for row in result["runs"]:
        verdict = "identical" if row["identical"] else "DIFFERS: " + ", ".join(row["differences"])
        print(f"{row['file']}: {verdict}")
    print(
        f"{result['identical']} of {len(result['runs'])} re-made runs identical "
        f"(seed {result['seed']}; {result['candidates']} fresh ns-3 runs to choose from; "
        f"{result['emulated_left_out']} emulated runs not audited: their RNG is not seeded)"
    )
    if args.record:
        path = Path(args.archive) / AUDIT_FILE
        write_atomically(path, json.dumps(result, indent=1, sort_keys=True) + "\n")
        print(f"written to {path}")
    return 0 if result["identical"] == len(result["runs"]) else 1
