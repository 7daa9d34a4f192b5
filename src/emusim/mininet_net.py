"""The Mininet backend's network: Mininet hosts in a line joined by veth links, run as root
(three hosts for the report's testbed, four with a second router: the lossy-link family).

Uses Mininet's own node and link classes (``mininet.node.Host``: a bash shell in a new network
namespace; ``mininet.link.Link``: a veth pair made directly inside the two namespaces), not
the ``Mininet`` class: there is no switch or controller, and ``Mininet.init()`` would raise
the root namespace's socket buffers and other sysctls (``fixLimits``), which a study must not
change on its host. Everything else (addresses, routes, static neighbours, tc, sysctls,
ethtool, netfilter) is set with ``ip``/``tc``/``sysctl``/``ethtool``/``iptables`` run in the
namespaces, and checked.

Also here: what the running kernel offers (netem, the congestion control, the dropper
module), the two dropper implementations, the workloads (blast tools, ping), and the cleanup
of what a killed batch left behind.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from emusim import mininet_config as cfg
from emusim.paths import BUILD_DIR, REPO_ROOT

TOOLS_DIR = BUILD_DIR / "emu"
PLAN_DIR = TOOLS_DIR / "plans"
"""Plans of batches that run in the VM (the guest reads them; the host removes them)."""
MODULE_PATH = REPO_ROOT / "kernel-dropper" / "dropper.ko"
PROC_DROPPER = Path("/proc/dropperInfo/dropper")
PROC_NUM_DROPPED = Path("/proc/dropperInfo/numDropped")
REGISTRY_DIR = Path("/run/emusim-mininet")
"""One file per running batch (its id), holding the owner's PID: cleanup spares live batches."""
PORT = 1026
"""The report's blast server port."""
COMMAND_TIMEOUT_S = 120.0
"""How long a setup command may take (before `patient`)."""
DILATED_ENV = "EMUSIM_DILATED"
"""Set to 1 in the executor's environment when the batch runs in dilated time."""
DILATED_SLACK_S = 86400.0
"""What every guard timeout of the guest gets on top in dilated time. While the guest waits
on the host's file system (each program started is read over 9p, without a cache) it is idle,
and with icount's sleep=off its clock jumps from timer to timer until the reply comes: a wait
of milliseconds on the host has taken 30 s of guest time, long enough for a 32-s timeout to
fire on a ping that had not started. A guard that should catch a hang costs nothing to
lengthen there (a hung guest is idle, so its clock reaches any limit at once), and the host's
limit on the whole VM (emusim.mininet.vm_timeout_s) still holds. The runs' own caps (a
blast's `cap_s`) are not guards and keep their values: the tools run from guest memory and
start their clocks after they are loaded."""


def patient(timeout_s: float) -> float:
    """A guard timeout of the guest, lengthened by DILATED_SLACK_S in dilated time."""
    return timeout_s + (DILATED_SLACK_S if os.environ.get(DILATED_ENV) == "1" else 0.0)


SETUP_HINT = "run `tools/setup mininet` (Debian packages of tools/apt/mininet.txt, blast tools)"


class EmuError(RuntimeError):
    """The emulation cannot run as asked; the message says what is missing."""


def need_root() -> None:
    if os.geteuid() != 0:
        raise EmuError(
            "the Mininet backend needs root (network namespaces, tc, netfilter): run it as root"
        )


def import_mininet():
    """Mininet's Host and Link classes (Debian's package, made visible to .venv by setup)."""
    try:
        from mininet.link import Link
        from mininet.log import setLogLevel
        from mininet.node import Host
    except ImportError as err:
        raise EmuError(
            f"Mininet is not importable from {sys.executable} ({err}): {SETUP_HINT}; it "
            "installs Debian's `mininet` and links it into .venv (build/emu/python)"
        ) from None
    setLogLevel("warning")
    return Host, Link


BLAST_TOOLS = ("tcpblast", "udpblast")
WARM_DIR = Path("/run/emusim-tools")
"""Where a VM batch copies the blast tools before it starts: guest memory (tmpfs). The VM's
root is the host's file system over 9p without a cache, so running them from there would read
the host's disk while a run's clock runs; in dilated time the guest's clock jumps during such
a wait (docs/mininet.md, "Dilated time")."""


def tool(name: str) -> str:
    warm = WARM_DIR / name
    if os.access(warm, os.X_OK):
        return str(warm)
    path = TOOLS_DIR / name
    if not os.access(path, os.X_OK):
        raise EmuError(f"{path} is missing: {SETUP_HINT} (make -C emu/blast)")
    return str(path)


def warm_tools() -> list[str]:
    """Copy the blast tools into guest memory (`WARM_DIR`); returns what was copied."""
    WARM_DIR.mkdir(parents=True, exist_ok=True)
    copied = []
    for name in BLAST_TOOLS:
        src = Path(tool(name))
        if src.parent == WARM_DIR:
            continue
        shutil.copy2(src, WARM_DIR / name)
        copied.append(name)
    return copied


