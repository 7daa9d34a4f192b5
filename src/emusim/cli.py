"""emusim's command line: the study's scenarios, profiles and results for people.

    emusim list scenarios|profiles|variants|backends
    emusim validate FILE...
    emusim points SCENARIO
    emusim run SCENARIO [--backend ns3|mininet|testbed] [--point ID] [-n]
    emusim show RUN_JSON
    emusim paper

Every verb is a thin layer over what exists: the listings and checks call the package
(emusim.scenario, emusim.profiles, emusim.variants), and `run` and `paper` run Snakemake on the
workflow's own targets in the repository root, printing the command first: whatever it runs
can be run with `snakemake` alone (docs/cli.md).

Exit status: 0 on success, 1 on a failure (an invalid scenario, a failed Snakemake run, a file
that is not a run JSON), 2 on a usage error (an unknown verb, scenario, point or option).
"""

from __future__ import annotations

import argparse
import json
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

from emusim import paths
from emusim.linux.tcp import MININET_PROFILES

EXIT_FAILURE = 1
EXIT_USAGE = 2

RUN_BACKENDS = ("ns3", "mininet", "testbed")
"""What `emusim run` runs: ns-3, Mininet, or the hardware backend on a testbed over SSH (the
2001 measurements are data, not something to run)."""


class UsageError(Exception):
    """Bad input on the command line: exit status 2."""


class Failure(Exception):
    """Something the command line asked for failed: exit status 1."""


# --- helpers ----------------------------------------------------------------------------------


def _config() -> dict[str, Any]:
    """config/config.yaml, what `snakemake` reads unless --config overrides it."""
    path = paths.CONFIG_DIR / "config.yaml"
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as err:
        raise Failure(f"{path}: {err}") from None
    return data if isinstance(data, dict) else {}


def _scale(args: argparse.Namespace) -> str:
    """--scale, else config.yaml's `scale` (what `snakemake all` runs)."""
    return args.scale or _config().get("scale", "paper")


def _prefix(scale: str) -> str:
    """Where a scale writes (emusim.paths.scale_prefix, as the workflow's PREFIX)."""
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
    from emusim import profiles

    try:
        return set(profiles.registry())
    except (OSError, ValueError, yaml.YAMLError) as err:
        raise Failure(f"the TCP profile registry: {err}") from None


def _scenario_path(arg: str) -> Path:
    """A scenario name of scenarios/ or a path to a .yaml file, as a path; UsageError else."""
    from emusim import scenario as sc

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
    """emusim.scenario.load with the profile registry's names; Failure with its message."""
    from emusim import scenario as sc

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


def _run_snakemake(
    targets: list[str], config: list[str], args: argparse.Namespace, extra: list[str]
) -> int:
    """Run snakemake on `targets` in the repository root, printing the command first."""
    root = paths.REPO_ROOT
    if not (root / "Snakefile").exists():
        raise Failure(f"{root}: no Snakefile (EMUSIM_ROOT names the checkout to run in)")
    cmd = [str(_snakemake()), *targets, "--cores", str(args.cores)]
    if args.dry_run:
        cmd.append("-n")
    # extra arguments before --config: its values run to the next option
    cmd += [*extra, "--config", *config, *args.config]
    # the workflow and its jobs import the same emusim as this command
    src = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ)
    given = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([src, *given]))
    shown = f"PYTHONPATH={shlex.quote(env['PYTHONPATH'])} {shlex.join(cmd)}"
    print(f"+ cd {shlex.quote(str(root))} && {shown}", flush=True)
    proc = subprocess.Popen(cmd, cwd=root, env=env)
    try:
        code = proc.wait()
    except KeyboardInterrupt:  # snakemake got the same SIGINT: let it finish its cleanup
        code = proc.wait()
        return 130
    return 0 if code == 0 else EXIT_FAILURE


# --- list -------------------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace, extra: list[str]) -> int:
    return {
        "scenarios": _list_scenarios,
        "profiles": _list_profiles,
        "variants": _list_variants,
        "backends": _list_backends,
        "studies": _list_studies,
    }[args.what](args)


