"""Preflight: what each host of the testbed is, checked before any run, recorded with every run.

Per host, over SSH: reachable (and how long the connection took); hostname, kernel release,
machine, distribution, CPU model, MHz and count, memory and swap; every interface with an IPv4
address (address, MAC, MTU, queue length, driver, speed, duplex, offloads, qdisc); IPv4 routes;
every ``net.ipv4.tcp_*`` sysctl (and ``ip_forward``); the blast tools (sender, receiver); the
dropper module's state (router); the clock's offset from the controller's.

Checks (a failure stops with a message naming the host): every host answers; the data-plane
interfaces carry the inventory's addresses; the router forwards; the segmentation offloads are
off on the data plane (switched off first with ``offloads: off``, the default); the tools are
there; the dropper module is loaded (or loaded now, ``dropper.load``); each clock is within
the bound of the controller's. emusim.backends.testbed.host_tables turns the facts into the report's
Tables 1.1-1.4 in data/reference's columns. docs/testbed.md explains each fact and bound.
"""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import tarfile
import time
from collections.abc import Sequence
from pathlib import Path

from emusim.backends.testbed import ssh
from emusim.backends.testbed.inventory import Inventory
from emusim.core.paths import REPO_ROOT
from emusim.linux.tcp import normalise_sysctl

PROC_DROPPER = "/proc/dropperInfo/dropper"
PROC_NUM_DROPPED = "/proc/dropperInfo/numDropped"
DROPPER_SOURCES = ("dropper.c", "dropper_decision.h", "Kbuild", "Makefile")
DEFAULT_BUILD_DIR = "/var/tmp/emusim-kernel-dropper"
SEGMENTATION_OFFLOADS = {
    # ethtool -K name: ethtool -k name. With these on, a NIC or the stack carries up to 64 KB
    # super-packets and a per-packet dropper sees dozens of segments as one (DESIGN.md).
    "tso": "tcp-segmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
    "lro": "large-receive-offload",
}
TOOLS = ("tcpblast", "udpblast")
SECTION = "#@emusim-section "
RC = "#@emusim-rc "
CLOCK_LOOP = (
    'while read -r _; do t=${EPOCHREALTIME:-}; [ -n "$t" ] || t=$(date +%s.%N); echo "$t"; done'
)
"""Answers each line with the host's clock: bash's $EPOCHREALTIME needs no process start
(so the probe's round trip is the connection's), date where the shell has none."""


class PreflightError(RuntimeError):
    """A preflight check failed; the message names the host and the fact."""


# --- remote facts in one round trip per host --------------------------------------------------