NINEP_DRIVER_DIR = Path("/sys/bus/virtio/drivers/9pnet_virtio")


def host_io_sources() -> set[str]:
    """Interrupt names of the devices through which the guest reads the host's files (the 9p
    transports: ``virtioN-requests``); empty outside a VM."""
    if not NINEP_DRIVER_DIR.is_dir():
        return set()
    return {f"{d.name}-requests" for d in NINEP_DRIVER_DIR.glob("virtio*")}


def host_io_count(sources: set[str]) -> int:
    """Interrupts so far of the host-I/O devices: one per completed 9p request."""
    if not sources:
        return 0
    return cfg.parse_interrupts(Path("/proc/interrupts").read_text(), sources)


# --- what the kernel offers -------------------------------------------------------------------


def _probe(argv: list[str]) -> tuple[bool, str]:
    """Run argv in a throwaway network namespace (unshare -n): nothing outlives it."""
    try:
        proc = subprocess.run(
            ["unshare", "--net", *argv], capture_output=True, text=True, timeout=patient(60)
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return False, str(err)
    return proc.returncode == 0, (proc.stderr or proc.stdout).strip()


def module_vermagic(path: Path = MODULE_PATH) -> str | None:
    """The kernel release a built dropper.ko is for, or None if it is not built."""
    if not path.is_file():
        return None
    proc = subprocess.run(
        ["modinfo", "-F", "vermagic", str(path)], capture_output=True, text=True, check=False
    )
    return proc.stdout.split()[0] if proc.returncode == 0 and proc.stdout.split() else None


@dataclass
class Capabilities:
    """What the running kernel can do for the emulation, and why not where it cannot."""

    kernel_release: str
    netem: bool
    netem_error: str
    congestion_control: dict[str, bool]
    module_loaded: bool
    module_loadable: bool
    module_error: str
    netfilter: bool
    netfilter_error: str

    def missing(
        self,
        delay_us: float,
        cc: str | None,
        impl: str,
        variant_ccs: Mapping[str, str | None] | None = None,
        link: bool = False,
    ) -> list[str]:
        """What a batch with this delay, congestion control and dropper needs but lacks; also
        the congestion controls of its TCP variants (name → module) and, with `link`, netem
        for an impaired link's loss and delay."""
        out = []
        if delay_us > 0 and not self.netem:
            out.append(
                f"netem (sch_netem, with ifb and act_mirred) for the {delay_us:g} µs delay: "
                f"{self.netem_error}"
            )
        elif link and not self.netem:
            out.append(
                f"netem (sch_netem, with ifb and act_mirred) for the impaired link: "
                f"{self.netem_error}"
            )
        if cc and not self.congestion_control.get(cc, False):
            out.append(f"TCP congestion control {cc!r}")
        for name, module in (variant_ccs or {}).items():
            if not self.congestion_control.get(name, False):
                out.append(
                    f"TCP congestion control {name!r} (neither registered nor a loadable "
                    f"module {module})"
                    if module
                    else f"TCP congestion control {name!r}"
                )
        if impl == "module" and not (self.module_loaded or self.module_loadable):
            out.append(f"the dropper module: {self.module_error}")
        if impl == "netfilter" and not self.netfilter:
            out.append(f"netfilter's xt_statistic: {self.netfilter_error}")
        return out


AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


def available_congestion_controls() -> set[str]:
    """The congestion controls the running kernel has registered (built in or loaded)."""
    try:
        return set(AVAILABLE_CC.read_text().split())
    except OSError:
        return set()


def module_loadable(module: str) -> bool:
    """Whether `modprobe` would load (or finds built in) `module`, without loading it."""
    if not Path("/proc/modules").exists():
        return False
    proc = subprocess.run(["modprobe", "-n", "-q", module], capture_output=True, check=False)
    return proc.returncode == 0


def capabilities(
    cc: str | None = None, variant_ccs: Mapping[str, str | None] | None = None
) -> Capabilities:
    """What this kernel offers: `cc` is the profile's congestion control (set in a throwaway
    namespace to see that it takes); `variant_ccs` maps the variants' congestion controls to
    their modules, each available if registered or loadable."""
    release = os.uname().release
    # netem, and what a host link's stage needs beside it: an IFB and the ingress redirect
    # (cfg.ingress_stage_commands); sh -e names the first that fails
    netem, netem_err = _probe(
        [
            "sh", "-ec",
            "ip link set lo up; tc qdisc add dev lo root netem delay 1us; "
            "ip link add emsimprobe type ifb; tc qdisc add dev lo handle ffff: ingress; "
            "tc filter add dev lo parent ffff: protocol all prio 1 matchall "
            "action mirred egress redirect dev emsimprobe",
        ]
    )  # fmt: skip
    ccs = {}
    for name in {cc, "reno"} - {None}:
        ok, _ = _probe(["sysctl", "-q", "-w", f"net.ipv4.tcp_congestion_control={name}"])
        ccs[name] = ok
    registered = available_congestion_controls()
    for name, module in (variant_ccs or {}).items():
        ccs[name] = name in registered or bool(module and module_loadable(module))
    loaded = PROC_DROPPER.exists()
    vermagic = module_vermagic()
    if loaded:
        loadable, mod_err = True, ""
    elif not Path("/proc/modules").exists():
        loadable, mod_err = False, f"kernel {release} cannot load modules (no /proc/modules)"
    elif vermagic is None:
        loadable, mod_err = False, f"{MODULE_PATH} is not built (make -C kernel-dropper)"
    elif vermagic != release:
        loadable, mod_err = (
            False,
            f"{MODULE_PATH} is built for {vermagic}, the kernel is {release} "
            f"(make -C kernel-dropper KRELEASE={release})",
        )
    else:
        loadable, mod_err = True, ""
    nf, nf_err = _probe(
        [
            "iptables", "-w", "-t", "mangle", "-A", "POSTROUTING", "-m", "statistic",
            "--mode", "nth", "--every", "2", "--packet", "1", "-j", "DROP",
        ]
    )  # fmt: skip
    return Capabilities(release, netem, netem_err, ccs, loaded, loadable, mod_err, nf, nf_err)


def load_variant_modules(variants: Mapping[str, dict], place: str) -> dict[str, object]:
    """Load the kernel modules of the TCP variants a batch runs and set their parameters;
    check that every congestion control is then registered. Returns what was done (for the
    provenance). Module parameters are kernel-wide: they are set only in the VM, whose kernel
    is the batch's own, never on this machine's."""
    loaded, params = [], {}
    for name, linux in variants.items():
        module = linux.get("module")
        if module and name not in available_congestion_controls():
            proc = subprocess.run(["modprobe", module], capture_output=True, text=True)
            if proc.returncode != 0:
                raise EmuError(f"modprobe {module} (variant {name}) failed: {proc.stderr.strip()}")
            loaded.append(module)
        for key, value in (linux.get("module_parameters") or {}).items():
            if place != "vm":
                raise EmuError(
                    f"variant {name}: module parameter {module}.{key} would change this "
                    "machine's kernel for every process; such a variant runs in the VM only"
                )
            path = Path("/sys/module") / str(module) / "parameters" / key
            path.write_text(f"{value}\n")
            got = path.read_text().strip()
            if got != str(value):
                raise EmuError(f"{path} reads {got!r} after writing {value!r}")
            params[f"{module}.{key}"] = got
    registered = available_congestion_controls()
    absent = sorted(set(variants) - registered)
    if absent:
        raise EmuError(
            f"congestion control(s) {', '.join(absent)} not registered after loading their "
            f"modules (the kernel has: {' '.join(sorted(registered))})"
        )
    return {"modules_loaded": loaded, "module_parameters": params, "available": sorted(registered)}


# --- cleanup of leftovers ---------------------------------------------------------------------


def _owner_alive(batch_id: str) -> bool:
    path = REGISTRY_DIR / batch_id
    try:
        pid = int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def register(batch_id: str) -> None:
    REGISTRY_DIR.mkdir(parents=True, exist_ok=True)
    (REGISTRY_DIR / batch_id).write_text(f"{os.getpid()}\n")


def unregister(batch_id: str) -> None:
    with contextlib.suppress(OSError):
        (REGISTRY_DIR / batch_id).unlink()


_BATCH_IN_NAME = re.compile(rf"{cfg.PREFIX}([0-9a-f]{{4}})")


def _batch_processes() -> dict[int, str]:
    """PID → batch id of every process a batch started (Mininet shells, tools)."""
    found = {}
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        m = re.search(rf"mininet:{cfg.PREFIX}([0-9a-f]{{4}})", cmdline)
        if m:
            found[int(entry.name)] = m.group(1)
            continue
        mark = f"{cfg.ENV_MARK}=".encode()
        for var in environ:
            if var.startswith(mark):
                m = _BATCH_IN_NAME.match(var[len(mark) :].decode(errors="replace"))
                if m:
                    found[int(entry.name)] = m.group(1)
                break
    return found


def _root_links() -> list[str]:
    proc = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True)
    names = []
    for line in proc.stdout.splitlines():
        parts = line.split(":", 2)
        if len(parts) > 1:
            names.append(parts[1].strip().split("@")[0])
    return [n for n in names if n.startswith(cfg.PREFIX)]