def _list_scenarios(args: argparse.Namespace) -> int:
    from emusim import scenario as sc

    scale = _scale(args)
    config = _config()
    left_out = set((config.get("leave_out") or {}).get(scale) or [])
    known, rows, status = _known_profiles(), [], 0
    for name in sc.scenario_names():
        try:
            s = sc.load(name, scale, known)
        except sc.ScenarioError as err:
            rows.append([name, "INVALID", "-", "-", "-", "-", str(err)])
            status = EXIT_FAILURE
            continue
        note = " (left out of `all` at this scale: config leave_out)" if name in left_out else ""
        rows.append(
            [
                name,
                s.workload_kind,
                len(s.points),
                s.repetitions,
                s.axes or "-",
                s.profiles,
                _first_sentence(s.settings["description"]) + note,
            ]
        )
    print(f"scale {scale}: points and repetitions of each scenario (emusim points NAME)")
    _table(["scenario", "workload", "points", "reps", "axes", "profiles", "description"], rows)
    return status


def _list_studies(args: argparse.Namespace) -> int:
    from emusim import scenario as sc
    from emusim import studies

    scale = _scale(args)
    known = _known_profiles()
    claimed: dict[str, list[str]] = {name: [] for name in studies.registry()}
    unclaimed = []
    for name in sc.scenario_names():
        try:
            owners = studies.claimed_by(sc.load(name, scale, known))
        except sc.ScenarioError:
            continue  # `emusim list scenarios` names the invalid ones
        for owner in owners:
            claimed[owner].append(name)
        if not owners:
            unclaimed.append(name)
    rows = [
        [
            s.name,
            _shown(paths.REPO_ROOT / "workflow" / "rules" / "studies" / f"{s.name}.smk"),
            f"paper/{s.section}.tex",
            claimed[s.name] or "-",
            s.title,
        ]
        for s in studies.registry().values()
    ]
    print("studies (src/emusim/studies/; docs/adding-a-study.md), in the paper's order")
    _table(["study", "rules", "section", "scenarios", "what it is"], rows)
    if unclaimed:
        print(
            f"scenarios no study presents (a generic figure and an appendix entry each): "
            f"{', '.join(unclaimed)}"
        )
    return 0


def _list_profiles(args: argparse.Namespace) -> int:
    from emusim import profiles

    _known_profiles()  # the registry's error, if it has one
    rows = [
        [
            name,
            len(p.parameters),
            "ns3, mininet, hardware" if name in MININET_PROFILES else "ns3",
            _first_sentence(p.description),
        ]
        for name, p in profiles.registry().items()
    ]
    print(f"TCP profiles ({profiles.PROFILES_PATH.relative_to(paths.REPO_ROOT)})")
    _table(["profile", "parameters", "backends", "what it is"], rows)
    steps = profiles.ablation()
    if steps:
        print(
            f"\nthe calibration ablation: {len(steps)} steps from {steps[0].profile.name} to "
            f"{steps[-1].profile.name} (profiles {profiles.ABLATION_PREFIX}NN between them)"
        )
    return 0


def _list_variants(args: argparse.Namespace) -> int:
    from emusim import variants

    try:
        reg = variants.registry()
    except variants.VariantError as err:
        raise Failure(str(err)) from None
    rows = []
    for name, v in reg.items():
        linux = None
        if v.linux is not None:
            linux = v.linux.congestion_control + (f" ({v.linux.module})" if v.linux.module else "")
        elif v.models is not None:
            linux = f"{v.models}'s runs"
        ns3 = None
        if v.ns3 is not None:
            ns3 = variants.LINUX_IN_NS3 if v.ns3.linux_code else v.ns3.type_id
        rows.append([name, ns3, linux, _one_line(v.description)])
    print(
        f"TCP variants ({variants.VARIANTS_PATH.relative_to(paths.REPO_ROOT)}); "
        "'-': that side has none and skips the variant's points; ns-3 'linux': Linux's own "
        "module compiled into ns-3 (docs/linux-cc.md); linux 'NAME's runs': ns-3's own model "
        "of NAME, compared with the emulation's runs of NAME"
    )
    _table(["variant", "ns-3 class", "linux (module)", "description"], rows)
    return 0


