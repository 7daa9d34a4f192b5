"""The run archive: long runs kept in the repository, so a study resumes on any machine.

    python -m emusim.infra.archive add RESULTS/ns3/SCENARIO/PROFILE/POINT/runK.json ...
    python -m emusim.infra.archive list
    python -m emusim.infra.archive status
    python -m emusim.infra.archive audit --sample N
    python -m emusim.infra.archive renew [--scenario NAME] [--limit N] [--replace-changed]
    python -m emusim.infra.archive restore ARCHIVED.json OUT.json

A paper-scale multi-flow run costs up to hours of CPU, a 1 GB emulated transfer half an hour
(docs/multiflow.md, docs/variants.md): more than a session of work on a machine that may not
be there tomorrow. A finished run's JSON is copied into `data/archive/SCALE/` under its path
below the results directory (an emulated run with its session's record) and committed. A kept
run is restored instead of made only while it is the run the workflow would make now:

- the same experiment: an ns-3 run's command line is exactly the one the workflow would run
  (`matches`); an emulated run's run key is this run's (the resolved scenario, point, profile
  settings, clock and kernel: emusim.backends.mininet.plan.run_key);
- made by the same code: the run's `provenance.code_identity` names a manifest the archive
  keeps (`identities/`), and the checkout's code is still that code (`code_state`,
  emusim.infra.code_identity: the C++, the guest's executor, the blast tools, the dropper module,
  the build's facts). A run whose code has changed is stale: not restored, and
  `status` says which and why.

`audit` re-makes a sample of kept ns-3 runs and compares them byte for byte, `renew` the stale
ones with this checkout's code, keeping those made the same (and with --replace-changed, after a
change meant to move what they measure, the others too) (emusim.infra.audit).
Each archived run keeps the git revision it was made at, its code identity, its cost and, once
restored, the archive file it came from (`provenance.archive`).
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
from functools import cache
from pathlib import Path

from emusim.core import run_status
from emusim.core.paths import scale_prefix
from emusim.infra import code_identity
from emusim.infra.runjson import RunSchemaError, run_path, validate_run, write_atomically

ARCHIVE_DIR = Path("data/archive")
"""Where archived runs live, relative to the repository (config `archive`)."""

IDENTITY = {"ns3": "command", "mininet": "run_key"}
"""Per backend whose runs are archived, the provenance key that says which experiment a run is:
ns-3's whole command line; the emulation's run key (emusim.backends.mininet.plan.run_key: the
resolved scenario, point, profile settings, clock and kernel). A run is restored only for the
same value."""


class ArchiveError(ValueError):
    """A run that cannot be archived or restored; the message names the file, key and value."""


def archive_path(archive_dir: str | Path, scale: str, results_relative: str | Path) -> Path:
    """Where the run at `results_relative` (its path below the results directory, e.g.
    ns3/SCENARIO/PROFILE/POINT/run1.json) is archived for `scale`."""
    return Path(archive_dir) / scale / results_relative


def _load(path: Path) -> dict:
    try:
        run = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ArchiveError(f"{path}: not a readable run JSON: {err}") from err
    try:
        validate_run(run, str(path))
    except RunSchemaError as err:
        raise ArchiveError(str(err)) from err
    return run


def keepable(status: str) -> bool:
    """Whether a run that ended with `status` is kept: one the statistics use. A run the
    scenario's cap ended (`timeout`) is the design's own result (its numbers are lower bounds,
    and the lossy-link cells at 5 % reach the cap by design), made by the same code and
    command as an `ok` one; an aborted run or one of another algorithm is not the variant's."""
    return status in run_status.ALL and status not in run_status.LEFT_OUT


def matches(archived: str | Path, command: list[str], archive_dir: str | Path) -> tuple[bool, str]:
    """Whether the ns-3 run kept at `archived` (in `archive_dir`) was made by exactly `command`
    and by the code of this checkout (`code_state`), and if not why (for the workflow's log).
    A missing file is no match."""
    path = Path(archived)
    if not path.exists():
        return False, f"{path}: not archived"
    run = _load(path)
    made_by = run["provenance"].get("command")
    if made_by != list(command):
        return False, f"{path}: provenance.command differs from the command the workflow runs now"
    if not keepable(run["status"]):
        return False, f"{path}: status {run['status']!r}, which the statistics leave out"
    fresh, why = code_state(run, Path(archive_dir))
    if not fresh:
        return False, f"{path}: stale: {why}"
    return True, f"{path}: archived at {run['provenance'].get('git_revision')}"