def _netns_names() -> list[str]:
    proc = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return [line.split()[0] for line in proc.stdout.splitlines() if line.startswith(cfg.PREFIX)]


def cleanup(only_dead: bool = True, batch_id: str | None = None, plans: bool = True) -> list[str]:
    """Remove what batches left behind: their processes (which hold their namespaces, and
    with them the veths, qdiscs and netfilter rules), veths and named namespaces with the
    project prefix in the root namespace, and (`plans`) the plans of VM batches. Spares
    batches whose owner is alive unless `only_dead` is False; `batch_id` limits it to one
    batch. Returns what it removed.

    A guest passes `plans=False`: it sees the host's plan directory but not the host's
    registry, so every other batch's plan would look dead to it (the host removes plans)."""
    removed = []

    def wanted(bid: str) -> bool:
        if batch_id is not None:
            return bid == batch_id
        return not (only_dead and _owner_alive(bid))

    procs = {pid: bid for pid, bid in _batch_processes().items() if wanted(bid)}
    for pid, bid in procs.items():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
            removed.append(f"process {pid} (batch {bid})")
    deadline = time.monotonic() + 10
    while procs and time.monotonic() < deadline:
        procs = {p: b for p, b in procs.items() if Path(f"/proc/{p}").exists()}
        if procs:
            time.sleep(0.05)
    # a namespace dies with its last process; its veths (and their peers) go with it
    for name in _root_links():
        m = _BATCH_IN_NAME.match(name)
        if m and wanted(m.group(1)):
            subprocess.run(["ip", "link", "del", name], capture_output=True)
            removed.append(f"link {name}")
    for name in _netns_names():
        m = _BATCH_IN_NAME.match(name)
        if m and wanted(m.group(1)):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
            removed.append(f"netns {name}")
    if plans and PLAN_DIR.is_dir():
        for entry in PLAN_DIR.glob("*.json"):
            if wanted(entry.stem) and not (batch_id is None and _owner_alive(entry.stem)):
                with contextlib.suppress(OSError):
                    entry.unlink()
                    removed.append(f"plan {entry.name}")
    if REGISTRY_DIR.is_dir():
        for entry in REGISTRY_DIR.iterdir():
            if wanted(entry.name) and not (batch_id is None and _owner_alive(entry.name)):
                with contextlib.suppress(OSError):
                    entry.unlink()
    return removed


