"""The archive's audit: re-make kept ns-3 runs and compare them with the kept ones byte for byte.

    python -m emusim.infra.archive audit --sample N [--seed S] [--scale SCALE] [--record]
    python -m emusim.infra.archive renew [--scale SCALE] [--scenario NAME] [--where AXIS=V]
        [--limit N]

A kept run is restored because the code that would make it now is the code that made it
(emusim.infra.code_identity). The audit checks that claim where it can be checked: it chooses N kept
ns-3 runs at random among those the checkout's code made (`fresh`), runs each one's recorded
command again through emusim.infra.runjson, as rule ns3_run does, and compares the two run JSONs
less what says when and where a run was made (`MADE_WHERE`). An emulated run cannot be
audited so: the guest kernel's random numbers cannot be seeded, so two emulated runs of one
point differ by design (docs/mininet.md); the audit says so and leaves them out.

`--record` writes the result to ARCHIVE/audit.json, which the paper states
(emusim.report.macros).

`renew` does the same for stale kept ns-3 runs, with this checkout's code: a change to the code
makes every run it could affect stale, though most changes (a refactoring, a new option) leave
the runs' bytes as they were. A stale run re-made the same, less where, when and by which code
it was made, is kept in its own place under this code's identity (it is now provably what this
code makes: it just made it); one that differs stays stale, its differences listed, and the
workflow makes it again. A kept run whose point the workflow now runs with another command
(emusim.pipeline.kept) is not re-made: it could never be restored.
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
from emusim.core.where import parse_where, values_match
from emusim.infra import archive, code_identity
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


def comparable(run: dict, also: tuple[str, ...] = ()) -> str:
    """A run JSON as the audit compares it: without `MADE_WHERE` (and the provenance keys
    `also`), keys sorted."""
    run = json.loads(json.dumps(run))
    for key in (*MADE_WHERE, *also):
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


def remake(kept: dict, out: Path, root: Path = REPO_ROOT, identity: str | None = None) -> dict:
    """Run a kept ns-3 run's command again into `out`, with the identity the workflow gave it
    (everything but what the program printed and `MADE_WHERE`), `identity` for its code's if
    given; return the run made."""
    prov = kept["provenance"]
    meta = {k: kept[k] for k in ("scenario", "backend", "profile", "point", "params")}
    meta |= {"repetition": kept["repetition"], "seed": kept["seed"]}
    meta["provenance"] = {
        k: v for k, v in prov.items() if k not in (*MADE_WHERE, "ns3", "processing_model")
    }
    if identity is not None:
        meta["provenance"]["code_identity"] = identity
    program = root / prov["command"][0]
    if not program.exists():
        raise AuditError(f"{program}: not built (python -m emusim.backends.ns3.build)")
    wrapper = ["emusim.infra.runjson", "--meta", json.dumps(meta)]
    _python([*wrapper, "--out", str(out), "--", *prov["command"]], root, " ".join(prov["command"]))
    return json.loads(out.read_text())


def _python(args: list[str], root: Path, what: str | None = None) -> str:
    """`python -m ARGS` in `root`: its output, or an AuditError naming `what` (default the
    command) with the end of what it wrote to stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", *args], cwd=root, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        what = what or f"python -m {args[0]}"
        raise AuditError(f"{what} failed: {proc.stderr.strip()[-2000:]}")
    return proc.stdout


