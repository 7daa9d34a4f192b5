"""A scenario's runs on the testbed, as the report ran them, resumable and checked.

Per run (report §2.3): set the router's dropper (/proc/dropperInfo/dropper, one write per
setting) and reset its count (/proc/dropperInfo/numDropped); start the receiver (tcpblast
server or udpblast recv); run the blast on the sender; read the drop count. A ping point runs
``ping`` on the sender. The hosts' TCP is their own (profile ``native``, as the reference
measurements'); what it was is recorded. Each run is checked (`emusim.backends.testbed.checks`) and
repeated when inconsistent, at most ``checks.max_attempts`` times.

A batch writes ``RESULTS/hardware/SCENARIO/native/POINT/run{k}.json`` (atomically, each as it
is accepted), skipping runs that exist, so a rerun after an interruption or a lost host does
only what is missing; each session's preflight goes to ``sessions/ID.json`` and the batch's
record to ``batch.json``. A host that stops answering ends the batch with `HostLost`.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

from emusim import workloads
from emusim.backends.testbed import checks, preflight, ssh
from emusim.backends.testbed.inventory import Inventory
from emusim.core.backend_registry import HARDWARE
from emusim.infra import runjson
from emusim.infra.runjson import assemble, git_revision, write_atomically
from emusim.infra.teardown import signals_ignored, signals_raise
from emusim.linux import runner
from emusim.linux.dropper import dropper_active, module_writes
from emusim.linux.hosts import HostError
from emusim.linux.tcp import RECORDED_SYSCTLS

BACKEND = HARDWARE.name
PROFILE = HARDWARE.profile
"""``native``: the hosts' own kernels and TCP, as for the 2001 measurements."""
DEFAULT_CAP_S = 3600.0


class BatchError(RuntimeError):
    """The batch cannot run as asked."""


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run_path(results_dir: Path, scenario: str, point: str, rep: int) -> Path:
    return runjson.run_path(results_dir, BACKEND, scenario, PROFILE, point, rep)


def batch_dir(results_dir: Path, scenario: str) -> Path:
    return Path(results_dir) / BACKEND / scenario / PROFILE


# What a scenario may ask of the line that the testbed's three hosts cannot give: the testbed
# maps sender, router and receiver (the report's line, docs/testbed.md), over the hosts' own
# links and queues, as they are.
UNMAPPED_KEYS = {
    ("topology", "hosts", "router2"): "a second router (the inventory has three hosts)",
    ("topology", "aqm"): "a marking queue on the router (the testbed keeps the hosts' qdiscs)",
    ("topology", "access_rate_Mbps"): "per-link rates (the testbed's links are as cabled)",
    ("impairment", "link"): "an impaired link (the testbed shapes no link)",
}


def check_mappable(scenario) -> None:
    """Refuse a scenario that asks for what the testbed cannot give, naming file, key, value."""
    for keys, what in UNMAPPED_KEYS.items():
        node = scenario.settings
        for key in keys:
            node = node.get(key) if isinstance(node, dict) else None
        if node is not None:
            raise BatchError(
                f"{scenario.path}: key '{'.'.join(keys)}' ({node!r}) asks for {what}; "
                "the testbed runs only scenarios of the report's three-host line"
            )


def mappable(scenario) -> bool:
    """Whether the testbed can run the scenario (check_mappable refuses it otherwise)."""
    try:
        check_mappable(scenario)
    except BatchError:
        return False
    return True


def make_plan(
    scenario, results_dir: Path, repetitions: int | None = None, point_stride: int = 1
) -> dict:
    """Every run of the scenario (optionally thinned), split into to do and already there."""
    check_mappable(scenario)
    runs, skipped = [], []
    for point in scenario.thinned_points(point_stride):
        for rep in range(1, scenario.repetitions_of(point, repetitions) + 1):
            path = run_path(results_dir, scenario.name, point.id, rep)
            entry = runner.plan_entry(point, rep, path)
            (skipped if path.exists() else runs).append(entry)
    return {
        "scenario": scenario.name,
        "scale": scenario.scale,
        "cap_s": float(scenario.settings.get("cap_s", DEFAULT_CAP_S)),
        "topology": scenario.settings["topology"],
        "runs": runs,
        "skipped": skipped,
    }