# --- the network ------------------------------------------------------------------------------


@dataclass
class NetSpec:
    """What one batch's network is: topology, delay, shaper kind and TCP settings."""

    topo: cfg.Topology
    batch_id: str
    delay_us: float
    netem: bool
    tcp: cfg.TcpSetup


class CommandError(EmuError):
    pass


def _parse_netstat(text: str) -> dict[str, int]:
    """/proc/net/netstat or /proc/net/snmp: "Prefix: names" / "Prefix: values" line pairs."""
    out: dict[str, int] = {}
    lines = text.splitlines()
    for head, values in zip(lines[::2], lines[1::2], strict=False):
        prefix, _, names = head.partition(":")
        _, _, nums = values.partition(":")
        for name, num in zip(names.split(), nums.split(), strict=False):
            with contextlib.suppress(ValueError):
                out[f"{prefix}.{name}"] = int(num)
    return out


@dataclass
class Network:
    """Hosts in a line, shaped links, TCP settings; `start` builds it, `stop` removes it."""

    spec: NetSpec
    log: Callable[[str], None] = print
    hosts: dict = field(default_factory=dict)
    devs: dict = field(default_factory=dict)
    procs: list = field(default_factory=list)
    sysctls: dict = field(default_factory=dict)
    _impairment: tuple | None = None  # the impaired link's (loss, delay_ms) now
    _link_counts: dict | None = None  # its lossy egresses' counters after the last run
    stack_us: float = 0.0  # the emulator's own latency per hop (`calibrate`)
    ingress_stages: dict = field(default_factory=dict)  # router device key → its IFB's name
    host_io_sources: frozenset = frozenset()  # interrupts of the VM's 9p transports

    @property
    def env(self) -> dict[str, str]:
        env = {cfg.ENV_MARK: f"{cfg.PREFIX}{self.spec.batch_id}"}
        if self.host_io_sources:  # the blast tools count them over their measurement
            env["EMUSIM_HOST_IO_IRQS"] = " ".join(sorted(self.host_io_sources))
        return dict(os.environ, **env)

    # - running commands in a namespace -

    def run(
        self, role: str, argv: list[str], check: bool = True, timeout: float = COMMAND_TIMEOUT_S
    ) -> str:
        node = self.hosts[role]
        proc = node.popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=self.env, text=True,
        )  # fmt: skip
        try:
            out, err = proc.communicate(timeout=patient(timeout))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise CommandError(f"{role}: {' '.join(argv)} took more than {timeout} s") from None
        if check and proc.returncode != 0:
            raise CommandError(
                f"{role}: `{' '.join(argv)}` failed ({proc.returncode}): {err.strip()}"
            )
        return out

    def popen(self, role: str, argv: list[str]) -> subprocess.Popen:
        proc = self.hosts[role].popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=self.env, text=True,
        )  # fmt: skip
        self.procs.append(proc)
        return proc

    # - build and tear down -

    def script(self, role: str, commands: list[list[str]], check: bool = True) -> str:
        """Run commands one after another in one shell in the role's namespace (one process
        start instead of many: under the VM's software emulation each start is costly);
        stops at the first that fails."""
        text = "\n".join(shlex.join(argv) for argv in commands)
        return self.run(role, ["sh", "-ec", text], check=check)

    def start(self) -> None:
        Host, Link = import_mininet()
        spec, topo = self.spec, self.spec.topo
        register(spec.batch_id)
        line = topo.hops()
        for hop in line:
            self.hosts[hop.role] = Host(cfg.node_name(spec.batch_id, hop.role), inNamespace=True)
        # A node's device toward the sender is eth0, the one toward the receiver eth0 of the
        # sender and eth1 of a router.
        self.devs = {
            key: cfg.intf_name(self.hosts[hop.role].name, port)
            for hop in line
            for port, key in enumerate(hop.devs)
        }
        for (_, left), (_, right) in topo.links():
            Link(
                self.hosts[self._role_of(left)], self.hosts[self._role_of(right)],
                intfName1=self.devs[left], intfName2=self.devs[right], fast=True,
            )  # fmt: skip
        # a router's device facing a host with sockets carries that link's netem stage on its
        # ingress, through an IFB (cfg.ingress_stage_commands)
        self.ingress_stages = {}
        for (_, left), (_, right) in topo.links() if spec.netem else []:
            sockets = [cfg.has_sockets(self._role_of(key)) for key in (left, right)]
            if all(sockets):
                raise EmuError(f"{left} and {right}: a link between two hosts has no router")
            if any(sockets):
                router_dev = right if sockets[0] else left
                self.ingress_stages[router_dev] = cfg.ifb_name(self.devs[router_dev])
        macs = {}
        for role in self.hosts:
            for link in json.loads(self.run(role, ["ip", "-j", "link", "show"])):
                macs[link["ifname"]] = link.get("address")
        p = topo.prefix_len
        delay = cfg.netem_delay_us(spec.delay_us, topo.rate_bps) if spec.netem else 0.0
        # device key: (address, neighbour's address, neighbour's device key)
        ends = {}
        for (a, key_a), (b, key_b) in topo.links():
            ends[key_a] = (a, b, key_b)
            ends[key_b] = (b, a, key_a)
        self.sysctls = {}
        for hop in line:
            router = hop.role.startswith("router")
            sysctls = {x.key: x.value for x in cfg.COMMON_SYSCTLS}
            if router:
                sysctls["net.ipv4.ip_forward"] = "1"
            else:
                sysctls.update(spec.tcp.sysctls)
            self.sysctls[hop.role] = sysctls
            limit = topo.router_queue if router else topo.host_queue
            cmds = [cfg.sysctl_command(sysctls), ["ip", "link", "set", "lo", "up"]]
            for key in hop.devs:
                dev, (addr, peer, peer_key) = self.devs[key], ends[key]
                cmds += [
                    ["ip", "addr", "replace", f"{addr}/{p}", "dev", dev],
                    ["ip", "link", "set", dev, "up"],
                    cfg.offload_command(dev),
                    # permanent neighbours: no ARP exchange ever delays or adds a packet
                    ["ip", "neigh", "replace", peer, "lladdr", macs[self.devs[peer_key]],
                     "dev", dev, "nud", "permanent"],
                ]  # fmt: skip
                if spec.netem and cfg.has_sockets(hop.role):
                    # HTB holds the host's sockets back; the link's netem stage is on the
                    # router's ingress (cfg.ingress_stage_commands)
                    cmds += cfg.shaper_commands(dev, topo.rate_bps, limit, 0.0, False)
                else:
                    cmds += cfg.shaper_commands(dev, topo.rate_bps, limit, delay, spec.netem)
                if key in self.ingress_stages:
                    ifb = self.ingress_stages[key]
                    cmds += cfg.ingress_stage_commands(
                        dev, ifb, topo.rate_bps, self._ingress_limit(delay), delay
                    )
            cmds += self._routes(hop, ends)
            self.script(hop.role, cmds)
        self.verify()

    # - the emulator's own latency -

    def netem_delay(self) -> float:
        """Each plain egress's netem delay: the topology's, less the calibrated latency."""
        return cfg.netem_delay_us(self.spec.delay_us, self.spec.topo.rate_bps, self.stack_us)

    def reshape(self, delay_us: float) -> None:
        """Give every link direction's netem stage delay ``delay_us``, with its rate and queue
        as before: a router's egress, and for a link from a host the IFB on the router's
        ingress (a host's own egress is HTB, which has no delay). An impaired link gets its
        point's settings again at the next run."""
        topo = self.spec.topo
        for hop in topo.hops():
            if cfg.has_sockets(hop.role):
                continue
            cmds = []
            for key in hop.devs:
                cmds += cfg.shaper_commands(
                    self.devs[key], topo.rate_bps, topo.router_queue, delay_us, True
                )
                if key in self.ingress_stages:
                    cmds += cfg.shaper_commands(
                        self.ingress_stages[key], topo.rate_bps, self._ingress_limit(delay_us),
                        delay_us, True,
                    )  # fmt: skip
            self.script(hop.role, cmds)
        self._impairment = None

    def _ingress_limit(self, delay_us: float) -> int:
        topo = self.spec.topo
        return cfg.ingress_stage_limit(topo.host_queue, delay_us, topo.rate_bps)

    def calibrate(self) -> dict:
        """Measure the emulator's own latency per hop and take it off netem's delays.

        With every egress at the link's rate and netem's delay at 0, a ping sweep's intercept
        holds the modelled wire time of the headers (`cfg.modelled_intercept_us`) and what
        the emulator adds of its own: the guest's stack, veth, netem's queue and timers. That
        excess per hop is taken off each egress's delay, so the path's fitted delay is the
        configured one. This calibrates the emulator against its own target (a path of the
        configured delay), as Pantheon calibrates its emulators, never against hardware."""
        topo = self.spec.topo
        self.reshape(0.0)
        sizes, rtts = [], []
        for size in cfg.CALIBRATION_PING_SIZES:
            got = self.ping(size, cfg.CALIBRATION_PING_COUNT, cfg.CALIBRATION_PING_INTERVAL_S)
            sizes += [size] * len(got)
            rtts += got
        slope, intercept = cfg.two_point_line(sizes, rtts)
        links = len(topo.links())
        per_hop = cfg.stack_latency_per_hop_us(intercept, topo.rate_bps, links)
        self.stack_us = max(per_hop, 0.0)
        self.reshape(self.netem_delay())
        return {
            "method": "ping sweep over the shaped links with netem delay 0, two-point line",
            "sizes_B": list(cfg.CALIBRATION_PING_SIZES),
            "echoes": len(rtts),
            "slope_us_per_B": slope,
            "intercept_us": intercept,
            "modelled_intercept_us": cfg.modelled_intercept_us(topo.rate_bps, links),
            "links": links,
            "stack_latency_per_hop_us": per_hop,
            "netem_delay_wanted_us": self.netem_delay(),
            "netem_delay_us": cfg.netem_delay_arg(self.netem_delay())[1],
            "uncalibrated_netem_delay_us": cfg.netem_delay_us(self.spec.delay_us, topo.rate_bps),
            "shortfall_per_hop_us": cfg.delay_shortfall_us(
                self.spec.delay_us, topo.rate_bps, self.stack_us
            ),
            "rtt_us": {
                str(z): [r for s_, r in zip(sizes, rtts, strict=True) if s_ == z]
                for z in cfg.CALIBRATION_PING_SIZES
            },
        }

    def _role_of(self, dev_key: str) -> str:
        return next(h.role for h in self.spec.topo.hops() if dev_key in h.devs)

    def _routes(self, hop: cfg.Hop, ends: dict) -> list[list[str]]:
        """Sender and receiver: a default route through their router (with the profile's
        route attributes). A router: a route to each subnet beyond its neighbours, through
        the neighbour on that side."""
        topo = self.spec.topo
        if not hop.role.startswith("router"):
            dev = hop.devs[0]
            return [cfg.route_command(ends[dev][1], self.devs[dev], self.spec.tcp.route)]
        keys = [key for link in topo.links() for _, key in link]
        subnets = [
            str(ipaddress.ip_interface(f"{a}/{topo.prefix_len}").network)
            for (a, _), _ in topo.links()
        ]
        here = [keys.index(key) // 2 for key in hop.devs]  # the links this router is on
        routes = []
        for i, subnet in enumerate(subnets):
            if i in here:
                continue
            side = hop.devs[0] if i < min(here) else hop.devs[-1]
            routes.append(
                ["ip", "route", "replace", subnet, "via", ends[side][1], "dev", self.devs[side]]
            )
        return routes

    def verify(self) -> None:
        """Read back every sysctl and every interface's offloads; raise if one is not set."""
        marker = "#emusim-dev "
        for role, sysctls in self.sysctls.items():
            cmds = [["sysctl", "-n", *sysctls]]
            for dev in self.role_devs(role):
                cmds += [["echo", marker + dev], ["ethtool", "-k", dev]]
            out = self.script(role, cmds)
            head, *blocks = out.split(marker)
            values = head.strip("\n").split("\n")
            for (key, want), got in zip(sysctls.items(), values, strict=True):
                if cfg.normalise_sysctl(got) != cfg.normalise_sysctl(want):
                    raise EmuError(
                        f"{role}: {key} reads {got!r} after setting {want!r} in its namespace "
                        "(not a per-namespace sysctl on this kernel?)"
                    )
            for block in blocks:
                dev, _, text = block.partition("\n")
                on = cfg.offloads_still_on(text)
                if on:
                    raise EmuError(f"{role}: offloads still on at {dev}: {', '.join(on)}")

    def role_devs(self, role: str) -> list[str]:
        return [self.devs[key] for hop in self.spec.topo.hops() if hop.role == role
                for key in hop.devs]  # fmt: skip

    # - the impaired link of a four-host line -

    def impair_link(self, loss: str, delay_ms: float) -> dict[str, dict[str, int]]:
        """Give the router-router2 link one point's loss and delay (tc commands of
        `cfg.impaired_link_commands`, run in the two routers' namespaces); returns the lossy
        egresses' counters as the run starts. Consecutive runs of one point (the sweep's
        order) keep the settings and take the last run's final counters: under the VM's
        software emulation every command started costs a fraction of a second."""
        if self._impairment == (loss, delay_ms) and self._link_counts is not None:
            return self._link_counts
        topo = self.spec.topo
        absorb = len(topo.links()) * cfg.delay_shortfall_us(
            self.spec.delay_us, topo.rate_bps, self.stack_us
        )
        commands = cfg.impaired_link_commands(
            topo, self.devs, loss, delay_ms, self.netem_delay(), absorb
        )
        for role, cmds in commands.items():
            self.script(role, cmds)
        self._impairment = (loss, delay_ms)
        return self.link_counters()

    def link_counters(self) -> dict[str, dict[str, int]]:
        """Packets sent and dropped so far by the lossy egress of each direction."""
        out = {}
        for direction, (role, key) in cfg.LOSSY_EGRESS.items():
            text = self.run(role, ["tc", "-s", "-j", "qdisc", "show", "dev", self.devs[key]])
            out[direction] = cfg.parse_qdisc_stats(text)
        self._link_counts = out
        return out

    def qdiscs(self) -> dict[str, str]:
        out = {}
        for role in self.hosts:
            ifbs = [self.ingress_stages[k] for k in self.ingress_stages if self._role_of(k) == role]
            for dev in [*self.role_devs(role), *ifbs]:
                text = self.run(role, ["tc", "qdisc", "show", "dev", dev])
                out[dev] = " | ".join(line.strip() for line in text.splitlines())
        return out

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            with contextlib.suppress(Exception):
                proc.communicate(timeout=5)
        self.procs.clear()
        for node in self.hosts.values():
            with contextlib.suppress(Exception):
                node.stop(deleteIntfs=True)
        self.hosts.clear()
        cleanup(only_dead=False, batch_id=self.spec.batch_id)
        unregister(self.spec.batch_id)

    # - facts -

    def sysctl_values(self, role: str, keys=cfg.RECORDED_SYSCTLS) -> dict[str, str]:
        out = {}
        for key in keys:
            out[key] = cfg.normalise_sysctl(self.run(role, ["sysctl", "-n", key]).strip())
        return out

    def counters(self, role: str, flush_metrics: bool = False) -> dict[str, int]:
        """The namespace's TCP counters; first flush its TCP metrics cache if asked."""
        cmds = [["cat", "/proc/net/netstat", "/proc/net/snmp"]]
        if flush_metrics:
            cmds.insert(0, ["ip", "tcp_metrics", "flush", "all"])
        return _parse_netstat(self.script(role, cmds))

    # - workloads -

    def _wait_ready(self, proc: subprocess.Popen, what: str, timeout: float = 30) -> None:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], patient(timeout))
        line = proc.stdout.readline() if ready else ""
        if not line.startswith("READY"):
            err = proc.stderr.read() if proc.poll() is not None and proc.stderr else ""
            raise EmuError(f"{what} did not start: {line.strip()} {err.strip()}")

    @staticmethod
    def _finish(proc: subprocess.Popen, what: str, timeout: float) -> dict:
        try:
            out, err = proc.communicate(timeout=patient(timeout))
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            raise EmuError(f"{what} did not end within {timeout:g} s") from None
        lines = [ln for ln in out.splitlines() if ln.startswith("{")]
        if not lines:
            raise EmuError(f"{what} printed no result (exit {proc.returncode}): {err.strip()}")
        return json.loads(lines[-1])

    def tcp_blast(
        self, writes: int, size: int, cap_s: float, clamp: str | None, cc: str | None = None
    ) -> dict:
        """One TCP blast: metrics of the client, the server and the sender's counters. `cc`
        sets the client socket's congestion control (TCP_CONGESTION)."""
        self.run("receiver", ["ip", "tcp_metrics", "flush", "all"])
        guard = str(int(patient(cap_s + 60)))
        server_argv = [tool("tcpblast"), "server", "-p", str(PORT), "-t", guard]
        if clamp:
            server_argv += ["-w", clamp]
        server = self.popen("receiver", server_argv)
        self._wait_ready(server, "the TCP blast server")
        before = self.counters("sender", flush_metrics=True)
        client = self.popen(
            "sender",
            [
                tool("tcpblast"), "client", "-a", self.spec.topo.receiver, "-p", str(PORT),
                "-n", str(writes), "-s", str(size), "-t", str(int(cap_s)),
                *(["-C", cc] if cc else []),
            ],
        )  # fmt: skip
        result = self._finish(client, "the TCP blast client", cap_s + 60)
        if result["completed"]:
            served = self._finish(server, "the TCP blast server", 60)
        else:  # the cap ended the run: the server may wait for ever
            server.kill()
            server.communicate()
            served = {"completed": False}
        after = self.counters("sender")
        delta = {k: after[k] - before.get(k, 0) for k in after}
        result["server"] = served
        result["rto_timeouts"] = delta.get("TcpExt.TCPTimeouts", 0)
        result["fast_recoveries"] = delta.get("TcpExt.TCPRenoRecovery", 0) + delta.get(
            "TcpExt.TCPSackRecovery", 0
        )
        result["loss_probes"] = delta.get("TcpExt.TCPLossProbes", 0)
        result["retrans_segs_netns"] = delta.get("Tcp.RetransSegs", 0)
        return result

    def udp_blast(self, datagrams: int, size: int, timeout_s: float) -> dict:
        receiver = self.popen(
            "receiver",
            [
                tool("udpblast"), "recv", "-p", str(PORT), "-e", str(datagrams),
                "-i", "2000", "-t", str(int(patient(timeout_s))),
            ],
        )  # fmt: skip
        self._wait_ready(receiver, "the UDP blast receiver")
        sender = self.popen(
            "sender",
            [
                tool("udpblast"), "send", "-a", self.spec.topo.receiver, "-p", str(PORT),
                "-n", str(datagrams), "-s", str(size),
            ],
        )  # fmt: skip
        sent = self._finish(sender, "the UDP blast sender", timeout_s)
        received = self._finish(receiver, "the UDP blast receiver", timeout_s + 10)
        return {"sender": sent, "receiver": received}

    def ping(self, size: int, count: int, interval_s: float) -> list[float]:
        """RTTs in µs of `count` echoes of `size`-byte requests from sender to receiver."""
        proc = self.popen(
            "sender",
            [
                "ping", "-n", "-c", str(count), "-i", f"{interval_s:g}", "-s", str(size),
                "-W", "2", self.spec.topo.receiver,
            ],
        )  # fmt: skip
        out, err = proc.communicate(timeout=patient(count * (interval_s + 2) + 30))
        if proc.returncode not in (0, 1):
            raise EmuError(f"ping failed ({proc.returncode}): {err.strip()}")
        return [float(m) * 1000 for m in re.findall(r"time=([0-9.]+) ms", out)]


