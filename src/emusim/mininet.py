"""The Mininet backend: a scenario's runs in Mininet with real Linux TCP (issue 4).

    python -m emusim.mininet batch --scenario scenarios/NAME.yaml --scale {paper|quick}
        --profile PROFILE [--delay-json PATH] --results-dir RESULTS_ROOT
        [--place auto|host|vm] [--dropper-impl auto|module|netfilter] [--no-selfcheck]
        [--repetitions N] [--point-stride K]
    python -m emusim.mininet cleanup [--all]
    python -m emusim.mininet capabilities

`batch` runs every point and repetition of the scenario at that scale with one TCP profile
(``linux-2.2``, ``linux-6.1`` or ``linux-default``), or a thinned design (every K-th value of
the first axis, at most N repetitions; config.yaml `mininet.design`), and writes
``RESULTS_ROOT/mininet/NAME/PROFILE/POINT/run{k}.json`` (docs/results-schema.md), skipping
runs already written, then ``RESULTS_ROOT/mininet/NAME/PROFILE/batch.json``: the self-check
(line-rate fraction of a loss-free TCP blast, fitted ping delay against the configured one),
kernel release, place, KVM, dropper implementation, timings and the list of run files.

Where it runs (``--place auto``): on this machine when its kernel has what the batch needs
(netem for a nonzero delay, the congestion control, the dropper module if asked for), else in
one virtme-ng VM booting Debian's kernel (emusim.vm) for the whole batch. The guest runs
``python -m emusim.mininet execute --plan FILE`` and prints each run as one ``EMUSIM-RUN``
line; this process writes the files, so an interrupted batch keeps every finished run.

A point's TCP variant (config/tcp_variants.yaml) sets the sender socket's congestion control;
the blast tool reads it back and a run whose connection had another one is an error. A variant
without a Linux implementation is not run: the batch says so and lists its points in
batch.json (``not_implemented``). Its kernel module is loaded where the batch runs.

Root is needed. Whatever ends a batch (an error, Ctrl-C, SIGTERM), its namespaces, links,
qdiscs and rules are removed; what a SIGKILLed batch leaves is removed by `cleanup`, which
every batch also runs first (sparing batches whose process is still alive).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from emusim import constants
from emusim import mininet_config as cfg

BACKEND = "mininet"
LINE_PREFIX = "EMUSIM-"
PLACES = ("auto", "host", "vm")
DEFAULT_TCP_CAP_S = 3600.0
"""Wall-clock cap of a TCP run whose scenario sets no `cap_s`."""
SELFCHECK_WRITES = 40000
"""The self-check's TCP blast: 4.9 s at 100 Mb/s, so that its handshake and slow start
(about 8 ms in dilated time) cost less than 0.2 % of line rate against a tolerance of 0.5 %."""
SELFCHECK_SEGMENT_B = 1448
"""The self-check's write size: one full segment (MSS 1460 less the 12-byte timestamp option)."""
SELFCHECK_WINDOW_B = 65535
"""The self-check's blast advertises at most this window (TCP_WINDOW_CLAMP), rounded down to
whole segments and window-scale units (`selfcheck_window_b`: linux-2.2's 31 856 B stays,
linux-6.1 gets 46 336 B, 32 segments): far above the path's bandwidth-delay product (under
6 KB at 100 Mb/s without added delay) and below any of its 100-packet queues. The self-check
measures whether the emulator carries the link's rate; a profile's own large buffers
(linux-6.1: 4 MiB) would otherwise overflow the sender's 100-packet queue (91
retransmissions, 0.86 of line rate measured with CUBIC), which is TCP's behaviour on that
topology, the same in ns-3, not the emulator's."""
SELFCHECK_PING_SIZES = (56, 256, 1408, 1472)
SELFCHECK_PING_COUNT = 5
SELFCHECK_PING_INTERVAL_S = 0.05
WARMUP_WRITES = 2000
"""A discarded TCP blast (and one echo per size) before the calibration: every program and
Python module a run uses is loaded, and every code path taken once, before any clock runs."""
MAX_CLOCK_ATTEMPTS = 3
"""A run during whose measurement the guest waited on the host's file system is repeated, at
most this many attempts in all (the rejected ones are recorded with the accepted run)."""
VM_CPUS = 1
"""Virtual CPUs of the batch VM. Under software emulation (TCG) one vCPU forwards faster than
two (measured: 0.41-0.61 of line rate against 0.22-0.34 with two, on 2 busy host cores):
the namespaces' packet path needs no parallelism, and two vCPUs add cross-CPU work."""


class BatchError(RuntimeError):
    """The batch cannot run as asked; the message says why."""


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --- plan: what a batch runs, computed on the host --------------------------------------------


def one_way_delay_us(settings: dict, delay_json: Path | None) -> float:
    delay = settings["topology"]["delay"]
    if delay != "measured":
        return float(delay)
    if delay_json is None:
        raise BatchError("the scenario's delay is 'measured': give --delay-json (the fitted file)")
    try:
        return float(json.loads(Path(delay_json).read_text())["one_way_delay_us"])
    except (OSError, KeyError, ValueError) as err:
        raise BatchError(f"cannot read one_way_delay_us from {delay_json}: {err}") from None


def run_path(results_dir: Path, scenario: str, profile: str, point: str, rep: int) -> Path:
    return results_dir / BACKEND / scenario / profile / point / f"run{rep}.json"


