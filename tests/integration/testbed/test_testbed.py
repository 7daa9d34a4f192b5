"""The testbed driver against real sshd's: a virtual testbed on this machine (root).

Three network namespaces with their own sshd (emusim.backends.testbed.virtual), no dropper module
(this kernel loads none; the VM test, test_testbed_vm.py, has it) and HTB at 100 Mb/s:

- hostile arguments arrive verbatim; a command that times out leaves nothing on the host;
- a host whose sshd is killed is named in the error, and is reached again once it is back;
- the preflight's facts, checks and the report's tables;
- a batch whose receiver is lost mid-sweep stops naming it; the rerun after its sshd is back
  finishes the sweep with no run repeated and none lost;
- an inconsistent run is repeated, and the attempts recorded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from emusim.backends.testbed import execute, inventory, preflight, ssh
from emusim.backends.testbed.virtual import VirtualTestbed, processes_in_netns
from emusim.core import constants
from emusim.core.paths import REPO_ROOT

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces, sshd)"),
    pytest.mark.skipif(not Path("/usr/sbin/sshd").exists(), reason="tools/setup testbed"),
]

HOSTILE = [
    "two words",
    "it's",
    'say "hi"',
    "$(touch /tmp/emusim-pwned)",
    "`id`",
    "; echo owned",
    "new\nline",
    "*",
    "\\",
    "",
    "-x",
    "$HOME",
    "a|b&c>d<e",
]


@pytest.fixture(scope="module")
def testbed(tmp_path_factory):
    subprocess.run(["make", "-s", "-C", str(REPO_ROOT / "emu" / "blast")], check=True)
    tb = VirtualTestbed(tmp_path_factory.mktemp("testbed"))
    tb.start()
    yield tb
    tb.stop()


@pytest.fixture
def conns(testbed):
    with ssh.Connections(inventory.load(testbed.workdir / "inventory.yaml")) as c:
        c.connect()
        yield c


def test_hostile_arguments_arrive_verbatim(conns):
    out = conns["sender"].run(["printf", "%s\\0", *HOSTILE]).stdout
    assert out.split("\0")[:-1] == HOSTILE
    # also through the guard and the multi-command script
    out = conns["router"].run(["printf", "%s\\0", *HOSTILE], guard=True).stdout
    assert out.split("\0")[:-1] == HOSTILE
    out = conns["receiver"].script([["printf", "%s\\0", *HOSTILE], ["printf", "%s", "$(x)"]])
    assert out.split("\0") == [*HOSTILE, "$(x)"]
    assert not Path("/tmp/emusim-pwned").exists()


def test_the_connection_is_reused(conns, testbed):
    # one master per host: the sshd log has one accepted login however many commands ran
    for _ in range(5):
        conns["sender"].run(["true"])
    log = (testbed.workdir / "sshd_sender.log").read_text()
    assert log.count("Accepted publickey") >= 1
    before = log.count("Accepted publickey")
    for _ in range(5):
        conns["sender"].run(["true"])
    assert (testbed.workdir / "sshd_sender.log").read_text().count("Accepted publickey") == before


def test_a_timeout_leaves_nothing_running(conns, testbed):
    t0 = time.monotonic()
    with pytest.raises(ssh.RemoteTimeout, match=r"sender: sleep 297\.5"):
        conns["sender"].run(["sleep", "297.5"], timeout_s=2, guard=True)
    assert time.monotonic() - t0 < 10
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = [
            p
            for p in processes_in_netns(testbed.ns("sender"))
            if b"297.5" in Path(f"/proc/{p}/cmdline").read_bytes()
        ]
        if not left:
            break
        time.sleep(0.2)
    assert not left


def test_a_lost_host_is_named_and_found_again(conns, testbed):
    killed = testbed.kill_sshd("receiver")
    assert killed
    with pytest.raises(ssh.HostLost, match=r"lost the receiver prague \(root@10\.243\.\d+\.2:22\)"):
        conns["receiver"].run(["true"])
    testbed.start_sshd("receiver")
    assert conns["receiver"].run(["uname", "-n"]).stdout.strip() == "prague"


def test_preflight_facts_checks_and_tables(testbed, tmp_path):
    out = tmp_path / "preflight.json"
    inv = testbed.workdir / "inventory.yaml"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "emusim.backends.testbed",
            "preflight",
            "--inventory",
            str(inv),
            "--out",
            str(out),
            "--no-dropper",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    pre = json.loads(out.read_text())
    assert {c["check"] for c in pre["checks"]} >= {"clock", "ip_forward", "offloads eth1"}
    for role, name in (("sender", "madrid"), ("router", "dublin"), ("receiver", "prague")):
        f = pre["hosts"][role]
        assert f["hostname"] == name and f["kernel"] == os.uname().release
        assert f["memory_mb"] > 0 and f["cpus"] == os.cpu_count()
        # every host shares this machine's clock: the offset is within its uncertainty
        assert abs(f["clock"]["offset_ms"]) <= f["clock"]["uncertainty_ms"] + 1
        eth1 = f["interfaces"]["eth1"]
        assert eth1["driver"] == "veth" and "htb" in eth1["qdisc"]
        # the virtual testbed leaves the offloads on; preflight switched them off
        assert preflight.segmentation_on(eth1["offloads"]) == []
    assert pre["hosts"]["router"]["tcp_sysctls"]["net.ipv4.ip_forward"] == "1"
    assert pre["dropper"]["loaded"] is False
    tables = tmp_path / "tables"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "emusim.backends.testbed",
            "tables",
            "--preflight",
            str(out),
            "--out-dir",
            str(tables),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    hosts = (tables / "hosts.csv").read_text()
    assert "madrid,sender" in hosts and os.uname().release in hosts
    routes = (tables / "routes.csv").read_text()
    assert "madrid,192.168.2.0,192.168.1.1,255.255.255.0,UG" in routes


def test_the_dropper_sources_reach_the_router_intact(conns, tmp_path):
    dest = str(tmp_path / "router's build dir")  # a space and a quote on the way
    preflight.copy_sources(conns["router"], dest, REPO_ROOT / "kernel-dropper")
    names = list(preflight.DROPPER_SOURCES)
    script = 'cd "$1" && shift && sha256sum "$@"'
    remote = conns["router"].run(["sh", "-c", script, "sums", dest, *names]).stdout
    local = subprocess.run(
        ["sha256sum", *names],
        cwd=REPO_ROOT / "kernel-dropper",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert remote == local


def test_a_missing_dropper_stops_the_preflight_naming_the_router(conns, testbed):
    inv = inventory.load(testbed.workdir / "inventory.yaml")
    assert inv.dropper_load == "present"
    with pytest.raises(preflight.PreflightError, match=r"router dublin .*dropper module is not"):
        preflight.ensure_dropper(conns["router"], inv, needed=True)
    assert preflight.ensure_dropper(conns["router"], inv, needed=False)["loaded"] is False


def write_scenario(path: Path, writes: int, iterations: list[int], reps: int) -> Path:
    topo = yaml.safe_load((REPO_ROOT / "scenarios/topologies/lin2001.yaml").read_text())
    data = {
        "description": "test: TCP blasts without drops",
        "topology": {**topo, "delay": 0},
        "workload": {"kind": "tcp-blast", "writes": writes, "write_size_B": 1448},
        "impairment": {"dropper": {"mode": "off"}},
        "profiles": ["linux-2.2"],
        "repetitions": reps,
        "sweep": {"iterations": iterations},
    }
    path.write_text(json.dumps(data))
    return path


def batch(inv: Path, scenario: Path, results: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "emusim.backends.testbed",
            "batch",
            "--inventory",
            str(inv),
            "--scenario",
            str(scenario),
            "--results-dir",
            str(results),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_lost_receiver_stops_the_sweep_and_the_rerun_resumes(testbed, tmp_path):
    # 3 points x 2 repetitions of 20 000 writes: 2.46 s each at 100 Mb/s
    scenario = write_scenario(tmp_path / "lost.yaml", 20000, [20000, 20001, 20002], 2)
    results = tmp_path / "results"
    base = results / "hardware/lost/native"
    inv = testbed.workdir / "inventory.yaml"
    proc = batch(inv, scenario, results)
    deadline = time.monotonic() + 240
    while len(list(base.glob("*/run*.json"))) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    time.sleep(1.0)  # into the third run's transfer
    testbed.kill_sshd("receiver")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert "lost the receiver prague" in err, err
    done = {p: p.stat().st_mtime_ns for p in base.glob("*/run*.json")}
    assert 2 <= len(done) < 6
    testbed.start_sshd("receiver")
    proc = batch(inv, scenario, results)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert f"{6 - len(done)} runs to do, {len(done)} already there" in err
    runs = sorted(base.glob("*/run*.json"))
    assert len(runs) == 6
    for path, mtime in done.items():  # no finished run was redone
        assert path.stat().st_mtime_ns == mtime
    b = json.loads((base / "batch.json").read_text())
    assert sorted(b["run_files"]) == sorted(str(p) for p in runs)
    assert [s["finished"] for s in b["sessions"]] == [False, True]
    assert "lost the receiver prague" in b["sessions"][0]["error"]
    assert [s["runs_written"] for s in b["sessions"]] == [len(done), 6 - len(done)]
    for path in runs:
        run = json.loads(path.read_text())
        assert run["backend"] == "hardware" and run["profile"] == "native"
        assert run["metrics"]["writes"] == int(run["params"]["iterations"])
        # at line rate: 1538 wire bytes per 1448-byte write, less HTB's bucket of 2 frames
        ideal = run["metrics"]["writes"] * constants.ETH_FRAME_WIRE_B * 8 / 1e8
        burst = 2 * constants.ETH_FRAME_WIRE_B * 8 / 1e8
        assert ideal - burst <= run["metrics"]["elapsed_s"] < 1.2 * ideal
        prov = run["provenance"]
        assert prov["preflight"]["hosts"]["receiver"]["hostname"] == "prague"
        assert prov["testbed"]["name"] == inventory.load(inv).name


def test_an_inconsistent_run_is_repeated_and_recorded(testbed, tmp_path):
    # three accepted runs of the point took 10 s; a 20 000-write run takes 2.46 s: an outlier
    # (robust z = 0.6745 x (2.46 - 10) / 0.01 ≈ -509), repeated until the attempts run out
    scenario = write_scenario(tmp_path / "odd.yaml", 20000, [20000], 4)
    results = tmp_path / "results"
    base = results / "hardware/odd/native/iterations=20000"
    base.mkdir(parents=True)
    for k in (1, 2, 3):
        (base / f"run{k}.json").write_text(
            json.dumps({"metrics": {"elapsed_s": 10.0 + k / 100}, "provenance": {}})
        )
    inv_data = yaml.safe_load((testbed.workdir / "inventory.yaml").read_text())
    inv_data["checks"] = {"max_attempts": 2}
    inv_path = tmp_path / "inventory.yaml"
    inv_path.write_text(yaml.safe_dump(inv_data))
    from emusim.inputs import scenario as sc

    b = execute.run_batch(inventory.load(inv_path), sc.load(scenario, "paper"), results)
    run = json.loads((base / "run4.json").read_text())
    cons = run["provenance"]["consistency"]
    assert cons["ok"] is False and cons["attempts"] == 2 and len(cons["rejected"]) == 1
    assert cons["rejected"][0]["failed"][0]["check"] == "elapsed"
    assert b["repeats"] == 1


def teardown_module(module):
    shutil.rmtree("/tmp/emusim-pwned", ignore_errors=True)
