"""The hardware backend on a virtual testbed, end to end through Snakemake, in the VM.

One VM booting Debian's kernel (emusim.infra.vm) runs tests/support/testbed_guest.py: three network
namespaces with their own sshd (netem at 100 Mb/s with the report's delay), the router
loading the real kernel-dropper/dropper.ko through the preflight (`dropper.load: insmod`), and
the controller in the VM's root namespace running ``snakemake`` at quick scale with
``hardware.source: testbed``, ``backends=[hardware]``, ``scenarios=[regular-drop]`` on a copy
of the workflow that the guest may write (``--rwdir``). Checked here, on the host: every run
of the design with the preflight's facts in its provenance, drops exactly every N-th of the
packets the dropper saw, the statistics, and the report's testbed tables from the preflight.
A second boot checks ``dropper.load: build``: the preflight copies kernel-dropper/ to the
router, builds it against the running kernel and loads it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from workflow_copy import copy_workflow

from emusim.backends.mininet.host import module_vermagic
from emusim.core.paths import REPO_ROOT
from emusim.infra import vm, vm_setup
from emusim.inputs import scenario as sc

pytestmark = [
    pytest.mark.vm,
    pytest.mark.root,
    pytest.mark.slow,
    pytest.mark.extended,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (the VM's kernel image, sshd)"),
    pytest.mark.skipif(not Path("/usr/sbin/sshd").exists(), reason="tools/setup testbed"),
]

SCENARIO = "regular-drop"
QUICK = "scales/quick"
TARGETS = [
    f"{QUICK}/results/stats/{SCENARIO}.csv",
    f"{QUICK}/results/hardware/testbed/hosts.csv",
    f"{QUICK}/paper/generated/testbed_hosts.tex",
]


def guest_result(output: str) -> dict:
    for line in reversed(output.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line.removeprefix("RESULT "))
    raise AssertionError("the guest printed no RESULT:\n" + output[-4000:])


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    kernel = vm_setup.find_kernel()
    module = REPO_ROOT / "kernel-dropper" / "dropper.ko"

    if module_vermagic(module) != kernel.release:
        subprocess.run(
            [
                "make",
                "-C",
                str(REPO_ROOT / "kernel-dropper"),
                "module",
                f"KRELEASE={kernel.release}",
            ],
            check=True,
            capture_output=True,
        )
    subprocess.run(["make", "-s", "-C", str(REPO_ROOT / "emu" / "blast")], check=True)
    tmp = tmp_path_factory.mktemp("testbed-vm")
    empty = tmp / "no-ns3"
    empty.mkdir()
    (tmp / "emusim").mkdir()
    root = copy_workflow(tmp / "emusim", empty)
    work = tmp / "guest"
    command = [
        sys.executable,
        str(REPO_ROOT / "tests" / "support" / "testbed_guest.py"),
        "snakemake",
        "--root",
        str(root),
        "--module",
        str(module),
        "--work",
        str(work),
        "--",
        "--cores",
        "1",
        *TARGETS,
    ]
    t0 = time.monotonic()
    run = vm.run_in_vm(
        command, timeout_s=2400, cpus=1, rwdirs=[tmp], on_line=lambda ln: print(f"vm| {ln}")
    )
    result = guest_result(run.output)
    result["vm_s"] = round(time.monotonic() - t0, 1)
    assert result["snakemake_exit"] == 0, run.output[-6000:]
    print(f"\ntestbed VM: {result}")
    return root / QUICK, result, kernel.release


def runs_of(study_dir: Path) -> list[dict]:
    base = study_dir / "results/hardware" / SCENARIO / "native"
    return [json.loads(p.read_text()) for p in sorted(base.glob("*/run*.json"))]


def test_every_run_of_the_design_with_the_preflight_in_its_provenance(study):
    study_dir, _, release = study
    s = sc.load(SCENARIO, "quick")
    runs = runs_of(study_dir)
    assert sorted((r["point"], r["repetition"]) for r in runs) == sorted(
        (p.id, k) for p in s.points for k in range(1, s.repetitions + 1)
    )
    for r in runs:
        assert r["backend"] == "hardware" and r["profile"] == "native" and r["status"] == "ok"
        prov = r["provenance"]
        pre = prov["preflight"]
        assert {h["hostname"] for h in pre["hosts"].values()} == {"madrid", "dublin", "prague"}
        assert prov["kernel_release"] == {"sender": release, "router": release, "receiver": release}
        assert pre["dropper"]["loaded"] is True
        qdisc = pre["hosts"]["router"]["interfaces"]["eth2"]["qdisc"]
        assert "netem" in qdisc and "rate 100Mbit packetoverhead 24" in qdisc
        assert abs(pre["hosts"]["receiver"]["clock_offset_ms"]) <= 50
        assert prov["consistency"]["ok"] is True and prov["dropper_target"] == "192.168.2.2"
        assert r["metrics"]["writes"] == 10000


def test_the_module_drops_exactly_every_nth_packet_it_saw(study):
    for r in runs_of(study[0]):
        n = int(r["params"]["every_n"])
        seen = r["provenance"]["hardware"]["dropper_packets_seen"]
        # every data segment of 10 000 writes goes to the target: at least 10 000 seen
        assert seen >= 10000
        assert r["metrics"]["packets_dropped"] == (seen // n if n else 0)
        assert r["provenance"]["dropper_impl"] == "module"


def test_statistics_and_the_testbed_tables(study):
    study_dir, _, release = study
    stats = pd.read_csv(study_dir / "results/stats" / f"{SCENARIO}.csv")
    assert set(stats["backend"]) == {"hardware"} and set(stats["profile"]) == {"native"}
    tput = stats[stats["metric"] == "throughput_report_Bps"].set_index("every_n")["mean"]
    # more drops, less throughput (10 is the heaviest of the quick design)
    assert tput.loc[0] > tput.loc[10]
    pre = json.loads((study_dir / "results/hardware/testbed/preflight.json").read_text())
    assert pre["dropper"]["action"].startswith("insmod ")
    hosts = pd.read_csv(study_dir / "results/hardware/testbed/hosts.csv")
    assert list(hosts["host"]) == ["madrid", "dublin", "prague"]
    assert set(hosts["kernel"]) == {release}
    interfaces = pd.read_csv(study_dir / "results/hardware/testbed/interfaces.csv")
    egress = interfaces[(interfaces["host"] == "dublin") & (interfaces["interface"] == "eth2")]
    assert list(egress["ip_address"]) == ["192.168.2.1"]
    assert "where the dropper acts" in egress["notes"].iloc[0]
    tex = (study_dir / "paper/generated/testbed_hosts.tex").read_text()
    assert "Madrid" in tex and release in tex and "QEMU" in tex


def test_the_preflight_builds_and_loads_the_dropper_on_the_router(tmp_path):
    work = tmp_path / "guest"
    guest = str(REPO_ROOT / "tests" / "support" / "testbed_guest.py")
    run = vm.run_in_vm(
        [sys.executable, guest, "build", "--work", str(work)],
        timeout_s=600,
        cpus=1,
        rwdirs=[tmp_path],
        on_line=lambda ln: print(f"vm| {ln}"),
    )
    result = guest_result(run.output)
    assert result["preflight_exit"] == 0, run.output[-4000:]
    pre = json.loads((work / "preflight.json").read_text())
    d = pre["dropper"]
    assert d["loaded"] is True
    assert d["action"] == f"built in {work}/router-dropper for {run.kernel_release} and loaded"
    assert d["state"]["mode"] == "random" and d["state"]["rate"] == "0"
    assert (work / "router-dropper" / "dropper.ko").exists()
    print(f"\nbuild preflight: {result}")