def code_state(run: dict, archive_dir: Path) -> tuple[bool, str]:
    """Whether the code of this checkout is the code that made kept `run`
    (emusim.infra.code_identity: the manifest its `provenance.code_identity` names, compared with
    the code now), and if not why."""
    digest = run["provenance"].get("code_identity")
    if digest is None:
        return False, "no provenance.code_identity: which code made it is not known"
    return _code_state(str(archive_dir), run["backend"], digest)


@cache
def _code_state(archive_dir: str, backend: str, digest: str) -> tuple[bool, str]:
    kept = code_identity.read_manifest(Path(archive_dir), digest)
    if kept is None:
        where = code_identity.manifest_path(Path(archive_dir), digest)
        return False, f"code identity {digest}: no manifest {where}"
    now = code_identity.current(backend)
    why = [] if kept["digest"] == now["digest"] else code_identity.compare(kept, now)
    return (not why), "; ".join(why)


def _benchmark(tsv: Path) -> dict | None:
    """The job's cost from Snakemake's benchmark file (wall s, CPU s, peak memory MB)."""
    if not tsv.exists():
        return None
    with tsv.open() as f:
        row = next(csv.DictReader(f, delimiter="\t"), None)
    if row is None:
        return None
    keys = {"s": "wall_s", "cpu_time": "cpu_s", "max_rss": "max_rss_MB"}
    return {
        name: round(float(row[k]), 2)
        for k, name in keys.items()
        if row.get(k) not in (None, "", "-")
    }


def add(run_file: Path, archive_dir: Path = ARCHIVE_DIR, repo: Path = Path(".")) -> Path:
    """Copy a finished run into the archive (its cost added from the job's benchmark file), with
    the manifest of the code that made it; return where it went. Refuses a run the statistics
    leave out (`keepable`), one made outside a git checkout or by other code than this
    checkout's, and one that would replace a different archived run."""
    run_file = Path(run_file)
    run = _load(run_file)
    prov = run["provenance"]
    where = f"{run_file}: provenance"
    identity = IDENTITY.get(run["backend"])
    if identity is None:
        raise ArchiveError(
            f"{run_file}: backend {run['backend']!r} is not archived (only {', '.join(IDENTITY)})"
        )
    if not keepable(run["status"]):
        raise ArchiveError(
            f"{run_file}: status {run['status']!r}: only runs the statistics use are archived "
            f"({', '.join(s for s in run_status.ALL if keepable(s))})"
        )
    if prov.get("git_revision", "unknown") == "unknown":
        raise ArchiveError(
            f"{where}.git_revision is 'unknown': archive runs made in a git checkout"
        )
    if identity not in prov or "scale" not in prov:
        raise ArchiveError(f"{where} has no {identity!r} or 'scale': the archive cannot match it")
    manifest = _made_by_this_code(run, where, archive_dir)
    relative = run_path(
        "", run["backend"], run["scenario"], run["profile"], run["point"], run["repetition"]
    )
    timing = (
        Path(repo) / scale_prefix(prov["scale"]) / "logs" / "timing" / relative.with_suffix(".tsv")
    )
    cost = _benchmark(timing)
    if cost is not None:
        prov["archive"] = {"cost": cost}
    target = archive_path(archive_dir, prov["scale"], relative)
    if target.exists() and _load(target)["provenance"].get(identity) != prov[identity]:
        raise ArchiveError(
            f"{target}: already holds another experiment (its provenance.{identity} differs);"
            " remove it first (git rm)"
        )
    if "batch_id" in prov:
        # an emulated run's batch record (self-check, kernel, calibration) goes with it
        session = Path("sessions", f"{prov['batch_id']}.json")
        record = run_file.parents[1] / session
        if not record.exists():
            raise ArchiveError(f"{record}: the session record of {run_file} is missing")
        (target.parents[1] / session).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(record, target.parents[1] / session)
    code_identity.write_manifest(archive_dir, manifest)
    write_atomically(target, json.dumps(run, indent=1, sort_keys=True) + "\n")
    return target