def make_plan(
    scenario,
    profile: str,
    delay_us: float,
    dropper_impl: str,
    results_dir: Path,
    selfcheck: bool = True,
    repetitions: int | None = None,
    point_stride: int = 1,
    repeat_deterministic: bool = True,
) -> dict:
    """Everything the executor needs (it does not load the scenario again).

    ``repetitions`` (at most the scenario's) and ``point_stride`` thin the design: every
    ``point_stride``-th value of the first sweep axis (`Scenario.thinned_points`). Without
    ``repeat_deterministic`` a point that draws no random numbers (`point_is_random`) runs
    once, as ns-3's do: in dilated time such a point repeats to within 0.03 %
    (docs/mininet.md, "Dilated time").
    """
    from emusim import variants as tcp_variants  # on the host only: the guest gets the plan

    cfg.check_profile(profile)
    if repetitions is not None and repetitions < 1:
        raise BatchError(f"--repetitions {repetitions}: must be at least 1")
    if point_stride < 1:
        raise BatchError(f"--point-stride {point_stride}: must be at least 1")
    points = scenario.thinned_points(point_stride)
    reps = min(repetitions or scenario.repetitions, scenario.repetitions)
    if dropper_impl not in cfg.DROPPER_IMPLS:
        raise BatchError(
            f"--dropper-impl {dropper_impl!r}; accepted: {', '.join(cfg.DROPPER_IMPLS)}"
        )
    topo = cfg.Topology.from_settings(scenario.settings["topology"])
    runs, skipped, not_implemented = [], [], []
    ccs: dict[str, dict] = {}
    for point in points:
        cc = None
        if point.variant is not None:
            variant = tcp_variants.get(point.variant)
            if variant.linux is None:
                not_implemented.append(
                    {"point": point.id, "variant": variant.name,
                     "reason": tcp_variants.not_implemented(variant, BACKEND)}
                )  # fmt: skip
                continue
            cc = variant.linux.congestion_control
            _add_congestion_control(ccs, variant)
        point_reps = reps if repeat_deterministic or point_is_random(point, cc) else 1
        for rep in range(1, point_reps + 1):
            path = run_path(results_dir, scenario.name, profile, point.id, rep)
            entry = {
                "point": point.id,
                "params": point.values,
                "repetition": rep,
                "workload": point.workload,
                "dropper": point.dropper,
                "link": point.link,
                "variant": point.variant,
                "congestion_control": cc,
                "path": str(path),
            }
            (skipped if path.exists() else runs).append(entry)
    return {
        "scenario": scenario.name,
        "scenario_path": str(scenario.path),
        "scale": scenario.scale,
        "profile": profile,
        "delay_us": delay_us,
        "topology": topo.__dict__,
        "cap_s": float(scenario.settings.get("cap_s", DEFAULT_TCP_CAP_S)),
        "dropper_impl": dropper_impl,
        "selfcheck": selfcheck,
        "batch_id": cfg.new_batch_id(),
        "runs": runs,
        "skipped": skipped,
        "not_implemented": not_implemented,
        "congestion_controls": ccs,
    }


RANDOMISED_CONGESTION_CONTROLS = frozenset({"bbr"})
"""Algorithms that draw random numbers themselves: BBR starts its gain cycle at a random
phase (net/ipv4/tcp_bbr.c, bbr_reset_probe_bw_mode)."""


def point_is_random(point, congestion_control: str | None = None) -> bool:
    """Whether a point's runs differ by chance in dilated time: a random dropper, a link
    that loses at random, a congestion control that draws random numbers, or a UDP flood
    (the router-forwarding fit reads its run-to-run spread). A TCP or UDP blast or a ping
    sweep through a regular dropper or none repeats to the microsecond: measured, the 5
    repetitions of regular-drop's quick points agreed within 0.03 % (docs/mininet.md)."""
    return (
        point.is_random
        or congestion_control in RANDOMISED_CONGESTION_CONTROLS
        or point.workload["kind"] == "udp-flood"
    )


def _add_congestion_control(ccs: dict[str, dict], variant) -> None:
    """Record what the variant's congestion control needs loaded; two variants of a batch may
    share one only with the same module parameters (they are kernel-wide)."""
    linux = variant.linux
    spec = {"module": linux.module, "module_parameters": dict(linux.module_parameters)}
    known = ccs.setdefault(linux.congestion_control, spec)
    if known != spec:
        raise BatchError(
            f"variant {variant.name}: congestion control {linux.congestion_control!r} with "
            f"{spec} differs from another variant's {known} in the same batch; module "
            "parameters are kernel-wide, so these variants need separate batches"
        )


def needs_link(plan: dict) -> bool:
    """Whether the batch impairs a link (a topology with router2): netem is needed."""
    return any(r.get("link") is not None for r in plan["runs"])


def variant_modules(plan: dict) -> dict[str, str | None]:
    """Congestion control → kernel module, of every TCP variant the batch runs."""
    return {cc: spec["module"] for cc, spec in plan.get("congestion_controls", {}).items()}


def scenario_dropper_impl(scenario, cli_value: str | None) -> str:
    """--dropper-impl, else the scenario's impairment.dropper.impl, else auto."""
    if cli_value:
        return cli_value
    return scenario.settings["impairment"]["dropper"].get("impl", "auto")


def needs_dropper(plan: dict) -> bool:
    return any(cfg.dropper_active(r["dropper"]) for r in plan["runs"])


def congestion_control(profile: str) -> str | None:
    return cfg.tcp_setup(profile).sysctls.get("net.ipv4.tcp_congestion_control")


def decide_place(plan: dict, place: str, caps=None) -> tuple[str, str]:
    """("host" or "vm", why). A forced host that lacks something is an error naming it."""
    from emusim import mininet_net as net

    if place == "vm":
        return "vm", "asked for (--place vm)"
    if caps is None:
        caps = net.capabilities(congestion_control(plan["profile"]), variant_modules(plan))
    impl = plan["dropper_impl"] if needs_dropper(plan) else "auto"
    missing = caps.missing(
        plan["delay_us"], congestion_control(plan["profile"]), impl, variant_modules(plan),
        needs_link(plan),
    )  # fmt: skip
    if any(spec["module_parameters"] for spec in plan.get("congestion_controls", {}).values()):
        missing.append("a kernel of its own for module parameters (they are kernel-wide)")
    if not missing:
        return "host", f"kernel {caps.kernel_release} has what the batch needs"
    what = "; ".join(missing)
    if place == "host":
        raise BatchError(
            f"--place host: this machine's kernel {caps.kernel_release} lacks {what}. "
            "Use --place vm (or auto) to run in a VM booting Debian's kernel"
        )
    return "vm", f"kernel {caps.kernel_release} lacks {what}"