def _list_backends(args: argparse.Namespace) -> int:
    from emusim.workloads import udp_flood

    config = _config()
    configured = config.get("backends") or []
    hardware = config.get("hardware") or {}
    source = hardware.get("source", "reference")
    inventory = hardware.get("inventory") or "config/testbed.yaml"
    built = (paths.BUILD_DIR / "ns3" / "testbed-2001").exists()
    root = os.geteuid() == 0
    rows = [
        [
            "hardware",
            "hardware" in configured and source == "reference",
            "the 2001 report's measurements (data/reference/)",
            "results/hardware/SCENARIO.csv",
            "hardware.source: reference" if source == "reference" else "not the source",
        ],
        [
            "testbed",
            "hardware" in configured and source == "testbed",
            "the hardware backend on your three hosts over SSH (docs/testbed.md)",
            "results/hardware/SCENARIO/native/POINT/runK.json",
            f"inventory {inventory}: "
            + ("found" if (paths.REPO_ROOT / inventory).exists() else "missing"),
        ],
        [
            "ns3",
            "ns3" in configured,
            "ns-3 3.44 simulation (sim/ns3/, build/ns3/)",
            "results/ns3/SCENARIO/PROFILE/POINT/runK.json",
            "programs built" if built else "programs not built yet (the workflow builds them)",
        ],
        [
            udp_flood.MODEL_BACKEND,
            "ns3" in configured and "mininet" in configured,
            "ns-3 with the router processing model fitted to Mininet (router-forwarding)",
            f"results/{udp_flood.MODEL_BACKEND}/SCENARIO/PROFILE/POINT/runK.json",
            "derived: needs ns3 and mininet",
        ],
        [
            "mininet",
            "mininet" in configured,
            "real Linux TCP in Mininet, here or in a VM; one batch per scenario and profile",
            "results/mininet/SCENARIO/PROFILE/batch.json, …/POINT/runK.json",
            "you are root (on the host it needs root)"
            if root
            else "not root: in a VM only (mininet.place auto or vm)",
        ],
    ]
    print(f"backends (config/config.yaml: backends {configured}, hardware.source {source})")
    _table(["backend", "configured", "what", "results (paper scale)", "status"], rows)
    print("\nemusim run --backend " + "|".join(RUN_BACKENDS) + " runs one of them on a scenario")
    return 0


# --- validate ---------------------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace, extra: list[str]) -> int:
    from emusim import scenario as sc
    from emusim.backends.ns3 import command as ns3

    files = args.files or [_shown(p) for p in sorted(paths.SCENARIO_DIR.glob("*.yaml"))]
    known, bad = _known_profiles(), 0
    for arg in files:
        try:
            path = _scenario_path(arg)
        except UsageError as err:
            print(f"{arg}: invalid: {str(err).removeprefix(f'{arg}: ')}")
            bad += 1
            continue
        try:
            loaded = [sc.load(path, scale, known) for scale in sc.SCALES]
            # what the workflow checks too when ns-3 runs: a topology its programs build
            ns3.check_topology(loaded[0])
        except (sc.ScenarioError, ValueError) as err:
            print(f"{arg}: invalid: {str(err).removeprefix(f'{path}: ')}")
            bad += 1
            continue
        counts = ", ".join(f"{s.scale} {len(s.points)}" for s in loaded)
        print(f"{arg}: ok (points at scale {counts})")
    if bad:
        print(f"{bad} of {len(files)} invalid")
    return EXIT_FAILURE if bad else 0


# --- points -----------------------------------------------------------------------------------