def _made_by_this_code(run: dict, where: str, archive_dir: Path) -> dict:
    """The manifest of the code that made `run`, which must be this checkout's: a run is kept
    only with the code it was made by (emusim.infra.code_identity). A traced or CPU-profiled run is
    not kept: the tracer and the profiler are not part of the code identity."""
    prov = run["provenance"]
    made = prov.get("mininet") or {}
    for key in ("trace", "cpu_profile"):
        if key in made:
            raise ArchiveError(f"{where}.mininet.{key}: a traced or profiled run is not kept")
    digest = prov.get("code_identity")
    if digest is None:
        raise ArchiveError(
            f"{where}.code_identity is missing: which code made the run is not known (a run "
            "made by the workflow or a Mininet batch records it)"
        )
    now = code_identity.current(run["backend"])
    if digest != now["digest"]:
        kept = code_identity.read_manifest(archive_dir, digest)
        why = code_identity.compare(kept, now) if kept else ["its manifest is not kept"]
        raise ArchiveError(
            f"{where}.code_identity is {digest!r}, this checkout's code is {now['digest']!r}: "
            f"the run was made by other code ({'; '.join(why)}); make it again"
        )
    return now


def restore(archived: Path, out: Path) -> None:
    """Write the archived run to `out`, with the archive file it came from in its provenance."""
    run = _load(Path(archived))
    run["provenance"].setdefault("archive", {})["path"] = str(archived)
    write_atomically(Path(out), json.dumps(run, indent=1, sort_keys=True) + "\n")


def kept_runs(archive_dir: Path = ARCHIVE_DIR) -> list[Path]:
    """Every kept run's file (SCALE/BACKEND/SCENARIO/PROFILE/POINT/runK.json), sorted."""
    return sorted(Path(archive_dir).glob("*/*/*/*/*/run*.json"))


def listing(archive_dir: Path = ARCHIVE_DIR) -> list[dict]:
    """One row per archived run: its file, revision, the seconds it lasted in its backend's
    clock (ns-3's simulated time, the emulation's guest time) and the host CPU-seconds it
    cost (the job's benchmark, or the emulated run's own count)."""
    rows = []
    for path in kept_runs(archive_dir):
        run = _load(path)
        prov = run["provenance"]
        lasted = (prov.get("ns3") or {}).get("simulated_s", prov.get("wall_s"))
        cpu = (prov.get("archive") or {}).get("cost", {}).get("cpu_s", prov.get("host_cpu_s"))
        rows.append(
            {
                "file": str(path),
                "git_revision": prov.get("git_revision"),
                "lasted_s": lasted,
                "cpu_s": cpu,
            }
        )
    return rows


def status(archive_dir: Path = ARCHIVE_DIR) -> list[dict]:
    """One row per kept run: whether this checkout's code is the code that made it (`fresh`:
    restored when the workflow asks for it; stale: made again) and, if not, why."""
    rows = []
    for path in kept_runs(archive_dir):
        run = _load(path)
        fresh, why = code_state(run, archive_dir)
        rows.append(
            {
                "file": str(path),
                "backend": run["backend"],
                "scenario": run["scenario"],
                "params": run.get("params", {}),
                "git_revision": run["provenance"].get("git_revision"),
                "code_identity": run["provenance"].get("code_identity"),
                "fresh": fresh,
                "why": why,
            }
        )
    return rows


def certify(archive_dir: Path = ARCHIVE_DIR) -> list[tuple[Path, str]]:
    """Give every kept run without a code identity the identity of the code at the revision it
    was made at (its `provenance.git_revision`, read from git's history), with this machine's
    build facts, and keep that manifest; return the runs and their identities. For runs kept
    before identities were recorded: made from a committed tree (`add` refused others)."""
    done = []
    for path in kept_runs(archive_dir):
        run = _load(path)
        prov = run["provenance"]
        if "code_identity" in prov:
            continue
        revision = prov["git_revision"]
        manifest = _manifest_at(run["backend"], revision)
        code_identity.write_manifest(archive_dir, manifest)
        prov["code_identity"] = manifest["digest"]
        prov["code_identity_from"] = (
            f"git history at {revision} (certified after the run): its Python and sources, "
            "the build facts of the certifying machine"
        )
        write_atomically(path, json.dumps(run, indent=1, sort_keys=True) + "\n")
        done.append((path, manifest["digest"]))
    return done


@cache
def _manifest_at(backend: str, revision: str) -> dict:
    code = code_identity.CODE_SETS[backend]
    return code_identity.manifest(
        backend, code_identity.GitTree(revision), code_identity.build_facts(code.build)
    )