# --- executor: runs a plan where it is (host or guest) ----------------------------------------


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP end the batch by an exception, so every finally block (the
    network's teardown) runs; also when SIGINT came in ignored (a background job of a
    non-interactive shell). Restores the handlers afterwards."""

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {s: signal.signal(s, handler) for s in sigs}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextlib.contextmanager
def signals_ignored() -> Iterator[None]:
    """No signal interrupts the teardown."""
    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {s: signal.signal(s, signal.SIG_IGN) for s in sigs}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


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


def bytes_delivered(res: dict) -> int:
    """Payload bytes the receiver got: all of them when the transfer completed (the server
    checks the count), else what it acknowledged by the cap (tcpi_bytes_acked counts the SYN
    as one byte)."""
    if res["completed"]:
        return int(res["payload_bytes"])
    return max(0, int(res.get("bytes_acked", 0)) - 1)


def _tcp_metrics(res: dict, dropped: int) -> dict:
    delivered = bytes_delivered(res)
    return {
        "elapsed_s": res["elapsed_s"],
        "writes": res["writes"],
        "write_size_B": res["write_size_B"],
        "payload_bytes": res["payload_bytes"],
        "bytes_delivered": delivered,
        "goodput_Bps": round(delivered / res["elapsed_s"], 3) if res["elapsed_s"] > 0 else 0.0,
        "packets_sent": res["packets_sent"],
        "retransmissions": res["retransmissions"],
        "rto_timeouts": res["rto_timeouts"],
        "fast_recoveries": res["fast_recoveries"],
        "packets_dropped": dropped,
    }


def link_metrics(before: dict, after: dict) -> dict[str, int]:
    """The impaired link's counters over one run, per direction: packets that reached its
    lossy egress and those dropped there (random loss and queue overflow, netem's drops)."""
    out = {}
    for direction in cfg.LOSSY_EGRESS:
        sent = after[direction]["packets"] - before[direction]["packets"]
        dropped = after[direction]["drops"] - before[direction]["drops"]
        out[f"link_packets_{direction}"] = sent + dropped
        out[f"link_dropped_{direction}"] = dropped
    return out


def check_congestion_control(used: str, wanted: str | None, entry: dict) -> None:
    """A run must have used the congestion control it claims: its variant's, or else the
    profile's sysctl (None: the kernel's default, nothing to check)."""
    if wanted is not None and used != wanted:
        what = f"variant {entry['variant']}" if entry.get("variant") else "the profile"
        raise BatchError(
            f"run {entry['point']} rep {entry['repetition']}: the connection used congestion "
            f"control {used!r}, not {wanted!r} of {what}"
        )


def run_one(network, dropper, entry: dict, plan: dict, setup) -> dict:
    """One run: configure the dropper, run the workload, read the drop count."""
    topo = plan["topology"]
    target = entry["dropper"].get("target", topo["receiver"])
    dropper.configure(entry["dropper"], target)
    w = entry["workload"]
    facts: dict[str, Any] = {}
    status = "ok"
    link = entry.get("link")
    if link is not None:
        before = network.impair_link(str(link["loss"]), float(link["delay_ms"]))
    if w["kind"] == "tcp-blast":
        cc = entry.get("congestion_control")
        res = network.tcp_blast(
            int(w["writes"]), int(w["write_size_B"]), plan["cap_s"],
            setup.socket.get("TCP_WINDOW_CLAMP"), cc,
        )  # fmt: skip
        check_congestion_control(
            res["congestion_control"],
            cc or setup.sysctls.get("net.ipv4.tcp_congestion_control"),
            entry,
        )
        dropped = dropper.dropped()
        metrics = _tcp_metrics(res, dropped)
        if link is not None:
            metrics.update(link_metrics(before, network.link_counters()))
        status = "ok" if res["completed"] else "timeout"
        if res["completed"] and res["server"]["bytes_received"] != res["payload_bytes"]:
            raise BatchError(
                f"the server received {res['server']['bytes_received']} bytes of "
                f"{res['payload_bytes']}"
            )
        facts = {
            k: res[k]
            for k in (
                "segments_sent", "snd_mss", "peer_window_B", "srtt_us", "snd_cwnd",
                "snd_ssthresh", "loss_probes", "retrans_segs_netns", "writes_done",
                "congestion_control", "bytes_acked", "host_io_irqs", "cpu_busy_fraction",
                "busy_us", "rwnd_limited_us", "sndbuf_limited_us",
            )
        }  # fmt: skip
        facts["server"] = res["server"]
    elif w["kind"] == "udp-blast":
        res = network.udp_blast(int(w["datagrams"]), int(w["datagram_size_B"]), plan["cap_s"])
        sent, got = res["sender"], res["receiver"]
        metrics = {
            "elapsed_s": sent["elapsed_s"],
            "datagrams_sent": sent["datagrams_sent"],
            "datagrams_received": got["datagrams_received"],
            "datagrams_lost": sent["datagrams_sent"] - got["datagrams_received"],
            "datagram_size_B": sent["datagram_size_B"],
            "packets_dropped": dropper.dropped(),
        }
        facts = {"send_errors": sent["send_errors"], "receiver_end": got["end"],
                 "host_io_irqs": sent["host_io_irqs"],
                 "cpu_busy_fraction": sent.get("cpu_busy_fraction")}  # fmt: skip
    elif w["kind"] == "udp-flood":
        from emusim import forwarding_mininet  # the router-forwarding study

        return forwarding_mininet.run(network, entry, plan)
    elif w["kind"] == "ping":
        rtts = network.ping(int(w["request_size_B"]), int(w["count"]), float(w["interval_s"]))
        metrics = {
            "rtt_us": [round(x, 3) for x in rtts],
            "request_size_B": int(w["request_size_B"]),
            "packets_dropped": dropper.dropped(),
        }
        if len(rtts) < int(w["count"]):
            facts["echoes_lost"] = int(w["count"]) - len(rtts)
    else:
        raise BatchError(f"the Mininet backend has no workload {w['kind']!r}")
    return {"status": status, "metrics": metrics, "mininet": facts}


def selfcheck_window_b(setup, rmem_max_path: Path = Path("/proc/sys/net/core/rmem_max")) -> int:
    """The self-check's window clamp: the profile's, at most SELFCHECK_WINDOW_B, in whole
    segments of the window-scale unit the receiver will offer (this kernel's rmem_max and the
    profile's tcp_rmem)."""
    cap = min(int(setup.socket.get("TCP_WINDOW_CLAMP", SELFCHECK_WINDOW_B)), SELFCHECK_WINDOW_B)
    rmem = setup.sysctls.get("net.ipv4.tcp_rmem")
    try:
        rmem_max = int(rmem_max_path.read_text())
    except OSError:
        rmem_max = cfg.LINUX_RMEM_MAX_DEFAULT_B
    wscale = cfg.receive_window_scale(int(rmem.split()[2]), rmem_max) if rmem else 0
    return cfg.whole_segment_window_b(cap, SELFCHECK_SEGMENT_B, wscale)


def selfcheck(network, dropper, plan: dict, setup) -> dict:
    """A loss-free TCP blast and a small ping sweep (raw; `evaluate_selfcheck` fits them).

    With an impaired link (the lossy-link line) the sweep runs over it as the batch's first
    run has it, without loss: the path's delay is then the point's, one that the emulator's
    own latency can be taken off (a path of delay 0 has no room for it)."""
    off = {"mode": "off"}
    dropper.configure(off, plan["topology"]["receiver"])
    t0 = time.monotonic()
    clamp = selfcheck_window_b(setup)
    res = network.tcp_blast(SELFCHECK_WRITES, SELFCHECK_SEGMENT_B, 600, str(clamp))
    links = len(cfg.Topology(**plan["topology"]).links())
    path_delay_us = plan["delay_us"] * links / 2
    link = next((r["link"] for r in plan["runs"] if r.get("link") is not None), None)
    if link is not None:
        network.impair_link("0", float(link["delay_ms"]))
        path_delay_us += float(link["delay_ms"]) * 1000
    pings = {}
    for size in SELFCHECK_PING_SIZES:
        pings[str(size)] = network.ping(size, SELFCHECK_PING_COUNT, SELFCHECK_PING_INTERVAL_S)
    if link is not None:  # the first run sets its point anew, with counters of its own
        network.reshape(network.netem_delay())
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
    from emusim import mininet_net as net

    net.need_root()
    t_start = time.monotonic()
    if place == "vm" and plan.get("icount_shift") is not None:
        os.environ[net.DILATED_ENV] = "1"  # guard timeouts get their slack (net.patient)
    emit("START", {"pid": os.getpid(), "kernel_release": os.uname().release})
    removed = net.cleanup(only_dead=True, plans=place != "vm")
    if removed:
        log(f"mininet: removed leftovers of killed batches: {', '.join(removed)}")
    setup = cfg.tcp_setup(plan["profile"])
    caps = net.capabilities(
        setup.sysctls.get("net.ipv4.tcp_congestion_control"), variant_modules(plan)
    )
    impl_asked = plan["dropper_impl"] if needs_dropper(plan) else "auto"
    missing = caps.missing(
        plan["delay_us"], congestion_control(plan["profile"]), impl_asked,
        variant_modules(plan), needs_link(plan),
    )  # fmt: skip
    if missing:
        raise BatchError(f"kernel {caps.kernel_release} ({place}) lacks " + "; ".join(missing))
    impl = resolve_impl(plan["dropper_impl"], caps, place) if needs_dropper(plan) else "none"
    variant_facts = net.load_variant_modules(plan.get("congestion_controls", {}), place)
    topo = cfg.Topology(**plan["topology"])
    spec = net.NetSpec(topo, plan["batch_id"], plan["delay_us"], caps.netem, setup)
    network = net.Network(spec)
    if place == "vm":
        net.warm_tools()
        network.host_io_sources = frozenset(net.host_io_sources())
    with signals_raise():
        try:
            network.start()
            dropper = net.make_dropper(impl, network)
            dropper_facts = dropper.prepare()
            warm_up(network, dropper, plan, setup)
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
                    "sender_sysctls": network.sysctl_values("sender"),
                    "netem_delay_us": cfg.netem_delay_arg(network.netem_delay())[1]
                    if caps.netem
                    else 0.0,
                    "netem_delay_wanted_us": network.netem_delay() if caps.netem else 0.0,
                    "calibration": calibration,
                    "host_io_sources": sorted(network.host_io_sources),
                    "setup_s": round(time.monotonic() - t_start, 3),
                    "tools": _tool_versions(),
                    "variants": variant_facts,
                },
            )
            if plan["selfcheck"]:
                emit("SELFCHECK", selfcheck(network, dropper, plan, setup))
            for entry in plan["runs"]:
                out = run_checked(network, dropper, entry, plan, setup)
                out["key"] = [entry["point"], entry["repetition"]]
                emit("RUN", out)
            emit("DONE", {"wall_s": round(time.monotonic() - t_start, 3)})
        finally:
            with signals_ignored():
                network.stop()


