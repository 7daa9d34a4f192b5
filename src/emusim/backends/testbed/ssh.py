"""Remote commands over OpenSSH: one reused connection per host, argument lists, timeouts.

Each host gets one master connection (``ssh -M -N -f``, ControlPersist) whose control socket
sits in a private temporary directory (mode 0700, removed on close); every command then rides
on it, so a command costs a channel, not a key exchange. Commands are argument lists, sent as
``shlex.join(argv)``: the remote login shell (any POSIX shell) splits them back into exactly
these arguments, whatever they hold (spaces, quotes, ``$(...)``, ``;``, newlines).

SSH never prompts (BatchMode), takes only the inventory's key (IdentitiesOnly) and checks the
host's key against the inventory's known_hosts file (StrictHostKeyChecking). Every step has a
timeout; a connection that stops answering is declared dead after ServerAliveInterval ×
ServerAliveCountMax seconds. A long remote process runs under a guard that kills it when its
SSH channel closes (the controller gave up on it, or the connection died), so nothing is left
running on a host after a timeout or a lost connection.

A command that fails because the host cannot be reached raises `HostLost`, naming the host.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from emusim.backends.testbed.inventory import Host, Inventory

SSH_ERROR_EXIT = 255
"""ssh's own exit status when the connection (not the remote command) failed."""
SERVER_ALIVE_INTERVAL_S = 5
SERVER_ALIVE_COUNT = 3
CONTROL_PERSIST_S = 600
"""An idle master lives this long: a controller killed without closing leaves none for long."""

GUARD_SCRIPT = (
    'exec 3<&0\n"$@" </dev/null &\npid=$!\n'
    '{ cat >/dev/null; kill -TERM "$pid" 2>/dev/null; } <&3 >/dev/null 2>&1 &\n'
    'dog=$!\nexec 3<&-\nwait "$pid"\nrc=$?\nkill "$dog" 2>/dev/null\nexit "$rc"'
)
"""Runs "$@" and kills it when stdin (the SSH channel's) reaches end of file: when the
controller closes it, or when the connection dies. Its exit status is the command's; the
watchdog goes with it (it must never signal a PID that has been reused)."""


class RemoteError(RuntimeError):
    """A remote command failed (its exit status was not 0)."""

    def __init__(self, message: str, returncode: int, stdout: str = "", stderr: str = ""):
        super().__init__(message)
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


class RemoteTimeout(RuntimeError):
    """A remote command took longer than its timeout (it has been stopped)."""


class HostLost(RuntimeError):
    """A host of the testbed cannot be reached over SSH."""

    def __init__(self, host: Host, detail: str):
        super().__init__(f"lost the {host.label}: {detail}")
        self.host = host


def remote_command(argv: Sequence[str], guard: bool = False) -> str:
    """The command string ssh sends: the remote shell splits it back into ``argv``."""
    argv = [str(a) for a in argv]
    if not argv:
        raise ValueError("an empty remote command")
    if guard:
        argv = ["sh", "-c", GUARD_SCRIPT, "emusim-guard", *argv]
    return shlex.join(argv)


def ssh_options(host: Host, control_path: Path, connect_timeout_s: float) -> list[str]:
    """The options of every ssh invocation for ``host`` (the master's and its clients')."""
    t = host.ssh
    opts = {
        "BatchMode": "yes",
        "ConnectTimeout": str(max(1, round(connect_timeout_s))),
        "ServerAliveInterval": str(SERVER_ALIVE_INTERVAL_S),
        "ServerAliveCountMax": str(SERVER_ALIVE_COUNT),
        "StrictHostKeyChecking": "yes",
        "ControlPath": str(control_path),
        "LogLevel": "ERROR",
    }
    if t.known_hosts is not None:
        opts["UserKnownHostsFile"] = str(t.known_hosts)
        opts["GlobalKnownHostsFile"] = "/dev/null"
    argv = ["ssh"]
    for key, value in opts.items():
        argv += ["-o", f"{key}={value}"]
    if t.identity_file is not None:
        argv += ["-o", "IdentitiesOnly=yes", "-i", str(t.identity_file)]
    return [*argv, "-p", str(t.port), "-l", t.user]


