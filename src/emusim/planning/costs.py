"""What the study's jobs cost: the measurements kept, and what a planned job is expected to cost.

    python -m emusim.planning.costs collect --scale quick   # logs/timing -> data/costs/quick.csv

Every rule that costs CPU has a `benchmark:` file (workflow/rules/*.smk), in which Snakemake
writes the job's wall time, peak memory and CPU time:
`{PREFIX}logs/timing/RULE/SCENARIO/.../NAME.tsv`, the rule's own folder (ns3_run's is `ns3`,
whose layout the run archive reads: emusim.infra.archive), then the job's scenario (or, for a job
without one, what names it: a figure's stem), then whatever else tells its jobs apart. A
job's path below the timing folder, without `.tsv`, is its `job` here
(`ns3/random-drop/linux-2.2/drop_rate=0.02/run1`).

Those files are in `logs/`, which is not committed. `collect` gathers a scale's into one tidy
table, `data/costs/SCALE.csv` (`COLUMNS`: one row per job), which can be: a job measured again
replaces its row when the new measurement is newer (`merge`). Snakemake samples the process
tree's CPU time, every 0.5 s at first and every 30 s after 15 s, so `cpu_s` misses up to the
last 30 s of a long job; a job that ended before its first sample has none (its wall time,
under a second, stands for it: `_cpu_s`).

Kept runs carry their cost too (`kept_runs`): an archived ns-3 run its job's measurement
(`provenance.archive.cost`), an emulated run its own host CPU and wall seconds
(`provenance.host_cpu_s`, `host_s`), read as rows of `mininet_run`, which is not a rule: the
emulation's runs are made inside the jobs of rule `mininet_shard`, a VM each.

`CostBook.estimate` gives a planned job's expected cost, from the first of:

1. its own measurement (the table's row for its job, else the kept run of the same path);
2. the median of its rule's jobs of the same scenario;
3. for a `mininet_shard` job, its share of the kept runs of its batch (scenario and profile),
   as if it made them again: their sum over the number of shards (`_batch_share`);
4. the median of its rule's jobs;
5. none: the job's cost is unknown, and said so.

A job of `FREE_RULES` costs nothing. `summarize` makes the table of `emusim plan` from a list
of planned jobs (docs/cli.md).
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from emusim.core import paths

TIMING = "logs/timing"
"""The benchmark files' folder below a scale's prefix (emusim.core.paths.scale_prefix)."""

COSTS_DIR = Path("data/costs")
"""Where the kept tables live, relative to the repository: `SCALE.csv`."""

COLUMNS = ("rule", "job", "wall_s", "cpu_s", "max_rss_MB", "measured")
"""The kept table's columns: the rule, the job's path below the timing folder (no `.tsv`), its
wall and CPU seconds, its peak resident memory (MB), and when it was measured (the benchmark
file's time, UTC, ISO 8601)."""

TIMING_RULES = {"ns3": "ns3_run"}
"""Timing folders not named after their rule: ns3_run's, whose layout the archive reads."""

FREE_RULES = {
    "ns3_restore": "kept runs, copied from the archive: no cost",
    "all": "the targets only: no cost",
}
"""Rules whose jobs cost nothing, and why."""

KEPT_RUN_RULES = {"ns3": "ns3_run", "mininet": "mininet_run"}
"""The rule a kept run's cost is read as, per backend folder of the archive."""

MININET_RUN = KEPT_RUN_RULES["mininet"]

MEASURED = "measured"
SCENARIO_MEDIAN = "median of its scenario"
BATCH_SHARE = "share of its batch's kept runs"
RULE_MEDIAN = "median of its rule"
FREE = "no cost"
UNKNOWN = "unknown"


class CostError(ValueError):
    """A benchmark file, cost table or path that cannot be read; names the file, key, value."""


@dataclass(frozen=True)
class Cost:
    """One job's measured cost (a row of the kept table, or a kept run's)."""

    rule: str
    job: str
    wall_s: float | None
    cpu_s: float | None
    max_rss_MB: float | None = None
    measured: str = ""


@dataclass(frozen=True)
class Job:
    """A job Snakemake plans to run: its rule, its path below the timing folder (None for a
    rule without a benchmark file) and its first output."""

    rule: str
    timing: str | None
    output: str = ""

    @property
    def key(self) -> str:
        """What tells this job apart from every other one in a run: its timing path, else its
        rule and first output."""
        return self.timing or f"{self.rule}:{self.output}"


@dataclass(frozen=True)
class Estimate:
    """A job's expected CPU and wall seconds (None: unknown) and where they come from."""

    cpu_s: float | None
    wall_s: float | None
    how: str

    @property
    def known(self) -> bool:
        return self.cpu_s is not None


# --- paths --------------------------------------------------------------------------------------


def timing_job(benchmark: str) -> tuple[str, str]:
    """(prefix, job) of a benchmark file's path: `scales/quick/logs/timing/ns3/a/b/run1.tsv`
    gives (`scales/quick/`, `ns3/a/b/run1`)."""
    head, sep, job = str(benchmark).partition(f"{TIMING}/")
    if not sep or not job or (head and not head.endswith("/")):
        raise CostError(f"benchmark file {benchmark!r} is not below a scale's {TIMING}/")
    return head, job.removesuffix(".tsv")


def job_of(rule: str, benchmark: str | None, outputs: Iterable[str] = ()) -> Job:
    """A planned job from what Snakemake says of it (its log record: rule, benchmark file,
    outputs); CostError for a benchmark file outside the timing folder."""
    timing = timing_job(benchmark)[1] if benchmark else None
    return Job(rule, timing, next(iter(outputs), ""))


def rule_of(job: str) -> str:
    """The rule whose timing folder `job` is in."""
    folder = job.split("/", 1)[0]
    return TIMING_RULES.get(folder, folder)


def scenario_of(job: str) -> str | None:
    """The job's scenario: the first part of its path below its rule's folder (None for a
    rule's only job, `ns3_build`)."""
    parts = job.split("/")
    return parts[1] if len(parts) > 1 else None


# --- benchmark files and the kept table ---------------------------------------------------------


def _number(value: str | None, where: str, key: str) -> float | None:
    """A benchmark or table cell as a number; None for Snakemake's `NA` or `-` or empty."""
    if value is None or value.strip() in ("", "NA", "-"):
        return None
    try:
        return float(value)
    except ValueError:
        raise CostError(
            f"{where}: column {key!r} has value {value!r}; accepted: a number, NA"
        ) from None


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 2) if known else None