def _children_cpu_s() -> float:
    """CPU seconds of this process's finished children (the re-made runs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _remade_each(rows: list[dict], verb: str, root: Path = REPO_ROOT, identity=None):
    """Each row's kept run made again here (`remake`), one at a time, with the progress on
    stderr: (row, the kept run, the run made, what making it cost)."""
    with tempfile.TemporaryDirectory(prefix=f"emusim-{verb}-") as tmp:
        for i, row in enumerate(rows):
            kept = json.loads(Path(row["file"]).read_text())
            started, t0 = _children_cpu_s(), time.monotonic()
            print(f"{verb}: re-making {row['file']} ({i + 1}/{len(rows)})", file=sys.stderr)
            made = remake(kept, Path(tmp) / f"run{i}.json", root, identity)
            cost = {
                "wall_s": round(time.monotonic() - t0, 2),
                "cpu_s": round(_children_cpu_s() - started, 2),
            }
            yield row, kept, made, cost


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
    for row, kept, made, cost in _remade_each(chosen, "audit"):
        same = comparable(kept) == comparable(made)
        results.append(
            {
                "file": row["file"],
                "identical": same,
                "differences": [] if same else differences(kept, made),
                **cost,
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


def _build_ns3(root: Path) -> None:
    """Bring ns-3's programs up to this checkout's sources before re-making with them: a renewed
    run is stamped with the code's identity, which is the sources', so a program built from
    older sources would be kept under a name not its own. A subprocess (as the runs are): the
    build belongs to the backend, a layer above the archive."""
    _python(["emusim.backends.ns3.build"], root)


def other_command(rows: list[dict], archive_dir: Path, root: Path = REPO_ROOT) -> dict:
    """Of the kept runs `rows`, those whose point the workflow now runs with another command
    than the recorded one (a variant moved to another implementation, a profile with a new
    attribute): file -> what differs. Re-made by their old command they would never be
    restored (`matches`); the workflow makes their points anew. The workflow's commands are a
    layer above the archive: emusim.pipeline.kept says, in a subprocess (as `_build_ns3`)."""
    if not rows:
        return {}
    files = [str(Path(r["file"]).resolve()) for r in rows]
    out = _python(["emusim.pipeline.kept", "--archive", str(archive_dir.resolve()), *files], root)
    verdicts = {v["file"]: v for v in json.loads(out)}
    return {
        r["file"]: verdicts[str(Path(r["file"]).resolve())]["why"]
        for r in rows
        if verdicts[str(Path(r["file"]).resolve())]["verdict"] == "other"
    }


def renew(
    archive_dir: Path,
    scale: str | None = None,
    scenario: str | None = None,
    limit: int | None = None,
    root: Path = REPO_ROOT,
    where: dict | None = None,
    replace_changed: bool = False,
) -> dict:
    """Re-make the stale kept ns-3 runs (of `scale`, `scenario`, with the axis values `where`
    names (`emusim.inputs.scenario.values_match`); the first `limit`) with this checkout's
    code; keep each one made the same in the kept one's place, under this code's identity, and
    with `replace_changed` each one made differently too (a change meant to move what the runs
    measure: the new run is this code's, the old one's goodput and differences in the result);
    the result, one row per run. A run whose point the workflow now runs with another command
    is not re-made (`other_command`: file -> what differs)."""
    rows = archive.status(archive_dir)
    stale = [
        r
        for r in rows
        if r["backend"] in AUDITED_BACKENDS
        and not r["fresh"]
        and (scale is None or Path(r["file"]).relative_to(archive_dir).parts[0] == scale)
        and (scenario is None or r["scenario"] == scenario)
        and (where is None or values_match(r["params"], where))
    ][:limit]
    other = other_command(stale, Path(archive_dir), root)
    stale = [r for r in stale if r["file"] not in other]
    if stale:
        _build_ns3(root)
    now = code_identity.current("ns3")
    results = []
    for row, kept, made, cost in _remade_each(stale, "renew", root, now["digest"]):
        path = Path(row["file"])
        # compared less where, when and by which code each was made
        then, again = (json.loads(comparable(r, ("code_identity",))) for r in (kept, made))
        same = then == again
        replaced = not same and replace_changed
        if (same or replaced) and made["provenance"].get("git_revision", "unknown") == "unknown":
            raise AuditError(f"{path}: renew in a git checkout (a kept run names its revision)")
        if same or replaced:
            made["provenance"]["archive"] = {
                "cost": cost,
                ("renewed_from" if same else "replaces"): kept["provenance"].get("code_identity"),
            }
            code_identity.write_manifest(archive_dir, now)
            write_atomically(path, json.dumps(made, indent=1, sort_keys=True) + "\n")
        results.append(
            {
                "file": str(path),
                "renewed": same,
                "replaced": replaced,
                "differences": differences(then, again),
                "goodput_Bps": [r["metrics"].get("goodput_Bps") for r in (kept, made)],
                **cost,
            }
        )
    return {
        "code_identity": now["digest"],
        "stale": len(stale),
        "emulated_left_out": sum(
            1 for r in rows if r["backend"] not in AUDITED_BACKENDS and not r["fresh"]
        ),
        "runs": results,
        "renewed": sum(r["renewed"] for r in results),
        "other_command": other,
    }


def main_renew(args) -> int:
    """`python -m emusim.infra.archive renew`: print each run's verdict; 1 if any is left
    stale (made differently without --replace-changed)."""
    try:
        where = parse_where(args.where)
        result = renew(
            args.archive,
            args.scale,
            args.scenario,
            args.limit,
            where=where,
            replace_changed=args.replace_changed,
        )
    except (AuditError, ValueError) as err:
        print(f"renew: {err}", file=sys.stderr)
        return 1
    for file, why in result["other_command"].items():
        print(
            f"{file}: NOT RE-MADE: the workflow runs another command for this point now ({why}); "
            "`snakemake --config archive=off` on its results path makes it, then `archive add`"
        )
    for row in result["runs"]:
        if row["renewed"]:
            verdict = "the same: kept under this code's identity"
        else:
            old, new = row["goodput_Bps"]
            verdict = (
                ("REPLACED" if row["replaced"] else "DIFFERS (left stale)")
                + f": goodput {old} -> {new} B/s; "
                + ", ".join(row["differences"])
            )
        print(f"{row['file']}: {verdict}")
    replaced = sum(r["replaced"] for r in result["runs"])
    print(
        f"{result['renewed']} of {len(result['runs'])} stale ns-3 runs re-made the same and "
        f"kept under code identity {result['code_identity']}"
        + (f", {replaced} made differently and kept in their place" if replaced else "")
        + f" ({result['emulated_left_out']} stale emulated runs not renewed: their RNG is not "
        "seeded, the workflow makes them again)"
    )
    done = result["renewed"] + replaced == len(result["runs"])
    return 0 if done and not result["other_command"] else 1