def needs_dropper(plan: dict) -> bool:
    return any(dropper_active(r["dropper"]) for r in plan["runs"])


def dropper_target(want: str, topology: dict, inv: Inventory) -> str:
    """The scenario's target (`Point.dropper_target`) must be its receiver; on the testbed that
    is the inventory's."""
    if want != topology["hosts"]["receiver"]["address"]:
        raise BatchError(
            f"the scenario's dropper target {want} is not its receiver "
            f"({topology['hosts']['receiver']['address']}); the testbed maps only the receiver"
        )
    return inv.receiver.ips[0]


class Testbed:
    """The three hosts of a run over SSH (emusim.linux.hosts.Hosts) and the router's dropper
    module (emusim.linux.hosts.Dropper, /proc/dropperInfo)."""

    margin_s: float
    # the hosts' own TCP: no profile's window clamp or congestion control to check
    window_clamp = None
    default_congestion_control = None

    def __init__(self, conns: ssh.Connections, inv: Inventory, dropper_loaded: bool):
        self.conns, self.inv = conns, inv
        self.dropper_loaded = dropper_loaded
        self.port = inv.port
        self.margin_s = inv.run_margin_s
        self.warmed: set[str] = set()
        self._target = ""

    # - the hosts -

    def address(self, role: str) -> str:
        return getattr(self.inv, role).ips[0]

    def tool(self, name: str) -> str:
        return f"{self.inv.tools_dir}/{name}"

    def guard_s(self, timeout_s: float) -> float:
        return timeout_s

    def start(self, role: str, argv) -> ssh.RemoteProcess:
        return self.conns[role].start(argv)

    def run(self, role: str, argv, timeout_s: float, check: bool = True):
        return self.conns[role].run(argv, timeout_s, check=check, guard=True)

    def script(self, role: str, commands) -> str:
        return self.conns[role].script(commands)

    def set_sysctls(self, per_role: dict) -> None:
        raise BatchError(
            "the testbed runs its hosts' own TCP settings: a run that changes sysctls (a "
            "variant that needs ECN) cannot run there"
        )

    # - the dropper (router) -

    def configure(self, dropper: dict, target: str) -> None:
        """Configure the dropper and reset its count."""
        if not self.dropper_loaded:
            if dropper_active(dropper):
                raise BatchError("the point needs the dropper, but the module is not loaded")
            return
        writes = [(preflight.PROC_DROPPER, w) for w in module_writes(dropper, target)]
        writes.append((preflight.PROC_NUM_DROPPED, "reset"))
        # one write(2) per setting, as the module wants (echo's)
        lines = [f"echo {shlex.quote(w)} > {p}" for p, w in writes]
        self.conns["router"].run(["sh", "-ec", "\n".join(lines)])

    def _read_dropper(self) -> tuple[int, int] | None:
        """(dropped since the reset, target packets seen so far)."""
        if not self.dropper_loaded:
            return None
        out = self.conns["router"].script(
            [["cat", preflight.PROC_NUM_DROPPED], ["cat", preflight.PROC_DROPPER]]
        )
        first, _, rest = out.partition("\n")
        return int(first.split()[0]), int(preflight.parse_dropper(rest)["packets"])

    def seen(self) -> int | None:
        read = self._read_dropper()
        return None if read is None else read[1]

    def dropped(self) -> int:
        read = self._read_dropper()
        return 0 if read is None else read[0]


def run_one(tb: Testbed, entry: dict, plan: dict, target: str) -> dict:
    """One run (emusim.workloads.run_one) with the dropper's target the testbed's receiver:
    metrics, facts and the target packets the dropper saw (None without the module)."""
    out = workloads.run_one(tb, tb, {**entry, "dropper_target": target}, plan)
    facts = out["facts"]
    return {
        "status": out["status"],
        "metrics": out["metrics"],
        BACKEND: facts,
        "seen": facts.get("dropper_packets_seen"),
    }


# --- the batch --------------------------------------------------------------------------------


