"""The machine a Mininet batch runs on: root, the blast tools, what the running kernel offers
(netem, the congestion controls, the dropper module), variant modules, and the cleanup of
what a killed batch left behind.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from emusim.backends.mininet.topology import ENV_MARK, PREFIX
from emusim.core.paths import BUILD_DIR, REPO_ROOT

TOOLS_DIR = BUILD_DIR / "emu"
PLAN_DIR = TOOLS_DIR / "plans"
"""Plans of batches that run in the VM (the guest reads them; the host removes them)."""
MODULE_PATH = REPO_ROOT / "kernel-dropper" / "dropper.ko"
PROC_DROPPER = Path("/proc/dropperInfo/dropper")
PROC_NUM_DROPPED = Path("/proc/dropperInfo/numDropped")
REGISTRY_DIR = (
    Path("/run/emusim-mininet") if os.geteuid() == 0 else Path(f"/tmp/emusim-mininet-{os.getuid()}")
)
"""One file per running batch (its id), holding the owner's PID: cleanup spares live batches.
A batch that is not root (a VM batch on a cluster node) keeps its own in /tmp."""
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
limit on the whole VM (batch.vm_timeout_s) still holds. The runs' own caps (a
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


def aqm_missing(aqm: Mapping | None) -> list[str]:
    """What a batch whose topology has `aqm` (topology.aqm) needs of the kernel but lacks:
    sch_codel (Debian's 6.1 builds it as a module, CONFIG_NET_SCH_CODEL=m, which tc's request
    loads; this machine's 6.18 has none). Probed in a throwaway namespace."""
    if aqm is None:
        return []
    ok, err = _probe(
        ["sh", "-ec", "ip link set lo up; tc qdisc add dev lo root codel limit 10 ecn"]
    )
    return [] if ok else [f"CoDel (sch_codel) for topology.aqm: {err}"]


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
    # (ingress_stage_commands); sh -e names the first that fails
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


_BATCH_IN_NAME = re.compile(rf"{PREFIX}([0-9a-f]{{4}})")


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
        m = re.search(rf"mininet:{PREFIX}([0-9a-f]{{4}})", cmdline)
        if m:
            found[int(entry.name)] = m.group(1)
            continue
        mark = f"{ENV_MARK}=".encode()
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
    return [n for n in names if n.startswith(PREFIX)]


def _netns_names() -> list[str]:
    proc = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return [line.split()[0] for line in proc.stdout.splitlines() if line.startswith(PREFIX)]


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
    # a traced run's tracefs instance and kprobes (emusim.linux.tcp_tracefs), on this machine
    from emusim.linux import tcp_tracefs

    for bid in tcp_tracefs.leftover_sessions():
        if wanted(bid):
            removed += tcp_tracefs.remove_session(bid)
    if REGISTRY_DIR.is_dir():
        for entry in REGISTRY_DIR.iterdir():
            if wanted(entry.name) and not (batch_id is None and _owner_alive(entry.name)):
                with contextlib.suppress(OSError):
                    entry.unlink()
    return removed