def read_benchmark(tsv: Path, timing_dir: Path) -> Cost:
    """One benchmark file as a row: the mean of its records (one unless the rule repeats)."""
    with Path(tsv).open(newline="") as f:
        records = list(csv.DictReader(f, delimiter="\t"))
    if not records or "s" not in records[0]:
        raise CostError(f"{tsv}: no benchmark record (Snakemake's columns s, cpu_time, ...)")
    job = Path(tsv).relative_to(timing_dir).with_suffix("").as_posix()
    wall, cpu, rss = (
        _mean([_number(r.get(key), str(tsv), key) for r in records])
        for key in ("s", "cpu_time", "max_rss")
    )
    when = datetime.fromtimestamp(Path(tsv).stat().st_mtime, UTC)
    return Cost(rule_of(job), job, wall, cpu, rss, when.strftime("%Y-%m-%dT%H:%M:%SZ"))


def collect(timing_dir: Path) -> list[Cost]:
    """Every benchmark file below `timing_dir` (a scale's logs/timing), as rows."""
    timing_dir = Path(timing_dir)
    return [read_benchmark(p, timing_dir) for p in sorted(timing_dir.rglob("*.tsv"))]


def merge(kept: Iterable[Cost], new: Iterable[Cost]) -> list[Cost]:
    """The kept rows with the new ones: a job's newer measurement replaces its older one (the
    same time: the new one); sorted by rule and job."""
    rows = {(c.rule, c.job): c for c in kept}
    for c in new:
        old = rows.get((c.rule, c.job))
        if old is None or c.measured >= old.measured:
            rows[(c.rule, c.job)] = c
    return [rows[k] for k in sorted(rows)]


def read_table(path: Path) -> list[Cost]:
    """A kept table (data/costs/SCALE.csv); none if the file is not there."""
    path = Path(path)
    if not path.exists():
        return []
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise CostError(
                f"{path}: no column {', '.join(missing)}; expected {', '.join(COLUMNS)}"
            )
        return [
            Cost(
                row["rule"],
                row["job"],
                *(_number(row[k], f"{path} line {n}", k) for k in COLUMNS[2:5]),
                row["measured"],
            )
            for n, row in enumerate(reader, 2)
        ]


