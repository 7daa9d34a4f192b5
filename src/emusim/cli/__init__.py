"""emusim's command line: the study's scenarios, profiles and results for people.

    emusim list scenarios|profiles|variants|backends|studies
    emusim validate FILE...
    emusim points SCENARIO
    emusim run SCENARIO [--backend ns3|mininet|testbed] [--point ID] [-n]
    emusim show RUN_JSON
    emusim paper
    emusim plan [TARGET...]
    emusim archive list|status|audit|renew|add|certify|restore ...

Every verb is a thin layer over what exists: the listings and checks call the package
(emusim.inputs.scenario, emusim.inputs.tcp_profiles, emusim.inputs.variants), and `run` and `paper`
run Snakemake on the workflow's own targets in the repository root, printing the command first:
whatever it runs can be run with `snakemake` alone (docs/cli.md); `plan` runs Snakemake's dry run
and prints what its jobs are expected to cost (emusim.planning.costs).

Exit status: 0 on success, 1 on a failure (an invalid scenario, a failed Snakemake run, a file
that is not a run JSON), 2 on a usage error (an unknown verb, scenario, point or option).

This module holds the parser and `main`; each verb is a module of its own (listing: list;
check: validate, points; run: run, paper; show: show; plan: plan), and what they share is `common`.
`python -m emusim.cli` runs `main` (__main__.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

from emusim.cli.check import cmd_points, cmd_validate
from emusim.cli.common import (
    EXIT_FAILURE,
    EXIT_USAGE,
    RUN_BACKENDS,
    Failure,
    UsageError,
)
from emusim.cli.listing import cmd_list
from emusim.cli.plan import cmd_plan
from emusim.cli.run import cmd_paper, cmd_run
from emusim.cli.show import cmd_show

# --- the parser -------------------------------------------------------------------------------


class _Formatter(argparse.HelpFormatter):
    """Wraps descriptions paragraph by paragraph; keeps indented lines (examples) as they are."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for para in text.split("\n\n"):
            lines = para.splitlines()
            if any(line.startswith(" ") for line in lines):
                out.append("\n".join(indent + line for line in lines))
            else:
                out.append(
                    textwrap.fill(
                        " ".join(para.split()),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                    )
                )
        return "\n\n".join(out)


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def _verb(
    verbs, name: str, func, help: str, description: str, examples: tuple[str, ...]
) -> argparse.ArgumentParser:
    """The parser of verb `name` (`func` runs it), its examples after its options."""
    p = verbs.add_parser(
        name,
        help=help,
        description=description,
        formatter_class=_Formatter,
        epilog=_examples(*examples),
    )
    p.set_defaults(func=func)
    return p


def _add_scale(p: argparse.ArgumentParser) -> None:
    from emusim.inputs.scenario import SCALES

    p.add_argument(
        "--scale",
        choices=SCALES,
        help="paper: the report's design; quick: the documented reduction "
        "(default: config/config.yaml's scale)",
    )


def _add_snakemake(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--cores", "-c", default="all", metavar="N", help="snakemake --cores (default: all)"
    )
    p.add_argument(
        "-n", "--dry-run", action="store_true", help="snakemake -n: what would run, and why"
    )
    _add_config(p)