def _print_status(rows: list[dict], other: dict[str, str]) -> int:
    """`status`'s report: kept runs the workflow now makes by another command (`other`: file ->
    what differs; never restored, whatever their code), stale runs one per line with why, then
    the counts per scenario."""
    for file, why in other.items():
        print(f"other  {file}: the workflow runs another command for its point now ({why})")
    stale = [r for r in rows if not r["fresh"] and r["file"] not in other]
    for row in stale:
        print(f"stale  {row['file']}  ({row['git_revision']}): {row['why']}")
    by_scenario: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        counts = by_scenario.setdefault((row["backend"], row["scenario"]), [0, 0, 0])
        counts[2 if row["file"] in other else 0 if row["fresh"] else 1] += 1
    print(f"{'backend':8}  {'scenario':24}  {'fresh':>5}  {'stale':>5}  {'other':>5}")
    for (backend, scenario), (fresh, old, moved) in sorted(by_scenario.items()):
        print(f"{backend:8}  {scenario:24}  {fresh:5d}  {old:5d}  {moved:5d}")
    fresh = sum(r["fresh"] and r["file"] not in other for r in rows)
    print(
        f"{fresh} of {len(rows)} kept runs are this checkout's code's and command's; "
        f"{len(other)} of another command"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    p_add = sub.add_parser("add", help="copy finished runs into the archive")
    p_add.add_argument("runs", nargs="+", type=Path)
    p_list = sub.add_parser("list", help="the archived runs")
    p_status = sub.add_parser(
        "status",
        help="which kept runs this checkout's code made (fresh) and which not (stale), and "
        "which the workflow now makes by another command (other)",
    )
    p_certify = sub.add_parser(
        "certify", help="give kept runs without one the code identity of their revision"
    )
    p_audit = sub.add_parser("audit", help="re-make kept ns-3 runs and compare them byte for byte")
    p_audit.add_argument("--sample", type=int, default=1, help="how many runs (default 1)")
    p_audit.add_argument("--seed", type=int, help="the random choice's seed (default: random)")
    p_audit.add_argument("--scale", help="only runs of this scale")
    p_audit.add_argument(
        "--record", action="store_true", help="write the result to ARCHIVE/audit.json"
    )
    p_renew = sub.add_parser(
        "renew",
        help="re-make stale kept ns-3 runs with this code; keep those made the same under it",
    )
    p_renew.add_argument("--scale", help="only runs of this scale")
    p_renew.add_argument("--scenario", help="only runs of this scenario")
    p_renew.add_argument("--limit", type=int, help="at most this many runs (the first, sorted)")
    p_renew.add_argument(
        "--replace-changed",
        action="store_true",
        help="keep a run made differently too, in the kept one's place (after a change meant "
        "to move what the runs measure)",
    )
    p_renew.add_argument(
        "--where",
        action="append",
        metavar="AXIS=V[,V...]",
        help="only runs with one of these values of AXIS (repeatable), as a batch's --where",
    )
    for p in (p_add, p_list, p_status, p_certify, p_audit, p_renew):
        p.add_argument("--archive", type=Path, default=ARCHIVE_DIR)
    p_restore = sub.add_parser("restore", help="write an archived run as a result")
    p_restore.add_argument("archived", type=Path)
    p_restore.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.verb == "add":
            for run in args.runs:
                print(f"{run} -> {add(run, args.archive)}")
        elif args.verb == "list":
            for row in listing(args.archive):
                cpu = "?" if row["cpu_s"] is None else f"{row['cpu_s']:.0f}"
                lasted = "?" if row["lasted_s"] is None else f"{row['lasted_s']:.1f}"
                print(f"{row['file']}  {row['git_revision']}  {lasted} s  {cpu} CPU-s")
        elif args.verb == "status":
            from emusim.infra import audit

            rows = status(args.archive)
            ns3_rows = [r for r in rows if r["backend"] in audit.AUDITED_BACKENDS]
            try:
                other = audit.other_command(ns3_rows, Path(args.archive))
            except audit.AuditError as err:
                print(f"archive: which commands the workflow runs now is not known: {err}")
                other = {}
            return _print_status(rows, other)
        elif args.verb == "certify":
            for path, digest in certify(args.archive):
                print(f"{path}: {digest}")
        elif args.verb == "audit":
            from emusim.infra import audit

            return audit.main_audit(args)
        elif args.verb == "renew":
            from emusim.infra import audit

            return audit.main_renew(args)
        else:
            restore(args.archived, args.out)
            print(f"{args.out}: restored from {args.archived}", file=sys.stderr)
    except (ArchiveError, code_identity.IdentityError) as err:
        print(f"archive: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