def warm_up(network, dropper, plan: dict, setup) -> None:
    """A short discarded blast and one echo of each size: see WARMUP_WRITES."""
    dropper.configure({"mode": "off"}, plan["topology"]["receiver"])
    network.tcp_blast(WARMUP_WRITES, 1448, 600, setup.socket.get("TCP_WINDOW_CLAMP"))
    for size in SELFCHECK_PING_SIZES:
        network.ping(size, 1, SELFCHECK_PING_INTERVAL_S)


def run_checked(network, dropper, entry: dict, plan: dict, setup) -> dict:
    """`run_one`, repeated while the guest waited on the host during the measurement.

    The blast tools count the VM's 9p interrupts between their clock's start and stop
    (``host_io_irqs``; -1 where nothing is counted: on the host, or a ping). A run with any
    is rejected: in dilated time the guest's clock may have jumped during the wait. The last
    attempt is kept either way, with ``clock_check`` saying whether it passed."""
    rejected = []
    for attempt in range(1, MAX_CLOCK_ATTEMPTS + 1):
        t0 = time.monotonic()
        out = run_one(network, dropper, entry, plan, setup)
        wall = round(time.monotonic() - t0, 3)
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


# --- batch: on the host, writes the files -----------------------------------------------------


def clock_of(place: str, kvm: bool, icount_shift: int | None) -> dict:
    """What clock a batch's measurements are in: the host's real time, a KVM guest's (real
    time too), or a TCG guest's: dilated (QEMU icount, ``icount_shift``) or real time."""
    if place == "host":
        clock = "host"
    elif kvm:
        clock = "kvm"
    else:
        clock = "guest-icount" if icount_shift is not None else "tcg-real"
    return {"clock": clock, "icount_shift": icount_shift if clock == "guest-icount" else None}


