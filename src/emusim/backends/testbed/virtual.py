"""A virtual testbed: the report's three hosts as network namespaces, each with its own sshd.

For the tests (run as root; in the VM of emusim.infra.vm for netem and the dropper module):

    mgmt 10.24K.N.1 (controller, root namespace) ── 10.24K.N.2 mgmt0 of host K (its sshd)
    sender eth1 192.168.1.2 ── eth1 192.168.1.1 router eth2 192.168.2.1 ── eth1 192.168.2.2 receiver

Each host is a network namespace with its own mount and UTS namespace (its hostname is the
report's name; an empty directory is mounted over /root, so a login reads no shell start-up
files of the machine's root), and an sshd listening only on its management address, with a
host key and an authorized client key generated for this testbed alone. The management links
are separate /24s per host, so the controller's SSH never crosses the data plane. Data links
are shaped with the shared `emusim.linux.shaper.shaper_commands` on every egress (netem
with the link rate, Ethernet's framing and the delay split per direction where there is a
delay, else HTB at the link rate), but without its backpressure stage (docs/mininet.md,
"Backpressure"): with netem, a UDP sender here is not blocked by its full queue. The testbed
tests the driver, not the link's fidelity. Offloads are left on: the testbed's preflight
switches them off, as it would on real hosts. `write_inventory` writes the inventory the
driver reads.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from emusim.core.paths import BUILD_DIR
from emusim.linux.shaper import netem_delay_us, shaper_commands

PREFIX = "emtb"
"""Names of the virtual testbed's namespaces and root-side links (not Mininet's `emsim`)."""
ROLES = ("sender", "router", "receiver")
SUFFIX = {"sender": "s", "router": "r", "receiver": "c"}
NAMES = {"sender": "madrid", "router": "dublin", "receiver": "prague"}
SSHD = "/usr/sbin/sshd"
SSHD_CONFIG = """\
ListenAddress {address}
Port 22
HostKey {host_key}
AuthorizedKeysFile {authorized_keys}
PidFile {pid_file}
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
# PAM: without it sshd refuses root, whose password is locked on Debian's images
UsePAM yes
# the test's directories are not root-owned 0755 all the way up
StrictModes no
PrintMotd no
X11Forwarding no
AllowTcpForwarding no
MaxSessions 32
LogLevel VERBOSE
"""


class VirtualError(RuntimeError):
    """The virtual testbed could not be built."""


def sh(argv: list[str], check: bool = True, timeout: float = 60) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise VirtualError(f"`{' '.join(argv)}` failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


@dataclass
class VirtualTestbed:
    """Build with `start()`, remove with `stop()` (also a context manager)."""

    workdir: Path
    delay_us: float = 0.0
    """One-way delay of the path (the report's d), split over the links as Mininet does."""
    rate_bps: int = 100_000_000
    queue_packets: int = 100
    tools_dir: Path = BUILD_DIR / "emu"
    dropper_module: Path | None = None
    tid: str = field(default_factory=lambda: os.urandom(2).hex())
    sshd_pids: dict[str, int] = field(default_factory=dict)

    def ns(self, role: str) -> str:
        return f"{PREFIX}{self.tid}{SUFFIX[role]}"

    def mgmt(self, role: str) -> tuple[str, str]:
        """(controller side, host side) management addresses of a role."""
        k = ROLES.index(role) + 1
        n = int(self.tid[:2], 16)
        return f"10.{240 + k}.{n}.1", f"10.{240 + k}.{n}.2"

    # - build -

    def start(self) -> Path:
        """Build the testbed; returns the inventory's path."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        try:
            self._namespaces()
            self._data_plane()
            self._keys()
            for role in ROLES:
                self.start_sshd(role)
            return self.write_inventory()
        except BaseException:
            self.stop()
            raise

    def _namespaces(self) -> None:
        for role in ROLES:
            ns = self.ns(role)
            sh(["ip", "netns", "add", ns])
            ctl, host = self.mgmt(role)
            link = f"{PREFIX}{self.tid}m{SUFFIX[role]}"
            sh(["ip", "link", "add", link, "type", "veth", "peer", "name", "mgmt0", "netns", ns])
            sh(["ip", "addr", "add", f"{ctl}/24", "dev", link])
            sh(["ip", "link", "set", link, "up"])
            no_ipv6 = ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
            script = [
                "ip link set lo up",
                f"ip addr add {host}/24 dev mgmt0",
                "ip link set mgmt0 up",
                "sysctl -q -w " + " ".join(no_ipv6),
            ]
            self.nsexec(role, ["sh", "-ec", "\n".join(script)])

    def _data_plane(self) -> None:
        s, r, c = (self.ns(x) for x in ROLES)
        _veth("eth1", s, "eth1", r)
        _veth("eth2", r, "eth1", c)
        netem = self.delay_us > 0
        delay = netem_delay_us(self.delay_us, self.rate_bps) if netem else 0.0
        plan = {
            "sender": [("eth1", "192.168.1.2/24")],
            "router": [("eth1", "192.168.1.1/24"), ("eth2", "192.168.2.1/24")],
            "receiver": [("eth1", "192.168.2.2/24")],
        }
        routes = {
            "sender": ["ip", "route", "add", "192.168.2.0/24", "via", "192.168.1.1"],
            "receiver": ["ip", "route", "add", "192.168.1.0/24", "via", "192.168.2.1"],
            "router": ["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"],
        }
        for role, intfs in plan.items():
            cmds = []
            for dev, addr in intfs:
                cmds += [
                    ["ip", "addr", "add", addr, "dev", dev],
                    ["ip", "link", "set", dev, "up"],
                    *shaper_commands(dev, self.rate_bps, self.queue_packets, delay, netem),
                ]
            cmds.append(routes[role])
            self.nsexec(role, ["sh", "-ec", "\n".join(" ".join(c) for c in cmds)])

    def _keys(self) -> None:
        self.client_key = self.workdir / "client_ed25519"
        sh(
            [
                "ssh-keygen",
                "-q",
                "-t",
                "ed25519",
                "-N",
                "",
                "-C",
                "emusim-test",
                "-f",
                str(self.client_key),
            ]
        )
        (self.workdir / "authorized_keys").write_text(
            self.client_key.with_suffix(".pub").read_text()
        )
        known = []
        for role in ROLES:
            key = self.workdir / f"host_{role}_ed25519"
            sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", NAMES[role], "-f", str(key)])
            pub = key.with_suffix(".pub").read_text().split()
            known.append(f"{self.mgmt(role)[1]} {pub[0]} {pub[1]}")
            (self.workdir / f"home_{role}").mkdir(exist_ok=True)
        self.known_hosts = self.workdir / "known_hosts"
        self.known_hosts.write_text("\n".join(known) + "\n")

    def nsexec(self, role: str, argv: list[str]) -> str:
        return sh(["ip", "netns", "exec", self.ns(role), *argv])

    # - sshd -

    def start_sshd(self, role: str) -> int:
        """Start the role's sshd (again); returns its PID."""
        conf = self.workdir / f"sshd_{role}.conf"
        pid_file = self.workdir / f"sshd_{role}.pid"
        conf.write_text(
            SSHD_CONFIG.format(
                address=self.mgmt(role)[1],
                host_key=self.workdir / f"host_{role}_ed25519",
                authorized_keys=self.workdir / "authorized_keys",
                pid_file=pid_file,
            )
        )
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation dir
        sh([SSHD, "-t", "-f", str(conf)])
        with contextlib.suppress(FileNotFoundError):
            pid_file.unlink()
        home = self.workdir / f"home_{role}"
        # its own mount and UTS namespaces: a hostname of its own, an empty /root
        log = self.workdir / f"sshd_{role}.log"
        inner = (
            f"hostname {NAMES[role]} && mount --bind {shlex.quote(str(home))} /root && "
            f"exec {SSHD} -f {shlex.quote(str(conf))} -E {shlex.quote(str(log))}"
        )
        sh(["ip", "netns", "exec", self.ns(role), "unshare", "--mount", "--uts", "sh", "-c", inner])
        deadline = time.monotonic() + 30
        while True:  # sshd creates its PID file, then writes it: wait for a number
            with contextlib.suppress(OSError, ValueError, IndexError):
                self.sshd_pids[role] = int(pid_file.read_text().split()[0])
                break
            if time.monotonic() > deadline:
                raise VirtualError(f"sshd of {role} did not start: {self._log(role)}")
            time.sleep(0.05)
        return self.sshd_pids[role]

    def _log(self, role: str) -> str:
        with contextlib.suppress(OSError):
            return (self.workdir / f"sshd_{role}.log").read_text()[-2000:]
        return ""

    def kill_sshd(self, role: str) -> list[int]:
        """SIGKILL the role's sshd and everything it started (its sessions and their
        commands), as if the host went down; returns the PIDs killed."""
        root = self.sshd_pids.pop(role, None)
        if root is None:
            return []
        pids = [root, *descendants(root)]
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return pids

    # - inventory -

    def write_inventory(self, path: Path | None = None) -> Path:
        path = path or self.workdir / "inventory.yaml"
        inv = {
            "name": f"virtual-{self.tid}",
            "ssh": {
                "user": "root",
                "port": 22,
                "identity_file": str(self.client_key),
                "known_hosts": str(self.known_hosts),
            },
            "hosts": {
                "sender": {
                    "name": NAMES["sender"],
                    "ssh": {"host": self.mgmt("sender")[1]},
                    "interface": "eth1",
                    "address": "192.168.1.2/24",
                },
                "router": {
                    "name": NAMES["router"],
                    "ssh": {"host": self.mgmt("router")[1]},
                    "interfaces": ["eth1", "eth2"],
                    "addresses": ["192.168.1.1/24", "192.168.2.1/24"],
                },
                "receiver": {
                    "name": NAMES["receiver"],
                    "ssh": {"host": self.mgmt("receiver")[1]},
                    "interface": "eth1",
                    "address": "192.168.2.2/24",
                },
            },
            "tools_dir": str(self.tools_dir),
            "offloads": "off",
            "timeouts": {"connect_s": 20, "command_s": 120},
        }
        if self.dropper_module is not None:
            inv["dropper"] = {"load": "insmod", "module": str(self.dropper_module)}
        path.write_text(yaml.safe_dump(inv, sort_keys=False))
        return path

    # - teardown -

    def stop(self) -> None:
        for role in list(self.sshd_pids):
            self.kill_sshd(role)
        for role in ROLES:
            for pid in processes_in_netns(self.ns(role)):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            sh(["ip", "netns", "del", self.ns(role)], check=False)
            sh(["ip", "link", "del", f"{PREFIX}{self.tid}m{SUFFIX[role]}"], check=False)

    def __enter__(self) -> VirtualTestbed:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children, ...)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def processes_in_netns(ns: str) -> list[int]:
    """PIDs of the processes in the named network namespace."""
    try:
        target = os.stat(f"/run/netns/{ns}").st_ino
    except OSError:
        return []
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            with contextlib.suppress(OSError):
                if os.stat(entry / "ns" / "net").st_ino == target:
                    found.append(int(entry.name))
    return found


def _veth(name: str, netns: str, peer: str, peer_netns: str) -> None:
    """A veth pair: `name` in namespace `netns`, its other end `peer` in `peer_netns`."""
    sh(
        ["ip", "link", "add", name, "netns", netns, "type", "veth",
         "peer", "name", peer, "netns", peer_netns]
    )  # fmt: skip
