"""`emusim plan [TARGET...]`: the jobs Snakemake would run, and what they are expected to cost.

The jobs come from Snakemake's own dry run (`snakemake TARGETS -n`), as Snakemake reports them
to a logger plugin: `--logger emusim --logger-emusim-write-jobs FILE`
(src/snakemake_logger_plugin_emusim) receives each job's structured record (its rule, benchmark
file and outputs, the fields of snakemake-interface-logger-plugins' JOB_INFO event) and writes
them to FILE. That is robust where the alternatives are not: the dry run's text and `--summary`
are for reading (`--summary` lists output files, several per job, without the benchmark file
that says which job it is, and its columns have changed between releases), and Snakemake's
Python API would run the workflow inside this process (its Snakefile sets the process's
environment), through settings classes that change from release to release, where the plugin
interface is the versioned contract Snakemake keeps for exactly this. The dry run is the one
Snakemake itself would do, with the same rule order (a kept run restored by `ns3_restore`, at
no cost) and the same reasons to rerun, so what it lists is what `snakemake TARGETS` would
run now; finished outputs drop out of it, so while the study runs, `emusim plan` in another
terminal shows what remains.

Each job is then estimated from the scale's kept costs (emusim.planning.costs: data/costs/SCALE.csv,
the scale's benchmark files not yet collected, the kept runs of the archive) and the table
printed. `--save FILE` keeps the jobs with their estimates for the workflow's progress line
(`snakemake --logger emusim --logger-emusim-plan FILE`, emusim.planning.progress).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

from emusim.cli.common import Failure, UsageError, _config, _scale, _snakemake_call, _table
from emusim.core import paths, yaml_text
from emusim.planning import costs


def _cores(value: str) -> int:
    """--cores as a number: `all` is this machine's."""
    if value == "all":
        return os.cpu_count() or 1
    try:
        cores = int(value)
    except ValueError:
        cores = 0
    if cores < 1:
        raise UsageError(f"--cores {value!r}: a number of cores (at least 1), or all")
    return cores


def _archive(args: argparse.Namespace) -> Path | None:
    """The run archive the workflow would use: config `archive`, or a -C archive=... item."""
    archive = _config().get("archive")
    for item in args.config:
        key, sep, value = item.partition("=")
        if sep and key.strip() == "archive":
            archive = yaml_text.safe_load(value)
    return None if archive in (None, "off", False) else Path(str(archive))


def planned_jobs(targets: list[str], config: list[str], args, extra: list[str]) -> list[dict]:
    """The jobs of Snakemake's dry run on `targets`, as the plugin wrote them."""
    with tempfile.TemporaryDirectory(prefix="emusim-plan-") as tmp:
        listed = Path(tmp) / "jobs.json"
        options = ("-n", "--quiet", "rules", "--logger", "emusim")
        options += ("--logger-emusim-write-jobs", str(listed))
        cmd, env = _snakemake_call(targets, config, args, extra, options)
        proc = subprocess.run(
            cmd, cwd=paths.REPO_ROOT, env=env, capture_output=True, text=True, check=False
        )
        if proc.returncode != 0 or not listed.exists():
            said = (proc.stdout + proc.stderr).strip().splitlines()[-30:]
            raise Failure(
                f"snakemake's dry run failed (exit status {proc.returncode}):\n" + "\n".join(said)
            )
        return json.loads(listed.read_text())["jobs"]


def _note(row: costs.RuleCost) -> str:
    notes = {
        costs.FREE: costs.FREE_RULES.get(row.rule, "no cost"),
        costs.BATCH_SHARE: "from its batch's kept runs, as if it made them again",
    }
    return "; ".join(text for how, text in notes.items() if row.jobs_by[how])


def _hours(row: costs.RuleCost, seconds: float) -> str:
    """A row's hours: `?` if all its jobs that cost anything are unknown; `+ ?` if some are."""
    if row.unknown == row.jobs or (row.unknown and seconds == 0):
        return "?"
    return costs.hours(seconds) + (" + ?" if row.unknown else "")