def cmd_points(args: argparse.Namespace, extra: list[str]) -> int:
    scale = _scale(args)
    s = _load(args.scenario, scale)
    if args.ids:
        for p in s.points:
            print(p.id)
        return 0
    print(f"{s.name} ({_shown(s.path)}) at scale {scale}:")
    print(textwrap.indent(textwrap.fill(_one_line(s.settings["description"]), 96), "  "))
    print(
        f"{len(s.points)} point{'s' if len(s.points) != 1 else ''}; "
        f"profiles {', '.join(s.profiles)}; {s.repetitions} "
        "repetitions of a point that draws random numbers (ns-3 runs one without them once, "
        "unless its profile draws some)\n"
    )
    rows = [
        [i, p.id, *(p.values[a] for a in s.axes), "yes" if p.is_random else "no"]
        for i, p in enumerate(s.points, 1)
    ]
    _table(["#", "point", *s.axes, "random"], rows, wrap_last=False)
    return 0


# --- run and paper ----------------------------------------------------------------------------


def _ns3_runs(s, points, profile_names: list[str], results: str) -> list[str]:
    """The run JSONs of `points` (workflow/rules/common.smk, ns3_run_paths): each profile, the
    repetitions ns-3 simulates (emusim.backends.ns3.command.scenario_repetitions), no point of a
    variant ns-3 lacks."""
    from emusim import profiles, variants
    from emusim.backends.ns3 import command as ns3
    from emusim.runjson import run_path

    repeat = bool((_config().get("ns3") or {}).get("repeat_deterministic", False))
    runs, kept = [], []
    for point in points:
        if point.variant is not None:
            why = variants.not_implemented(variants.get(point.variant), "ns3")
            if why:
                print(f"emusim: point {point.id}: {why}", file=sys.stderr)
                continue
        kept.append(point)
    if not kept:
        raise UsageError("ns-3 runs none of the points asked for (see above)")
    for name in profile_names:
        profile = profiles.get(name)
        for point in kept:
            reps = ns3.scenario_repetitions(s, point, profile, s.repetitions, repeat)
            runs += [str(run_path(results, "ns3", s.name, name, point.id, k)) for k in reps]
    return runs


def _testbed_config(args: argparse.Namespace) -> list[str]:
    """--config items that point the hardware backend at a testbed."""
    if args.inventory:
        inventory = Path(args.inventory).resolve()  # snakemake runs in the repository root
        if not inventory.is_file():
            raise UsageError(f"--inventory {args.inventory}: no such file")
        return [f"hardware={{source: testbed, inventory: {inventory}}}"]
    hardware = _config().get("hardware") or {}
    if hardware.get("source") == "testbed":
        return []
    default = paths.CONFIG_DIR / "testbed.yaml"
    if default.is_file():
        return [f"hardware={{source: testbed, inventory: {default.relative_to(paths.REPO_ROOT)}}}"]
    raise UsageError(
        "--backend testbed needs the testbed's inventory: --inventory FILE, or "
        "config/testbed.yaml (a copy of config/testbed.example.yaml; docs/testbed.md)"
    )


def run_targets(args: argparse.Namespace, name: str, scale: str) -> tuple[list[str], list[str]]:
    """Snakemake's targets and --config items for `emusim run` (no side effects)."""
    results = f"{_prefix(scale)}results"
    backend = args.backend
    # This backend only, this scenario only: the workflow then loads and checks only what
    # they need (no root without the emulation), and a scenario that config `leave_out` keeps
    # out of `all` at this scale runs when it is named.
    config = [
        f"scale={scale}",
        f"backends=[{'hardware' if backend == 'testbed' else backend}]",
        f"scenarios=[{name}]",
    ]
    s = _load(name, scale)
    if args.profile:
        unknown = [p for p in args.profile if p not in s.profiles]
        if unknown:
            raise UsageError(
                f"scenario {name} has no profile {', '.join(map(repr, unknown))}; its profiles: "
                + ", ".join(s.profiles)
            )
    if backend == "ns3":
        if not args.point and not args.profile:
            return [f"{results}/ns3/{name}.csv"], config
        ids = {p.id for p in s.points}
        unknown = [p for p in args.point or [] if p not in ids]
        if unknown:
            raise UsageError(
                f"scenario {name} has no point {', '.join(map(repr, unknown))} at scale "
                f"{scale}; its points: `emusim points {name} --scale {scale}`"
            )
        points = [p for p in s.points if not args.point or p.id in args.point]
        return _ns3_runs(s, points, args.profile or s.profiles, results), config
    if args.point:
        raise UsageError(
            f"--point is for --backend ns3: {backend} runs a scenario's points together, in one "
            "batch (it resumes: a rerun does only the missing runs)"
        )
    if backend == "mininet":
        if not args.profile:
            return [f"{results}/mininet/{name}.csv"], config
        no_linux = [p for p in args.profile if p not in MININET_PROFILES]
        if no_linux:
            raise UsageError(
                f"profile {', '.join(no_linux)} has no Linux meaning; Mininet runs "
                + ", ".join(MININET_PROFILES)
            )
        return [f"{results}/mininet/{name}/{p}/batch.json" for p in args.profile], config
    if args.profile:
        raise UsageError("--profile is for ns3 and mininet: a testbed runs its own kernels")
    return [f"{results}/hardware/{name}.csv"], config + _testbed_config(args)


