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
import re
import shlex
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from emusim import runjson
from emusim.backends import HARDWARE
from emusim.backends.testbed import checks, preflight, ssh
from emusim.backends.testbed.inventory import Inventory
from emusim.linux import blast_output
from emusim.linux.dropper import dropper_active, module_writes
from emusim.linux.tcp import RECORDED_SYSCTLS
from emusim.runjson import assemble, git_revision, write_atomically
from emusim.teardown import signals_ignored, signals_raise

BACKEND = HARDWARE.name
PROFILE = HARDWARE.profile
"""``native``: the hosts' own kernels and TCP, as for the 2001 measurements."""
DEFAULT_CAP_S = 3600.0
SERVER_START_S = 30.0
"""How long a blast server may take to say READY."""
UDP_IDLE_MS = 2000


class BatchError(RuntimeError):
    """The batch cannot run as asked."""


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run_path(results_dir: Path, scenario: str, point: str, rep: int) -> Path:
    return runjson.run_path(results_dir, BACKEND, scenario, PROFILE, point, rep)


def batch_dir(results_dir: Path, scenario: str) -> Path:
    return Path(results_dir) / BACKEND / scenario / PROFILE


def make_plan(
    scenario, results_dir: Path, repetitions: int | None = None, point_stride: int = 1
) -> dict:
    """Every run of the scenario (optionally thinned), split into to do and already there."""
    reps = min(repetitions or scenario.repetitions, scenario.repetitions)
    runs, skipped = [], []
    for point in scenario.thinned_points(point_stride):
        for rep in range(1, reps + 1):
            path = run_path(results_dir, scenario.name, point.id, rep)
            entry = {
                "point": point.id,
                "params": point.values,
                "repetition": rep,
                "workload": point.workload,
                "dropper": point.dropper,
                "dropper_target": point.dropper_target,
                "path": str(path),
            }
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


def last_json(text: str, what: str) -> dict:
    result = blast_output.last_json(text)
    if result is None:
        raise BatchError(f"{what} printed no result: {text.strip()[-400:]}")
    return result


class Testbed:
    """The operations of a run on the three hosts."""

    def __init__(self, conns: ssh.Connections, inv: Inventory, dropper_loaded: bool):
        self.conns, self.inv = conns, inv
        self.dropper_loaded = dropper_loaded

    def tool(self, name: str) -> str:
        return f"{self.inv.tools_dir}/{name}"

    # - the dropper (router) -

    def set_dropper(self, dropper: dict, target: str) -> int | None:
        """Configure the dropper and reset its count; returns the target packets it has seen
        so far (None without the module)."""
        if not self.dropper_loaded:
            if dropper_active(dropper):
                raise BatchError("the point needs the dropper, but the module is not loaded")
            return None
        writes = [(preflight.PROC_DROPPER, w) for w in module_writes(dropper, target)]
        writes.append((preflight.PROC_NUM_DROPPED, "reset"))
        # one write(2) per setting, as the module wants (echo's), then the state
        lines = [f"echo {shlex.quote(w)} > {p}" for p, w in writes]
        lines.append(f"cat {preflight.PROC_DROPPER}")
        state = preflight.parse_dropper(
            self.conns["router"].run(["sh", "-ec", "\n".join(lines)]).stdout
        )
        return int(state["packets"])

    def read_dropper(self) -> tuple[int, int] | None:
        """(dropped since the reset, target packets seen so far)."""
        if not self.dropper_loaded:
            return None
        out = self.conns["router"].script(
            [["cat", preflight.PROC_NUM_DROPPED], ["cat", preflight.PROC_DROPPER]]
        )
        first, _, rest = out.partition("\n")
        return int(first.split()[0]), int(preflight.parse_dropper(rest)["packets"])

    # - workloads -

    def counters(self, role: str, flush: bool = False) -> dict[str, int]:
        cmds = [["cat", "/proc/net/netstat", "/proc/net/snmp"]]
        if flush:  # no run inherits a cached ssthresh or RTT
            cmds.insert(0, ["ip", "tcp_metrics", "flush", "all"])
        return blast_output.parse_netstat(self.conns[role].script(cmds))

    def _server(self, argv: list[str], what: str) -> ssh.RemoteProcess:
        proc = self.conns["receiver"].start(argv)
        line = proc.readline(SERVER_START_S)
        if not line.startswith("READY"):
            done = proc.finish(10, check=False)
            raise BatchError(f"{what} did not start: {line.strip()} {done.stderr.strip()}")
        return proc

    def tcp_blast(self, writes: int, size: int, cap_s: float) -> dict:
        self.conns["receiver"].run(["ip", "tcp_metrics", "flush", "all"])
        port = str(self.inv.port)
        server = self._server(
            [self.tool("tcpblast"), "server", "-p", port, "-t", str(int(cap_s) + 60)],
            "the TCP blast server",
        )
        before = self.counters("sender", flush=True)
        client = self.conns["sender"].run(
            [
                self.tool("tcpblast"),
                "client",
                "-a",
                self.inv.receiver.ips[0],
                "-p",
                port,
                "-n",
                str(writes),
                "-s",
                str(size),
                "-t",
                str(int(cap_s)),
            ],
            timeout_s=cap_s + self.inv.run_margin_s,
            check=False,
            guard=True,
        )
        if client.returncode not in (0, 3):
            server.kill()
            raise BatchError(f"tcpblast client failed ({client.returncode}): {client.stderr}")
        result = last_json(client.stdout, "tcpblast client")
        if result["completed"]:
            result["server"] = last_json(server.finish(60).stdout, "tcpblast server")
        else:  # the cap ended the run: the server would wait
            server.kill()
            result["server"] = {"completed": False}
        after = self.counters("sender")
        delta = {k: after[k] - before.get(k, 0) for k in after}
        result["rto_timeouts"] = delta.get("TcpExt.TCPTimeouts", 0)
        result["fast_recoveries"] = delta.get("TcpExt.TCPRenoRecovery", 0) + delta.get(
            "TcpExt.TCPSackRecovery", 0
        )
        return result

    def udp_blast(self, datagrams: int, size: int, cap_s: float) -> dict:
        port = str(self.inv.port)
        receiver = self._server(
            [
                self.tool("udpblast"),
                "recv",
                "-p",
                port,
                "-e",
                str(datagrams),
                "-i",
                str(UDP_IDLE_MS),
                "-t",
                str(int(cap_s)),
            ],
            "the UDP blast receiver",
        )
        sent = self.conns["sender"].run(
            [
                self.tool("udpblast"),
                "send",
                "-a",
                self.inv.receiver.ips[0],
                "-p",
                port,
                "-n",
                str(datagrams),
                "-s",
                str(size),
            ],
            timeout_s=cap_s + self.inv.run_margin_s,
            guard=True,
        )
        got = receiver.finish(cap_s + self.inv.run_margin_s)
        return {
            "sender": last_json(sent.stdout, "udpblast send"),
            "receiver": last_json(got.stdout, "udpblast recv"),
        }

    def ping(self, size: int, count: int, interval_s: float) -> list[float]:
        done = self.conns["sender"].run(
            [
                "ping",
                "-n",
                "-c",
                str(count),
                "-i",
                f"{interval_s:g}",
                "-s",
                str(size),
                "-W",
                "2",
                self.inv.receiver.ips[0],
            ],
            timeout_s=count * (interval_s + 2) + self.inv.run_margin_s,
            check=False,
            guard=True,
        )
        if done.returncode not in (0, 1):
            raise BatchError(f"ping failed ({done.returncode}): {done.stdout}{done.stderr}")
        return [float(m) * 1000 for m in _RTT.findall(done.stdout)]


