"""docs/adding-a-workload.md, tried as a new user would: its code blocks are written into a copy
of the workflow as a new workload (its module, its ns-3 program and that program's arguments,
a scenario), no existing file is edited, ns-3 is built there with the new program, and the
scenario runs in ns-3 and in the emulation's VM at the quick scale: both backends' runs, their
comparison, the scenario's table and its generic figure."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from workflow_copy import SNAKEMAKE, add_files_editing_none, copy_workflow, guide_files

from emusim.core.paths import REPO_ROOT

pytestmark = [
    pytest.mark.ns3,
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.vm,
    pytest.mark.extended,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
]

GUIDE = REPO_ROOT / "docs" / "adding-a-workload.md"
NAME = "tcp-rr"
QUICK = Path("scales/quick")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, ns3_programs, mininet_ready):
    root = copy_workflow(
        tmp_path_factory.mktemp("emusim-workload"), ns3_programs, ("emu", "kernel-dropper")
    )
    # the copy builds its own ns-3, with the new program (a build directory names its sources)
    shutil.rmtree(root / "build" / "ns3")
    add_files_editing_none(root, guide_files(GUIDE), skip=("build/",))
    return root


def test_guide_has_the_four_files():
    assert set(guide_files(GUIDE)) == {
        "src/emusim/workloads/tcp_rr.py",
        "sim/ns3/programs/tcp-rr.cc",
        "sim/ns3/programs/tcp-rr.arguments.yaml",
        f"scenarios/{NAME}.yaml",
    }


@pytest.fixture(scope="module")
def made(workdir) -> Path:
    targets = [
        QUICK / "results/ns3" / f"{NAME}.csv",
        QUICK / "results/mininet" / f"{NAME}.csv",
        QUICK / "results/compare" / f"{NAME}-ns3-vs-mininet.csv",
        QUICK / "paper/tables" / f"{NAME}.csv",
        QUICK / "figures" / f"fig_scenario_{NAME.replace('-', '_')}.png",
    ]
    proc = subprocess.run(
        [*SNAKEMAKE, *map(str, targets), "--cores", "2", "--config", "scale=quick",
         "backends=[ns3,mininet]", f"scenarios=[{NAME}]", "ablation={scenarios: []}"],
        cwd=workdir,
        # the copy's package, with the new workload in it (what an editable install gives)
        env=dict(os.environ, EMUSIM_ROOT=str(workdir), PYTHONPATH=str(workdir / "src")),
        capture_output=True, text=True, check=False, timeout=3600,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    return workdir / QUICK


def test_both_backends_ran_every_exchange(made):
    for backend in ("ns3", "mininet"):
        runs = pd.read_csv(made / "results" / backend / f"{NAME}.csv")
        assert not runs.empty and (runs.status == "ok").all(), (backend, runs)
        assert (runs.transactions == 200).all(), (backend, runs.transactions)
        # an exchange is at least the path's two one-way delays (2 x 72 µs) and the 1 KiB
        # response's serialisation on two 100 Mb/s links (2 x 1078 x 8 / 100 µs)
        low_us = 2 * 72 + 2 * 1078 * 8 / 100
        assert (runs.transaction_us > low_us).all(), (backend, runs.transaction_us)


def test_the_program_is_the_new_one_and_its_arguments_are_listed(workdir, made):
    run = json.loads(
        next((made / "results/ns3" / NAME / "linux-6.1").glob("*/run1.json")).read_text()
    )
    command = run["provenance"]["command"]
    assert Path(command[0]).name == NAME and "--transactions=200" in command


def test_the_comparison_and_the_table_name_the_workloads_metrics(made):
    compare = pd.read_csv(made / "results/compare" / f"{NAME}-ns3-vs-mininet.csv")
    assert set(compare.metric) == {"transaction_us", "elapsed_s"}
    table = (made / "paper/tables" / f"{NAME}.csv").read_text()
    assert "µs/exchange" in table
