"""The workflow's progress line (emusim.planning.progress) and the logger plugin that prints it
(snakemake_logger_plugin_emusim), fed the events Snakemake logs, against what remains worked
out by hand."""

import json
import logging
from types import SimpleNamespace

from snakemake.logging import DefaultFormatter
from snakemake_interface_logger_plugins.common import LogEvent

import snakemake_logger_plugin_emusim as plugin
from emusim.planning import costs, progress

TIMING = "scales/quick/logs/timing"


def _plan(*jobs):
    """A list as `emusim plan --save` writes it: (rule, timing, cpu_s, wall_s) per job."""
    return {
        "scale": "quick",
        "jobs": [
            {
                "rule": r,
                "timing": t,
                "output": f"out/{t}",
                "cpu_s": c,
                "wall_s": w,
                "how": costs.MEASURED if c is not None else costs.UNKNOWN,
            }
            for r, t, c, w in jobs
        ],
    }


def _no_book(scale):
    raise AssertionError(f"a plan that matches the run needs no cost book (asked for {scale})")


def test_with_the_plan_each_job_counts_at_its_own_estimate():
    plan = _plan(
        ("ns3_run", "ns3/x/p/a/run1", 100.0, 120.0),
        ("ns3_run", "ns3/x/p/b/run1", 50.0, 60.0),
        ("stats", "stats/x", None, None),
    )
    p = progress.Progress(_no_book, plan)
    p.planned({"ns3_run": 2, "stats": 1, "total": 3})
    p.started(1, "ns3_run", f"{TIMING}/ns3/x/p/a/run1.tsv", ["out/ns3/x/p/a/run1"])
    # a is running: 100 + 50 CPU-s = 0.042 h; wall (120 + 60) / 2 = 90 s, but a alone takes 120
    assert p.line(0, 3, 2) == (
        "0 of 3 jobs done; about 0.042 CPU-h (0.033 h on 2 cores) remain, and 1 job of unknown cost"
    )
    p.finished(1)
    # b: 50 CPU-s = 0.0139 h; its 60 wall-s on 2 cores: 60 s = 0.0167 h
    assert p.line(1, 3, 2) == (
        "1 of 3 jobs done; about 0.014 CPU-h (0.017 h on 2 cores) remain, and 1 job of unknown cost"
    )
    p.started(2, "ns3_run", f"{TIMING}/ns3/x/p/b/run1.tsv", ["out/ns3/x/p/b/run1"])
    p.started(3, "stats", f"{TIMING}/stats/x.tsv", ["out/stats/x"])
    p.finished(2)
    assert p.line(2, 3, 2) == "2 of 3 jobs done; the cost of the 1 job left is not known"
    p.finished(3)
    assert p.line(3, 3, 1) == "3 of 3 jobs done; about 0 CPU-h (0 h on 1 core) remain"


def _book(scale):
    assert scale == "quick"  # from the first job's benchmark file
    return costs.CostBook(
        [
            costs.Cost("ns3_run", "ns3/x/p/a/run1", 12.0, 10.0),
            costs.Cost("ns3_run", "ns3/x/p/b/run1", 32.0, 30.0),
        ]
    )


def test_without_a_plan_jobs_not_started_count_at_their_rule_median():
    p = progress.Progress(_book)
    p.planned({"ns3_run": 3, "total": 3})
    p.started(7, "ns3_run", f"{TIMING}/ns3/x/p/a/run1.tsv", ["out/a"])
    p.finished(7)
    # 2 jobs not started at the rule's medians, 20 CPU-s and 22 wall-s: 40 CPU-s = 0.0111 h;
    # 44 wall-s on 1 core = 0.0122 h
    assert p.line(1, 3, 1) == (
        "1 of 3 jobs done; about 0.011 CPU-h (0.012 h on 1 core) remain"
        " (jobs not started at their rule's median: no list of jobs (emusim plan --save))"
    )


def test_a_plan_of_other_jobs_is_not_used():
    plan = _plan(("ns3_run", "ns3/x/p/a/run1", 100.0, 120.0))
    p = progress.Progress(_book, plan)
    p.planned({"ns3_run": 3, "total": 3})  # the run has 3 jobs of ns3_run, the list 1
    assert not p.use_plan
    # 3 jobs at the rule's 20 CPU-s: 60 s = 0.0167 h; 66 wall-s on 2 cores, 33 s = 0.0092 h
    assert p.line(0, 3, 2) == (
        "0 of 3 jobs done; about 0.017 CPU-h (0.0092 h on 2 cores) remain (jobs not started at "
        "their rule's median: the list of emusim plan --save is not this run's jobs)"
    )