def sections_script(sections: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """One remote command running each (name, argv) in turn, marking each one's output and
    exit status, so a missing tool on one host is a recorded fact, not a failed preflight."""
    lines = []
    for name, argv in sections:
        lines += [
            f"printf '%s\\n' {shlex.quote(SECTION + name)}",
            f"{ssh.remote_command(argv)} 2>&1",
            f"printf '%s%s\\n' {shlex.quote(RC)} \"$?\"",
        ]
    return ["sh", "-c", "\n".join(lines)]


def parse_sections(text: str) -> dict[str, tuple[int, str]]:
    """name -> (exit status, output) of `sections_script`'s output."""
    out: dict[str, tuple[int, str]] = {}
    name, buf = None, []
    for line in text.splitlines():
        if line.startswith(SECTION):
            name, buf = line[len(SECTION) :], []
        elif line.startswith(RC) and name is not None:
            out[name] = (int(line[len(RC) :].strip() or 1), "\n".join(buf))
            name = None
        elif name is not None:
            buf.append(line)
    return out


HOST_SECTIONS = (
    ("hostname", ["uname", "-n"]),
    ("kernel", ["uname", "-r"]),
    ("machine", ["uname", "-m"]),
    ("os_release", ["cat", "/etc/os-release"]),
    ("cpuinfo", ["cat", "/proc/cpuinfo"]),
    ("meminfo", ["cat", "/proc/meminfo"]),
    ("addresses", ["ip", "-j", "-4", "addr", "show"]),
    ("links", ["ip", "-j", "link", "show"]),
    ("routes", ["ip", "-j", "-4", "route", "show", "table", "main"]),
    ("tcp_sysctls", ["sysctl", "-a", "-r", r"^net\.ipv4\.(tcp_|ip_forward$)"]),
    ("ethtool_version", ["ethtool", "--version"]),
    ("ping_version", ["ping", "-V"]),
)


def interface_sections(dev: str) -> list[tuple[str, list[str]]]:
    return [
        (f"ethtool {dev}", ["ethtool", dev]),
        (f"ethtool -i {dev}", ["ethtool", "-i", dev]),
        (f"ethtool -k {dev}", ["ethtool", "-k", dev]),
        (f"qdisc {dev}", ["tc", "qdisc", "show", "dev", dev]),
    ]


# --- parsers (tested on captured output) ------------------------------------------------------


def parse_cpuinfo(text: str) -> dict:
    """CPU model, MHz (of the first CPU) and count from /proc/cpuinfo."""
    model, mhz, count = None, None, 0
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "processor":
            count += 1
        elif key in ("model name", "Model", "cpu model") and model is None:
            model = value
        elif key == "cpu MHz" and mhz is None:
            mhz = float(value)
    return {"cpu": model, "cpu_mhz": mhz, "cpus": count}


def parse_meminfo(text: str) -> dict:
    """Memory and swap in MB (MiB, as `free -m`) from /proc/meminfo."""
    kb = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if value.strip().endswith("kB"):
            kb[key.strip()] = int(value.split()[0])
    return {
        "memory_mb": kb.get("MemTotal", 0) // 1024,
        "swap_mb": kb.get("SwapTotal", 0) // 1024,
    }


def parse_os_release(text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith("PRETTY_NAME="):
            return shlex.split(line.partition("=")[2])[0] if line.partition("=")[2] else ""
    return None


def parse_ethtool(text: str) -> dict:
    """Speed (Mb/s, None when unknown) and duplex of `ethtool DEV`."""
    speed, duplex = None, None
    for line in text.splitlines():
        key, _, value = line.strip().partition(":")
        value = value.strip()
        if key == "Speed" and value.endswith("Mb/s"):
            speed = int(value[: -len("Mb/s")])
        elif key == "Duplex":
            duplex = value.lower()
    return {"speed_mbps": speed, "duplex": duplex}


def parse_ethtool_driver(text: str) -> dict:
    info = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        info[key.strip()] = value.strip()
    return {"driver": info.get("driver"), "bus_info": info.get("bus-info") or None}


def parse_features(text: str) -> dict[str, str]:
    """`ethtool -k DEV`: feature -> on/off (with `[fixed]` where it cannot change)."""
    out = {}
    for line in text.splitlines()[1:]:
        key, sep, value = line.strip().partition(":")
        if sep and value.strip():
            out[key.strip()] = value.strip()
    return out


def parse_sysctls(text: str) -> dict[str, str]:
    """`sysctl -a` lines to key -> value (the kernel's tabs between numbers made spaces)."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition(" = ")
        if sep:
            out[key.strip()] = normalise_sysctl(value)
    return out


def parse_dropper(text: str) -> dict[str, str]:
    """/proc/dropperInfo/dropper: one `key value` per line (kernel-dropper/README.md)."""
    return dict(line.split(None, 1) for line in text.splitlines() if " " in line.strip())


# --- one host ---------------------------------------------------------------------------------


def host_facts(remote: ssh.Remote) -> dict:
    """Everything preflight records about one host (two round trips)."""
    got = parse_sections(remote.run(sections_script(HOST_SECTIONS)).stdout)

    def ok(name: str) -> str:
        rc, text = got.get(name, (1, ""))
        return text if rc == 0 else ""

    facts: dict = {
        "hostname": ok("hostname").strip(),
        "kernel": ok("kernel").strip(),
        "machine": ok("machine").strip(),
        "distribution": parse_os_release(ok("os_release")),
        **parse_cpuinfo(ok("cpuinfo")),
        **parse_meminfo(ok("meminfo")),
        "tcp_sysctls": parse_sysctls(ok("tcp_sysctls")),
        "routes": json.loads(ok("routes") or "[]"),
        "tools": {
            "ethtool": ok("ethtool_version").strip() or None,
            "ping": (ok("ping_version").strip().splitlines() or [None])[0],
        },
    }
    links = {x["ifname"]: x for x in json.loads(ok("links") or "[]")}
    interfaces = {}
    for entry in json.loads(ok("addresses") or "[]"):
        name = entry["ifname"]
        if name == "lo":
            continue
        link = links.get(name, {})
        interfaces[name] = {
            "addresses": [
                f"{a['local']}/{a['prefixlen']}"
                for a in entry.get("addr_info", [])
                if a.get("family") == "inet"
            ],
            "mac": link.get("address"),
            "mtu": entry.get("mtu"),
            "tx_queue_len": link.get("txqlen"),
            "operstate": entry.get("operstate"),
        }
    if interfaces:
        sections = [s for dev in interfaces for s in interface_sections(dev)]
        per = parse_sections(remote.run(sections_script(sections)).stdout)
        for dev, info in interfaces.items():
            info.update(parse_ethtool(per.get(f"ethtool {dev}", (1, ""))[1]))
            info.update(parse_ethtool_driver(per.get(f"ethtool -i {dev}", (1, ""))[1]))
            info["offloads"] = parse_features(per.get(f"ethtool -k {dev}", (1, ""))[1])
            info["qdisc"] = " | ".join(
                ln.strip() for ln in per.get(f"qdisc {dev}", (1, ""))[1].splitlines()
            )
    facts["interfaces"] = interfaces
    return facts


def segmentation_on(features: dict[str, str]) -> list[str]:
    """The segmentation offloads `ethtool -k` reports as not off (or does not report)."""
    return [
        long
        for long in SEGMENTATION_OFFLOADS.values()
        if not features.get(long, "").startswith("off")
    ]


def switch_offloads_off(remote: ssh.Remote, devs: Sequence[str]) -> None:
    """ethtool -K DEV tso off gso off gro off lro off on each data-plane interface (a feature
    fixed off makes ethtool complain, harmlessly; the read-back decides)."""
    for dev in devs:
        argv = ["ethtool", "-K", dev]
        for short in SEGMENTATION_OFFLOADS:
            argv += [short, "off"]
        remote.run(argv, check=False)


# --- clocks -----------------------------------------------------------------------------------


def clock_offset(samples: Sequence[tuple[float, float, float]]) -> dict:
    """The host's clock against the controller's from (sent, host time, received) samples:
    the sample with the shortest round trip (NTP's clock filter), its offset host − midpoint,
    and the uncertainty half its round trip (the host read its clock somewhere in between)."""
    if not samples:
        raise ValueError("no clock samples")
    sent, remote, received = min(samples, key=lambda s: s[2] - s[0])
    rtt = received - sent
    return {
        "offset_ms": round((remote - (sent + received) / 2) * 1e3, 3),
        "uncertainty_ms": round(rtt / 2 * 1e3, 3),
        "round_trip_ms": round(rtt * 1e3, 3),
        "probes": len(samples),
    }


def measure_clock(remote: ssh.Remote, probes: int, timeout_s: float) -> dict:
    """Probe the host's clock ``probes`` times over one channel (no process start each)."""
    # no guard: the loop reads the channel itself and ends at its end of file
    shell = 'if command -v bash >/dev/null; then exec bash -c "$1"; fi; exec sh -c "$1"'
    proc = remote.start(["sh", "-c", shell, "clock", CLOCK_LOOP], guard=False)
    samples = []
    try:
        assert proc.proc.stdin is not None
        for _ in range(probes + 1):
            sent = time.time()
            proc.proc.stdin.write("x\n")
            proc.proc.stdin.flush()
            line = proc.readline(timeout_s)
            received = time.time()
            if not line.strip():
                raise ssh.RemoteError(f"{remote.host.label}: the clock probe ended", 1)
            samples.append((sent, float(line), received))
    finally:
        proc.kill()
    return clock_offset(samples[1:])  # the first answer also waited for the shell to start


# --- the dropper on the router ----------------------------------------------------------------


def read_dropper(remote: ssh.Remote) -> dict[str, str] | None:
    done = remote.run(["cat", PROC_DROPPER], check=False)
    return parse_dropper(done.stdout) if done.returncode == 0 else None


def copy_sources(remote: ssh.Remote, dest: str, source_dir: Path) -> None:
    """kernel-dropper's sources to ``dest`` on the router (a tar stream over the channel)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name in DROPPER_SOURCES:
            tar.add(source_dir / name, arcname=name)
    argv = remote.ssh_argv(["sh", "-c", 'mkdir -p "$1" && tar -C "$1" -xf -', "untar", dest])
    proc = subprocess.run(argv, input=buf.getvalue(), capture_output=True, timeout=120)
    if proc.returncode != 0:
        raise PreflightError(
            f"{remote.host.label}: copying kernel-dropper/ to {dest} failed: "
            f"{proc.stderr.decode(errors='replace').strip()}"
        )


def ensure_dropper(remote: ssh.Remote, inv: Inventory, needed: bool) -> dict:
    """The module's state on the router; loaded (or built and loaded) as the inventory allows.
    Without it, a batch that needs the dropper cannot run."""
    state = read_dropper(remote)
    action = "present" if state else None
    if state is None and inv.dropper_load == "insmod":
        remote.run(["insmod", inv.dropper_module or ""], timeout_s=120)
        action = f"insmod {inv.dropper_module}"
    elif state is None and inv.dropper_load == "build":
        dest = inv.dropper_source_dir or DEFAULT_BUILD_DIR
        copy_sources(remote, dest, REPO_ROOT / "kernel-dropper")
        release = remote.run(["uname", "-r"]).stdout.strip()
        remote.run(["make", "-C", dest, "module", f"KRELEASE={release}"], timeout_s=900)
        remote.run(["insmod", f"{dest}/dropper.ko"], timeout_s=120)
        action = f"built in {dest} for {release} and loaded"
    if action and action != "present":
        state = read_dropper(remote)
    if state is None and needed:
        raise PreflightError(
            f"{remote.host.label}: the dropper module is not loaded ({PROC_DROPPER} is "
            "missing); load kernel-dropper/dropper.ko there (insmod), or let the preflight "
            "do it: dropper.load: insmod (with dropper.module) or build (docs/testbed.md)"
        )
    srcversion = remote.run(["cat", "/sys/module/dropper/srcversion"], check=False).stdout
    return {
        "loaded": state is not None,
        "action": action,
        "state": state,
        "srcversion": srcversion.strip() or None,
    }


# --- the whole testbed ------------------------------------------------------------------------


def run(conns: ssh.Connections, inv: Inventory, needs_dropper: bool = True) -> dict:
    """Every fact and check of the preflight; raises PreflightError or HostLost."""
    t0 = time.monotonic()
    connect_s = conns.connect()
    hosts = {}
    for role, host in inv.hosts.items():
        remote = conns[role]
        if inv.offloads == "off":
            switch_offloads_off(remote, host.interfaces)
        facts = host_facts(remote)
        facts["name"] = host.name
        facts["ssh"] = {
            "host": host.ssh.host,
            "user": host.ssh.user,
            "port": host.ssh.port,
            "connect_s": connect_s[role],
        }
        facts["clock"] = measure_clock(remote, inv.clock_probes, inv.command_timeout_s)
        if role in ("sender", "receiver"):
            facts["blast_tools"] = blast_tools(remote, inv.tools_dir)
        hosts[role] = facts
    dropper = ensure_dropper(conns["router"], inv, needs_dropper)
    out = {
        "testbed": inv.summary(),
        "controller_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "hosts": hosts,
        "dropper": dropper,
        "bounds": {"clock_max_offset_ms": inv.clock_max_offset_ms, "offloads": inv.offloads},
        "elapsed_s": round(time.monotonic() - t0, 3),
    }
    out["checks"] = check(out, inv)
    failed = [c for c in out["checks"] if not c["ok"]]
    if failed:
        raise PreflightError(
            "preflight failed: " + "; ".join(f"{c['host']}: {c['detail']}" for c in failed)
        )
    return out


def blast_tools(remote: ssh.Remote, tools_dir: str) -> dict:
    paths = [f"{tools_dir}/{t}" for t in TOOLS]
    done = remote.run(["sha256sum", *paths], check=False)
    sums = {
        Path(line.split()[1]).name: line.split()[0]
        for line in done.stdout.splitlines()
        if len(line.split()) == 2
    }
    return {"dir": tools_dir, "sha256": sums}


def check(pre: dict, inv: Inventory) -> list[dict]:
    """Every preflight check: {host, check, ok, detail}."""
    out = []

    def add(role: str, name: str, ok: bool, detail: str) -> None:
        host = inv.hosts[role]
        out.append({"host": host.label, "check": name, "ok": bool(ok), "detail": detail})

    for role, host in inv.hosts.items():
        facts = pre["hosts"][role]
        for dev, addr in zip(host.interfaces, host.addresses, strict=True):
            info = facts["interfaces"].get(dev)
            have = info["addresses"] if info else []
            add(
                role,
                f"address {dev}",
                addr in have,
                f"{dev} has {have or 'no IPv4 address'}, the inventory says {addr}",
            )
            if info is not None and inv.offloads == "off":
                on = segmentation_on(info.get("offloads", {}))
                add(role, f"offloads {dev}", not on, f"{dev}: still on: {', '.join(on)}")
        clock = facts["clock"]
        worst = abs(clock["offset_ms"]) + clock["uncertainty_ms"]
        add(
            role,
            "clock",
            worst <= inv.clock_max_offset_ms,
            f"clock {clock['offset_ms']:+.3f} ± {clock['uncertainty_ms']:.3f} ms from the "
            f"controller's, bound {inv.clock_max_offset_ms:g} ms (synchronise it: NTP, chrony)",
        )
        if role in ("sender", "receiver"):
            missing = [t for t in TOOLS if t not in facts["blast_tools"]["sha256"]]
            add(
                role,
                "blast tools",
                not missing,
                f"missing in {inv.tools_dir}: {', '.join(missing)} (make -C emu/blast, then copy "
                "build/emu/tcpblast and udpblast there)",
            )
    forward = pre["hosts"]["router"]["tcp_sysctls"].get("net.ipv4.ip_forward")
    add("router", "ip_forward", forward == "1", f"net.ipv4.ip_forward is {forward}, not 1")
    return out


def summary(pre: dict) -> dict:
    """The facts every run's provenance carries (the whole record is in the session file)."""
    hosts = {}
    for role, f in pre["hosts"].items():
        hosts[role] = {
            "name": f["name"],
            "hostname": f["hostname"],
            "kernel": f["kernel"],
            "cpu": f["cpu"],
            "clock_offset_ms": f["clock"]["offset_ms"],
            "clock_uncertainty_ms": f["clock"]["uncertainty_ms"],
            "interfaces": {
                dev: {k: info.get(k) for k in ("speed_mbps", "duplex", "driver", "qdisc")}
                for dev, info in f["interfaces"].items()
            },
            "tcp_congestion_control": f["tcp_sysctls"].get("net.ipv4.tcp_congestion_control"),
        }
    d = pre["dropper"]
    return {
        "hosts": hosts,
        "dropper": {"loaded": d["loaded"], "action": d["action"], "srcversion": d["srcversion"]},
        "checks_passed": sum(c["ok"] for c in pre["checks"]),
        "controller_utc": pre["controller_utc"],
    }
