"""The command line (emusim.cli): every verb run as a person runs it, against the real
scenarios, registries and workflow (`run --dry-run` runs `snakemake -n` in the repository)."""

import importlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p.stem for p in (REPO / "scenarios").glob("*.yaml"))
VERBS = ("list", "validate", "points", "run", "show", "paper", "plan", "archive")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO / "src")}


def emusim(*args: str, cwd: Path = REPO, timeout: float = 60) -> subprocess.CompletedProcess:
    """`python -m emusim.cli ARGS` as a subprocess, with this checkout's package."""
    return subprocess.run(
        [sys.executable, "-m", "emusim.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=_env(),
        timeout=timeout,
    )


def _rows(text: str) -> dict[str, list[str]]:
    """A printed table's rows by their first cell (cells split on two or more spaces)."""
    import re

    rows = {}
    for line in text.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if cells and cells[0]:
            rows.setdefault(cells[0], cells)
    return rows


# --- help and the entry point -----------------------------------------------------------------


def test_help_names_every_verb_with_examples():
    proc = emusim("--help")
    assert proc.returncode == 0, proc.stderr
    for verb in VERBS:
        assert f"\n    {verb} " in proc.stdout, verb
    assert "examples:" in proc.stdout and "emusim run random-drop" in proc.stdout


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_has_help_with_examples(verb):
    proc = emusim(verb, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: emusim {verb}")
    assert "examples:\n  emusim " + verb in proc.stdout


def test_usage_errors_exit_2():
    assert emusim().returncode == 2  # no verb
    assert emusim("frobnicate").returncode == 2
    assert emusim("list", "things").returncode == 2
    # arguments after `--` go to snakemake, which only run and paper run
    proc = emusim("list", "scenarios", "--", "-n")
    assert proc.returncode == 2 and "snakemake" in proc.stderr


def test_project_scripts_names_an_importable_callable():
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, attr = scripts["emusim"].partition(":")
    sys.path.insert(0, str(REPO / "src"))
    try:
        main = getattr(importlib.import_module(module), attr)
    finally:
        sys.path.remove(str(REPO / "src"))
    assert callable(main)


def test_installed_console_script():
    script = Path(sys.executable).parent / "emusim"
    if not script.exists():
        pytest.skip(f"no console script {script} (pip install -e . makes it)")
    proc = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, env=_env(), timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: emusim")


# --- list -------------------------------------------------------------------------------------


def _random_drop_points(scale: str) -> list[str]:
    """random-drop's drop rates at a scale, read from its YAML (not through emusim)."""
    raw = yaml.safe_load((REPO / "scenarios" / "random-drop.yaml").read_text())
    sweep = ((raw.get("scales") or {}).get(scale) or {}).get("sweep") or raw["sweep"]
    rates = sweep["drop_rate"]
    if isinstance(rates, list):
        return [str(r) for r in rates]
    start, stop, step = (Decimal(rates[k]) for k in ("start", "stop", "step"))
    out = []
    while start <= stop:
        out.append(str(start))
        start += step
    return out


@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_list_scenarios_shows_every_file(scale):
    proc = emusim("list", "scenarios", "--scale", scale)
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    assert SCENARIOS and all(name in rows for name in SCENARIOS)
    assert f"scale {scale}" in proc.stdout
    raw = yaml.safe_load((REPO / "scenarios" / "random-drop.yaml").read_text())
    workload, points = rows["random-drop"][1], rows["random-drop"][2]
    assert workload == raw["workload"]["kind"]
    assert int(points) == len(_random_drop_points(scale))


def test_list_profiles_and_variants_show_every_registry_entry():
    registry = yaml.safe_load((REPO / "config" / "tcp_profiles.yaml").read_text())
    proc = emusim("list", "profiles")
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    for name, raw in registry["profiles"].items():
        assert name in rows, name
        first_words = " ".join(raw["description"].split()[:3])
        assert rows[name][-1].startswith(first_words), name

    variants = yaml.safe_load((REPO / "config" / "tcp_variants.yaml").read_text())["variants"]
    proc = emusim("list", "variants")
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    for name, raw in variants.items():
        assert name in rows, name
        if raw["ns3"] == "linux":  # Linux's own module in ns-3
            assert rows[name][1] == "linux", name
        else:
            assert rows[name][1] == (raw["ns3"]["type"] if raw["ns3"] else "-"), name


def test_list_backends():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    proc = emusim("list", "backends")
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    for name in ("hardware", "testbed", "ns3", "mininet"):
        assert name in rows, name
    for name in ("ns3", "mininet"):
        assert rows[name][1] == ("yes" if name in config["backends"] else "no")


def test_list_studies_shows_each_package_its_files_and_scenarios():
    proc = emusim("list", "studies", "--scale", "quick")
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    packages = sorted(
        p.parent.name for p in (REPO / "src" / "emusim" / "studies").glob("*/__init__.py")
    )
    assert sorted(n for n in rows if n in packages) == packages
    for name in packages:
        assert rows[name][1] == f"workflow/rules/studies/{name}.smk"
        assert (REPO / rows[name][1]).is_file() and (REPO / rows[name][2]).is_file()
    # a scenario with a `reference` (the 2001 report's tables) is the report's study's
    assert "random-drop" in rows["report_2001"][3]
    assert rows["router_forwarding"][3] == "router-forwarding"


# --- validate ---------------------------------------------------------------------------------


def test_validate_passes_every_real_scenario():
    proc = emusim("validate")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ok = [line for line in proc.stdout.splitlines() if ": ok (" in line]
    assert len(ok) == len(SCENARIOS)
    files = [f"scenarios/{n}.yaml" for n in SCENARIOS]
    proc = emusim("validate", *files)
    assert proc.returncode == 0, proc.stdout
    assert [line.split(":")[0] for line in proc.stdout.splitlines()] == files


def test_validate_names_file_key_and_value_of_a_bad_file(tmp_path):
    # a scenario outside scenarios/ finds its topology presets next to it
    (tmp_path / "topologies").symlink_to(REPO / "scenarios" / "topologies")
    text = (REPO / "scenarios" / "random-drop.yaml").read_text()
    assert "\nrepetitions: 10\n" in text
    bad = tmp_path / "bad-repetitions.yaml"
    bad.write_text(text.replace("\nrepetitions: 10\n", "\nrepetitions: 0\n"))
    # only the quick scale's override is wrong: refused too, naming the scale
    bad_quick = tmp_path / "bad-quick.yaml"
    bad_quick.write_text(text.replace("    repetitions: 2\n", "    repetitions: -3\n"))
    assert bad_quick.read_text() != text
    good = "scenarios/baseline-tcp.yaml"
    proc = emusim("validate", str(bad), good, str(bad_quick))
    assert proc.returncode == 1, proc.stdout
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"{bad}: invalid: ")
    assert "key 'repetitions' has value 0" in lines[0]
    assert lines[1] == f"{good}: ok (points at scale paper 1, quick 1)"
    assert lines[2].startswith(f"{bad_quick}: invalid: ")
    assert "'quick'" in lines[2] and "key 'repetitions' has value -3" in lines[2]
    assert "2 of 3 invalid" in proc.stdout


def test_validate_a_missing_file_fails():
    proc = emusim("validate", "no-such-scenario.yaml")
    assert proc.returncode == 1
    assert "no-such-scenario.yaml: invalid: no such file" in proc.stdout


# --- points -----------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_points_lists_the_sweep(scale):
    rates = _random_drop_points(scale)
    proc = emusim("points", "random-drop", "--scale", scale, "--ids")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [f"drop_rate={r}" for r in rates]
    proc = emusim("points", "random-drop", "--scale", scale)
    assert proc.returncode == 0, proc.stderr
    assert f"{len(rates)} points;" in proc.stdout
    rows = _rows(proc.stdout)
    assert rows[str(len(rates))][1:3] == [f"drop_rate={rates[-1]}", rates[-1]]


def test_points_of_a_two_axis_scenario():
    raw = yaml.safe_load((REPO / "scenarios" / "regular-1in6.yaml").read_text())
    sweep = raw["scales"]["quick"].get("sweep") or raw["sweep"]
    expected = len(sweep["iterations"]) * len(sweep["mode"])
    proc = emusim("points", "regular-1in6", "--scale", "quick", "--ids")
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.split()) == expected
    assert all(i.startswith("iterations=") and "+mode=" in i for i in proc.stdout.split())