class BatchWriter:
    """Receives the executor's records and writes run JSONs (atomically) and batch.json."""

    def __init__(self, plan: dict, results_dir: Path, place: str, kvm: bool, reason: str):
        self.plan = plan
        self.results_dir = results_dir
        self.place, self.kvm, self.reason = place, kvm, reason
        self.caps: dict = {}
        self.selfcheck: dict | None = None
        self.done = 0
        self.t0 = time.monotonic()
        self.started_utc = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.t_start: float | None = None
        self.run_walls: list[float] = []
        self.written: list[str] = []
        self.by_key = {(r["point"], r["repetition"]): r for r in plan["runs"]}
        self.finished = False
        self.clock = clock_of(place, kvm, plan.get("icount_shift"))
        self.vm_clock: dict | None = None  # the whole VM's clock facts, once it has ended
        self.vm_group: int | None = None  # the VM's process group, while it runs
        self.cpu_record = 0.0
        self.start_cpu_s: float | None = None
        self.selfcheck_raw: dict | None = None
        self.run_cpus: list[float] = []
        self.t_record = self.t0  # host time of the last record: a run's is the time since
        from emusim.runjson import git_revision

        self.git = git_revision()

    def record(self, kind: str, obj: dict) -> None:
        now = time.monotonic()
        obj.setdefault("host_s", round(now - self.t_record, 3))
        self.t_record = now
        if self.vm_group is not None:  # the VM's CPU time since the last record
            from emusim.vm import group_cpu_s

            cpu = group_cpu_s(self.vm_group) or 0.0
            obj.setdefault("host_cpu_s", round(cpu - self.cpu_record, 2))
            self.cpu_record = cpu
        if kind == "START":
            self.start_cpu_s = obj.get("host_cpu_s")
            self.t_start = time.monotonic()
            self.kernel_release = obj["kernel_release"]
        elif kind == "CAPS":
            self.caps = obj
            log(
                f"mininet: {self.place} kernel {obj['kernel_release']}, shaper "
                f"{obj['shaper']}, dropper {obj['dropper_impl']}, set up in {obj['setup_s']} s"
            )
        elif kind == "SELFCHECK":
            self.selfcheck_raw = obj
            self.selfcheck = evaluate_selfcheck(obj, self.plan, self.caps.get("shaper"))
            # Recorded now, so runs of a session that is cut short still have theirs.
            self.write_session(None)
            tp, d = self.selfcheck["throughput"], self.selfcheck["delay"]
            verdict = {True: "ok", False: "OFF", None: "n/a"}
            log(
                f"mininet: self-check: TCP {tp['fraction_of_line_rate']:.4f} of line rate "
                f"({verdict[tp['ok']]}), delay fitted "
                f"{d['fitted_two_point_us']:.2f} µs vs {d['configured_us']:.2f} µs "
                f"({verdict[d['ok']]})"
            )
        elif kind == "RUN":
            self._write_run(obj)
        elif kind == "DONE":
            self.finished = True

    def _write_run(self, obj: dict) -> None:
        from emusim.runjson import assemble, write_atomically

        entry = self.by_key[tuple(obj["key"])]
        plan = self.plan
        point_impl = self.caps.get("dropper_impl") if cfg.dropper_active(entry["dropper"]) else None
        meta = {
            "scenario": plan["scenario"],
            "backend": BACKEND,
            "profile": plan["profile"],
            "point": entry["point"],
            "params": entry["params"],
            "repetition": entry["repetition"],
            "seed": None,
            "provenance": {
                "scale": plan["scale"],
                "one_way_delay_us": plan["delay_us"],
                "netem_delay_us": self.caps.get("netem_delay_us"),
                "netem_delay_wanted_us": self.caps.get("netem_delay_wanted_us"),
                "shaper": self.caps.get("shaper"),
                "dropper_impl": point_impl or "none",
                "dropper_impl_batch": self.caps.get("dropper_impl"),
                "kernel_release": self.caps.get("kernel_release"),
                "place": self.place,
                "kvm": self.kvm,
                "host": socket.gethostname(),
                "python": platform.python_version(),
                "tools": self.caps.get("tools"),
                "tcp_sysctls": self.caps.get("sender_sysctls"),
                "git_revision": self.git,
                "wall_s": obj["wall_s"],
                # the clock the run was measured in, and how it ran against the host's
                **self.clock,
                "host_s": obj["host_s"],
                "host_cpu_s": obj.get("host_cpu_s"),
                "dilation_guest_s_per_host_s": round(obj["wall_s"] / obj["host_s"], 4)
                if obj["host_s"] > 0
                else None,
                "clock_check": obj.get("clock_check"),
                "stack_latency_per_hop_us": (self.caps.get("calibration") or {}).get(
                    "stack_latency_per_hop_us"
                ),
                "batch_id": plan["batch_id"],
                "rng": "kernel RNG (not seedable): seed is null",
                "variant": entry.get("variant"),
                # what the connection used, read back with TCP_CONGESTION after the transfer
                "congestion_control": (obj.get("mininet") or {}).get("congestion_control"),
            },
        }
        run = assemble(meta, obj, BACKEND)
        path = Path(entry["path"])
        write_atomically(path, json.dumps(run, indent=1, sort_keys=True) + "\n")
        self.written.append(str(path))
        self.run_walls.append(obj["wall_s"])
        if obj.get("host_cpu_s") is not None:
            self.run_cpus.append(obj["host_cpu_s"])
        self.done += 1
        m = obj["metrics"]
        what = (
            f"elapsed {m['elapsed_s']:.3f} s"
            if "elapsed_s" in m
            else f"{m['packets_per_s']:.0f} packets/s"
            if "packets_per_s" in m
            else f"{len(m.get('rtt_us', []))} echoes"
        )
        log(
            f"mininet: run {self.done}/{len(plan['runs'])} {entry['point']} "
            f"rep {entry['repetition']}: {obj['status']}, {what}, "
            f"dropped {m.get('packets_dropped', 0)} ({obj['wall_s']:.1f} s wall, "
            f"{time.monotonic() - self.t0:.0f} s in batch)"
        )

    def write_session(self, vm_elapsed_s: float | None) -> dict:
        """This session's record (sessions/BATCH_ID.json beside batch.json); returns it."""
        from emusim.runjson import write_atomically

        record = self.session_json(vm_elapsed_s)
        path = session_path(self.results_dir, self.plan)
        write_atomically(path, json.dumps(record, indent=1, sort_keys=True, default=str) + "\n")
        return record

    def session_json(self, vm_elapsed_s: float | None) -> dict:
        plan = self.plan
        boot = (self.t_start - self.t0) if (self.t_start and self.place == "vm") else None
        return {
            "started_utc": self.started_utc,
            "scenario": plan["scenario"],
            "profile": plan["profile"],
            "scale": plan["scale"],
            "backend": BACKEND,
            "place": self.place,
            "place_reason": self.reason,
            "kvm": self.kvm,
            "kernel_release": self.caps.get("kernel_release"),
            "dropper_impl": self.caps.get("dropper_impl"),
            "dropper": self.caps.get("dropper"),
            "shaper": self.caps.get("shaper"),
            "qdiscs": self.caps.get("qdiscs"),
            "one_way_delay_us": plan["delay_us"],
            "netem_delay_us": self.caps.get("netem_delay_us"),
            "netem_delay_wanted_us": self.caps.get("netem_delay_wanted_us"),
            "calibration": self.caps.get("calibration"),
            **self.clock,
            "vm_clock": self.vm_clock,
            "tcp_sysctls": self.caps.get("sender_sysctls"),
            "tools": self.caps.get("tools"),
            "selfcheck": self.selfcheck,
            "timings": {
                "total_s": round(time.monotonic() - self.t0, 3),
                "vm_boot_s": round(boot, 3) if boot is not None else None,
                "vm_elapsed_s": round(vm_elapsed_s, 3) if vm_elapsed_s else None,
                "setup_s": self.caps.get("setup_s"),
                # host cost of boot, setup (with calibration) and self-check: wall and CPU s
                "boot_host_cpu_s": self.start_cpu_s,
                "setup_host_s": self.caps.get("host_s"),
                "setup_host_cpu_s": self.caps.get("host_cpu_s"),
                "selfcheck_host_s": (self.selfcheck_raw or {}).get("host_s"),
                "selfcheck_host_cpu_s": (self.selfcheck_raw or {}).get("host_cpu_s"),
                "runs_host_cpu_s": round(sum(self.run_cpus), 2) if self.run_cpus else None,
                "runs": len(self.run_walls),
                "run_wall_mean_s": round(sum(self.run_walls) / len(self.run_walls), 3)
                if self.run_walls
                else None,
                "run_wall_total_s": round(sum(self.run_walls), 3),
            },
            "batch_id": plan["batch_id"],
            "git_revision": self.git,
            "runs_written": len(self.written),
            "runs_skipped": len(plan["skipped"]),
            # TCP variants: the modules loaded, and the points of variants Linux lacks
            "variants": self.caps.get("variants"),
            "not_implemented": plan.get("not_implemented", []),
        }