class RemoteProcess:
    """A command running on a host: its output lines as they come, then its result."""

    def __init__(self, remote: Remote, argv: Sequence[str], guard: bool):
        self.remote, self.argv = remote, [str(a) for a in argv]
        self.what = f"{remote.host.role}: {shlex.join(self.argv)[:200]}"
        self.proc = subprocess.Popen(
            remote.ssh_argv(self.argv, guard=guard),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.out: list[str] = []
        self.err: list[str] = []
        self.threads = [
            threading.Thread(target=self._pump_out, daemon=True),
            threading.Thread(target=self._pump_err, daemon=True),
        ]
        for t in self.threads:
            t.start()

    def _pump_out(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.out.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def _pump_err(self) -> None:
        assert self.proc.stderr is not None
        self.err.extend(self.proc.stderr)

    def readline(self, timeout_s: float) -> str:
        """The next line of output ('' at its end); RemoteTimeout after ``timeout_s``."""
        try:
            line = self.lines.get(timeout=timeout_s)
        except queue.Empty:
            self.kill()
            raise RemoteTimeout(f"{self.what}: no output within {timeout_s:g} s") from None
        return line or ""

    def kill(self) -> None:
        """Stop the local ssh; the remote guard then stops the command."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait()
        for t in self.threads:
            t.join(timeout=5)

    def finish(self, timeout_s: float, check: bool = True) -> subprocess.CompletedProcess:
        """Wait for the command's end (stdin stays open until then, for the guard); raise
        RemoteTimeout, HostLost or (with ``check``) RemoteError."""
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            raise RemoteTimeout(f"{self.what}: took more than {timeout_s:g} s") from None
        for t in self.threads:
            t.join(timeout=10)
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        done = subprocess.CompletedProcess(
            self.argv, self.proc.returncode, "".join(self.out), "".join(self.err)
        )
        if done.returncode == SSH_ERROR_EXIT:
            self.remote.raise_if_lost(done.stderr.strip())
        if check and done.returncode != 0:
            raise RemoteError(
                f"{self.what}: exit status {done.returncode}: {done.stderr.strip()[-800:]}",
                done.returncode,
                done.stdout,
                done.stderr,
            )
        return done


class Remote:
    """One host: its master connection and the commands run over it."""

    def __init__(self, host: Host, control_dir: Path, connect_timeout_s: float, timeout_s: float):
        self.host = host
        self.control_path = control_dir / f"{host.role}.sock"
        self.connect_timeout_s = connect_timeout_s
        self.timeout_s = timeout_s

    def base_argv(self) -> list[str]:
        return ssh_options(self.host, self.control_path, self.connect_timeout_s)

    def ssh_argv(self, argv: Sequence[str], guard: bool = False) -> list[str]:
        # ControlMaster=no: ride on the master if it is there, else connect directly (after
        # a lost master, a host that is back is reached again).
        return [
            *self.base_argv(),
            "-o",
            "ControlMaster=no",
            "-T",
            "--",  # nothing after this is an option, whatever the command starts with
            self.host.ssh.host,
            remote_command(argv, guard),
        ]

    def connect(self) -> float:
        """Start the master connection; returns the seconds it took. HostLost if it fails."""
        t0 = time.monotonic()
        argv = [
            *self.base_argv(),
            "-M",
            "-N",
            "-f",
            "-o",
            f"ControlPersist={CONTROL_PERSIST_S}",
            self.host.ssh.host,
        ]
        try:
            proc = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                timeout=self.connect_timeout_s + 30,
            )
        except subprocess.TimeoutExpired:
            raise HostLost(self.host, "ssh did not connect in time") from None
        if proc.returncode != 0:
            raise HostLost(self.host, f"ssh failed: {proc.stderr.strip()}")
        return time.monotonic() - t0

    def close(self) -> None:
        """Stop the master connection (if any)."""
        if self.control_path.exists():
            subprocess.run(
                [*self.base_argv(), "-O", "exit", self.host.ssh.host],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=30,
                check=False,
            )

    def reachable(self) -> tuple[bool, str]:
        """Whether a trivial command runs on the host, and ssh's message if not."""
        try:
            proc = subprocess.run(
                self.ssh_argv(["true"]),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=self.connect_timeout_s + SERVER_ALIVE_INTERVAL_S * SERVER_ALIVE_COUNT,
            )
        except subprocess.TimeoutExpired:
            return False, "no answer"
        return proc.returncode == 0, proc.stderr.strip()

    def raise_if_lost(self, detail: str = "") -> None:
        ok, why = self.reachable()
        if not ok:
            raise HostLost(self.host, why or detail or "ssh failed")

    def start(self, argv: Sequence[str], guard: bool = True) -> RemoteProcess:
        """Start a command and return at once (a server the run talks to)."""
        return RemoteProcess(self, argv, guard)

    def run(
        self,
        argv: Sequence[str],
        timeout_s: float | None = None,
        check: bool = True,
        guard: bool = False,
    ) -> subprocess.CompletedProcess:
        """Run a command to its end (``timeout_s``, default the inventory's command timeout)."""
        return self.start(argv, guard).finish(timeout_s or self.timeout_s, check)

    def script(self, commands: Sequence[Sequence[str]], timeout_s: float | None = None) -> str:
        """Several commands in one remote shell (one channel), stopping at the first failure;
        returns their output."""
        text = "\n".join(remote_command(c) for c in commands)
        return self.run(["sh", "-ec", text], timeout_s).stdout


class Connections:
    """The testbed's three hosts over SSH; a context manager that closes everything."""

    def __init__(self, inventory: Inventory):
        self.inventory = inventory
        # private: the control sockets give a shell on the hosts to whoever can open them
        self.dir = Path(tempfile.mkdtemp(prefix="emusim-ssh-"))
        os.chmod(self.dir, 0o700)
        self.hosts = {
            role: Remote(host, self.dir, inventory.connect_timeout_s, inventory.command_timeout_s)
            for role, host in inventory.hosts.items()
        }

    def __getitem__(self, role: str) -> Remote:
        return self.hosts[role]

    def connect(self) -> dict[str, float]:
        """Connect to every host; seconds each took. HostLost names the first that failed."""
        return {role: round(r.connect(), 3) for role, r in self.hosts.items()}

    def check_all(self) -> None:
        """HostLost for the first host that does not answer."""
        for r in self.hosts.values():
            r.raise_if_lost()

    def close(self) -> None:
        for r in self.hosts.values():
            with contextlib.suppress(Exception):
                r.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Connections:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