def _cell(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def write_table(path: Path, rows: Iterable[Cost]) -> None:
    """Write a kept table: the columns of `COLUMNS`, numbers to 2 decimals, sorted rows."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".csv.tmp")
    with tmp.open("w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(COLUMNS)
        for c in sorted(rows, key=lambda c: (c.rule, c.job)):
            out.writerow(
                [c.rule, c.job, _cell(c.wall_s), _cell(c.cpu_s), _cell(c.max_rss_MB), c.measured]
            )
    tmp.replace(path)


# --- kept runs ----------------------------------------------------------------------------------


def _kept_cost(backend: str, prov: dict) -> tuple[float | None, float | None, float | None]:
    """(wall_s, cpu_s, max_rss_MB) a kept run carries; Nones where it carries none."""
    if backend == "ns3":
        cost = (prov.get("archive") or {}).get("cost") or {}
        return cost.get("wall_s"), cost.get("cpu_s"), cost.get("max_rss_MB")
    return prov.get("host_s"), prov.get("host_cpu_s"), None


def kept_runs(archive_dir: Path, scale: str) -> list[Cost]:
    """The costs the runs kept for `scale` carry (data/archive/SCALE/BACKEND/.../runK.json),
    as rows of the rule that makes each (`KEPT_RUN_RULES`); a run that carries none is left
    out."""
    root = Path(archive_dir) / scale
    rows = []
    for backend, rule in KEPT_RUN_RULES.items():
        for path in sorted((root / backend).glob("*/*/*/run*.json")):
            try:
                prov = json.loads(path.read_text())["provenance"]
            except (OSError, ValueError, KeyError, TypeError) as err:
                raise CostError(f"{path}: not a run JSON with a provenance ({err})") from None
            wall, cpu, rss = _kept_cost(backend, prov)
            if wall is None and cpu is None:
                continue
            job = path.relative_to(root).with_suffix("").as_posix()
            rows.append(Cost(rule, job, wall, cpu, rss))
    return rows


# --- estimates ----------------------------------------------------------------------------------


def _cpu_s(c: Cost) -> float | None:
    """A row's CPU seconds; its wall seconds where Snakemake sampled none (a job that ended
    before its first sample, under a second: one thread's wall time bounds its CPU time)."""
    return c.cpu_s if c.cpu_s is not None else c.wall_s


def _wall_s(c: Cost) -> float | None:
    return c.wall_s if c.wall_s is not None else c.cpu_s


def _median(rows: list[Cost], how: str) -> Estimate | None:
    cpu = [v for v in map(_cpu_s, rows) if v is not None]
    wall = [v for v in map(_wall_s, rows) if v is not None]
    if not cpu:
        return None
    return Estimate(statistics.median(cpu), statistics.median(wall), how)


class CostBook:
    """The costs known for a scale: the kept table's rows (with the benchmark files not yet
    collected) and the kept runs' costs, which a measurement of the same job overrides."""

    def __init__(self, measured: Iterable[Cost], kept: Iterable[Cost] = ()) -> None:
        measured, kept = list(measured), list(kept)
        self.n_measured, self.n_kept = len(measured), len(kept)
        self.rows = {(c.rule, c.job): c for c in kept}
        self.rows.update({(c.rule, c.job): c for c in measured})
        self.by_rule: dict[str, list[Cost]] = {}
        for c in self.rows.values():
            if _cpu_s(c) is not None:
                self.by_rule.setdefault(c.rule, []).append(c)

    def estimate(self, rule: str, timing: str | None) -> Estimate:
        """The expected cost of a job of `rule` whose path below the timing folder is `timing`
        (None: a job of the rule, which one not known), by the first of the module's levels."""
        if rule in FREE_RULES:
            return Estimate(0.0, 0.0, FREE)
        own = self.rows.get((rule, timing)) if timing else None
        if own is not None and _cpu_s(own) is not None:
            return Estimate(_cpu_s(own), _wall_s(own), MEASURED)
        same_rule = self.by_rule.get(rule, [])
        if timing is not None and scenario_of(timing) is not None:
            scenario = scenario_of(timing)
            found = _median(
                [c for c in same_rule if scenario_of(c.job) == scenario], SCENARIO_MEDIAN
            )
            if found is None and rule in BATCH_SHARES:
                found = BATCH_SHARES[rule](timing, self.by_rule)
            if found is not None:
                return found
        return _median(same_rule, RULE_MEDIAN) or Estimate(None, None, UNKNOWN)


def _batch_share(timing: str, by_rule: dict[str, list[Cost]]) -> Estimate | None:
    """A mininet_shard job's share of its batch's kept runs, as if it made them again: the sum
    of the kept runs of its scenario and profile over its number of shards. Its timing path is
    mininet_shard/SCENARIO/PROFILE/I-of-N; the runs' are mininet/SCENARIO/PROFILE/POINT/runK.
    Neither the runs never kept nor the VM's boot, setup and self-check (about 150 CPU-s a
    shard, docs/mininet.md) are in it; a batch restores the kept runs made with its run key and
    code (docs/archive.md), and then costs less."""
    parts = timing.split("/")
    if len(parts) != 4 or "-of-" not in parts[3]:
        raise CostError(f"timing path {timing!r}: expected mininet_shard/SCENARIO/PROFILE/I-of-N")
    shards = int(parts[3].split("-of-")[1])
    batch = f"mininet/{parts[1]}/{parts[2]}/"
    runs = [c for c in by_rule.get(MININET_RUN, []) if c.job.startswith(batch)]
    if not runs:
        return None
    cpu = sum(_cpu_s(c) for c in runs) / shards
    wall = sum(_wall_s(c) for c in runs) / shards
    return Estimate(cpu, wall, BATCH_SHARE)


BATCH_SHARES = {"mininet_shard": _batch_share}
"""Rules whose jobs make many kept runs each: how a job's cost follows from theirs."""


def load(scale: str, repo: Path = paths.REPO_ROOT, archive: Path | None = None) -> CostBook:
    """The costs known for `scale` in the checkout `repo`: data/costs/SCALE.csv with the
    scale's benchmark files merged in, and the kept runs of `archive` (None: none)."""
    repo = Path(repo)
    table = read_table(repo / COSTS_DIR / f"{scale}.csv")
    measured = merge(table, collect(repo / paths.scale_prefix(scale) / TIMING))
    kept = kept_runs(repo / archive, scale) if archive is not None else []
    return CostBook(measured, kept)


def hours(seconds: float | None) -> str:
    """Seconds as hours for a table or a line: `?` unknown, `0`; from 1 h on, 2 decimals; below,
    2 significant digits (0.58, 0.0058); below 0.0001 h (0.36 s), `<0.0001`."""
    if seconds is None:
        return "?"
    h = seconds / 3600
    if h == 0:
        return "0"
    if h >= 1:
        return f"{h:.2f}"
    return f"{h:.2g}" if h >= 0.0001 else "<0.0001"


# --- the plan's table ---------------------------------------------------------------------------


@dataclass
class RuleCost:
    """One row of the plan's table: a rule's jobs, how many were estimated how (`jobs_by`: the
    levels of `CostBook.estimate`), and the expected CPU and wall seconds of the known ones."""

    rule: str
    jobs: int = 0
    jobs_by: Counter[str] = field(default_factory=Counter)
    cpu_s_by: Counter[str] = field(default_factory=Counter)
    wall_s: float = 0.0
    longest_wall_s: float = 0.0

    def add(self, est: Estimate) -> None:
        self.jobs += 1
        self.jobs_by[est.how] += 1
        if est.known:
            self.cpu_s_by[est.how] += est.cpu_s
            self.wall_s += est.wall_s
            self.longest_wall_s = max(self.longest_wall_s, est.wall_s)

    @property
    def unknown(self) -> int:
        return self.jobs_by[UNKNOWN]

    @property
    def cpu_s(self) -> float:
        return sum(self.cpu_s_by.values())

    def wall_on(self, cores: int) -> float:
        return wall_on(self.wall_s, self.longest_wall_s, cores)


def wall_on(wall_s: float, longest_wall_s: float, cores: int) -> float:
    """Wall seconds of jobs whose wall seconds sum to `wall_s` on `cores` kept busy: the sum
    over the cores, or the longest job if it is longer (a floor: jobs that wait for others
    leave cores idle)."""
    return max(wall_s / max(cores, 1), longest_wall_s)


def on_cores(cores: int) -> str:
    return f"{cores} core{'' if cores == 1 else 's'}"


def summarize(jobs: Iterable[Job], book: CostBook, cores: int) -> tuple[list[RuleCost], RuleCost]:
    """The plan's table: a row per rule, the costliest first, then the total (its wall time
    `wall_on` the cores)."""
    if cores < 1:
        raise CostError(f"cores {cores}: must be at least 1")
    rows: dict[str, RuleCost] = {}
    total = RuleCost("total")
    for job in jobs:
        est = book.estimate(job.rule, job.timing)
        rows.setdefault(job.rule, RuleCost(job.rule)).add(est)
        total.add(est)
    ordered = sorted(rows.values(), key=lambda r: (-r.cpu_s, -r.unknown, r.rule))
    return ordered, total


# --- the command line ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    from emusim.inputs.scenario import SCALES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    p = sub.add_parser("collect", help="the scale's benchmark files into data/costs/SCALE.csv")
    p.add_argument("--scale", choices=SCALES, default=paths.PAPER_SCALE)
    p.add_argument("--repo", type=Path, default=paths.REPO_ROOT, help="the checkout")
    args = parser.parse_args(argv)
    timing = args.repo / paths.scale_prefix(args.scale) / TIMING
    table = args.repo / COSTS_DIR / f"{args.scale}.csv"
    try:
        kept = read_table(table)
        new = collect(timing)
        rows = merge(kept, new)
        write_table(table, rows)
    except (OSError, CostError) as err:
        print(f"emusim.planning.costs: {err}", file=sys.stderr)
        return 1
    changed = len(set(rows) - set(kept))
    print(f"{table}: {len(rows)} jobs, {changed} new or measured again (from {timing})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