def evaluate_selfcheck(raw: dict, plan: dict, shaper: str | None = "netem") -> dict:
    """The self-check's numbers against their limits (tolerances in emusim.mininet_config)."""
    import pandas as pd

    from emusim import delay as delay_fit

    rate = plan["topology"]["rate_bps"]
    tcp = raw["tcp"]
    frac = cfg.line_rate_fraction(tcp["writes"], tcp["elapsed_s"], rate)
    lo, hi = cfg.THROUGHPUT_TOLERANCE
    rows = [
        {"request_size_B": int(size), "rtt_us": rtt}
        for size, rtts in raw["ping_rtt_us"].items()
        for rtt in rtts
    ]
    links = raw.get("links", 2)
    configured = raw.get("path_delay_us", plan["delay_us"])
    try:
        fit = delay_fit.fit_report(pd.DataFrame(rows))
        two, ls = fit["two_point"], fit["least_squares"]
        fitted = cfg.path_delay_us(two["b"], rate, links)
        delay = {
            "configured_us": configured,
            "links": links,
            "fitted_two_point_us": fitted,
            "fitted_least_squares_us": cfg.path_delay_us(ls["intercept"], rate, links),
            "slope_us_per_B": ls["slope"],
            "model_slope_us_per_B": 2 * links * 8e6 / rate,
            "intercept_us": ls["intercept"],
            "tolerance_us": cfg.delay_tolerance_us(configured),
            "ok": cfg.delay_ok(fitted, configured),
        }
        if shaper != "netem":
            delay["ok"] = None
            delay["note"] = (
                "not applicable: without netem the HTB shaper releases a packet when its "
                "transmission starts, so RTTs hold no serialisation time and the report's "
                "model does not apply (only delay 0 runs without netem)"
            )
    except ValueError as err:
        delay = {"configured_us": configured, "fitted_two_point_us": float("nan"),
                 "error": str(err), "ok": False}  # fmt: skip
    return {
        "throughput": {
            **tcp,
            "fraction_of_line_rate": frac,
            "throughput_report_Bps": 1526 * tcp["writes"] / tcp["elapsed_s"],
            "limit_report_Bps": rate / 8 * 1526 / 1538,
            "tolerance": list(cfg.THROUGHPUT_TOLERANCE),
            "ok": bool(lo <= frac <= hi and tcp["completed"]),
        },
        "delay": delay,
        "ping_rtt_us": raw["ping_rtt_us"],
        "wall_s": raw["wall_s"],
    }


def _guest_command(plan_path: Path) -> list[str]:
    return [sys.executable, "-m", "emusim.mininet", "execute", "--plan", str(plan_path)]