def cmd_run(args: argparse.Namespace, extra: list[str]) -> int:
    scale = _scale(args)
    name = _workflow_name(args.scenario)
    targets, config = run_targets(args, name, scale)
    code = _run_snakemake(targets, config, args, extra)
    if code == 0 and not args.dry_run:
        made = [_shown(paths.REPO_ROOT / t) for t in targets]
        shown = made if len(made) <= 5 else [*made[:4], f"… ({len(made)} files)"]
        print("done: " + "\n      ".join(shown))
        if made[0].endswith(".json") and not made[0].endswith("batch.json"):
            print(f"      emusim show {shlex.quote(made[0])}")
    return code


def cmd_paper(args: argparse.Namespace, extra: list[str]) -> int:
    scale = _scale(args)
    code = _run_snakemake(["paper"], [f"scale={scale}"], args, extra)
    if code == 0 and not args.dry_run:
        print(f"done: {_shown(paths.REPO_ROOT / _prefix(scale) / 'paper/build/paper.pdf')}")
    return code


# --- show -------------------------------------------------------------------------------------


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


def _metric(value: Any) -> str:
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
        mean = sum(value) / len(value)
        return (
            f"{len(value)} values: mean {_number(mean)}, min {_number(min(value))}, "
            f"max {_number(max(value))}"
        )
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return _number(value)


ROLES = ("sender", "router", "router2", "receiver")
"""A testbed's hosts in the order of the path (a run JSON's keys are sorted)."""


def _by_role(hosts: dict) -> list[tuple[str, Any]]:
    return sorted(hosts.items(), key=lambda kv: ROLES.index(kv[0]) if kv[0] in ROLES else 9)


def _kernel(run: dict, prov: dict) -> str:
    kernel = prov.get("kernel_release")
    if isinstance(kernel, dict):
        return ", ".join(f"{role} {release}" for role, release in _by_role(kernel))
    if kernel:
        return str(kernel)
    if run.get("backend", "").startswith("ns3"):
        return f"none (simulated: ns-3 {(prov.get('ns3') or {}).get('version', '?')})"
    return "-"


def _clock(run: dict, prov: dict) -> str:
    if prov.get("clock"):
        shift = prov.get("icount_shift")
        return str(prov["clock"]) + (f" (icount shift {shift})" if shift is not None else "")
    hosts = ((prov.get("testbed") or {}).get("hosts")) or {}
    offsets = [
        f"{role} {h['clock_offset_ms']:+.3f} ms"
        for role, h in _by_role(hosts)
        if isinstance(h, dict) and h.get("clock_offset_ms") is not None
    ]
    if offsets:
        return "the controller's; host offsets " + ", ".join(offsets)
    if run.get("backend", "").startswith("ns3"):
        return "simulated time (ns-3)"
    return "-"


def _params(params: Any, point: Any) -> str:
    """A point's parameters in its ID's order (the scenario's axes), else the file's."""
    if not isinstance(params, dict):
        return _cell(params)
    order = [part.split("=", 1)[0] for part in str(point).split("+")]
    keys = sorted(params, key=lambda k: order.index(k) if k in order else len(order))
    return ", ".join(f"{k}={params[k]}" for k in keys) or "none (point base)"


