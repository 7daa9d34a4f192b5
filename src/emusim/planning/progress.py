"""The workflow's progress with an estimate of what remains, from the jobs' expected costs.

Snakemake's logger plugin `emusim` (src/snakemake_logger_plugin_emusim, `snakemake --logger
emusim`) feeds a `Progress` the events Snakemake logs: the jobs to run per rule when the run
starts (`planned`), each job as it starts (`started`: its rule, benchmark file and outputs) and
as it finishes (`finished`), and after each finished job asks for the line it prints (`line`):

    12 of 547 jobs done; about 1.53 CPU-h (0.77 h on 2 cores) remain, and 30 jobs of unknown cost

What remains is every job not finished, a running one in full, each at its expected cost
(emusim.planning.costs.CostBook.estimate). Snakemake says which job it is only when the job starts;
to know every job's own estimate from the start, the run is given the list that `emusim plan
--save FILE` wrote from the same dry run (`--logger-emusim-plan FILE`: what `make study` does).
That list is used only while its jobs per rule are the run's (a list made for other targets or
before other files changed is not); otherwise a job not yet started counts at its rule's
median cost, and the line says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from emusim.core import paths
from emusim.planning import costs


def _jobs(n: int) -> str:
    return f"{n} job{'' if n == 1 else 's'}"


class Progress:
    """What a running workflow has done and what remains, with its expected cost."""

    def __init__(self, book_for: Callable[[str], costs.CostBook], plan: dict | None = None) -> None:
        """`book_for(scale)` gives the costs known for a scale (emusim.planning.costs.load); `plan`
        is the list `emusim plan --save` wrote (None: none)."""
        self._book_for = book_for
        self._cost_book: costs.CostBook | None = None
        self.plan = {
            costs.Job(j["rule"], j["timing"], j["output"]).key: j
            for j in (plan or {}).get("jobs", [])
        }
        self.scale = (plan or {}).get("scale")
        self.use_plan = False
        self.why_not_plan = "no list of jobs (emusim plan --save)" if plan is None else ""
        self.counts: dict[str, int] = {}
        self.running: dict[int, costs.Job] = {}
        self.started_per_rule: Counter[str] = Counter()
        self.finished_keys: set[str] = set()
        self.estimates: dict[str, costs.Estimate] = {}

    # --- the events -----------------------------------------------------------------------------

    def planned(self, stats: dict[str, int]) -> None:
        """The jobs to run per rule (Snakemake's job stats, with their `total`)."""
        self.counts = {rule: n for rule, n in stats.items() if rule != "total"}
        if self.plan:
            listed = Counter(j["rule"] for j in self.plan.values())
            self.use_plan = listed == Counter(self.counts)
            if not self.use_plan:
                self.why_not_plan = "the list of emusim plan --save is not this run's jobs"

    def started(self, jobid: int, rule: str, benchmark: str | None, outputs: list[str]) -> None:
        """A job has started; a benchmark file outside a scale's timing folder is ignored."""
        try:
            job = costs.job_of(rule, benchmark, outputs)
        except costs.CostError:
            job = costs.Job(rule, None, next(iter(outputs), ""))
        if self.scale is None and job.timing is not None:
            self.scale = paths.scale_of_prefix(costs.timing_job(benchmark)[0])
        self.running[jobid] = job
        self.started_per_rule[rule] += 1

    def finished(self, jobid: int) -> None:
        job = self.running.pop(jobid, None)
        if job is not None:
            self.finished_keys.add(job.key)

    # --- what remains ---------------------------------------------------------------------------

    def _book(self) -> costs.CostBook | None:
        if self._cost_book is None and self.scale is not None:
            self._cost_book = self._book_for(self.scale)
        return self._cost_book

    def _estimate(self, job: costs.Job) -> costs.Estimate:
        listed = self.plan.get(job.key) if self.use_plan else None
        if listed is not None:
            return costs.Estimate(listed["cpu_s"], listed["wall_s"], listed["how"])
        if job.key in self.estimates:
            return self.estimates[job.key]
        book = self._book()
        if book is None:  # the scale not known yet (no job with a benchmark file started)
            return costs.CostBook([]).estimate(job.rule, job.timing)
        self.estimates[job.key] = book.estimate(job.rule, job.timing)
        return self.estimates[job.key]

    def _remaining_jobs(self) -> list[tuple[costs.Estimate, int]]:
        """(estimate, number of jobs) of every job not finished."""
        running = {job.key: job for job in self.running.values()}
        out = [(self._estimate(job), 1) for job in running.values()]
        if self.use_plan:
            out += [
                (self._estimate(costs.Job(j["rule"], j["timing"], j["output"])), 1)
                for key, j in self.plan.items()
                if key not in self.finished_keys and key not in running
            ]
            return out
        for rule, n in self.counts.items():
            waiting = n - self.started_per_rule[rule]
            if waiting > 0:
                out.append((self._estimate(costs.Job(rule, None, f"{rule}:*")), waiting))
        return out

    def remaining(self) -> tuple[float, float, float, int]:
        """(CPU seconds, summed wall seconds, longest wall seconds, jobs of unknown cost) of the
        jobs not finished."""
        cpu = wall = longest = 0.0
        unknown = 0
        for est, n in self._remaining_jobs():
            if not est.known:
                unknown += n
                continue
            cpu += est.cpu_s * n
            wall += est.wall_s * n
            longest = max(longest, est.wall_s)
        return cpu, wall, longest, unknown

    def line(self, done: int, total: int, cores: int) -> str:
        """`N of M jobs done; about X CPU-h (Y h on C cores) remain`, and what is unknown."""
        cpu, wall, longest, unknown = self.remaining()
        text = f"{done} of {total} jobs done; "
        left = total - done
        if unknown and unknown >= left:
            text += f"the cost of the {_jobs(left)} left is not known"
        else:
            wall_h = costs.hours(costs.wall_on(wall, longest, cores))
            text += f"about {costs.hours(cpu)} CPU-h ({wall_h} h on {costs.on_cores(cores)}) remain"
            if unknown:
                text += f", and {_jobs(unknown)} of unknown cost"
        if not self.use_plan and done < total:
            text += f" (jobs not started at their rule's median: {self.why_not_plan})"
        return text