def run_batch(
    scenario,
    profile: str,
    results_dir: Path,
    delay_json: Path | None = None,
    place: str = "auto",
    dropper_impl: str | None = None,
    selfcheck: bool = True,
    vm_timeout_s: float | None = None,
    vm_cpus: int | None = None,
    repetitions: int | None = None,
    point_stride: int = 1,
    icount_shift: int | str | None = "env",
    repeat_deterministic: bool = True,
) -> dict:
    """Run (or resume) a batch; returns batch.json's content. ``icount_shift`` is the dilated
    time of a VM without KVM (emusim.vm.icount_requested: "env" reads the environment, None
    runs it in real time); without ``repeat_deterministic`` a batch in dilated time runs a
    point that draws no random numbers once (`make_plan`)."""
    from emusim import mininet_net as net

    if place not in PLACES:
        raise BatchError(f"--place {place!r}; accepted: {', '.join(PLACES)}")
    cfg.check_profile(profile)
    net.need_root()
    removed = net.cleanup(only_dead=True)
    if removed:
        log(f"mininet: removed leftovers of killed batches: {', '.join(removed)}")
    results_dir = Path(results_dir)
    delay_us = one_way_delay_us(scenario.settings, delay_json)
    impl = scenario_dropper_impl(scenario, dropper_impl)
    plan = make_plan(
        scenario, profile, delay_us, impl, results_dir, selfcheck, repetitions, point_stride
    )
    where, reason = decide_place(plan, place)
    from emusim import vm

    try:
        kvm = where == "vm" and vm.kvm_requested(None)
        shift = None if where == "host" or kvm else vm.icount_requested(icount_shift)
    except vm.VMError as err:
        raise BatchError(str(err)) from None
    if not repeat_deterministic and shift is not None:
        # only in dilated time does a point without randomness repeat to the microsecond
        plan = make_plan(
            scenario, profile, delay_us, impl, results_dir, selfcheck, repetitions,
            point_stride, repeat_deterministic=False,
        )  # fmt: skip
    plan["icount_shift"] = shift
    batch_path = results_dir / BACKEND / scenario.name / profile / "batch.json"
    for variant in sorted({n["variant"] for n in plan["not_implemented"]}):
        points = [n for n in plan["not_implemented"] if n["variant"] == variant]
        log(f"mininet: {len(points)} point(s) not run: {points[0]['reason']}")
    run_files = sorted(r["path"] for r in plan["runs"] + plan["skipped"])
    if not plan["runs"]:
        out = compose_batch(run_files, None)
        if out is not None:
            _write_batch(batch_path, out)
            log(f"mininet: {scenario.name}/{profile}: every run is there; wrote {batch_path} "
                f"from {len(out['sessions'])} session record(s)")  # fmt: skip
            return out
        log(f"mininet: {scenario.name}/{profile}: every run is there, but not the record of "
            "the session that ran some: a session for the self-check only")  # fmt: skip
    log(
        f"mininet: {scenario.name}/{profile} at scale {scenario.scale}: "
        f"{len(plan['runs'])} runs to do, {len(plan['skipped'])} already there; "
        f"place {where} ({reason})"
    )
    vm_elapsed = None
    if where == "host":
        writer = BatchWriter(plan, results_dir, "host", False, reason)
        execute(plan, writer.record, "host")
    else:
        writer = BatchWriter(plan, results_dir, "vm", kvm, reason)
        clock = writer.clock["clock"]
        shift = f" (icount shift {plan['icount_shift']})" if clock == "guest-icount" else ""
        log(f"mininet: the VM's clock: {clock}{shift}")
        vm_elapsed = _run_in_vm(plan, writer, vm_timeout_s, vm_cpus)
    if not writer.finished:
        raise BatchError("the batch ended before its last run (see the messages above)")
    session = writer.write_session(vm_elapsed)
    out = compose_batch(run_files, session)
    _write_batch(batch_path, out)
    log(f"mininet: wrote {batch_path} ({session['timings']['total_s']:.1f} s)")
    return out


def session_path(results_dir: Path, plan: dict) -> Path:
    return (
        Path(results_dir) / BACKEND / plan["scenario"] / plan["profile"] / "sessions"
        / f"{plan['batch_id']}.json"
    )  # fmt: skip


def _write_batch(path: Path, out: dict) -> None:
    from emusim.runjson import write_atomically

    write_atomically(path, json.dumps(out, indent=1, sort_keys=True, default=str) + "\n")


def _session_summary(s: dict) -> dict:
    check = s.get("selfcheck") or {}
    tput, delay = check.get("throughput", {}), check.get("delay", {})
    return {
        "batch_id": s["batch_id"],
        "started_utc": s.get("started_utc"),
        "place": s.get("place"),
        "kvm": s.get("kvm"),
        "kernel_release": s.get("kernel_release"),
        "dropper_impl": s.get("dropper_impl"),
        "runs_written": s.get("runs_written"),
        "selfcheck_run": bool(check),
        "fraction_of_line_rate": tput.get("fraction_of_line_rate"),
        "throughput_ok": tput.get("ok"),
        "delay_fitted_two_point_us": delay.get("fitted_two_point_us"),
        "delay_ok": delay.get("ok"),
    }


def compose_batch(run_files: list[str], current: dict | None) -> dict | None:
    """batch.json for these runs: the record of the latest session that wrote any (or the
    current one), the run files, and a summary of every session that made one of them or
    ran now. None when a run's session record is missing and there is no current session.

    A batch may span sessions (an interrupted batch resumed; a rerun that found every run
    there), so the self-check and facts of each session that made runs are kept.
    """
    ids: list[str] = []
    provenance: dict[str, dict] = {}
    for path in run_files:
        prov = json.loads(Path(path).read_text())["provenance"]
        bid = prov.get("batch_id")
        if bid and bid not in ids:
            ids.append(bid)
            provenance[bid] = prov
    sessions: dict[str, dict] = {}
    for bid in ids:
        rec = Path(run_files[0]).parents[1] / "sessions" / f"{bid}.json"
        if rec.exists():
            sessions[bid] = json.loads(rec.read_text())
        elif current is None:
            return None
    if current is not None:
        sessions[current["batch_id"]] = current
    if not sessions:
        return None
    writers = [s for s in sessions.values() if s.get("runs_written")]
    main = max(writers or list(sessions.values()), key=lambda s: s.get("started_utc") or "")
    ordered = sorted(sessions.values(), key=lambda s: s.get("started_utc") or "")
    if not writers and provenance:
        # Runs from sessions without a record: what describes them is in their provenance,
        # not in a session that only checked itself.
        prov = provenance[ids[-1]]
        main = {
            **main,
            **{k: prov.get(k) for k in ("place", "kvm", "kernel_release", "shaper")},
            "dropper_impl": prov.get("dropper_impl_batch"),
            "tcp_sysctls": prov.get("tcp_sysctls"),
        }
    return {
        **main,
        "run_files": run_files,
        "sessions": [_session_summary(s) for s in ordered],
    }


VM_HOST_S_PER_BUSY_GUEST_S = 10.0
"""Host seconds a dilated guest may take per second of a busy link: measured 2.5 on an idle
machine and 8 on a machine loaded 3-fold (docs/mininet.md, "Cost"); the VM's time limit
allows 10."""


