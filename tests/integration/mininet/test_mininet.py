"""The Mininet backend for real: namespaces, veths, tc, netfilter, Linux TCP (root).

- on this machine, with the netfilter dropper and no delay: drops counted exactly (regular)
  and within the binomial interval (random), line-rate throughput, the run JSON, resume;
- in the VM (netem delay, the dropper module): one boot, a small batch, fitted delay;
- where a batch runs: `delay: measured` goes to the VM, forcing the host fails clearly;
- nothing left behind after SIGTERM, SIGINT, or SIGKILL and `cleanup`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
import yaml
from scipy.stats import binom

from emusim.backends.mininet.calibration import THROUGHPUT_TOLERANCE, delay_ok, line_rate_fraction
from emusim.backends.mininet.host import PLAN_DIR, capabilities, cleanup, module_vermagic
from emusim.backends.mininet.topology import ENV_MARK
from emusim.core.paths import REPO_ROOT
from emusim.infra import vm, vm_setup
from emusim.inputs import scenario as sc
from emusim.linux.shaper import ingress_stage_limit, netem_delay_us, wire_time_us

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
]

# The report's testbed as the scenarios use it (scenarios/topologies/lin2001.yaml).
TOPOLOGY = {
    **yaml.safe_load((sc.SCENARIO_DIR / "topologies" / "lin2001.yaml").read_text()),
    "delay": 0,
}
REPORT_DELAY_US = 71.8878


def write_scenario(path: Path, workload: dict, sweep: dict | None = None, **extra) -> Path:
    topo = dict(TOPOLOGY, **extra.pop("topology", {}))
    data = {
        "description": "test",
        "topology": topo,
        "workload": workload,
        "impairment": extra.pop("impairment", {"dropper": {"mode": "off"}}),
        "profiles": ["linux-2.2"],
        "repetitions": extra.pop("repetitions", 1),
        **extra,
    }
    if sweep:
        data["sweep"] = sweep
    path.write_text(json.dumps(data))
    return path


def batch(scenario: Path, results: Path, *args: str, timeout: float = 600):
    return subprocess.run(
        [sys.executable, "-m", "emusim.backends.mininet", "batch", "--scenario", str(scenario),
         "--scale", "paper", "--profile", "linux-2.2", "--results-dir", str(results), *args],
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def load_runs(results: Path, name: str) -> dict[str, dict]:
    base = results / "mininet" / name / "linux-2.2"
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(base.glob("*/run1.json"))}


# --- (a) this machine, netfilter dropper ------------------------------------------------------


@pytest.fixture(scope="module")
def host_batch(tmp_path_factory, mininet_ready):
    tmp = tmp_path_factory.mktemp("host")
    scenario = write_scenario(
        tmp / "hostdrop.yaml",
        {"kind": "tcp-blast", "writes": 20000, "write_size_B": 1448},
        sweep={
            "points": [
                {"mode": "regular", "every_n": 0},
                {"mode": "regular", "every_n": 10},
                {"mode": "random", "drop_rate": "0.1"},
            ]
        },
        impairment={"dropper": {"mode": "regular", "target": "192.168.2.2"}},
    )
    results = tmp / "results"
    proc = batch(scenario, results, "--place", "host", "--dropper-impl", "netfilter")
    assert proc.returncode == 0, proc.stderr
    return scenario, results, proc.stderr


def test_host_batch_writes_every_run_and_the_batch_file(host_batch):
    _, results, stderr = host_batch
    runs = load_runs(results, "hostdrop")
    assert set(runs) == {
        "mode=regular+every_n=0",
        "mode=regular+every_n=10",
        "mode=random+drop_rate=0.1",
    }
    for run in runs.values():
        assert run["schema_version"] == 1 and run["backend"] == "mininet"
        assert run["status"] == "ok" and run["repetition"] == 1
        prov = run["provenance"]
        assert prov["place"] == "host" and prov["kvm"] is False
        assert prov["kernel_release"] == os.uname().release
        assert prov["tcp_sysctls"]["net.ipv4.tcp_congestion_control"] == "reno"
        assert prov["mininet"]["snd_mss"] == 1448
        m = run["metrics"]
        assert m["writes"] == 20000 and m["write_size_B"] == 1448
    assert runs["mode=regular+every_n=0"]["provenance"]["dropper_impl"] == "none"
    assert runs["mode=regular+every_n=10"]["provenance"]["dropper_impl"] == "netfilter"
    b = json.loads((results / "mininet/hostdrop/linux-2.2/batch.json").read_text())
    assert b["place"] == "host" and b["dropper_impl"] == "netfilter" and b["shaper"] == "htb"
    assert len(b["run_files"]) == 3 and b["runs_written"] == 3
    assert all("overhead" not in q or "htb" in q for q in b["qdiscs"].values())
    assert "run 3/3" in stderr


def test_regular_dropper_drops_every_tenth_packet(host_batch):
    run = load_runs(host_batch[1], "hostdrop")["mode=regular+every_n=10"]
    m, sent = run["metrics"], run["provenance"]["mininet"]["segments_sent"]
    # every segment the sender sends goes to the target: the rule drops segments 10, 20, ...
    assert abs(m["packets_dropped"] - sent / 10) <= 1, (m, sent)
    assert m["packets_dropped"] > 2000
    # each dropped data segment is sent again
    assert m["retransmissions"] >= m["packets_dropped"] - 2


def test_random_dropper_rate_is_cutoff_over_65536(host_batch):
    run = load_runs(host_batch[1], "hostdrop")["mode=random+drop_rate=0.1"]
    sent = run["provenance"]["mininet"]["segments_sent"]
    p = Fraction(6553, 65536)  # floor(0.1 x 65535) / 65536
    low, high = binom.interval(0.999, sent, float(p))
    assert low <= run["metrics"]["packets_dropped"] <= high


def test_baseline_reaches_line_rate(host_batch):
    results = host_batch[1]
    run = load_runs(results, "hostdrop")["mode=regular+every_n=0"]
    m = run["metrics"]
    # nothing is dropped without a dropper; but this run is real time on the host's CPUs, where
    # a busy host can reorder segments on the path and Linux then retransmits one that was
    # never lost (CI on 28 November: one fast recovery, TCPSACKReorder 1, undone in part)
    assert m["packets_dropped"] == 0 and m["retransmissions"] <= 3, m
    frac = line_rate_fraction(m["writes"], m["elapsed_s"], 100_000_000)
    lo, hi = THROUGHPUT_TOLERANCE
    # The shaper's limit holds whatever the load: no run is faster than the line rate. This run
    # is real time on the host, so a busy host makes it slower: beside CI's VM half on two cores
    # it measured 0.9912 and, once, 0.9485, below the self-check's 0.995. The floor is what a
    # mis-set shaper cannot reach: 90 Mb/s is at most 0.90 of the line rate; none, or a stalled
    # sender, fails too.
    assert 0.92 <= frac <= hi, frac
    # The batch's own self-check blast ran, and its verdict follows from its measurement. This
    # batch runs on the host in real time, so the check measures the host's load as well: on a
    # busy host it may rightly fail (the run above is then still at line rate, or this test's
    # own assertion fails), and a failed check must be recorded as such, never hidden.
    b = json.loads((results / "mininet/hostdrop/linux-2.2/batch.json").read_text())
    tp = b["selfcheck"]["throughput"]
    assert tp["completed"] and tp["writes"] > 0
    check_frac = line_rate_fraction(tp["writes"], tp["elapsed_s"], 100_000_000)
    assert tp["fraction_of_line_rate"] == pytest.approx(check_frac)
    assert tp["ok"] is (lo <= check_frac <= hi)


def test_rerun_resumes_and_redoes_only_a_deleted_run(host_batch):
    scenario, results, _ = host_batch
    base = results / "mininet/hostdrop/linux-2.2"
    keep = base / "mode=regular+every_n=0/run1.json"
    gone = base / "mode=regular+every_n=10/run1.json"
    before = keep.stat().st_mtime_ns
    proc = batch(scenario, results, "--place", "host", "--no-selfcheck")
    assert proc.returncode == 0 and "every run is there; wrote" in proc.stderr
    gone.unlink()
    proc = batch(scenario, results, "--place", "host", "--no-selfcheck")
    assert proc.returncode == 0, proc.stderr
    assert "1 runs to do, 2 already there" in proc.stderr
    assert gone.exists() and keep.stat().st_mtime_ns == before
    # the batch now spans the first session (self-checked) and the resume (not checked)
    b = json.loads((base / "batch.json").read_text())
    assert [s["runs_written"] for s in b["sessions"]] == [3, 1]
    assert [s["selfcheck_run"] for s in b["sessions"]] == [True, False]
    assert json.loads(gone.read_text())["provenance"]["batch_id"] == b["batch_id"]


# --- (c) where a batch runs -------------------------------------------------------------------


def test_measured_delay_on_the_host_fails_naming_netem(tmp_path, mininet_ready):

    if capabilities().netem:
        pytest.skip("this kernel has netem: the host can run a measured delay")
    delay = tmp_path / "delay.json"
    delay.write_text(json.dumps({"one_way_delay_us": REPORT_DELAY_US}))
    scenario = write_scenario(
        tmp_path / "measured.yaml",
        {"kind": "ping", "count": 1, "interval_s": 0.1, "request_size_B": 56},
        topology={"delay": "measured"},
    )
    proc = batch(scenario, tmp_path / "r", "--place", "host", "--delay-json", str(delay))
    assert proc.returncode == 2
    assert "--place host" in proc.stderr and "netem" in proc.stderr
    assert not (tmp_path / "r").exists()


# --- (d) nothing left behind ------------------------------------------------------------------


def snapshot() -> dict[str, str]:
    def out(argv):
        return subprocess.run(argv, capture_output=True, text=True).stdout

    return {
        "netns": out(["ip", "netns", "list"]),
        "links": out(["ip", "-o", "link", "show"]),
        "qdiscs": out(["tc", "qdisc", "show"]),
        "iptables": "\n".join(
            ln for ln in out(["iptables-save"]).splitlines() if not ln.startswith("#")
        ),
        "nft": out(["nft", "list", "ruleset"]),
        "net namespaces": "\n".join(sorted(out(["lsns", "-t", "net", "-n", "-o", "NS"]).split())),
    }


def _start_long_batch(tmp_path: Path) -> subprocess.Popen:
    scenario = write_scenario(
        tmp_path / "long.yaml",
        {"kind": "tcp-blast", "writes": 1_000_000, "write_size_B": 1448},
        impairment={"dropper": {"mode": "regular", "every_n": 50}},
    )
    return subprocess.Popen(
        [sys.executable, "-m", "emusim.backends.mininet", "batch", "--scenario", str(scenario),
         "--profile", "linux-2.2", "--results-dir", str(tmp_path / "r"), "--place", "host",
         "--dropper-impl", "netfilter", "--no-selfcheck"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _wait_for_transfer(proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-f", "tcpblast client"], capture_output=True)
        if found.returncode == 0:
            time.sleep(1)  # mid-transfer
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    pytest.fail("the transfer did not start")


def test_sigkill_then_cleanup_leaves_nothing(tmp_path, mininet_ready):
    before = snapshot()
    proc = _start_long_batch(tmp_path)
    _wait_for_transfer(proc)
    assert snapshot()["net namespaces"] != before["net namespaces"]
    proc.kill()
    proc.communicate()
    done = subprocess.run(
        [sys.executable, "-m", "emusim.backends.mininet", "cleanup"], capture_output=True, text=True
    )
    assert done.returncode == 0 and "removed process" in done.stdout, done.stdout
    assert snapshot() == before
    assert not list((tmp_path / "r").rglob("run1.json"))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_cleans_up_by_itself(tmp_path, mininet_ready, sig):
    before = snapshot()
    proc = _start_long_batch(tmp_path)
    _wait_for_transfer(proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "cleaned up" in err, err
    assert snapshot() == before


def test_cleanup_spares_nothing_when_nothing_is_left(mininet_ready):
    done = subprocess.run(
        [sys.executable, "-m", "emusim.backends.mininet", "cleanup"], capture_output=True, text=True
    )
    assert done.returncode == 0 and "removed 0 item(s)" in done.stdout


def test_a_guest_leaves_the_hosts_plans_alone(mininet_ready):
    """A guest sees the host's plan directory but not its registry: every plan would look
    dead to it, among them those of batches running in other VMs beside it."""

    PLAN_DIR.mkdir(parents=True, exist_ok=True)
    plan = PLAN_DIR / "zz97.json"  # no live owner registered for this id
    plan.write_text("{}")
    try:
        assert cleanup(batch_id="zz97", plans=False) == [] and plan.exists()
        assert cleanup(batch_id="zz97") == ["plan zz97.json"] and not plan.exists()
    finally:
        plan.unlink(missing_ok=True)


# --- (b) in the VM: netem delay and the dropper module ------------------------------------------


@pytest.mark.vm
# 3 minutes; the same VM, netem and module in a batch are CI's in test_workflow_mininet.py
@pytest.mark.extended
def test_vm_batch_with_netem_delay_and_the_module(tmp_path, mininet_ready):
    kernel = vm_setup.find_kernel()

    if module_vermagic() != kernel.release:
        subprocess.run(
            ["make", "-C", str(REPO_ROOT / "kernel-dropper"), "module",
             f"KRELEASE={kernel.release}"],
            check=True, capture_output=True,
        )  # fmt: skip
    scenario = write_scenario(
        tmp_path / "vmdrop.yaml",
        {"kind": "tcp-blast", "writes": 2000, "write_size_B": 1448},
        topology={"delay": REPORT_DELAY_US},
        impairment={"dropper": {"mode": "regular", "every_n": 10}},
    )
    results = tmp_path / "r"
    t0 = time.monotonic()
    proc = batch(scenario, results, "--place", "auto", timeout=1500)
    wall = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr[-3000:]
    b = json.loads((results / "mininet/vmdrop/linux-2.2/batch.json").read_text())
    assert b["place"] == "vm" and b["kernel_release"] == kernel.release
    assert b["kvm"] is vm.kvm_requested(None)
    assert b["dropper_impl"] == "module" and b["shaper"] == "netem"
    # an end host's egress is HTB with the host's queue (it holds its sockets back); the
    # link's serialisation and delay are netem on the router's egress and, for the hosts'
    # links, on the IFB stage of the router's ingress
    stage_limit = ingress_stage_limit(100, b["netem_delay_us"], 100_000_000)
    kinds = {"htb": 0, "netem": 0, "ifb": 0}
    for dev, q in b["qdiscs"].items():
        if "-ifb" in dev:
            kinds["ifb"] += 1
            assert "netem" in q and f"limit {stage_limit} " in q, (dev, q)
        elif "netem" in q:
            kinds["netem"] += 1
            assert "limit 100 " in q, (dev, q)
        else:
            kinds["htb"] += 1
            assert q.startswith("qdisc htb") and "pfifo" in q and "limit 100p" in q, (dev, q)
            continue
        assert "rate 100Mbit packetoverhead 24" in q, (dev, q)
    assert kinds == {"htb": 2, "netem": 2, "ifb": 2}, b["qdiscs"]
    run = load_runs(results, "vmdrop")["base"]
    assert run["provenance"]["place"] == "vm" and run["provenance"]["dropper_impl"] == "module"
    sent = run["provenance"]["mininet"]["segments_sent"]
    assert abs(run["metrics"]["packets_dropped"] - sent / 10) <= 1
    # the delay: no echo can come back sooner than netem and the wire allow
    per_hop = b["netem_delay_us"]
    for size, rtts in b["selfcheck"]["ping_rtt_us"].items():
        floor = 4 * (per_hop + wire_time_us(int(size) + 28, 100_000_000))
        assert min(rtts) >= floor - 1, (size, rtts, floor)
    d = b["selfcheck"]["delay"]
    assert d["configured_us"] == pytest.approx(REPORT_DELAY_US)
    assert d["fitted_two_point_us"] >= REPORT_DELAY_US - d["tolerance_us"]
    assert d["ok"] == delay_ok(d["fitted_two_point_us"], REPORT_DELAY_US)
    frac = b["selfcheck"]["throughput"]["fraction_of_line_rate"]
    # the clock: without KVM the guest runs in dilated time, and then the emulation must
    # carry line rate and the configured delay (the calibration takes its own latency off)
    prov = run["provenance"]
    assert prov["clock"] == b["clock"] and b["vm_clock"]["clock"] == b["clock"]
    if b["clock"] == "guest-icount":
        assert prov["icount_shift"] == vm.DEFAULT_ICOUNT_SHIFT
        cal = b["calibration"]
        assert cal["stack_latency_per_hop_us"] > 0
        # what netem applies is the uncalibrated delay less the measured latency
        assert cal["netem_delay_wanted_us"] == pytest.approx(
            netem_delay_us(REPORT_DELAY_US, 100_000_000) - cal["stack_latency_per_hop_us"]
        )
        assert b["selfcheck"]["throughput"]["ok"] is True and d["ok"] is True
        assert prov["clock_check"]["ok"] is True and prov["mininet"]["host_io_irqs"] == 0
    print(
        f"\nVM batch: {wall:.0f} s wall, boot {b['timings']['vm_boot_s']} s, setup "
        f"{b['timings']['setup_s']} s; TCP {frac:.3f} of line rate; delay fitted "
        f"{d['fitted_two_point_us']:.1f} µs vs {REPORT_DELAY_US}"
    )


@pytest.mark.vm
def test_sigkill_during_a_vm_batch_then_cleanup_stops_the_vm(tmp_path, mininet_ready):
    scenario = write_scenario(
        tmp_path / "vmkill.yaml",
        {"kind": "ping", "count": 50, "interval_s": 1.0},
        sweep={"request_size_B": [56, 1472]},
        topology={"delay": REPORT_DELAY_US},
    )
    plans = REPO_ROOT / "build" / "emu" / "plans"
    other_plans = set(plans.glob("*.json"))
    ours: set[str] = set()  # this test's batch id, once its processes exist

    def marked() -> list[tuple[int, str]]:
        # only this test's batch: others may run beside it, and start while it runs
        return [(pid, cmd) for pid, cmd, mark, _ in _marked() if mark in ours]

    proc = subprocess.Popen(
        [sys.executable, "-m", "emusim.backends.mininet", "batch", "--scenario", str(scenario),
         "--profile", "linux-2.2", "--results-dir", str(tmp_path / "r"), "--no-selfcheck"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not any("qemu-system" in cmd for _, cmd in marked()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        ours |= _batch_ids_under(proc.pid)
        time.sleep(0.5)
    proc.kill()
    proc.communicate()
    mine = [pid for pid, _ in marked()]
    assert mine, "the VM should outlive its killed batch until cleanup"
    done = subprocess.run(
        [sys.executable, "-m", "emusim.backends.mininet", "cleanup"], capture_output=True, text=True
    )
    # cleanup removes what the killed batch left: its VM's processes, or only its plan where a
    # VM killed while still starting ended by itself first; either way none of it is left
    assert done.returncode == 0 and "cleanup: removed 0 item(s)" not in done.stdout, done.stdout
    assert marked() == []
    assert not set(plans.glob("*.json")) - other_plans


def _marked_processes() -> list[tuple[int, str]]:
    """PID and command line of the processes carrying a batch mark (vng and QEMU too)."""
    return [(pid, cmd) for pid, cmd, _, _ in _marked()]


def _marked() -> list[tuple[int, str, str, int]]:
    """PID, command line, batch id (the mark's value) and parent PID of every marked process."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                env = (entry / "environ").read_bytes().split(b"\0")
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, UnicodeDecodeError, ValueError, IndexError):
                continue
            marks = [
                e.split(b"=", 1)[1].decode() for e in env if e.startswith(f"{ENV_MARK}=".encode())
            ]
            if marks:
                found.append((int(entry.name), cmd, marks[0], ppid))
    return found