def _add_config(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-C",
        "--config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="one more snakemake --config item (repeatable; config/README.md), after emusim's own",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="emusim",
        description=(
            "One network experiment on hardware, in Mininet and in ns-3, compared. Each verb is "
            "a thin layer over the package and the Snakemake workflow (`snakemake all` runs the "
            "whole study); `emusim VERB --help` for one."
        ),
        formatter_class=_Formatter,
        epilog=_examples(
            "emusim list scenarios --scale quick     # what there is to run",
            "emusim validate scenarios/*.yaml        # check scenario files",
            "emusim points random-drop --scale quick # a scenario's points",
            "emusim run random-drop --point drop_rate=0.02 --scale quick -n",
            "emusim run random-drop --scale quick    # every ns-3 run of it, collected",
            "emusim show scales/quick/results/ns3/random-drop/linux-2.2/drop_rate=0.02/run1.json",
            "emusim paper --scale quick              # the paper, from its results",
            "emusim plan --scale quick               # what all would run, and its CPU-hours",
        )
        + "\n\ndocs/cli.md has more.",
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")

    p = _verb(
        verbs,
        "list",
        cmd_list,
        help="scenarios, TCP profiles, TCP variants or backends, as a table",
        description="List what the study knows: the scenarios of scenarios/, the TCP profiles "
        "of config/tcp_profiles.yaml, the TCP variants of config/tcp_variants.yaml, or the "
        "backends of config/config.yaml and the workflow.",
        examples=(
            "emusim list scenarios               # at config.yaml's scale",
            "emusim list scenarios --scale quick",
            "emusim list profiles",
            "emusim list variants",
            "emusim list backends",
            "emusim list studies",
        ),
    )
    p.add_argument("what", choices=("scenarios", "profiles", "variants", "backends", "studies"))
    _add_scale(p)

    p = _verb(
        verbs,
        "validate",
        cmd_validate,
        help="check scenario files at every scale",
        description="Load each scenario file at every scale (the default body and each of "
        "`scales:`) as the workflow does, and print ok or its first error: the file, the key, "
        "the value and what is accepted. Exit status 1 if any is invalid.",
        examples=(
            "emusim validate                      # every file of scenarios/",
            "emusim validate scenarios/random-drop.yaml my-scenario.yaml",
            "emusim validate random-drop          # a name of scenarios/ works too",
        ),
    )
    p.add_argument(
        "files", nargs="*", metavar="FILE", help="scenario files (default: scenarios/*.yaml)"
    )

    p = _verb(
        verbs,
        "points",
        cmd_points,
        help="a scenario's points: their IDs and parameters",
        description="The points of a scenario at a scale: each point's ID (the directory of its "
        "runs, and what `emusim run --point` takes) and its sweep values.",
        examples=(
            "emusim points random-drop",
            "emusim points lossy-link --scale quick",
            "emusim points regular-drop --ids     # IDs only, one a line",
        ),
    )
    p.add_argument("scenario", metavar="SCENARIO", help="a name of scenarios/, or a .yaml file")
    _add_scale(p)
    p.add_argument("--ids", action="store_true", help="print the point IDs only, one a line")

    p = _verb(
        verbs,
        "run",
        cmd_run,
        help="run a scenario (or some of its points) on one backend, through Snakemake",
        description="Run Snakemake, in the repository root, on the targets of a scenario for one "
        "backend: with --point or --profile (ns3) the run JSONs "
        "(results/ns3/SCENARIO/PROFILE/POINT/runK.json), else the backend's table of the "
        "scenario (results/BACKEND/SCENARIO.csv; for testbed results/hardware/SCENARIO.csv). "
        "Passes --config scale=…, backends=[…] and scenarios=[SCENARIO]; other scales write "
        "under scales/SCALE/. The command is printed first. Arguments after `--` go to "
        "snakemake as they are. A rerun does only what is missing.",
        examples=(
            "emusim run random-drop --point drop_rate=0.02 --scale quick -n",
            "emusim run random-drop --point drop_rate=0.02 --profile linux-2.2 --scale quick",
            "emusim run random-drop --scale quick --cores 2",
            "emusim run baseline-tcp --backend mininet --scale quick       # in a VM",
            "emusim run random-drop --backend testbed --inventory config/testbed.yaml",
            "emusim run random-drop --scale quick -- --forcerun ns3_run    # to snakemake",
        ),
    )
    p.add_argument("scenario", metavar="SCENARIO", help="a name of scenarios/")
    p.add_argument("--backend", "-b", choices=RUN_BACKENDS, default="ns3", help="default: ns3")
    p.add_argument(
        "--point",
        "-p",
        action="append",
        metavar="ID",
        help="only this point (ns3; repeatable; IDs: emusim points SCENARIO)",
    )
    p.add_argument(
        "--profile",
        action="append",
        metavar="NAME",
        help="only this TCP profile of the scenario (ns3, mininet; repeatable)",
    )
    _add_scale(p)
    p.add_argument(
        "--inventory",
        metavar="FILE",
        help="with --backend testbed: the testbed's inventory (default: config.yaml's, "
        "else config/testbed.yaml)",
    )
    _add_snakemake(p)

    p = _verb(
        verbs,
        "show",
        cmd_show,
        help="a run JSON's metrics and provenance, readable",
        description="Print one run (docs/results-schema.md): what ran (scenario, backend, "
        "profile, point, parameters), its metrics, and its provenance (kernel release, clock, "
        "git revision, ...).",
        examples=(
            "emusim show results/ns3/random-drop/linux-2.2/drop_rate=0.040/run3.json",
            "emusim show --json results/mininet/baseline-tcp/linux-2.2/base/run1.json",
        ),
    )
    p.add_argument("run", metavar="RUN_JSON")
    p.add_argument("--json", action="store_true", help="print the file's JSON as it is")

    p = _verb(
        verbs,
        "paper",
        cmd_paper,
        help="build the paper (snakemake paper)",
        description="Run Snakemake's `paper` target: the paper PDF with every number, figure and "
        "table generated from the results of the scale, running whatever they need "
        "(paper/build/paper.pdf; scales/SCALE/paper/build/paper.pdf). The command is printed "
        "first; arguments after `--` go to snakemake.",
        examples=(
            "emusim paper --scale quick -n",
            "emusim paper --scale quick -C 'backends=[hardware,ns3]'   # without the emulation",
        ),
    )
    _add_scale(p)
    _add_snakemake(p)

    p = _verb(
        verbs,
        "plan",
        cmd_plan,
        help="what Snakemake would run, and its expected CPU-hours per rule",
        description="Run Snakemake's dry run on the targets (default: all) and print, per rule, "
        "the jobs it would run, how many have a measured cost (data/costs/SCALE.csv, the "
        "scale's benchmark files logs/timing, the run archive's kept runs), how many an "
        "estimate from like jobs, how many none, and the expected CPU-hours and wall hours "
        "on --cores. Jobs of unknown cost are counted apart, never guessed. A kept run that "
        "is restored (ns3_restore) costs nothing. While the study runs, finished jobs drop "
        "out: run it in another terminal to see what remains. The command is printed first; "
        "arguments after `--` go to snakemake.",
        examples=(
            "emusim plan --scale quick                     # snakemake all at quick scale",
            "emusim plan                                   # the paper scale",
            "emusim plan results/stats/random-drop.csv --cores 8",
            "emusim plan --scale quick --save plan.json    # for snakemake --logger emusim",
        ),
    )
    p.add_argument("targets", nargs="*", metavar="TARGET", help="snakemake targets (default: all)")
    _add_scale(p)
    p.add_argument(
        "--cores",
        "-c",
        default="all",
        metavar="N",
        help="the cores the wall hours are for, also given to snakemake (default: all, "
        "this machine's)",
    )
    _add_config(p)
    p.add_argument(
        "--save",
        metavar="FILE",
        help="also write the jobs with their estimates to FILE, for the workflow's progress "
        "line (snakemake --logger emusim --logger-emusim-plan FILE)",
    )

    p = _verb(
        verbs,
        "archive",
        cmd_archive,
        help="the run archive: kept runs, whether this checkout's code made them, an audit",
        description="The run archive of long runs kept in the repository (data/archive, "
        "docs/archive.md): `python -m emusim.infra.archive` with the same verbs. list: every "
        "kept run with its revision and cost; status: which kept runs this checkout's code made "
        "(fresh, restored) and which not (stale, made again), with why; audit: make N kept "
        "ns-3 runs again and compare them byte for byte; renew: make the stale kept ns-3 runs "
        "again with this code and keep those made the same; add: keep finished runs; certify: give "
        "kept runs without one the code identity of their revision.",
        examples=(
            "emusim archive status",
            "emusim archive list",
            "emusim archive audit --sample 3 --seed 1",
            "emusim archive renew --scenario lossy-link",
            "emusim archive add results/ns3/multiflow-buffer/linux-6.1-wan/variant=bbr/run1.json",
        ),
    )
    p.add_argument(
        "archive_args",
        nargs=argparse.REMAINDER,
        metavar="VERB [ARG...]",
        help="list | status | audit | renew | add | certify | restore, and their arguments",
    )
    return parser


def cmd_archive(args: argparse.Namespace, extra: list[str]) -> int:
    """`emusim archive VERB ...`: emusim.infra.archive's own command line."""
    from emusim.infra import archive

    if not args.archive_args:
        raise UsageError("name what to do: list, status, audit, add, certify or restore")
    return archive.main(args.archive_args)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verb is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    if extra and args.verb not in ("run", "paper", "plan"):
        parser.error(
            f"arguments after `--` are for snakemake: emusim run, paper or plan, not {args.verb}"
        )
    try:
        return args.func(args, extra)
    except UsageError as err:
        print(f"emusim {args.verb}: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except Failure as err:
        print(f"emusim {args.verb}: {err}", file=sys.stderr)
        return EXIT_FAILURE
    except BrokenPipeError:  # `emusim list scenarios | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