def vm_timeout_s(plan: dict) -> float:
    """The host's time limit for a batch's VM: boot, setup and the self-check (1800 s), and
    per run 600 s plus its link's busy time (what the workload puts on the wire) at
    VM_HOST_S_PER_BUSY_GUEST_S. In real time (no icount) a run may also last to its cap."""
    rate = plan["topology"]["rate_bps"]
    busy = 0.0
    for run in plan["runs"]:
        w = run["workload"]
        if w["kind"] == "tcp-blast":
            busy += int(w["writes"]) * constants.ETH_FRAME_WIRE_B * 8 / rate
        elif w["kind"] == "udp-blast":
            busy += int(w["datagrams"]) * constants.ETH_FRAME_WIRE_B * 8 / rate
        elif w["kind"] == "udp-flood":
            busy += float(w["duration_s"])
    per_run = 600 if plan.get("icount_shift") is not None else max(600, min(plan["cap_s"], 3600))
    return 1800 + len(plan["runs"]) * per_run + VM_HOST_S_PER_BUSY_GUEST_S * busy


def _run_in_vm(
    plan: dict, writer: BatchWriter, timeout_s: float | None, cpus: int | None = None
) -> float:
    from emusim import mininet_net as net
    from emusim import vm

    net.PLAN_DIR.mkdir(parents=True, exist_ok=True)
    plan_path = net.PLAN_DIR / f"{plan['batch_id']}.json"
    plan_path.write_text(json.dumps(plan))
    errors: list[str] = []
    tail: list[str] = []

    def on_line(line: str) -> None:
        if line.startswith(LINE_PREFIX):
            kind, _, payload = line[len(LINE_PREFIX) :].partition(" ")
            try:
                obj = json.loads(payload)
            except json.JSONDecodeError:
                log(f"vm| {time.monotonic() - writer.t0:6.1f} s host| {line}")
                return
            try:
                writer.record(kind, obj)
            except Exception as err:  # keep reading: the VM must still be stopped cleanly
                errors.append(f"{kind}: {err!r}")
        else:
            tail.append(line)
            del tail[:-40]
            log(f"vm| {time.monotonic() - writer.t0:6.1f} s host| {line}")

    # vng and QEMU inherit the batch's mark: `cleanup` stops the VM of a SIGKILLed batch
    net.register(plan["batch_id"])
    os.environ[cfg.ENV_MARK] = f"{cfg.PREFIX}{plan['batch_id']}"
    timeout = timeout_s or vm_timeout_s(plan)
    try:
        with signals_raise():
            result = vm.run_in_vm(
                _guest_command(plan_path),
                timeout_s=timeout,
                on_line=on_line,
                cpus=cpus or VM_CPUS,
                icount_shift=plan.get("icount_shift"),
                use_kvm=writer.kvm,
                on_start=lambda pgid: setattr(writer, "vm_group", pgid),
            )
    except vm.VMError as err:
        raise BatchError(f"the VM failed: {err}") from None
    finally:
        os.environ.pop(cfg.ENV_MARK, None)
        net.unregister(plan["batch_id"])
        with contextlib.suppress(OSError):
            plan_path.unlink()
    writer.kvm = result.kvm
    writer.vm_clock = result.clock_facts()
    if errors:
        raise BatchError("writing results failed: " + "; ".join(errors))
    if result.returncode != 0 or not writer.finished:
        raise BatchError(
            f"the batch in the VM (kernel {result.kernel_release}) exited with "
            f"{result.returncode}; its last lines:\n" + "\n".join(tail[-15:])
        )
    return result.elapsed_s


# --- command line ------------------------------------------------------------------------------


def _print_record(kind: str, obj: dict) -> None:
    print(f"{LINE_PREFIX}{kind} {json.dumps(obj, default=str)}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m emusim.mininet", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("batch", help="run every point and repetition of a scenario")
    b.add_argument("--scenario", required=True, type=Path)
    b.add_argument("--scale", default="paper")
    b.add_argument("--profile", required=True)
    b.add_argument("--delay-json", type=Path)
    b.add_argument("--results-dir", required=True, type=Path)
    b.add_argument("--place", default="auto", choices=PLACES)
    b.add_argument("--dropper-impl", choices=cfg.DROPPER_IMPLS)
    b.add_argument("--no-selfcheck", action="store_true")
    b.add_argument("--vm-timeout", type=float, help="seconds for the whole VM (default: scaled)")
    b.add_argument("--vm-cpus", type=int, help=f"virtual CPUs of the VM (default {VM_CPUS})")
    b.add_argument("--repetitions", type=int, help="at most N repetitions of each point")
    b.add_argument("--point-stride", type=int, default=1, help="every K-th point only")
    b.add_argument(
        "--deterministic-once",
        action="store_true",
        help="run a point that draws no random numbers once (it repeats to the microsecond "
        "in dilated time)",
    )
    b.add_argument(
        "--icount-shift",
        default="env",
        help="dilated time of a VM without KVM: 0..10 (QEMU icount), or off for real time "
        "(default: $EMUSIM_VM_ICOUNT_SHIFT, else 0)",
    )
    e = sub.add_parser("execute", help="(internal) run a plan here; prints EMUSIM- records")
    e.add_argument("--plan", required=True, type=Path)
    e.add_argument("--place", default="vm")
    c = sub.add_parser("cleanup", help="remove what killed batches left behind")
    c.add_argument("--all", action="store_true", help="also batches whose process is alive")
    sub.add_parser("capabilities", help="what this machine's kernel offers the emulation")
    args = parser.parse_args(argv)

    from emusim import mininet_net as net
    from emusim import vm

    try:
        if args.cmd == "batch":
            from emusim import scenario as sc

            scenario = sc.load(args.scenario, args.scale)
            run_batch(
                scenario, args.profile, args.results_dir, args.delay_json, args.place,
                args.dropper_impl, not args.no_selfcheck, args.vm_timeout, args.vm_cpus,
                args.repetitions, args.point_stride, vm.parse_icount_shift(args.icount_shift),
                not args.deterministic_once,
            )  # fmt: skip
        elif args.cmd == "execute":
            plan = json.loads(args.plan.read_text())
            execute(plan, _print_record, args.place)
        elif args.cmd == "cleanup":
            net.need_root()
            removed = net.cleanup(only_dead=not args.all)
            for item in removed:
                print(f"removed {item}")
            print(f"cleanup: removed {len(removed)} item(s)")
        elif args.cmd == "capabilities":
            print(json.dumps(net.capabilities("reno").__dict__, indent=1))
    except KeyboardInterrupt as err:
        log(f"mininet: interrupted ({err or 'Ctrl-C'}); cleaned up")
        return 130
    except (BatchError, net.EmuError, cfg.ProfileError, ValueError, vm.VMError) as err:
        log(f"mininet: error: {err}")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
