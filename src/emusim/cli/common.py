"""What every verb of the command line shares: its errors and exit statuses, config.yaml, the
scale, a printed table, a scenario by name or file, a Snakemake run."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import yaml

import emusim
from emusim.core import paths, yaml_text

EXIT_FAILURE = 1
EXIT_USAGE = 2

RUN_BACKENDS = ("ns3", "mininet", "testbed")
"""What `emusim run` runs: ns-3, Mininet, or the hardware backend on a testbed over SSH (the
2001 measurements are data, not something to run)."""


class UsageError(Exception):
    """Bad input on the command line: exit status 2."""


class Failure(Exception):
    """Something the command line asked for failed: exit status 1."""


def _config() -> dict[str, Any]:
    """config/config.yaml, what `snakemake` reads unless --config overrides it."""
    path = paths.CONFIG_DIR / "config.yaml"
    try:
        data = yaml_text.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as err:
        raise Failure(f"{path}: {err}") from None
    return data if isinstance(data, dict) else {}


def _scale(args: argparse.Namespace) -> str:
    """--scale, else config.yaml's `scale` (what `snakemake all` runs)."""
    return args.scale or _config().get("scale", "paper")


def _prefix(scale: str) -> str:
    """Where a scale writes (emusim.core.paths.scale_prefix, as the workflow's PREFIX)."""
    return paths.scale_prefix(scale)


def _shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _first_sentence(text: str) -> str:
    """The first sentence of a description, for a table cell."""
    text = _one_line(text)
    match = re.match(r"(.+?[.!?])(?=\s+[A-Z(]|$)", text)
    return match.group(1) if match else text


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or "-"
    return str(value)


def _table(headers: list[str] | None, rows: list[list[Any]], wrap_last: bool = True) -> None:
    """Print an aligned table (without a header row if `headers` is None); on a terminal the
    last column wraps to the terminal's width."""
    cells = [[_cell(c) for c in row] for row in rows]
    width = len(headers) if headers else len(cells[0]) if cells else 0
    if not width:
        return
    headers = headers or [""] * width
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    room = shutil.get_terminal_size().columns - sum(widths[:-1]) - 2 * (len(widths) - 1)
    wrap = wrap_last and sys.stdout.isatty() and 20 <= room < widths[-1]
    if wrap:
        widths[-1] = room
    indent = " " * (sum(widths[:-1]) + 2 * (len(widths) - 1))

    def line(row: list[str]) -> str:
        head = "  ".join(c.ljust(w) for c, w in zip(row[:-1], widths[:-1], strict=True))
        last = (textwrap.wrap(row[-1], room) or [""]) if wrap else [row[-1]]
        text = (head + "  " if len(row) > 1 else "") + last[0]
        return "\n".join([text.rstrip()] + [(indent + x).rstrip() for x in last[1:]])

    if any(headers):
        print(line(headers))
        rule = [*widths[:-1], min(widths[-1], max(len(headers[-1]), 40))]
        print("  ".join("-" * w for w in rule))
    for row in cells:
        print(line(row))


def _known_profiles() -> set[str]:
    from emusim.inputs import tcp_profiles

    try:
        return set(tcp_profiles.registry())
    except (OSError, ValueError, yaml.YAMLError) as err:
        raise Failure(f"the TCP profile registry: {err}") from None


def _scenario_path(arg: str) -> Path:
    """A scenario name of scenarios/ or a path to a .yaml file, as a path; UsageError else."""
    from emusim.inputs import scenario as sc

    path = Path(arg)
    if arg.endswith((".yaml", ".yml")) or os.sep in arg:
        if not path.is_file():
            raise UsageError(f"{arg}: no such file")
        if path.suffix != ".yaml":
            raise UsageError(f"{arg}: a scenario file's name ends in .yaml")
        return path
    names = sc.scenario_names()
    if arg not in names:
        raise UsageError(f"unknown scenario {arg!r}; known (scenarios/*.yaml): {', '.join(names)}")
    return paths.SCENARIO_DIR / f"{arg}.yaml"


def _load(arg: str | Path, scale: str):
    """emusim.inputs.scenario.load with the profile registry's names; Failure with its message."""
    from emusim.inputs import scenario as sc

    path = arg if isinstance(arg, Path) else _scenario_path(arg)
    try:
        return sc.load(path, scale, _known_profiles())
    except sc.ScenarioError as err:
        raise Failure(str(err)) from None


def _workflow_name(arg: str) -> str:
    """The name of a scenario the workflow runs: a file of scenarios/ or its name."""
    path = _scenario_path(arg)
    if path.resolve().parent != paths.SCENARIO_DIR.resolve():
        raise UsageError(
            f"{arg}: the workflow runs the scenarios of {paths.SCENARIO_DIR}; copy the file "
            "there and give its name"
        )
    return path.stem


def _snakemake() -> Path:
    """The snakemake of this Python's environment (the one next to sys.executable)."""
    exe = Path(sys.executable).parent / "snakemake"
    if not exe.exists():
        raise Failure(
            f"no snakemake next to {sys.executable}; install the project's environment "
            "(tools/setup, or `pip install -e .`)"
        )
    return exe


def _snakemake_call(
    targets: list[str],
    config: list[str],
    args: argparse.Namespace,
    extra: list[str],
    options: tuple[str, ...] = (),
) -> tuple[list[str], dict[str, str]]:
    """The snakemake command on `targets` (with `options`, then `extra`, then the --config
    items) and its environment, printed first as it will run in the repository root."""
    root = paths.REPO_ROOT
    if not (root / "Snakefile").exists():
        raise Failure(f"{root}: no Snakefile (EMUSIM_ROOT names the checkout to run in)")
    cmd = [str(_snakemake()), *targets, "--cores", str(args.cores)]
    if getattr(args, "dry_run", False):
        cmd.append("-n")
    # extra arguments before --config: its values run to the next option
    cmd += [*options, *extra, "--config", *config, *args.config]
    # the workflow and its jobs import the same emusim as this command (and Snakemake finds
    # its logger plugin, snakemake_logger_plugin_emusim, beside it)
    src = str(Path(emusim.__file__).resolve().parents[1])
    env = dict(os.environ)
    given = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([src, *given]))
    shown = f"PYTHONPATH={shlex.quote(env['PYTHONPATH'])} {shlex.join(cmd)}"
    print(f"+ cd {shlex.quote(str(root))} && {shown}", flush=True)
    return cmd, env


def _run_snakemake(
    targets: list[str], config: list[str], args: argparse.Namespace, extra: list[str]
) -> int:
    """Run snakemake on `targets` in the repository root, printing the command first."""
    cmd, env = _snakemake_call(targets, config, args, extra)
    proc = subprocess.Popen(cmd, cwd=paths.REPO_ROOT, env=env)
    try:
        code = proc.wait()
    except KeyboardInterrupt:  # snakemake got the same SIGINT: let it finish its cleanup
        code = proc.wait()
        return 130
    return 0 if code == 0 else EXIT_FAILURE