# --- droppers ---------------------------------------------------------------------------------


class NetfilterDropper:
    """xt_statistic rules in the router's mangle POSTROUTING chain; the rule's packet counter
    is the drop count. Each run starts with a fresh rule (the nth counter starts at 0)."""

    name = "netfilter"

    def __init__(self, net: Network):
        self.net = net

    def prepare(self) -> dict:
        version = self.net.run("router", ["iptables", "-V"]).strip()
        return {"iptables": version}

    def configure(self, dropper: dict, target: str) -> None:
        cmds = [["iptables", "-w", "-t", cfg.NETFILTER_TABLE, "-F"]]
        rule = cfg.netfilter_rule(dropper, target)
        if rule:
            cmds.append(["iptables", "-w", *rule])
        self.net.script("router", cmds)

    def dropped(self) -> int:
        out = self.net.run("router", ["iptables-save", "-c", "-t", cfg.NETFILTER_TABLE])
        return cfg.parse_rule_packets(out)

    def rules(self) -> str:
        return self.net.run("router", ["iptables-save", "-c", "-t", cfg.NETFILTER_TABLE])


class ModuleDropper:
    """kernel-dropper's dropper.ko, bound to the router's namespace by writing its /proc file
    from there (the module acts in the namespace of the last writer)."""

    name = "module"

    def __init__(self, net: Network):
        self.net = net

    def prepare(self) -> dict:
        if not PROC_DROPPER.exists():
            proc = subprocess.run(["insmod", str(MODULE_PATH)], capture_output=True, text=True)
            if proc.returncode != 0:
                raise EmuError(f"insmod {MODULE_PATH} failed: {proc.stderr.strip()}")
        return {"module": str(MODULE_PATH), "vermagic": module_vermagic() or "loaded"}

    def configure(self, dropper: dict, target: str) -> None:
        writes = [(PROC_DROPPER, t) for t in cfg.module_writes(dropper, target)]
        writes.append((PROC_NUM_DROPPED, "reset"))
        # one write(2) per command, from the router's namespace (which binds the dropper)
        text = "\n".join(f"echo {shlex.quote(t)} > {path}" for path, t in writes)
        ns = self.net.run("router", ["sh", "-ec", text + "\nreadlink /proc/self/ns/net"]).strip()
        info = self.state()
        if info.get("netns") != ns:
            raise EmuError(f"the dropper module acts in {info.get('netns')}, not the router {ns}")

    def state(self) -> dict[str, str]:
        return dict(
            line.split(None, 1) for line in PROC_DROPPER.read_text().splitlines() if " " in line
        )

    def dropped(self) -> int:
        return int(PROC_NUM_DROPPED.read_text().split()[0])

    def rules(self) -> str:
        return PROC_DROPPER.read_text()


class NoDropper:
    """A batch in which no point drops anything uses no dropper at all."""

    name = "none"

    def __init__(self, net: Network):
        self.net = net

    def prepare(self) -> dict:
        return {}

    def configure(self, dropper: dict, target: str) -> None:
        if cfg.dropper_active(dropper):
            raise EmuError(f"this batch has no dropper, but a point asks for {dropper}")

    def dropped(self) -> int:
        return 0

    def rules(self) -> str:
        return ""


def make_dropper(impl: str, net: Network):
    return {"netfilter": NetfilterDropper, "module": ModuleDropper, "none": NoDropper}[impl](net)