def test_unknown_scenario_is_named_with_the_known_ones():
    for verb in ("points", "run"):
        proc = emusim(verb, "no-such-scenario")
        assert proc.returncode == 2, verb
        assert "'no-such-scenario'" in proc.stderr
        assert all(name in proc.stderr for name in SCENARIOS)


# --- show -------------------------------------------------------------------------------------


RUN = {
    "schema_version": 1,
    "scenario": "random-drop",
    "backend": "hardware",
    "profile": "native",
    "point": "drop_rate=0.02",
    "params": {"drop_rate": "0.02"},
    "repetition": 3,
    "seed": None,
    "status": "ok",
    "metrics": {"elapsed_s": 12.5, "packets_dropped": 211, "rtt_us": [100, 110, 120]},
    "provenance": {
        "scale": "quick",
        "git_revision": "abc1234",
        "kernel_release": {"sender": "6.1.0-9-amd64", "router": "6.1.0-7-amd64"},
        "testbed": {
            "hosts": {
                "sender": {"hostname": "madrid", "clock_offset_ms": 0.25},
                "router": {"hostname": "dublin", "clock_offset_ms": -1.5},
            }
        },
        "dropper_impl": "module",
        "wall_s": 13.0,
        "session_id": "s42",
    },
}


def test_show_prints_metrics_and_provenance(tmp_path):
    path = tmp_path / "run3.json"
    path.write_text(json.dumps(RUN, indent=1, sort_keys=True) + "\n")
    proc = emusim("show", str(path))
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    assert rows["scenario"][1] == "random-drop"
    assert rows["repetition"][1] == "3 (seed -)"
    assert rows["elapsed_s"][1] == "12.5" and rows["packets_dropped"][1] == "211"
    assert rows["rtt_us"][1] == "3 values: mean 110, min 100, max 120"
    assert rows["backend"][1] == "hardware" and rows["profile"][1] == "native"
    assert rows["kernel release"][1] == "sender 6.1.0-9-amd64, router 6.1.0-7-amd64"
    assert "sender +0.250 ms, router -1.500 ms" in rows["clock"][1]
    assert rows["git revision"][1] == "abc1234"
    assert rows["parameters"][1] == "drop_rate=0.02"
    assert rows["testbed"][1] == "sender madrid, router dublin"
    assert rows["session_id"][1] == "s42"

    raw = emusim("show", "--json", str(path))
    assert raw.returncode == 0 and raw.stdout == path.read_text()


