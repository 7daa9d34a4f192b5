"""What a batch writes on the host as the executor's records arrive: each run's JSON as its
line comes (so an interrupted batch keeps every finished run), the session's record, and the
self-check's evaluation (the clock, kernel release, place and timings of every run).
"""

from __future__ import annotations

import json
import platform
import socket
import time
from pathlib import Path

from emusim.backends.mininet import tracing
from emusim.backends.mininet.calibration import (
    THROUGHPUT_TOLERANCE,
    delay_ok,
    delay_tolerance_us,
    line_rate_fraction,
    path_delay_us,
    per_link_sum,
)
from emusim.backends.mininet.plan import (
    BACKEND,
    log,
    run_key,
)
from emusim.backends.mininet.topology import plan_link_rates_bps
from emusim.linux import runner
from emusim.linux.dropper import dropper_active


def clock_of(place: str, kvm: bool, icount_shift: int | None) -> dict:
    """What clock a batch's measurements are in: the host's real time, a KVM guest's (real
    time too), or a TCG guest's: dilated (QEMU icount, ``icount_shift``) or real time; and a
    TCG guest's CPU model (emusim.infra.vm.guest_cpu_model), which sets what an instruction does."""
    from emusim.infra import vm

    if place == "host":
        clock = "host"
    elif kvm:
        clock = "kvm"
    else:
        clock = "guest-icount" if icount_shift is not None else "tcg-real"
    return {
        "clock": clock,
        "icount_shift": icount_shift if clock == "guest-icount" else None,
        "guest_cpu": vm.guest_cpu_model() if clock in ("guest-icount", "tcg-real") else None,
    }


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
        self.traces = tracing.Receiver(self.by_key)  # traced runs' CSVs, as they come
        self.finished = False
        self.clock = clock_of(place, kvm, plan.get("icount_shift"))
        self.vm_clock: dict | None = None  # the whole VM's clock facts, once it has ended
        self.vm_group: int | None = None  # the VM's process group, while it runs
        self.cpu_record = 0.0
        self.start_cpu_s: float | None = None
        self.selfcheck_raw: dict | None = None
        self.run_cpus: list[float] = []
        self.t_record = self.t0  # host time of the last record: a run's is the time since
        from emusim.infra.runjson import git_revision

        self.git = git_revision()

    def record(self, kind: str, obj: dict) -> None:
        if kind == "TRACE":  # a part of a run's trace: the run's times go to its RUN record
            self.traces.receive(obj)
            return
        now = time.monotonic()
        obj.setdefault("host_s", round(now - self.t_record, 3))
        self.t_record = now
        if self.vm_group is not None:  # the VM's CPU time since the last record
            from emusim.infra.vm import group_cpu_s

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
        from emusim.infra.runjson import assemble, write_atomically

        entry = self.by_key[tuple(obj["key"])]
        plan = self.plan
        point_impl = self.caps.get("dropper_impl") if dropper_active(entry["dropper"]) else None
        meta = {
            **runner.run_meta(plan, entry, BACKEND, plan["profile"]),
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
                "guest_scheduling": self.caps.get("guest_scheduling"),
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
                # what decides the run, for the archive (plan.run_key; docs/archive.md)
                "run_key": run_key(plan, entry, self.clock, self.caps.get("kernel_release")),
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
        from emusim.infra.runjson import write_atomically

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
            # topology.aqm's CoDel queue as the kernel reads it back (tc -j), where there is one
            **({"aqm": self.caps["aqm"]} if self.caps.get("aqm") else {}),
            "one_way_delay_us": plan["delay_us"],
            "netem_delay_us": self.caps.get("netem_delay_us"),
            "netem_delay_wanted_us": self.caps.get("netem_delay_wanted_us"),
            "calibration": self.caps.get("calibration"),
            **self.clock,
            "vm_clock": self.vm_clock,
            "tcp_sysctls": self.caps.get("sender_sysctls"),
            "guest_scheduling": self.caps.get("guest_scheduling"),
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
    """The self-check's numbers against their limits (tolerances in `calibration`)."""
    import pandas as pd

    from emusim.inputs import delay as delay_fit

    links = raw.get("links", 2)
    # the transfer's limit is the slowest link; each link's echo serialisations at its rate
    rates = plan_link_rates_bps(plan["topology"], links)
    rate = min(rates)
    tcp = raw["tcp"]
    frac = line_rate_fraction(tcp["writes"], tcp["elapsed_s"], rate)
    lo, hi = THROUGHPUT_TOLERANCE
    rows = [
        {"request_size_B": int(size), "rtt_us": rtt}
        for size, rtts in raw["ping_rtt_us"].items()
        for rtt in rtts
    ]
    configured = raw.get("path_delay_us", plan["delay_us"])
    try:
        fit = delay_fit.fit_report(pd.DataFrame(rows))
        two, ls = fit["two_point"], fit["least_squares"]
        fitted = path_delay_us(two["b"], rates)
        delay = {
            "configured_us": configured,
            "links": links,
            "fitted_two_point_us": fitted,
            "fitted_least_squares_us": path_delay_us(ls["intercept"], rates),
            "slope_us_per_B": ls["slope"],
            "model_slope_us_per_B": 2 * per_link_sum(lambda r: 8e6 / r, rates),
            "intercept_us": ls["intercept"],
            "tolerance_us": delay_tolerance_us(configured),
            "ok": delay_ok(fitted, configured),
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
            "tolerance": list(THROUGHPUT_TOLERANCE),
            "ok": bool(lo <= frac <= hi and tcp["completed"]),
        },
        "delay": delay,
        "ping_rtt_us": raw["ping_rtt_us"],
        "wall_s": raw["wall_s"],
    }


def session_path(results_dir: Path, plan: dict) -> Path:
    return (
        Path(results_dir) / BACKEND / plan["scenario"] / plan["profile"] / "sessions"
        / f"{plan['batch_id']}.json"
    )  # fmt: skip
