"""Runs a batch's plan where it is (on this machine, or inside the VM as
``python -m emusim.backends.mininet execute --plan FILE``): builds the network, warms up,
calibrates, runs each point and repetition, and emits each result as one ``EMUSIM-`` line.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from emusim import workloads
from emusim.backends.mininet import scheduling, tracing
from emusim.backends.mininet.calibration import (
    LINUX_RMEM_MAX_DEFAULT_B,
    receive_window_scale,
    whole_segment_window_b,
)
from emusim.backends.mininet.droppers import make_dropper
from emusim.backends.mininet.host import (
    DILATED_ENV,
    aqm_missing,
    capabilities,
    cleanup,
    host_io_sources,
    load_variant_modules,
    need_root,
    warm_tools,
)
from emusim.backends.mininet.hosts import NamespaceHosts
from emusim.backends.mininet.network import NetSpec, Network
from emusim.backends.mininet.plan import (
    MAX_CLOCK_ATTEMPTS,
    SELFCHECK_PING_COUNT,
    SELFCHECK_PING_INTERVAL_S,
    SELFCHECK_PING_SIZES,
    SELFCHECK_SEGMENT_B,
    SELFCHECK_WINDOW_B,
    SELFCHECK_WRITES,
    WARMUP_WRITES,
    BatchError,
    congestion_control,
    log,
    needs_dropper,
    needs_link,
    variant_modules,
)
from emusim.backends.mininet.topology import LOSSY_EGRESS, Topology
from emusim.core.backend_registry import MININET
from emusim.infra.teardown import signals_ignored, signals_raise
from emusim.linux import tools
from emusim.linux.shaper import netem_delay_arg
from emusim.linux.tcp import tcp_setup

BACKEND = MININET.name

# --- executor: runs a plan where it is (host or guest) ----------------------------------------


def resolve_impl(impl: str, caps, place_hint: str) -> str:
    if impl == "module":
        if not (caps.module_loaded or caps.module_loadable):
            raise BatchError(f"--dropper-impl module ({place_hint}): {caps.module_error}")
        return "module"
    if impl == "netfilter":
        if not caps.netfilter:
            raise BatchError(f"--dropper-impl netfilter ({place_hint}): {caps.netfilter_error}")
        return "netfilter"
    if caps.module_loaded or caps.module_loadable:
        return "module"
    if caps.netfilter:
        return "netfilter"
    raise BatchError(
        f"no dropper implementation ({place_hint}): module: {caps.module_error}; "
        f"netfilter: {caps.netfilter_error}"
    )


def link_metrics(before: dict, after: dict) -> dict[str, int]:
    """The impaired link's counters over one run, per direction: packets that reached its
    lossy egress and those dropped there (random loss and queue overflow, netem's drops; with
    `topology.aqm`, CoDel's drops and a full queue's, and its CE marks: `MARK_METRICS`)."""
    out = {}
    for direction in LOSSY_EGRESS:
        sent = after[direction]["packets"] - before[direction]["packets"]
        dropped = after[direction]["drops"] - before[direction]["drops"]
        out[f"link_packets_{direction}"] = sent + dropped
        out[f"link_dropped_{direction}"] = dropped
        for counter, metric in MARK_METRICS.items():
            if counter in after[direction]:
                marks = after[direction][counter] - before[direction][counter]
                out[f"{metric}_{direction}"] = marks
    return out


MARK_METRICS = {"ce_mark": "link_ce_marks", "ecn_mark": "link_ecn_marks"}
"""sch_codel's marks (`emusim.linux.shaper.CODEL_COUNTERS`) → metric: link_ce_marks, packets
marked CE for a sojourn over ce_threshold; link_ecn_marks, marked CE by CoDel's control law
where it would have dropped them (ecn). A packet is in one of the two at most."""


def run_one(network, hosts, dropper, entry: dict, plan: dict) -> dict:
    """One run (emusim.workloads.run_one) on the point's impaired link, if it has one: its
    loss and delay set before, its counters read after (and its CoDel queue's state, with
    `topology.aqm`)."""
    link = entry.get("link")
    if link is not None:
        before = network.impair_link(str(link["loss"]), float(link["delay_ms"]))
    out = workloads.run_one(hosts, dropper, entry, plan)
    if link is not None:
        out["metrics"].update(link_metrics(before, network.link_counters()))
    aqm = network.aqm_qdisc(stats=True)
    if aqm is not None:
        out["facts"]["aqm"] = {"asked": plan["topology"]["aqm"], "after_run": aqm}
    return {"status": out["status"], "metrics": out["metrics"], BACKEND: out["facts"]}


def selfcheck_window_b(setup, rmem_max_path: Path = Path("/proc/sys/net/core/rmem_max")) -> int:
    """The self-check's window clamp: the profile's, at most SELFCHECK_WINDOW_B, in whole
    segments of the window-scale unit the receiver will offer (this kernel's rmem_max and the
    profile's tcp_rmem)."""
    cap = min(int(setup.socket.get("TCP_WINDOW_CLAMP", SELFCHECK_WINDOW_B)), SELFCHECK_WINDOW_B)
    rmem = setup.sysctls.get("net.ipv4.tcp_rmem")
    try:
        rmem_max = int(rmem_max_path.read_text())
    except OSError:
        rmem_max = LINUX_RMEM_MAX_DEFAULT_B
    wscale = receive_window_scale(int(rmem.split()[2]), rmem_max) if rmem else 0
    return whole_segment_window_b(cap, SELFCHECK_SEGMENT_B, wscale)


def selfcheck(network, hosts, dropper, plan: dict, setup) -> dict:
    """A loss-free TCP blast and a small ping sweep (raw; `evaluate_selfcheck` fits them).

    With an impaired link (the lossy-link line) the sweep runs over it as the batch's first
    run has it, without loss: the path's delay is then the point's, one that the emulator's
    own latency can be taken off (a path of delay 0 has no room for it)."""
    off = {"mode": "off"}
    dropper.configure(off, plan["topology"]["receiver"])
    t0 = time.monotonic()
    clamp = selfcheck_window_b(setup)
    res = tools.tcp_blast(hosts, SELFCHECK_WRITES, SELFCHECK_SEGMENT_B, 600, str(clamp))
    links = len(Topology(**plan["topology"]).links())
    path_delay_us = plan["delay_us"] * links / 2
    link = next((r["link"] for r in plan["runs"] if r.get("link") is not None), None)
    if link is not None:
        network.impair_link("0", float(link["delay_ms"]))
        path_delay_us += float(link["delay_ms"]) * 1000
    pings = {}
    for size in SELFCHECK_PING_SIZES:
        pings[str(size)] = tools.ping(hosts, size, SELFCHECK_PING_COUNT, SELFCHECK_PING_INTERVAL_S)
    if link is not None:  # the first run sets its point anew, with counters of its own
        network.reshape()
    return {
        "tcp": {
            "writes": SELFCHECK_WRITES,
            "window_clamp_B": clamp,
            "elapsed_s": res["elapsed_s"],
            "retransmissions": res["retransmissions"],
            "completed": res["completed"],
            "host_io_irqs": res.get("host_io_irqs"),
            # near 1: the guest's CPU, not the link, may have set the pace
            "cpu_busy_fraction": res.get("cpu_busy_fraction"),
            # what held the sender back (TCP_INFO's chrono times, µs)
            **{k: res.get(k) for k in ("busy_us", "rwnd_limited_us", "sndbuf_limited_us")},
        },
        "ping_rtt_us": pings,
        "links": links,
        "path_delay_us": path_delay_us,
        "wall_s": round(time.monotonic() - t0, 3),
    }


def execute(plan: dict, emit: Callable[[str, dict], None], place: str) -> None:
    """Build the network, run the self-check and every run of the plan, tear it down.

    `emit(kind, object)` receives START, CAPS, SELFCHECK, RUN and DONE records."""

    need_root()
    t_start = time.monotonic()
    if place == "vm" and plan.get("icount_shift") is not None:
        os.environ[DILATED_ENV] = "1"  # guard timeouts get their slack (patient)
    emit("START", {"pid": os.getpid(), "kernel_release": os.uname().release})
    removed = cleanup(only_dead=True, plans=place != "vm")
    if removed:
        log(f"mininet: removed leftovers of killed batches: {', '.join(removed)}")
    setup = tcp_setup(plan["profile"])
    caps = capabilities(setup.sysctls.get("net.ipv4.tcp_congestion_control"), variant_modules(plan))
    impl_asked = plan["dropper_impl"] if needs_dropper(plan) else "auto"
    missing = caps.missing(
        plan["delay_us"], congestion_control(plan["profile"]), impl_asked,
        variant_modules(plan), needs_link(plan),
    )  # fmt: skip
    missing += aqm_missing(plan["topology"].get("aqm"))
    if missing:
        raise BatchError(f"kernel {caps.kernel_release} ({place}) lacks " + "; ".join(missing))
    impl = resolve_impl(plan["dropper_impl"], caps, place) if needs_dropper(plan) else "none"
    if impl == "netfilter" and impl_asked == "auto":
        # auto falls back quietly only where no module was meant: say why a built one is not used
        log(f"mininet: dropper auto → netfilter; the module is not used: {caps.module_error}")
    variant_facts = load_variant_modules(plan.get("congestion_controls", {}), place)
    topo = Topology(**plan["topology"])
    spec = NetSpec(topo, plan["batch_id"], plan["delay_us"], caps.netem, setup)
    network = Network(spec)
    hosts = NamespaceHosts(network)
    guest_scheduling = None
    if place == "vm":
        warm_tools()
        network.host_io_sources = frozenset(host_io_sources())
        # one vCPU for every machine: the network and the receiver before the sender's
        # application (docs/mininet.md, "One CPU for every machine")
        guest_scheduling = scheduling.prioritise_softirqs()
        hosts.realtime_roles = scheduling.REALTIME_ROLES
    with signals_raise():
        try:
            network.start()
            dropper = make_dropper(impl, network)
            dropper_facts = dropper.prepare()
            warm_up(hosts, dropper, plan)
            calibration = (
                network.calibrate() if caps.netem and plan.get("calibrate", True) else None
            )
            emit(
                "CAPS",
                {
                    "kernel_release": caps.kernel_release,
                    "netem": caps.netem,
                    "shaper": "netem" if caps.netem else "htb",
                    "dropper_impl": impl,
                    "dropper": dropper_facts,
                    "qdiscs": network.qdiscs(),
                    **({"aqm": network.aqm_qdisc()} if topo.aqm is not None else {}),
                    "sender_sysctls": network.sysctl_values("sender"),
                    "netem_delay_us": netem_delay_arg(network.netem_delay())[1]
                    if caps.netem
                    else 0.0,
                    "netem_delay_wanted_us": network.netem_delay() if caps.netem else 0.0,
                    "calibration": calibration,
                    "host_io_sources": sorted(network.host_io_sources),
                    "guest_scheduling": guest_scheduling,
                    "setup_s": round(time.monotonic() - t_start, 3),
                    "tools": _tool_versions(),
                    "variants": variant_facts,
                },
            )
            if plan["selfcheck"]:
                emit("SELFCHECK", selfcheck(network, hosts, dropper, plan, setup))
            for entry in plan["runs"]:
                out = run_checked(network, hosts, dropper, entry, plan)
                out["key"] = [entry["point"], entry["repetition"]]
                tracing.emit(out, emit)  # a traced run's CSV, before its RUN record
                emit("RUN", out)
            emit("DONE", {"wall_s": round(time.monotonic() - t_start, 3)})
        finally:
            with signals_ignored():
                network.stop()


def warm_up(hosts, dropper, plan: dict) -> None:
    """A short discarded blast and one echo of each size: see WARMUP_WRITES."""
    dropper.configure({"mode": "off"}, plan["topology"]["receiver"])
    tools.tcp_blast(hosts, WARMUP_WRITES, 1448, 600, hosts.window_clamp)
    for size in SELFCHECK_PING_SIZES:
        tools.ping(hosts, size, 1, SELFCHECK_PING_INTERVAL_S)


def run_checked(network, hosts, dropper, entry: dict, plan: dict) -> dict:
    """`run_one`, repeated while the guest waited on the host during the measurement.

    The blast tools count the VM's 9p interrupts between their clock's start and stop
    (``host_io_irqs``; -1 where nothing is counted: on the host, or a ping). A run with any
    is rejected: in dilated time the guest's clock may have jumped during the wait. The last
    attempt is kept either way, with ``clock_check`` saying whether it passed."""
    rejected = []
    for attempt in range(1, MAX_CLOCK_ATTEMPTS + 1):
        t0 = time.monotonic()
        with (
            tracing.traced(entry, network, plan["batch_id"]) as trace,
            _cpu_profiled(entry) as prof,
        ):
            out = run_one(network, hosts, dropper, entry, plan)
        wall = round(time.monotonic() - t0, 3)
        trace.attach(out)
        if prof:
            out["mininet"]["cpu_profile"] = prof
        io = out.get("mininet", {}).get("host_io_irqs", -1)
        if io <= 0 or attempt == MAX_CLOCK_ATTEMPTS:
            break
        log(f"mininet: run {entry['point']} rep {entry['repetition']}: {io} host I/O "
            f"request(s) during the measurement; repeating (attempt {attempt + 1})")  # fmt: skip
        rejected.append({"attempt": attempt, "failed": ["clock"], "host_io_irqs": io,
                         "metrics": out["metrics"], "wall_s": wall})  # fmt: skip
    out["wall_s"] = wall
    out["clock_check"] = {
        "ok": None if io < 0 else io == 0,
        "host_io_irqs": None if io < 0 else io,
        "attempts": attempt,
        "rejected": rejected,
    }
    return out


@contextlib.contextmanager
def _cpu_profiled(entry: dict):
    """For a run marked ``cpu_profile``: perf samples every CPU while it runs, and the dict
    yielded gets the samples per component of the path (emusim.linux.cpu_profile) after it."""
    result: dict = {}
    if not entry.get("cpu_profile"):
        yield result
        return
    import tempfile

    from emusim.linux import cpu_profile

    with tempfile.TemporaryDirectory(prefix="emusim-perf-") as tmp:
        data = Path(tmp) / "perf.data"
        with cpu_profile.record(data):
            yield result
        result.update(cpu_profile.summary(cpu_profile.symbols(data)))


def _tool_versions() -> dict[str, str]:
    out = {}
    for name, argv in (
        ("tc", ["tc", "-V"]),
        ("iptables", ["iptables", "-V"]),
        ("ping", ["ping", "-V"]),
    ):
        with contextlib.suppress(OSError):
            p = subprocess.run(argv, capture_output=True, text=True)
            out[name] = (
                (p.stdout or p.stderr).strip().splitlines()[0] if p.stdout or p.stderr else ""
            )
    with contextlib.suppress(Exception):
        import mininet.net

        out["mininet"] = getattr(mininet.net, "VERSION", "")
    return out
