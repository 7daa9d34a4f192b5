"""docs/adding-a-workload.md, tried as a new user would: its code blocks are written into a copy
of the workflow as a new workload (its module, its ns-3 program and that program's arguments,
a scenario), no existing file is edited, ns-3 is built there with the new program, and the
scenario runs in ns-3 and in the emulation's VM at the quick scale: both backends' runs, their
comparison, the scenario's table and its generic figure.

CI runs it (the VM half of `make test`). What it costs: the copy's ns-3 build, which reuses
through ccache what the checkout's build compiled (emusim.backends.ns3.build.compiler_cache)
and compiles only the new program, Linux's modules (extracted into the copy's build) and the two
test suites that name the copy's spec directory, about 50 CPU-s instead of 260; the copy's
dropper module; one VM session of the scenario's quick points; seconds of ns-3.

What it reads from the guide: the fenced blocks whose info string names a file
(```python file=PATH), one of them a scenario (scenarios/NAME.yaml) whose workload is the new
module's and whose program is sim/ns3/programs/KIND.cc; the prose around them is free."""

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
import yaml
from workflow_copy import SNAKEMAKE, add_files_editing_none, copy_workflow, guide_files

from emusim.core.paths import REPO_ROOT

pytestmark = [
    pytest.mark.ns3,
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.vm,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
]

GUIDE = REPO_ROOT / "docs" / "adding-a-workload.md"
QUICK = Path("scales/quick")
# the report's line (topology lin2001): two 100 Mb/s links
LINK_RATE_MBPS = 100
# Ethernet, IPv4 and TCP headers around a segment's payload (no options)
HEADERS_B = 14 + 20 + 20


@dataclass(frozen=True)
class Guide:
    """What the guide adds: its files (path: text) and its one scenario, by name and with its
    settings at quick scale (the quick scale's workload keys over the scenario's own)."""

    files: dict[str, str]
    name: str
    scenario: dict

    @property
    def kind(self) -> str:
        return self.scenario["workload"]["kind"]

    @property
    def transactions(self) -> int:
        return self.scenario["workload"]["transactions"]


@pytest.fixture(scope="module")
def guide() -> Guide:
    files = guide_files(GUIDE)
    scenarios = {p: t for p, t in files.items() if p.startswith("scenarios/")}
    assert len(scenarios) == 1, f"the guide adds one scenario, not {sorted(scenarios)}"
    [(path, text)] = scenarios.items()
    settings = yaml.safe_load(text)
    quick = settings.get("scales", {}).get("quick", {})
    settings["workload"] = settings["workload"] | quick.get("workload", {})
    return Guide(files, Path(path).stem, settings)


def test_guide_has_the_four_files(guide):
    assert set(guide.files) == {
        f"src/emusim/workloads/{guide.kind.replace('-', '_')}.py",
        f"sim/ns3/programs/{guide.kind}.cc",
        f"sim/ns3/programs/{guide.kind}.arguments.yaml",
        f"scenarios/{guide.name}.yaml",
    }


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, ns3_programs, mininet_ready, guide):
    root = copy_workflow(
        tmp_path_factory.mktemp("emusim-workload"), ns3_programs, ("emu", "kernel-dropper")
    )
    # the copy builds its own ns-3, with the new program (a build directory names its sources)
    shutil.rmtree(root / "build" / "ns3")
    add_files_editing_none(root, guide.files, skip=("build/",))
    return root


@pytest.fixture(scope="module")
def made(workdir, guide) -> Path:
    name = guide.name
    targets = [
        QUICK / "results/ns3" / f"{name}.csv",
        QUICK / "results/mininet" / f"{name}.csv",
        QUICK / "results/compare" / f"{name}-ns3-vs-mininet.csv",
        QUICK / "paper/tables" / f"{name}.csv",
        QUICK / "figures" / f"fig_scenario_{name.replace('-', '_')}.png",
    ]
    proc = subprocess.run(
        [*SNAKEMAKE, *map(str, targets), "--cores", "2", "--config", "scale=quick",
         "backends=[ns3,mininet]", f"scenarios=[{name}]", "ablation={scenarios: []}"],
        cwd=workdir,
        # the copy's package, with the new workload in it (what an editable install gives)
        env=dict(os.environ, EMUSIM_ROOT=str(workdir), PYTHONPATH=str(workdir / "src")),
        capture_output=True, text=True, check=False, timeout=3600,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    return workdir / QUICK


def test_both_backends_ran_every_exchange(made, guide):
    w = guide.scenario["workload"]
    for backend in ("ns3", "mininet"):
        runs = pd.read_csv(made / "results" / backend / f"{guide.name}.csv")
        assert not runs.empty and (runs.status == "ok").all(), (backend, runs)
        assert (runs.transactions == guide.transactions).all(), (backend, runs.transactions)
        # an exchange is at least the path's two one-way delays (topology.delay, µs) and the
        # response's serialisation on the line's two links
        delay_us = guide.scenario["topology"]["delay"]
        low_us = 2 * delay_us + 2 * (w["response_B"] + HEADERS_B) * 8 / LINK_RATE_MBPS
        assert (runs.transaction_us > low_us).all(), (backend, runs.transaction_us)


def test_the_program_is_the_new_one_and_its_arguments_are_listed(made, guide):
    run = json.loads(next((made / "results/ns3" / guide.name).glob("*/*/run1.json")).read_text())
    command = run["provenance"]["command"]
    assert Path(command[0]).name == guide.kind
    assert f"--transactions={guide.transactions}" in command


def test_the_comparison_and_the_table_name_the_workloads_metrics(made, guide):
    compare = pd.read_csv(made / "results/compare" / f"{guide.name}-ns3-vs-mininet.csv")
    assert set(compare.metric) == {"transaction_us", "elapsed_s"}
    table = (made / "paper/tables" / f"{guide.name}.csv").read_text()
    assert "µs/exchange" in table