# --- the plugin, as Snakemake drives it -------------------------------------------------------


def _record(event, msg=None, **fields):
    record = logging.LogRecord("snakemake", logging.INFO, __file__, 0, msg, None, None)
    record.event = event
    record.__dict__.update(fields)
    return record


def _handler(tmp_path, dryrun=False, **settings):
    common = SimpleNamespace(
        nocolor=True,
        stdout=False,
        quiet=set(),
        debug_dag=False,
        verbose=False,
        dryrun=dryrun,
        printshellcmds=False,
        show_failed_logs=False,
    )
    handler = plugin.LogHandler(common, plugin.LogHandlerSettings(**settings))
    # what Snakemake's logger manager does for a handler without its own formatter
    handler.setFormatter(DefaultFormatter(common.quiet, common.show_failed_logs))
    return handler


def _job_info(jobid, rule, benchmark, output):
    return _record(
        LogEvent.JOB_INFO,
        f" Rule: {rule}, Jobid: {jobid}",
        jobid=jobid,
        rule_name=rule,
        benchmark=benchmark,
        output=[output],
        input=[],
        log=[],
        wildcards={},
        reason="",
        resources={},
        priority=0,
        threads=1,
        indent=False,
        is_checkpoint=False,
        printshellcmd=False,
        is_handover=False,
        shellcmd=None,
        local=False,
        rule_msg=None,
    )


def test_the_plugin_prints_snakemakes_progress_and_what_remains(tmp_path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            _plan(("ns3_run", "ns3/x/p/a/run1", 7200.0, 3600.0), ("stats", "stats/x", 36.0, 72.0))
        )
    )
    handler = _handler(tmp_path, plan=str(plan))
    handler.emit(
        _record(LogEvent.RUN_INFO, "Job stats: ...", stats={"ns3_run": 1, "stats": 1, "total": 2})
    )
    handler.emit(_job_info(4, "ns3_run", f"{TIMING}/ns3/x/p/a/run1.tsv", "out/ns3/x/p/a/run1"))
    handler.emit(_record(LogEvent.JOB_FINISHED, "Finished jobid: 4", job_id=4))
    handler.emit(_record(LogEvent.PROGRESS, done=1, total=2))
    err = capsys.readouterr().err
    # Snakemake's own line, then the plugin's: stats' 36 CPU-s (0.01 h), its 72 wall-s on this
    # machine's cores (a job alone: 72 s = 0.02 h)
    assert "1 of 2 steps (50%) done\n" in err
    assert "1 of 2 jobs done; about 0.01 CPU-h (0.02 h on " in err
    assert "rule ns3_run:" in err  # the job, as Snakemake shows it


def test_in_a_dry_run_the_plugin_writes_the_jobs(tmp_path, capsys):
    jobs = tmp_path / "jobs.json"
    handler = _handler(tmp_path, dryrun=True, write_jobs=str(jobs))
    handler.emit(_job_info(1, "ns3_run", f"{TIMING}/ns3/x/p/a/run1.tsv", "out/a.json"))
    handler.emit(_job_info(2, "all", None, "all"))
    handler.close()
    assert json.loads(jobs.read_text()) == {
        "jobs": [
            {
                "rule": "ns3_run",
                "benchmark": f"{TIMING}/ns3/x/p/a/run1.tsv",
                "output": ["out/a.json"],
            },
            {"rule": "all", "benchmark": None, "output": ["all"]},
        ]
    }


def test_a_plan_that_cannot_be_read_does_not_stop_the_run(tmp_path, capsys):
    handler = _handler(tmp_path, plan=str(tmp_path / "missing.json"))
    handler.emit(_record(LogEvent.RUN_INFO, "Job stats: ...", stats={"all": 1, "total": 1}))
    handler.emit(_record(LogEvent.PROGRESS, done=0, total=1))
    # `all` costs nothing; the line says why the list was not used
    assert "0 of 1 jobs done; about 0 CPU-h" in capsys.readouterr().err
    assert "missing.json: [Errno 2]" in handler._started().why_not_plan