SHOWN = (
    "git_revision",
    "kernel_release",
    "clock",
    "icount_shift",
    "scale",
    "one_way_delay_us",
    "dropper_impl",
    "place",
    "host",
    "wall_s",
    "command",
    "ns3",
    "testbed",
)


def cmd_show(args: argparse.Namespace, extra: list[str]) -> int:
    path = Path(args.run)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except OSError as err:
        raise Failure(f"{path}: {err}") from None
    try:
        run = json.loads(text)
    except json.JSONDecodeError as err:
        raise Failure(f"{path}: not JSON: {err}") from None
    missing = [
        k for k in ("scenario", "backend", "metrics") if not isinstance(run, dict) or k not in run
    ]
    if missing:
        raise Failure(
            f"{path}: not a run JSON (docs/results-schema.md): no key {', '.join(missing)}"
        )
    if args.json:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    prov = run.get("provenance") or {}
    ns3 = prov.get("ns3") if isinstance(prov.get("ns3"), dict) else {}
    print(f"run {path}")
    _table(
        ["", ""],
        [
            ["scenario", run.get("scenario")],
            ["point", run.get("point")],
            ["repetition", f"{run.get('repetition')} (seed {_cell(run.get('seed'))})"],
            ["status", run.get("status")],
        ],
    )
    print("\nmetrics")
    metrics = run["metrics"] if isinstance(run["metrics"], dict) else {}
    _table(["metric", "value"], [[k, _metric(v)] for k, v in metrics.items()])
    if "series" in run:
        series = run["series"] if isinstance(run["series"], dict) else {}
        samples = len(series.get("t_s") or [])
        print(f"series: {', '.join(series)} ({samples} samples; --json for them)")
    rows = [
        ["backend", run.get("backend")],
        ["profile", run.get("profile")],
        ["kernel release", _kernel(run, prov)],
        ["clock", _clock(run, prov)],
        ["git revision", prov.get("git_revision", "-")],
        ["parameters", _params(run.get("params"), run.get("point"))],
        ["scale", prov.get("scale", "-")],
    ]
    if "one_way_delay_us" in prov:
        rows.append(["one-way delay", f"{_number(prov['one_way_delay_us'])} µs"])
    if "dropper_impl" in prov:
        rows.append(["dropper", prov["dropper_impl"]])
    if "place" in prov or "host" in prov:
        rows.append(["place", prov.get("place") or prov.get("host")])
    if "wall_s" in prov:
        rows.append(["wall time", f"{_number(prov['wall_s'])} s"])
    if ns3:
        rows.append(["ns-3", ", ".join(f"{k} {_number(v)}" for k, v in ns3.items())])
    if isinstance(prov.get("testbed"), dict):
        hosts = (prov["testbed"].get("hosts")) or {}
        rows.append(
            ["testbed", ", ".join(f"{r} {h.get('hostname', '?')}" for r, h in _by_role(hosts))]
        )
    if isinstance(prov.get("command"), list):
        rows.append(["command", shlex.join(str(c) for c in prov["command"])])
    for key, value in prov.items():
        if key in SHOWN:
            continue
        if isinstance(value, (dict, list)):
            size = f"{len(value)} {'keys' if isinstance(value, dict) else 'items'}"
            rows.append([key, f"({size}; --json for them)"])
        else:
            rows.append([key, _number(value) if isinstance(value, float) else _cell(value)])
    print("\nprovenance")
    _table(None, rows)
    return 0


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