def table_rows(rows: list[costs.RuleCost], total: costs.RuleCost, cores: int) -> list[list]:
    """The printed table's rows, the total last (what `print_plan` prints): per rule its jobs,
    those with their own measurement, those estimated from like jobs (their scenario's median,
    their batch's kept runs), those at their rule's median, those of unknown cost, the expected
    CPU-hours and wall hours on `cores`, and a note."""
    return [
        [
            r.rule,
            r.jobs,
            r.jobs_by[costs.MEASURED],
            r.jobs_by[costs.SCENARIO_MEDIAN] + r.jobs_by[costs.BATCH_SHARE],
            r.jobs_by[costs.RULE_MEDIAN],
            r.unknown,
            _hours(r, r.cpu_s),
            _hours(r, r.wall_on(cores)),
            _note(r) if r is not total else "",
        ]
        for r in [*rows, total]
    ]


HEADERS = ["rule", "jobs", "measured", "like jobs", "rule median", "unknown", "CPU-h"]


def print_plan(rows: list[costs.RuleCost], total: costs.RuleCost, cores: int) -> None:
    _table([*HEADERS, f"wall h on {costs.on_cores(cores)}", "note"], table_rows(rows, total, cores))
    guessed = total.cpu_s_by[costs.RULE_MEDIAN]
    if guessed:
        print(
            f"{costs.hours(guessed)} of the {costs.hours(total.cpu_s)} CPU-h are rule medians: "
            f"{total.jobs_by[costs.RULE_MEDIAN]} jobs of scenarios with no measurement at this "
            "scale, costed as their rule's jobs of other scenarios (the least sure part)"
        )
    if total.unknown:
        print(
            f"{total.unknown} of {total.jobs} jobs have no known cost and are not in the hours: "
            "their rules have no measurement at this scale yet "
            "(python -m emusim.planning.costs collect keeps them once made)"
        )


def cmd_plan(args: argparse.Namespace, extra: list[str]) -> int:
    scale = _scale(args)
    cores = _cores(args.cores)
    targets = args.targets or ["all"]
    listed = planned_jobs(targets, [f"scale={scale}"], args, extra)
    try:
        jobs = [costs.job_of(j["rule"], j["benchmark"], j["output"]) for j in listed]
        archive = _archive(args)
        book = costs.load(scale, paths.REPO_ROOT, archive)
    except costs.CostError as err:
        raise Failure(str(err)) from None
    print(
        f"scale {scale}, {' '.join(targets)}: {len(jobs)} jobs to run; costs known: "
        f"{book.n_measured} jobs measured ({costs.COSTS_DIR}/{scale}.csv, "
        f"{paths.scale_prefix(scale)}{costs.TIMING}), {book.n_kept} kept runs "
        f"({archive / scale if archive else 'no archive'})"
    )
    if not jobs:
        print("nothing to run")
    else:
        rows, total = costs.summarize(jobs, book, cores)
        print_plan(rows, total, cores)
    if args.save:
        save_plan(Path(args.save), scale, targets, jobs, book)
        print(f"saved: {args.save} (snakemake --logger emusim --logger-emusim-plan {args.save})")
    return 0


def save_plan(path: Path, scale: str, targets: list[str], jobs, book: costs.CostBook) -> None:
    """The jobs with their estimates, for the workflow's progress line
    (emusim.planning.progress)."""
    listed = []
    for job in jobs:
        est = book.estimate(job.rule, job.timing)
        listed.append(
            {
                "rule": job.rule,
                "timing": job.timing,
                "output": job.output,
                "cpu_s": est.cpu_s,
                "wall_s": est.wall_s,
                "how": est.how,
            }
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    plan = {"scale": scale, "targets": targets, "jobs": listed}
    path.write_text(json.dumps(plan, indent=1) + "\n")
