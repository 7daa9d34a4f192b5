"""The guest's scheduling (emusim.backends.mininet.scheduling): which threads and commands get
real-time priority, and that it is part of an emulated run's key."""

import os
from types import SimpleNamespace

import pytest

from emusim.backends.mininet import plan, scheduling
from emusim.backends.mininet.hosts import NamespaceHosts


def _proc(tmp_path, tasks: dict[str, str]):
    for pid, comm in tasks.items():
        (tmp_path / pid).mkdir()
        (tmp_path / pid / "comm").write_text(comm + "\n")
    (tmp_path / "net").mkdir()  # not a task
    (tmp_path / "77").mkdir()  # a task that ended: no comm
    return tmp_path


def test_ksoftirqd_threads_are_found_by_their_name(tmp_path):
    proc = _proc(
        tmp_path,
        {"1": "systemd", "14": "ksoftirqd/0", "23": "ksoftirqd/1", "40": "kworker/0:1", "9": "rcu"},
    )
    assert scheduling.ksoftirqd_pids(proc) == [14, 23]


def test_no_ksoftirqd_is_an_error_naming_where_it_looked(tmp_path):
    proc = _proc(tmp_path, {"1": "init"})
    with pytest.raises(RuntimeError, match=str(proc)):
        scheduling.prioritise_softirqs(proc)


class _Network:
    """Records what NamespaceHosts asks it to start (the network itself is not needed)."""

    def __init__(self):
        self.spec = SimpleNamespace(tcp=SimpleNamespace(socket={}, sysctls={}))
        self.started = []

    def popen(self, role, argv):
        self.started.append((role, argv))
        return None


def test_commands_of_realtime_roles_run_under_chrt_fifo():
    net = _Network()
    hosts = NamespaceHosts(net)
    hosts.start("receiver", ["tcpblast", "server"])  # before: nothing changed (the host)
    hosts.realtime_roles = scheduling.REALTIME_ROLES
    hosts.start("receiver", ["tcpblast", "server", "-p", 5001])
    hosts.start("sender", ["tcpblast", "client"])
    assert net.started == [
        ("receiver", ["tcpblast", "server"]),
        ("receiver", ["chrt", "--fifo", "1", "tcpblast", "server", "-p", "5001"]),
        ("sender", ["tcpblast", "client"]),
    ]


def test_the_guest_scheduling_is_in_the_run_key_of_vm_runs_only(monkeypatch):
    assert scheduling.for_clock("host") is None
    for clock in ("guest-icount", "tcg-real", "kvm"):
        assert scheduling.for_clock(clock) == scheduling.GUEST_SCHEDULING
    # the key changes with the scheduling: a run made without it is not restored for one with
    p = {field: "x" for field in plan.RUN_KEY_PLAN_FIELDS.values()} | {"profile": "linux-6.1"}
    entry = {k: 1 for k in plan.RUN_KEY_ENTRY_FIELDS}
    clock = {"clock": "guest-icount", "icount_shift": 0}
    before = plan.run_key(p, entry, clock, "6.1.0")
    monkeypatch.setattr(
        scheduling, "GUEST_SCHEDULING", {**scheduling.GUEST_SCHEDULING, "ksoftirqd": None}
    )
    assert plan.run_key(p, entry, clock, "6.1.0") != before


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
def test_realtime_argv_runs_a_command_at_fifo_priority():
    import subprocess

    out = subprocess.run(
        scheduling.realtime_argv(["chrt", "-p", "0"]), capture_output=True, text=True, check=True
    ).stdout
    # chrt -p 0 reports the calling process: chrt itself, exec'd at SCHED_FIFO 1
    assert "SCHED_FIFO" in out and f"priority: {scheduling.RECEIVER_PRIORITY}" in out