def _add_scale(p: argparse.ArgumentParser) -> None:
    from emusim.scenario import SCALES

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
        )
        + "\n\ndocs/cli.md has more.",
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")

    p = verbs.add_parser(
        "list",
        help="scenarios, TCP profiles, TCP variants or backends, as a table",
        description="List what the study knows: the scenarios of scenarios/, the TCP profiles "
        "of config/tcp_profiles.yaml, the TCP variants of config/tcp_variants.yaml, or the "
        "backends of config/config.yaml and the workflow.",
        formatter_class=_Formatter,
        epilog=_examples(
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
    p.set_defaults(func=cmd_list)

    p = verbs.add_parser(
        "validate",
        help="check scenario files at every scale",
        description="Load each scenario file at every scale (the default body and each of "
        "`scales:`) as the workflow does, and print ok or its first error: the file, the key, "
        "the value and what is accepted. Exit status 1 if any is invalid.",
        formatter_class=_Formatter,
        epilog=_examples(
            "emusim validate                      # every file of scenarios/",
            "emusim validate scenarios/random-drop.yaml my-scenario.yaml",
            "emusim validate random-drop          # a name of scenarios/ works too",
        ),
    )
    p.add_argument(
        "files", nargs="*", metavar="FILE", help="scenario files (default: scenarios/*.yaml)"
    )
    p.set_defaults(func=cmd_validate)

    p = verbs.add_parser(
        "points",
        help="a scenario's points: their IDs and parameters",
        description="The points of a scenario at a scale: each point's ID (the directory of its "
        "runs, and what `emusim run --point` takes) and its sweep values.",
        formatter_class=_Formatter,
        epilog=_examples(
            "emusim points random-drop",
            "emusim points lossy-link --scale quick",
            "emusim points regular-drop --ids     # IDs only, one a line",
        ),
    )
    p.add_argument("scenario", metavar="SCENARIO", help="a name of scenarios/, or a .yaml file")
    _add_scale(p)
    p.add_argument("--ids", action="store_true", help="print the point IDs only, one a line")
    p.set_defaults(func=cmd_points)

    p = verbs.add_parser(
        "run",
        help="run a scenario (or some of its points) on one backend, through Snakemake",
        description="Run Snakemake, in the repository root, on the targets of a scenario for one "
        "backend: with --point or --profile (ns3) the run JSONs "
        "(results/ns3/SCENARIO/PROFILE/POINT/runK.json), else the backend's table of the "
        "scenario (results/BACKEND/SCENARIO.csv; for testbed results/hardware/SCENARIO.csv). "
        "Passes --config scale=…, backends=[…] and scenarios=[SCENARIO]; other scales write "
        "under scales/SCALE/. The command is printed first. Arguments after `--` go to "
        "snakemake as they are. A rerun does only what is missing.",
        formatter_class=_Formatter,
        epilog=_examples(
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
    p.set_defaults(func=cmd_run)

    p = verbs.add_parser(
        "show",
        help="a run JSON's metrics and provenance, readable",
        description="Print one run (docs/results-schema.md): what ran (scenario, backend, "
        "profile, point, parameters), its metrics, and its provenance (kernel release, clock, "
        "git revision, ...).",
        formatter_class=_Formatter,
        epilog=_examples(
            "emusim show results/ns3/random-drop/linux-2.2/drop_rate=0.040/run3.json",
            "emusim show --json results/mininet/baseline-tcp/linux-2.2/base/run1.json",
        ),
    )
    p.add_argument("run", metavar="RUN_JSON")
    p.add_argument("--json", action="store_true", help="print the file's JSON as it is")
    p.set_defaults(func=cmd_show)

    p = verbs.add_parser(
        "paper",
        help="build the paper (snakemake paper)",
        description="Run Snakemake's `paper` target: the paper PDF with every number, figure and "
        "table generated from the results of the scale, running whatever they need "
        "(paper/build/paper.pdf; scales/SCALE/paper/build/paper.pdf). The command is printed "
        "first; arguments after `--` go to snakemake.",
        formatter_class=_Formatter,
        epilog=_examples(
            "emusim paper --scale quick -n",
            "emusim paper --scale quick -C 'backends=[hardware,ns3]'   # without the emulation",
        ),
    )
    _add_scale(p)
    _add_snakemake(p)
    p.set_defaults(func=cmd_paper)
    return parser


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
    if extra and args.verb not in ("run", "paper"):
        parser.error(
            f"arguments after `--` are for snakemake: emusim run or paper, not {args.verb}"
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


if __name__ == "__main__":
    sys.exit(main())
