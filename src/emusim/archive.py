"""The run archive: long runs kept in the repository, so a study resumes on any machine.

    python -m emusim.archive add RESULTS/ns3/SCENARIO/PROFILE/POINT/runK.json ...
    python -m emusim.archive list
    python -m emusim.archive restore ARCHIVED.json OUT.json

A paper-scale multi-flow run costs up to hours of CPU, a 1 GB emulated transfer half an hour
(docs/multiflow.md, docs/variants.md): more than a session of work on a machine that may not
be there tomorrow. A finished run's JSON is copied into `data/archive/SCALE/` under its path
below the results directory (an emulated run with its session's record) and committed. An ns-3
run is then written from the archive by the workflow's rule `ns3_restore`, but only while the
archived run's command line is exactly the one the workflow would run now (`matches`); an
emulated run by its batch (`--archive`), only while its run key is this run's (the resolved
scenario, point, profile settings, clock and kernel: emusim.backends.mininet.plan.run_key). A
changed scenario or profile therefore reruns by itself. What neither key sees is a change to the
model's or the tools' code: whoever makes one that moves an archived workload removes its runs
(`git rm`), as docs/archive.md says. Each archived run keeps the git revision it was made at,
its cost and, once restored, the archive file it came from (`provenance.archive`).
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
from pathlib import Path

from emusim import run_status
from emusim.paths import scale_prefix
from emusim.runjson import RunSchemaError, run_path, validate_run, write_atomically

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


def matches(archived: str | Path, command: list[str]) -> tuple[bool, str]:
    """Whether the archived run at `archived` was made by exactly `command`, and if not why
    (for the workflow's log). A missing file is no match."""
    path = Path(archived)
    if not path.exists():
        return False, f"{path}: not archived"
    run = _load(path)
    made_by = run["provenance"].get("command")
    if made_by != list(command):
        return False, f"{path}: provenance.command differs from the command the workflow runs now"
    if not keepable(run["status"]):
        return False, f"{path}: status {run['status']!r}, which the statistics leave out"
    return True, f"{path}: archived at {run['provenance'].get('git_revision')}"


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
    """Copy a finished run into the archive (its cost added from the job's benchmark file);
    return where it went. Refuses a run the statistics leave out (`keepable`), one made outside
    a git checkout, or one that would replace a different archived run."""
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
    write_atomically(target, json.dumps(run, indent=1, sort_keys=True) + "\n")
    return target


def restore(archived: Path, out: Path) -> None:
    """Write the archived run to `out`, with the archive file it came from in its provenance."""
    run = _load(Path(archived))
    run["provenance"].setdefault("archive", {})["path"] = str(archived)
    write_atomically(Path(out), json.dumps(run, indent=1, sort_keys=True) + "\n")


def listing(archive_dir: Path = ARCHIVE_DIR) -> list[dict]:
    """One row per archived run: its file, revision, the seconds it lasted in its backend's
    clock (ns-3's simulated time, the emulation's guest time) and the host CPU-seconds it
    cost (the job's benchmark, or the emulated run's own count)."""
    rows = []
    for path in sorted(Path(archive_dir).glob("*/*/*/*/*/run*.json")):
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    p_add = sub.add_parser("add", help="copy finished runs into the archive")
    p_add.add_argument("runs", nargs="+", type=Path)
    p_add.add_argument("--archive", type=Path, default=ARCHIVE_DIR)
    p_list = sub.add_parser("list", help="the archived runs")
    p_list.add_argument("--archive", type=Path, default=ARCHIVE_DIR)
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
        else:
            restore(args.archived, args.out)
            print(f"{args.out}: restored from {args.archived}", file=sys.stderr)
    except ArchiveError as err:
        print(f"archive: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