def test_show_an_ns3_run(tmp_path):
    run = {
        **RUN,
        "backend": "ns3",
        "profile": "linux-2.2",
        "provenance": {
            "git_revision": "def5678",
            "ns3": {"version": "3.44", "run": 3},
            "command": ["build/ns3/testbed-2001", "--dropMode=random"],
        },
    }
    path = tmp_path / "run3.json"
    path.write_text(json.dumps(run))
    proc = emusim("show", str(path))
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    assert rows["kernel release"][1] == "none (simulated: ns-3 3.44)"
    assert rows["clock"][1] == "simulated time (ns-3)"
    assert rows["command"][1] == "build/ns3/testbed-2001 --dropMode=random"


def test_show_refuses_what_is_not_a_run(tmp_path):
    proc = emusim("show", str(tmp_path / "missing.json"))
    assert proc.returncode == 2 and "no such file" in proc.stderr
    other = tmp_path / "other.json"
    other.write_text('{"metric": "elapsed_s"}')
    proc = emusim("show", str(other))
    assert proc.returncode == 1 and "not a run JSON" in proc.stderr
    other.write_text("{not json")
    proc = emusim("show", str(other))
    assert proc.returncode == 1 and "not JSON" in proc.stderr


# --- run --------------------------------------------------------------------------------------


def test_run_rejects_bad_input_before_snakemake():
    cases = {
        ("random-drop", "--point", "drop_rate=0.5", "--scale", "quick"): "no point",
        ("random-drop", "--profile", "linux-9"): "no profile 'linux-9'",
        ("random-drop", "--backend", "mininet", "--point", "drop_rate=0"): "one batch",
        ("random-drop", "--backend", "mininet", "--profile", "ns3-default"): "no Linux",
    }
    for args, message in cases.items():
        proc = emusim("run", *args, "-n")
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert "snakemake" not in proc.stdout, args


def test_run_refuses_a_point_of_a_variant_ns3_lacks(tmp_path):
    # every Linux variant of the shipped registry has an ns-3 side: a checkout whose registry
    # has one without (EMUSIM_ROOT), with the repository's scenarios and programs
    shutil.copytree(REPO / "config", tmp_path / "config")
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    (tmp_path / "sim" / "ns3").mkdir(parents=True)
    (tmp_path / "sim" / "ns3" / "programs").symlink_to(REPO / "sim" / "ns3" / "programs")
    registry = tmp_path / "config" / "tcp_variants.yaml"
    data = yaml.safe_load(registry.read_text())
    data["variants"]["cdg"]["ns3"] = None
    registry.write_text(yaml.safe_dump(data))
    run = ["run", "lossy-link", "--scale", "quick", "--point", "delay_ms=10+loss=0+variant=cdg"]
    proc = subprocess.run(
        [sys.executable, "-m", "emusim.cli", *run, "-n"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**_env(), "EMUSIM_ROOT": str(tmp_path)},
        timeout=60,
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "variant 'cdg' has no ns3 implementation" in proc.stderr
    assert "snakemake" not in proc.stdout


def test_run_dry_run_plans_one_ns3_point():
    raw = yaml.safe_load((REPO / "scenarios" / "random-drop.yaml").read_text())
    reps = raw["scales"]["quick"]["repetitions"]  # drop rate 0.02 is random: every repetition
    runs = [
        f"scales/quick/results/ns3/random-drop/linux-2.2/drop_rate=0.02/run{k}.json"
        for k in range(1, reps + 1)
    ]
    # --forcerun (to snakemake, after --) plans the runs even where they exist already
    proc = emusim(
        "run",
        "random-drop",
        "--point",
        "drop_rate=0.02",
        "--profile",
        "linux-2.2",
        "--scale",
        "quick",
        "--cores",
        "1",
        "-n",
        "--",
        "--forcerun",
        "ns3_run",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    command = proc.stdout.splitlines()[0]
    assert command.startswith(f"+ cd {REPO} && PYTHONPATH=")
    assert "/snakemake " in command and " -n " in command
    assert "--config scale=quick 'backends=[ns3]' 'scenarios=[random-drop]'" in command
    output = proc.stdout + proc.stderr
    for run in runs:
        assert f"output: {run}" in output, run
    assert "ns3_run" in output and "dry-run" in output
    # nothing was run
    assert not any((REPO / run).with_suffix(".json.tmp").exists() for run in runs)