class Session:
    """One process's share of a batch: its preflight, the runs it wrote, its record."""

    def __init__(self, inv: Inventory, plan: dict, results_dir: Path):
        self.inv, self.plan, self.results_dir = inv, plan, Path(results_dir)
        self.id = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{os.urandom(2).hex()}"
        self.started_utc = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.t0 = time.monotonic()
        self.preflight: dict = {}
        self.written: list[str] = []
        self.retries = 0
        self.git = git_revision()

    @property
    def path(self) -> Path:
        return batch_dir(self.results_dir, self.plan["scenario"]) / "sessions" / f"{self.id}.json"

    def record(self, finished: bool, error: str | None = None) -> dict:
        rec = {
            "session_id": self.id,
            "started_utc": self.started_utc,
            "scenario": self.plan["scenario"],
            "backend": BACKEND,
            "profile": PROFILE,
            "scale": self.plan["scale"],
            "testbed": self.inv.summary(),
            "preflight": self.preflight,
            "runs_written": len(self.written),
            "runs_skipped": len(self.plan["skipped"]),
            "repeats": self.retries,
            "finished": finished,
            "error": error,
            "wall_s": round(time.monotonic() - self.t0, 3),
            "controller": socket.gethostname(),
            "git_revision": self.git,
        }
        write_atomically(self.path, json.dumps(rec, indent=1, sort_keys=True, default=str) + "\n")
        return rec


def accepted_elapsed(plan: dict, point: str) -> list[float]:
    """Elapsed times of the point's runs on disk (accepted earlier, in any session)."""
    out = []
    for entry in plan["runs"] + plan["skipped"]:
        path = Path(entry["path"])
        if entry["point"] == point and path.exists():
            metrics = json.loads(path.read_text())["metrics"]
            if "elapsed_s" in metrics:
                out.append(float(metrics["elapsed_s"]))
    return out


def execute_runs(tb: Testbed, session: Session, progress: Callable[[str], None] = log) -> None:
    plan, inv = session.plan, session.inv
    pre = preflight.summary(session.preflight)
    sysctls = {
        role: {k: session.preflight["hosts"][role]["tcp_sysctls"].get(k) for k in RECORDED_SYSCTLS}
        for role in ("sender", "receiver")
    }
    total = len(plan["runs"])
    for i, entry in enumerate(plan["runs"], 1):
        target = dropper_target(entry["dropper_target"], plan["topology"], inv)
        accepted = accepted_elapsed(plan, entry["point"])
        rejected = []
        for attempt in range(1, inv.max_attempts + 1):
            t0 = time.monotonic()
            out = guarded(tb, lambda e=entry, t=target: run_one(tb, e, plan, t))
            wall = round(time.monotonic() - t0, 3)
            found = checks.run_checks(
                entry["workload"]["kind"],
                out["metrics"],
                entry["dropper"],
                out["seen"],
                accepted,
                entry["workload"],
            )
            ok = all(c["ok"] for c in found)
            if ok or attempt == inv.max_attempts:
                break
            session.retries += 1
            bad = [c for c in found if not c["ok"]]
            rejected.append(
                {"attempt": attempt, "failed": bad, "metrics": out["metrics"], "wall_s": wall}
            )
            progress(
                f"testbed: {entry['point']} rep {entry['repetition']}: inconsistent "
                f"({', '.join(c['check'] for c in bad)}), repeating"
            )
        active = dropper_active(entry["dropper"])
        meta = {
            **runner.run_meta(plan, entry, BACKEND, PROFILE),
            "provenance": {
                "scale": plan["scale"],
                "testbed": inv.summary(),
                "preflight": pre,
                "session_id": session.id,
                "dropper_impl": "module" if (active or tb.dropper_loaded) else "none",
                "dropper_target": target,
                "kernel_release": {r: h["kernel"] for r, h in pre["hosts"].items()},
                "tcp_sysctls": sysctls,
                "consistency": {
                    "ok": ok,
                    "attempts": attempt,
                    "checks": found,
                    "rejected": rejected,
                },
                "controller": socket.gethostname(),
                "python": platform.python_version(),
                "git_revision": session.git,
                "wall_s": wall,
                "rng": "kernel RNG (not seedable): seed is null",
            },
        }
        run = assemble(meta, out, BACKEND)
        write_atomically(Path(entry["path"]), json.dumps(run, indent=1, sort_keys=True) + "\n")
        session.written.append(entry["path"])
        m = out["metrics"]
        what = (
            f"elapsed {m['elapsed_s']:.3f} s" if "elapsed_s" in m else f"{len(m['rtt_us'])} echoes"
        )
        progress(
            f"testbed: run {i}/{total} {entry['point']} rep {entry['repetition']}: "
            f"{out['status']}, {what}, dropped {m['packets_dropped']}"
            f"{'' if ok else ' (INCONSISTENT after ' + str(attempt) + ' attempts)'}"
            f" ({wall:.1f} s wall)"
        )


