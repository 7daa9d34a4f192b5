"""A real single-node SLURM cluster on this machine, in a private directory
(tests/system/test_slurm.py).

Debian's daemons (tools/setup slurm; tools/apt/slurm.txt), none of them the system's services:
munged on its own key and socket, MariaDB on its own data directory and socket (no TCP),
slurmdbd with accounting in that database (the executor plugin reads job states with sacct),
slurmctld and slurmd on free ports of 127.0.0.1, one node with this machine's CPUs and memory.

Everything lives under one directory, and the configuration is where a cluster keeps it,
/etc/slurm/slurm.conf, but only in a mount namespace of the cluster's own (that directory's
etc-slurm bound there): the daemons, the clients and Snakemake run in it (``Cluster.command``),
the rest of the machine sees its own /etc/slurm. Pointing the clients at the configuration
with SLURM_CONF instead would not do: the executor plugin's job step (in the job) drops every
SLURM_* variable but the job's identity before it calls srun.

    python tests/support/slurm_cluster.py DIR    # start one by hand, stop it with Ctrl-C
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

CLUSTER = "emusim"
NODE = "emusim-node"
PARTITION = "main"
ACCOUNT = "emusim"
DATABASE = "slurm_acct_db"
# What the daemons need from Debian (tools/apt/slurm.txt).
PROGRAMS = ["munged", "mungekey", "mariadb-install-db", "mariadbd", "mariadb", "slurmdbd"]
PROGRAMS += ["slurmctld", "slurmd", "sbatch", "sacct", "sacctmgr", "sinfo", "scontrol"]


class ClusterError(RuntimeError):
    """A daemon did not come up; the message names it and ends with its log."""


@dataclass
class Cluster:
    """A running cluster: its directory, the environment of its clients, and the mount
    namespace (a process id) they run in."""

    root: Path
    env: dict[str, str]
    namespace_pid: int

    def command(self, *cmd: str, cwd: Path | None = None) -> list[str]:
        """`cmd` run in the cluster's mount namespace, where /etc/slurm is the cluster's, in
        directory `cwd` (by default the caller's)."""
        return _in_namespace(self.namespace_pid, list(cmd), cwd)

    def run(self, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        """A SLURM client command against this cluster."""
        return subprocess.run(
            self.command(*cmd), env=self.env, capture_output=True, text=True, check=check
        )

    def answers(self, *cmd: str, expect: str | None = None) -> Callable[[], bool]:
        """A readiness check: `cmd` succeeds (and prints `expect`, if given)."""

        def check() -> bool:
            proc = self.run(*cmd, check=False)
            return proc.returncode == 0 and (expect is None or proc.stdout.strip() == expect)

        return check


def _in_namespace(pid: int, cmd: list[str], cwd: Path | None = None) -> list[str]:
    # nsenter execs the command after setns (no fork for a mount namespace): signals reach it.
    # Entering a mount namespace moves to its root directory: --wd keeps the working directory.
    return ["nsenter", f"--target={pid}", "--mount", f"--wd={cwd or os.getcwd()}", "--", *cmd]


def missing_programs() -> list[str]:
    """Programs of tools/apt/slurm.txt that are not installed."""
    search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    return [p for p in PROGRAMS if shutil.which(p, path=search) is None]


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _node_memory_mb() -> int:
    """This machine's memory as slurmd counts it (`slurmd -C`), less 1 GiB for the daemons."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout
    real = int(out.split("RealMemory=")[1].split()[0])
    return real - 1024


def _write(path: Path, text: str, mode: int = 0o644) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def _slurm_conf(root: Path, ports: dict[str, int], sock: Path) -> str:
    host = socket.gethostname()
    return f"""\
# A single-node cluster for tests/system/test_slurm.py (tests/support/slurm_cluster.py writes it).
ClusterName={CLUSTER}
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ports["ctld"]}
SlurmdPort={ports["slurmd"]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/run/slurmctld.pid
SlurmdPidFile={root}/run/slurmd.pid
SlurmctldLogFile={root}/log/slurmctld.log
SlurmdLogFile={root}/log/slurmd.log
# No cgroups: processes tracked by parent id, no task confinement.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
# Cores and memory are consumable: a job's mem_mb is checked against the node's memory.
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# Accounting in slurmdbd, so that sacct answers (the executor plugin's status query). A job's
# memory and CPU time are sampled every second (sacct's MaxRSS, TotalCPU).
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort={ports["dbd"]}
# with slurmdbd, the clients' munge socket towards it (AuthInfo is not used for that link)
AccountingStoragePass={sock}
AccountingStorageEnforce=associations
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
# sacct shows a job's comment: the executor plugin writes the rule and wildcards there
AccountingStoreFlags=job_comment
# Finished jobs leave slurmctld soon; sacct still has them.
MinJobAge=60
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName={NODE} NodeHostname={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} \
RealMemory={_node_memory_mb()} State=UNKNOWN
PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
"""


def _slurmdbd_conf(root: Path, ports: dict[str, int], sock: Path) -> str:
    return f"""\
AuthType=auth/munge
AuthInfo=socket={sock}
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort={ports["dbd"]}
SlurmUser=root
PidFile={root}/run/slurmdbd.pid
LogFile={root}/log/slurmdbd.log
StorageType=accounting_storage/mysql
# localhost: MariaDB's client library takes the socket of MYSQL_UNIX_PORT
StorageHost=localhost
StorageUser=root
StorageLoc={DATABASE}
"""


class _Daemons:
    """Started processes, all in one mount namespace, stopped in reverse order."""

    def __init__(self, root: Path):
        self.root = root
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.namespace_pid = 0

    def start(self, name: str, cmd: list[str], env: dict[str, str]) -> subprocess.Popen:
        with open(self.root / "log" / f"{name}.out", "wb") as log:
            proc = subprocess.Popen(
                _in_namespace(self.namespace_pid, cmd) if self.namespace_pid else cmd,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.procs.append((name, proc))
        return proc

    def namespace(self, etc_slurm: Path, env: dict[str, str]) -> None:
        """A mount namespace (held by a sleeping process) with `etc_slurm` on /etc/slurm."""
        holder = self.start(
            "namespace", ["unshare", "--mount", "--propagation", "private", "sleep", "inf"], env
        )
        deadline = time.monotonic() + 10
        own = os.readlink("/proc/self/ns/mnt")
        while os.readlink(f"/proc/{holder.pid}/ns/mnt") == own:
            if holder.poll() is not None or time.monotonic() > deadline:
                raise ClusterError(f"unshare --mount failed\n{_log_tail(self.root, 'namespace')}")
            time.sleep(0.05)
        if not Path("/etc/slurm").is_dir():  # the mount point, from Debian's slurm-client
            raise ClusterError("no /etc/slurm (Debian package slurm-client; tools/setup slurm)")
        bind = ["mount", "--bind", str(etc_slurm), "/etc/slurm"]
        subprocess.run(_in_namespace(holder.pid, bind), check=True)
        self.namespace_pid = holder.pid

    def stop(self) -> None:
        for _, proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.procs.clear()


def _log_tail(root: Path, name: str, lines: int = 30) -> str:
    texts = []
    for path in sorted((root / "log").glob(f"{name}*")):
        tail = path.read_text(errors="replace").splitlines()[-lines:]
        texts.append("\n".join([f"--- {path}", *tail]))
    return "\n".join(texts)


def _wait(
    what: str,
    ready: Callable[[], bool],
    proc: subprocess.Popen,
    root: Path,
    name: str,
    timeout: float = 60,
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return
        if proc.poll() is not None:
            raise ClusterError(f"{what} exited with {proc.returncode}\n{_log_tail(root, name)}")
        time.sleep(0.3)
    raise ClusterError(f"{what} not ready after {timeout:.0f} s\n{_log_tail(root, name)}")


@contextlib.contextmanager
def single_node_cluster(root: Path) -> Iterator[Cluster]:
    """Start munged, MariaDB, slurmdbd, slurmctld and slurmd under `root`; register the
    cluster, an account and root in it; yield when the node is idle; stop everything."""
    if os.geteuid() != 0:
        raise ClusterError("a SLURM cluster needs root (slurmd starts jobs as their user)")
    missing = missing_programs()
    if missing:
        raise ClusterError(f"not installed: {', '.join(missing)} (tools/setup slurm)")
    root = root.resolve()
    for sub in ("munge", "db", "state", "spool", "run", "log", "etc-slurm"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)  # munged wants every directory above its socket searchable by all
    ports = dict(zip(("ctld", "slurmd", "dbd"), _free_ports(3), strict=True))
    munge_sock = root / "munge" / "munge.socket"
    db_sock = root / "db.sock"
    etc = root / "etc-slurm"
    if Path("/etc/slurm").is_dir():  # Debian's plugstack.conf and its directory, kept
        shutil.copytree("/etc/slurm", etc, dirs_exist_ok=True, symlinks=True)
    _write(etc / "slurm.conf", _slurm_conf(root, ports, munge_sock))
    # slurmdbd reads slurmdbd.conf beside slurm.conf, and refuses one others can read.
    _write(etc / "slurmdbd.conf", _slurmdbd_conf(root, ports, munge_sock), 0o600)
    path = os.pathsep.join(["/usr/sbin", "/sbin", os.environ.get("PATH", "")])
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env.update(PATH=path, MYSQL_UNIX_PORT=str(db_sock))
    daemons = _Daemons(root)
    try:
        daemons.namespace(etc, env)
        cluster = Cluster(root, env, daemons.namespace_pid)
        key = root / "munge" / "munge.key"
        # --force: munged refuses to run as root otherwise (SlurmUser is root here as well)
        subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True)
        munged = daemons.start(
            "munged",
            ["munged", "--foreground", "--force", f"--socket={munge_sock}", f"--key-file={key}",
             f"--log-file={root}/log/munged.log", f"--pid-file={root}/run/munged.pid",
             f"--seed-file={root}/munge/munged.seed"],
            env,
        )  # fmt: skip
        _wait("munged", munge_sock.exists, munged, root, "munged")

        datadir = root / "db" / "data"
        if not datadir.exists():
            subprocess.run(
                ["mariadb-install-db", "--no-defaults", "--user=root", f"--datadir={datadir}",
                 "--auth-root-authentication-method=socket", "--skip-test-db"],
                check=True, capture_output=True,
            )  # fmt: skip
        mariadbd = daemons.start(
            "mariadbd",
            ["mariadbd", "--no-defaults", "--user=root", f"--datadir={datadir}",
             f"--socket={db_sock}", "--skip-networking", f"--pid-file={root}/run/mariadbd.pid",
             f"--log-error={root}/log/mariadbd.log"],
            env,
        )  # fmt: skip
        query = ["mariadb", "--no-defaults", f"--socket={db_sock}", "-e", "select 1"]
        _wait("MariaDB", cluster.answers(*query), mariadbd, root, "mariadb")

        slurmdbd = daemons.start("slurmdbd", ["slurmdbd", "-D"], env)
        _wait("slurmdbd", cluster.answers("sacctmgr", "-n", "list", "cluster"), slurmdbd, root,
              "slurmdbd")  # fmt: skip
        for args in (
            ["add", "cluster", CLUSTER],
            ["add", "account", ACCOUNT, "Description=emusim tests", "Organization=emusim"],
            ["add", "user", "root", f"Account={ACCOUNT}", f"DefaultAccount={ACCOUNT}"],
        ):
            # not checked: a second start of the same directory answers "Nothing new added"
            cluster.run("sacctmgr", "-i", *args, check=False)

        slurmctld = daemons.start("slurmctld", ["slurmctld", "-D", "-i"], env)
        _wait("slurmctld", cluster.answers("scontrol", "ping"), slurmctld, root, "slurmctld")
        slurmd = daemons.start("slurmd", ["slurmd", "-D", "-N", NODE], env)
        node_idle = cluster.answers("sinfo", "-h", "-n", NODE, "-o", "%t", expect="idle")
        _wait("slurmd (node idle)", node_idle, slurmd, root, "slurm")
        yield cluster
    finally:
        daemons.stop()


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else "slurm-cluster")
    with single_node_cluster(root) as cluster:
        enter = " ".join(cluster.command("bash"))
        print(f"cluster up; its shell: {enter}; Ctrl-C stops it", file=sys.stderr, flush=True)
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