def _batch_ids_under(root_pid: int) -> set[str]:
    """The batch ids of the marked processes descending from `root_pid`: this test's batch,
    not another batch that starts on the machine meanwhile."""
    found = _marked()
    parents = {pid: ppid for pid, _, _, ppid in found}
    for entry in Path("/proc").iterdir():  # unmarked ancestors too (the batch process itself)
        if entry.name.isdigit() and int(entry.name) not in parents:
            try:
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    ids = set()
    for pid, _, mark, _ in found:
        node = pid
        while node in parents and node not in (0, 1, root_pid):
            node = parents[node]
        if node == root_pid:
            ids.add(mark)
    return ids


def test_a_run_at_its_cap_is_a_timeout_with_lower_bounds(tmp_path, mininet_ready):
    scenario = write_scenario(
        tmp_path / "capped.yaml",
        {"kind": "tcp-blast", "writes": 1_000_000, "write_size_B": 1448},
        cap_s=2,
    )
    proc = batch(scenario, tmp_path / "r", "--place", "host", "--no-selfcheck")
    assert proc.returncode == 0, proc.stderr
    run = load_runs(tmp_path / "r", "capped")["base"]
    assert run["status"] == "timeout"
    assert run["metrics"]["elapsed_s"] == pytest.approx(2.0, abs=0.5)
    assert 0 < run["provenance"]["mininet"]["writes_done"] < 1_000_000
    assert run["provenance"]["mininet"]["server"] == {"completed": False}
