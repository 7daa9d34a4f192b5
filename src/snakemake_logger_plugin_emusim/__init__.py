"""Snakemake's logger plugin `emusim`: Snakemake's own output, and after each finished job what
remains and what it is expected to cost (emusim.planning.progress).

    snakemake all --logger emusim [--logger-emusim-plan FILE]       # make study does this
    snakemake all -n --quiet rules --logger emusim --logger-emusim-write-jobs FILE   # emusim plan

Snakemake finds a logger plugin by its module's name (`snakemake_logger_plugin_NAME`, an
importable package: this one is installed with emusim, pyproject.toml) and, given `--logger
emusim`, hands it every log record, with the fields of its event (a job's rule, benchmark
file, outputs and wildcards as it starts; its id as it finishes; the jobs done and in all). The
handler prints what Snakemake's own would (its filter and formatter) and, after each progress
line, one more:

    12 of 547 jobs done; about 1.53 CPU-h (0.77 h on 2 cores) remain

In a dry run, `write_jobs` collects every job Snakemake would run, as it logs them, into a JSON
file (`{"jobs": [{"rule", "benchmark", "output"}, ...]}`), written when Snakemake closes its
loggers: what `emusim plan` reads (docs/cli.md). The module imports nothing heavy: Snakemake
imports every logger plugin it finds at start.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from snakemake_interface_logger_plugins.base import LogHandlerBase
from snakemake_interface_logger_plugins.common import LogEvent
from snakemake_interface_logger_plugins.settings import LogHandlerSettingsBase


def _file_setting(help_text: str):
    """A setting naming a file: `--logger-emusim-NAME FILE`, never from the environment."""
    return field(
        default=None,
        metadata={
            "help": help_text,
            "type": str,  # for argparse: the annotation is a string here
            "metavar": "FILE",
            "env_var": False,
            "required": False,
        },
    )


@dataclass
class LogHandlerSettings(LogHandlerSettingsBase):
    plan: str | None = _file_setting(
        "the jobs with their expected costs that `emusim plan --save FILE` wrote for this run: "
        "each job's own estimate from the start"
    )
    write_jobs: str | None = _file_setting(
        "write every job Snakemake logs (in a dry run: every job it would run) to this JSON file"
    )


_COUNTED = (
    LogEvent.RUN_INFO,
    LogEvent.RESOURCES_INFO,
    LogEvent.JOB_INFO,
    LogEvent.JOB_FINISHED,
    LogEvent.PROGRESS,
)
"""The events that change the progress."""


def _cores(resources: dict) -> int | None:
    """The cores Snakemake was given (its `_cores` resource), or None."""
    value = getattr(resources.get("_cores"), "value", resources.get("_cores"))
    return value if isinstance(value, int) and value > 0 else None


class LogHandler(LogHandlerBase):
    """Snakemake's text output with the remaining cost after each progress line."""

    def __post_init__(self) -> None:
        from snakemake.logging import ColorizingTextHandler, DefaultFilter

        s = self.common_settings
        self._text = ColorizingTextHandler(
            nocolor=s.nocolor, stream=sys.stdout if s.stdout else sys.stderr
        )
        self._shown = DefaultFilter(s.quiet, s.debug_dag, s.verbose, s.dryrun, s.printshellcmds)
        self._plan, self._plan_error = None, None
        if self.settings is not None and self.settings.plan:
            try:
                self._plan = json.loads(Path(self.settings.plan).read_text())
            except (OSError, ValueError) as err:  # the run goes on; its line says why
                self._plan_error = f"{self.settings.plan}: {err}"
        self._progress = None
        self._cores = os.cpu_count() or 1
        self._jobs: list[dict] | None = (
            [] if self.settings is not None and self.settings.write_jobs else None
        )

    # Snakemake's text goes through this handler alone (it writes to the stream), through its
    # own filter, so that the events of jobs it does not show still count. The base class
    # declares these as abstract properties; class attributes answer them.
    writes_to_stream = True
    writes_to_file = False
    has_filter = True
    has_formatter = False
    needs_rulegraph = False

    def _started(self):
        """The progress, made at the first event of the run: by then the Snakefile has set
        EMUSIM_ROOT (the checkout it reads, emusim.core.paths), so emusim is imported no earlier."""
        if self._progress is None:
            from emusim.planning import costs, progress

            # kept runs only add estimates: the repository's archive, whatever config says
            self._progress = progress.Progress(
                lambda scale: costs.load(scale, archive=Path("data/archive")), self._plan
            )
            if self._plan_error:
                self._progress.why_not_plan = self._plan_error
        return self._progress

    def _observe(self, record) -> str | None:
        """Update the progress from one record; the line to print after it, if any."""
        event = getattr(record, "event", None)
        if event not in _COUNTED:
            return None
        if event == LogEvent.RUN_INFO:
            self._started().planned(getattr(record, "stats", {}))
        elif event == LogEvent.RESOURCES_INFO:
            self._cores = _cores(getattr(record, "provided_resources", None) or {}) or self._cores
        elif event == LogEvent.JOB_INFO:
            rule, benchmark = record.rule_name, getattr(record, "benchmark", None)
            outputs = list(getattr(record, "output", None) or [])
            if self._jobs is not None:
                self._jobs.append({"rule": rule, "benchmark": benchmark, "output": outputs})
            self._started().started(record.jobid, rule, benchmark, outputs)
        elif event == LogEvent.JOB_FINISHED:
            self._started().finished(record.job_id)
        elif event == LogEvent.PROGRESS and not self.common_settings.dryrun:
            return self._started().line(record.done, record.total, self._cores)
        return None

    def emit(self, record) -> None:
        try:
            after = self._observe(record)
        except Exception as err:  # an estimate must never stop the workflow
            after = f"emusim: no estimate of what remains: {type(err).__name__}: {err}"
        if not self._shown.filter(record):
            return
        if self._text.formatter is None:
            self._text.setFormatter(self.formatter)
        self._text.emit(record)
        if after:
            self._text.stream.write(after + "\n")
            self._text.flush()

    def close(self) -> None:
        if self._jobs is not None:
            path = Path(self.settings.write_jobs)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(json.dumps({"jobs": self._jobs}) + "\n")
            tmp.replace(path)
            self._jobs = None
        super().close()