_RTT = re.compile(r"time=([0-9.]+) ms")
"""An echo's round trip in iputils ping's output."""


def run_one(tb: Testbed, entry: dict, plan: dict, target: str) -> dict:
    """One run: the dropper set, the workload, the drop count; metrics and facts."""
    seen_before = tb.set_dropper(entry["dropper"], target)
    w = entry["workload"]
    facts: dict[str, Any] = {}
    status = "ok"
    if w["kind"] == "tcp-blast":
        res = tb.tcp_blast(int(w["writes"]), int(w["write_size_B"]), plan["cap_s"])
        metrics = {
            k: res[k]
            for k in (
                "elapsed_s",
                "writes",
                "write_size_B",
                "payload_bytes",
                "packets_sent",
                "retransmissions",
                "rto_timeouts",
                "fast_recoveries",
            )
        }
        status = "ok" if res["completed"] else "timeout"
        if res["completed"] and res["server"]["bytes_received"] != res["payload_bytes"]:
            raise BatchError(
                f"the server received {res['server']['bytes_received']} bytes "
                f"of {res['payload_bytes']}"
            )
        facts = {
            k: res.get(k)
            for k in (
                "segments_sent",
                "snd_mss",
                "peer_window_B",
                "srtt_us",
                "snd_cwnd",
                "snd_ssthresh",
                "writes_done",
                "server",
            )
        }
    elif w["kind"] == "udp-blast":
        res = tb.udp_blast(int(w["datagrams"]), int(w["datagram_size_B"]), plan["cap_s"])
        sent, got = res["sender"], res["receiver"]
        metrics = blast_output.udp_blast_metrics(sent, got)
        facts = {"send_errors": sent["send_errors"], "receiver_end": got.get("end")}
    elif w["kind"] == "ping":
        rtts = tb.ping(int(w["request_size_B"]), int(w["count"]), float(w["interval_s"]))
        metrics = {
            "rtt_us": [round(x, 3) for x in rtts],
            "request_size_B": int(w["request_size_B"]),
        }
    else:
        raise BatchError(f"the testbed has no workload {w['kind']!r}")
    read = tb.read_dropper()
    seen = None
    if read is not None:
        metrics["packets_dropped"], seen_after = read
        seen = seen_after - (seen_before or 0)
        facts["dropper_packets_seen"] = seen
    else:
        metrics["packets_dropped"] = 0
    return {"status": status, "metrics": metrics, BACKEND: facts, "seen": seen}


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
            "scenario": plan["scenario"],
            "backend": BACKEND,
            "profile": PROFILE,
            "point": entry["point"],
            "params": entry["params"],
            "repetition": entry["repetition"],
            "seed": None,
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
    except (ssh.RemoteError, ssh.RemoteTimeout, BatchError) as err:
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