def guarded(tb: Testbed, step: Callable[[], dict]) -> dict:
    """Run a step; when it fails, find out whether a host is gone (HostLost names it)."""
    try:
        return step()
    except (ssh.RemoteError, ssh.RemoteTimeout, HostError, BatchError) as err:
        tb.conns.check_all()
        raise BatchError(str(err)) from None


def compose_batch(results_dir: Path, plan: dict, current: dict | None) -> dict:
    """batch.json: the run files, every session that wrote one of them (oldest first), and
    the latest session's preflight."""
    files = sorted(e["path"] for e in plan["runs"] + plan["skipped"])
    ids = []
    for path in files:
        sid = json.loads(Path(path).read_text())["provenance"].get("session_id")
        if sid and sid not in ids:
            ids.append(sid)
    base = batch_dir(results_dir, plan["scenario"]) / "sessions"
    sessions = {}
    for sid in ids:
        rec = base / f"{sid}.json"
        if rec.exists():
            sessions[sid] = json.loads(rec.read_text())
    if current is not None:
        sessions[current["session_id"]] = current
    ordered = sorted(sessions.values(), key=lambda s: s["started_utc"])
    latest = ordered[-1] if ordered else {}
    return {
        "scenario": plan["scenario"],
        "backend": BACKEND,
        "profile": PROFILE,
        "scale": plan["scale"],
        "testbed": latest.get("testbed"),
        "preflight": latest.get("preflight"),
        "run_files": files,
        "sessions": [
            {
                k: s.get(k)
                for k in (
                    "session_id",
                    "started_utc",
                    "runs_written",
                    "runs_skipped",
                    "repeats",
                    "finished",
                    "error",
                    "wall_s",
                )
            }
            for s in ordered
        ],
        "repeats": sum(s.get("repeats", 0) for s in ordered),
    }


def run_batch(
    inv: Inventory,
    scenario,
    results_dir: Path,
    repetitions: int | None = None,
    point_stride: int = 1,
) -> dict:
    """Run (or resume) the scenario on the testbed; returns batch.json's content."""

    results_dir = Path(results_dir)
    plan = make_plan(scenario, results_dir, repetitions, point_stride)
    out_path = batch_dir(results_dir, scenario.name) / "batch.json"
    log(
        f"testbed {inv.name}: {scenario.name} at scale {scenario.scale}: "
        f"{len(plan['runs'])} runs to do, {len(plan['skipped'])} already there"
    )
    session = Session(inv, plan, results_dir)
    current = None
    if plan["runs"]:
        conns = ssh.Connections(inv)
        with signals_raise():
            try:
                session.preflight = preflight.run(conns, inv, needs_dropper(plan))
                session.record(finished=False)
                log(f"testbed: preflight passed ({session.preflight['elapsed_s']:.1f} s)")
                tb = Testbed(conns, inv, session.preflight["dropper"]["loaded"])
                execute_runs(tb, session)
                current = session.record(finished=True)
            except BaseException as err:
                with signals_ignored():
                    if session.preflight:
                        session.record(finished=False, error=str(err) or type(err).__name__)
                raise
            finally:
                with signals_ignored():
                    conns.close()
    batch = compose_batch(results_dir, plan, current)
    write_atomically(out_path, json.dumps(batch, indent=1, sort_keys=True, default=str) + "\n")
    log(
        f"testbed: wrote {out_path}: {len(batch['run_files'])} runs, "
        f"{batch['repeats']} repeated for consistency"
    )
    return batch
