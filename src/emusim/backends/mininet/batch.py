"""A batch on the host: runs the plan here or in a VM, writes each run's JSON as its line
arrives (so an interrupted batch keeps every finished run), evaluates the self-check and
writes batch.json with the clock, kernel release, place and timings.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import sys
import time
from pathlib import Path

import emusim
from emusim import workloads
from emusim.backends.mininet import tracing
from emusim.backends.mininet.executor import execute
from emusim.backends.mininet.host import PLAN_DIR, cleanup, need_root, register, unregister
from emusim.backends.mininet.plan import (
    BACKEND,
    LINE_PREFIX,
    PLACES,
    VM_CPUS,
    BatchError,
    Shard,
    decide_place,
    log,
    make_plan,
    one_way_delay_us,
    run_key,
    scenario_dropper_impl,
)
from emusim.backends.mininet.topology import ENV_MARK, PREFIX
from emusim.backends.mininet.writer import BatchWriter, clock_of
from emusim.core.paths import REPO_ROOT
from emusim.infra.teardown import signals_raise
from emusim.linux import tcp_tracefs
from emusim.linux.tcp import check_profile

# --- batch: on the host ---------------------------------------------------------------------


def _guest_command(plan_path: Path, probes: dict[str, str] | None = None) -> list[str]:
    """The executor in the guest, with this batch's own emusim package and checkout (the guest
    sees the host's files at the same paths, but not its environment: without PYTHONPATH it
    would import whatever tree the environment's editable install names, and without
    EMUSIM_ROOT it would look for the dropper module in that tree, built for another kernel
    than the one this batch boots); ``probes``: the tracer's further probes, as the
    environment its session reads (`tracer_probes`)."""
    package_root = Path(emusim.__file__).resolve().parents[1]
    extra = [f"{name}={value}" for name, value in (probes or {}).items()]
    return [
        "env", f"PYTHONPATH={package_root}", f"EMUSIM_ROOT={REPO_ROOT}", *extra,
        sys.executable, "-m", "emusim.backends.mininet", "execute", "--plan", str(plan_path),
    ]  # fmt: skip


def tracer_probes(send_path: bool = False, ca_function: str | None = None) -> dict[str, str]:
    """The tracer's further probes (emusim.linux.tcp_tracefs), as the environment its session
    reads: the send-path probes, and a congestion-control function's."""
    probes = {tcp_tracefs.SEND_PATH_ENV: "1"} if send_path else {}
    if ca_function:
        probes[tcp_tracefs.CA_ENV] = ca_function
    return probes


@contextlib.contextmanager
def _probes_env(probes: dict[str, str] | None):
    """The tracer's further probes for a batch on this machine (`_guest_command` for the
    VM's)."""
    probes = probes or {}
    os.environ.update(probes)
    try:
        yield
    finally:
        for name in probes:
            os.environ.pop(name, None)


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
    trace: tracing.TraceRequest | None = None,
    shard: Shard | None = None,
    cpu_profile: frozenset[str] | None = None,
    archive_dir: Path | None = None,
    select: dict | None = None,
    probes: dict[str, str] | None = None,
) -> dict:
    """Run (or resume) a batch; returns batch.json's content. ``icount_shift`` is the dilated time
    of a VM without KVM (emusim.infra.vm.icount_requested: "env" reads the environment, None
    runs it in real time); without ``repeat_deterministic`` a batch in dilated time runs a point
    that draws no random numbers once (`make_plan`); ``trace`` says which runs are traced
    (`tracing.select`), ``probes`` what else their tracer probes (`tracer_probes`). A ``shard``
    runs its share of the design in a VM of its own and writes its record to `shard_path`
    instead of batch.json (`merge_shards` joins them). The runs of the points in ``cpu_profile``
    ("all": every point) are sampled by perf while they run (`emusim.linux.cpu_profile`; their
    times include the sampling's cost: give them a results directory of their own). ``select``
    keeps the points with those axis values (`make_plan`'s ``where``). A run that
    ``archive_dir`` holds with this run's key (`plan.run_key`) is restored from there instead of
    run (`restore_archived`).
    """

    if place not in PLACES:
        raise BatchError(f"--place {place!r}; accepted: {', '.join(PLACES)}")
    check_profile(profile)
    if os.geteuid() == 0:  # without root no batch here made namespaces or links to leave
        removed = cleanup(only_dead=True)
        if removed:
            log(f"mininet: removed leftovers of killed batches: {', '.join(removed)}")
    results_dir = Path(results_dir)
    delay_us = one_way_delay_us(scenario, delay_json)
    impl = scenario_dropper_impl(scenario, dropper_impl)

    def planned(repeat: bool = True, share: Shard | None = None, archived=(), group=0) -> dict:
        plan = make_plan(
            scenario, profile, delay_us, impl, results_dir, selfcheck, repetitions,
            point_stride, repeat_deterministic=repeat, shard=share, where=select,
            archived=archived, group=group,
        )  # fmt: skip
        return _traced(plan, _within(trace, plan))

    # one place for every session: the VM if any group's needs it (module parameters do)
    groups = planned()["parameter_groups"]
    _check_traced(trace, [planned(group=g) for g in range(groups)])
    places = [decide_place(planned(group=g), place) for g in range(groups)]
    where, reason = next((p for p in places if p[0] == "vm"), places[0])
    if where == "host":
        need_root()  # a VM batch needs none: QEMU without KVM runs as any user
    from emusim.infra import vm, vm_setup

    try:
        kvm = where == "vm" and vm.kvm_requested(None)
        shift = None if where == "host" or kvm else vm.icount_requested(icount_shift)
    except vm_setup.VMError as err:
        raise BatchError(str(err)) from None
    # only in dilated time does a point without randomness repeat to the microsecond
    repeat = repeat_deterministic or shift is None
    clock = clock_of(where, kvm, shift)
    use_archive = archive_dir is not None and not trace
    batch_path = (
        results_dir / BACKEND / scenario.name / profile / "batch.json"
        if shard is None
        else shard_path(results_dir, scenario.name, profile, shard)
    )

    def session(group: int) -> dict:
        """The group's session (`make_plan`'s ``group``): its runs made or restored, and the
        batch's record written for the runs made so far."""
        archived = (
            archived_runs(planned(repeat, group=group), Path(archive_dir), results_dir, clock)
            if use_archive and shard is not None
            else ()
        )
        plan = planned(repeat, shard, archived, group)
        plan["icount_shift"] = shift
        for entry in plan["runs"]:
            if cpu_profile and ("all" in cpu_profile or entry["point"] in cpu_profile):
                entry["cpu_profile"] = True
        if use_archive:
            plan = restore_archived(plan, Path(archive_dir), results_dir, clock)
        nothing = not plan["runs"] + plan["skipped"]
        if nothing and trace is not None and trace.only and groups > 1:
            log(f"mininet: {scenario.name}/{profile}: no traced point in session {group + 1}")
            return {"run_files": []}
        if nothing and (group > 0 or (shard is not None and shard.index > 1)):
            # The design has fewer runs than shards: this one has nothing, not even a self-check
            # to make (shard 1 always checks itself, in its first group).
            out = {"scenario": scenario.name, "profile": profile, "backend": BACKEND,
                   "run_files": [], "sessions": []}  # fmt: skip
            out = shard_record(out, shard)
            _write_batch(batch_path, out)
            log(f"mininet: {scenario.name}/{profile} shard {shard}: no runs of the design")
            return out
        for variant in sorted({n["variant"] for n in plan["not_implemented"]}):
            points = [n for n in plan["not_implemented"] if n["variant"] == variant]
            log(f"mininet: {len(points)} point(s) not run: {points[0]['reason']}")
        run_files = sorted(r["path"] for r in plan["runs"] + plan["skipped"])
        if not plan["runs"]:
            out = compose_batch(run_files, None)
            if out is not None:
                out = shard_record(out, shard)
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
        made_by = _code_identity()
        writer = None
        try:
            with realtime_lock(where == "host" or shift is None):
                if where == "host":
                    writer = BatchWriter(plan, results_dir, "host", False, reason)
                    with _probes_env(probes):
                        execute(plan, writer.record, "host")
                else:
                    writer = BatchWriter(plan, results_dir, "vm", kvm, reason)
                    vm_clock = writer.clock["clock"]
                    dilation = (
                        f" (icount shift {plan['icount_shift']})"
                        if vm_clock == "guest-icount"
                        else ""
                    )
                    log(f"mininet: the VM's clock: {vm_clock}{dilation}")
                    vm_elapsed = _run_in_vm(plan, writer, vm_timeout_s, vm_cpus, probes)
        finally:
            if writer is not None:
                _stamp_runs(writer.written, made_by, writer.caps.get("variants"))
        if not writer.finished:
            raise BatchError("the batch ended before its last run (see the messages above)")
        session = writer.write_session(vm_elapsed)
        out = shard_record(compose_batch(run_files, session), shard)
        _write_batch(batch_path, out)
        log(f"mininet: wrote {batch_path} ({session['timings']['total_s']:.1f} s)")
        return out

    if groups == 1:
        return session(0)
    # variants that set a module's parameters differently: a session (a VM) per group, one
    # after the other, and the batch's record over all of them
    log(f"mininet: {scenario.name}/{profile}: {groups} sessions, one per set of module "
        "parameters (module parameters are kernel-wide)")  # fmt: skip
    run_files = sorted({f for g in range(groups) for f in session(g)["run_files"]})
    out = shard_record(compose_batch(run_files, None) or {"run_files": run_files}, shard)
    _write_batch(batch_path, out)
    return out


def _code_identity() -> str:
    """The digest of the code this batch makes its runs with (emusim.infra.code_identity)."""
    from emusim.infra import code_identity

    return code_identity.current(BACKEND)["digest"]


def _stamp_runs(paths: list[str], digest: str, variant_facts: dict | None) -> None:
    """Record in each run this batch wrote the code that made it (`provenance.code_identity`),
    which the archive keeps it with (docs/archive.md), and the parameters of its congestion
    control's module as the session read them back from /sys/module after setting them
    (`provenance.module_parameters`, {"MODULE.NAME": value}; host.load_variant_modules).
    Done here, beside the run's making, so that the code that makes a run does not digest
    itself."""
    from emusim.infra.runjson import write_atomically
    from emusim.inputs import variants

    read_back = (variant_facts or {}).get("module_parameters") or {}
    for path in paths:
        run = json.loads(Path(path).read_text())
        run["provenance"]["code_identity"] = digest
        variant = run.get("params", {}).get("variant")
        module = variants.get(variant).linux.module if variant else None
        mine = {k: v for k, v in read_back.items() if module and k.startswith(f"{module}.")}
        if mine:
            run["provenance"]["module_parameters"] = mine
        write_atomically(Path(path), json.dumps(run, indent=1, sort_keys=True) + "\n")


def _restorable(prov: dict, archive_dir: Path) -> tuple[bool, str]:
    """Whether a kept run's code is this checkout's (emusim.infra.archive.code_state)."""
    from emusim.infra import archive

    return archive.code_state({"backend": BACKEND, "provenance": prov}, archive_dir)


def archived_runs(plan: dict, archive_dir: Path, results_dir: Path, clock: dict) -> set[str]:
    """Paths of the plan's runs (made or not) that the archive holds with this run's key:
    those `restore_archived` would restore, which the shards deal out last (`Shard`)."""
    kernel = _kernel_release(clock)
    return {
        entry["path"]
        for entry in plan["runs"] + plan["skipped"]
        if (found := _archived_copy(plan, entry, archive_dir, results_dir)) is not None
        and found[1].get("run_key") == run_key(plan, entry, clock, kernel)
        and _restorable(found[1], archive_dir)[0]
    }


def _kernel_release(clock: dict) -> str:
    """The kernel a batch with this clock runs on: the host's, or the one the VM boots."""
    from emusim.infra import vm_setup

    return os.uname().release if clock["clock"] == "host" else vm_setup.find_kernel().release


def _archived_copy(
    plan: dict, entry: dict, archive_dir: Path, results_dir: Path
) -> tuple[Path, dict] | None:
    """The archive's copy of a run and its provenance, or None if it keeps none."""
    from emusim.infra import archive

    relative = Path(entry["path"]).relative_to(results_dir)
    kept = archive.archive_path(archive_dir, plan["scale"], relative)
    if not kept.exists():
        return None
    return kept, json.loads(kept.read_text())["provenance"]


def restore_archived(plan: dict, archive_dir: Path, results_dir: Path, clock: dict) -> dict:
    """The plan with every run that the archive holds with the same key (`plan.run_key`:
    the kernel this batch would boot, its clock, the point and the profile as they are now)
    written into the results from there, with its session's record, and counted as already
    there. docs/archive.md."""
    from emusim.infra import archive

    kernel = _kernel_release(clock)
    keep, restored = [], []
    unused: dict[str, list[Path]] = {}  # why -> the kept runs not used for that reason
    for entry in plan["runs"]:
        found = _archived_copy(plan, entry, archive_dir, results_dir)
        if found is None:
            keep.append(entry)
            continue
        kept, prov = found
        if prov.get("run_key") != run_key(plan, entry, clock, kernel):
            unused.setdefault("its run_key differs from this run's", []).append(kept)
            keep.append(entry)
            continue
        fresh, why = _restorable(prov, archive_dir)
        if not fresh:
            unused.setdefault(f"stale: {why}", []).append(kept)
            keep.append(entry)
            continue
        session = f"sessions/{prov['batch_id']}.json"
        archive.restore(kept, Path(entry["path"]))
        batch_dir = Path(entry["path"]).parents[1]
        if not (batch_dir / session).exists():
            (batch_dir / session).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(kept.parents[1] / session, batch_dir / session)
        restored.append(entry)
    for line in unused_lines(unused):
        log(line)
    if restored:
        log(f"mininet: {len(restored)} run(s) restored from {archive_dir} (docs/archive.md)")
    return {**plan, "runs": keep, "skipped": plan["skipped"] + restored}


def unused_lines(unused: dict[str, list[Path]], shown: int = 3) -> list[str]:
    """A line per reason kept runs were not restored: how many, the first of them, and the
    reason with each list in it cut to its first `shown` names (a stale run's reason names every
    changed definition: `python -m emusim.infra.archive status` prints them all)."""

    def brief(part: str) -> str:
        head, sep, names = part.partition(": ")
        items = names.split(", ")
        if not sep or len(items) <= shown:
            return part
        return f"{head}: {', '.join(items[:shown])} and {len(items) - shown} more"

    lines = []
    for why, runs in unused.items():
        label, _, detail = why.partition("stale: ")
        reason = f"stale: {'; '.join(brief(p) for p in detail.split('; '))}" if not label else why
        others = f" and {len(runs) - 1} more" if len(runs) > 1 else ""
        lines.append(f"mininet: {runs[0]}{others} not used: {reason}")
    if any(why.startswith("stale: ") for why in unused):
        lines.append("mininet: `python -m emusim.infra.archive status` says what changed for each")
    return lines


REALTIME_LOCK = Path("/run/lock/emusim-realtime-emulation.lock")
"""Held by a batch that measures in real time (on the host, in a KVM guest, or a TCG guest
without icount) for as long as it runs: such a batch's results depend on the host's load, so
two of them never run at once on one machine, whoever started them. A batch in dilated time
takes no lock: its guest's clock counts its own instructions (docs/mininet.md)."""


@contextlib.contextmanager
def realtime_lock(real_time: bool, path: Path = REALTIME_LOCK):
    """Hold `REALTIME_LOCK` (an flock, released by the kernel if the batch dies) when
    ``real_time``, waiting for another real-time batch to end."""
    if not real_time:
        yield
        return
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"mininet: waiting for another real-time batch to end ({path})")
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def shard_path(results_dir: Path, scenario: str, profile: str, shard: Shard) -> Path:
    """A shard's record: batch.json's content for its share of the runs."""
    return Path(results_dir) / BACKEND / scenario / profile / "shards" / f"{shard}.json"


def shard_record(out: dict, shard: Shard | None) -> dict:
    """A batch record as its shard writes it: with ``shard`` ("I-of-N"), which `merge_shards`
    checks; a whole batch's unchanged."""
    return out if shard is None else {**out, "shard": str(shard)}


def merge_shards(shard_files: list[Path], output: Path) -> dict:
    """batch.json of a batch run in shards: every shard's run files and sessions, and the
    facts (clock, kernel, self-check) of the latest session that made runs, as
    `compose_batch` does for one shard's sessions. Each session keeps its own self-check
    (emusim.backends.mininet.selfcheck fails the batch if any failed)."""
    records = []
    for path in shard_files:
        try:
            records.append(json.loads(Path(path).read_text()))
        except (OSError, ValueError) as err:
            raise BatchError(f"shard record {path}: {err}") from None
    counts = {r.get("shard", "1-of-1").split("-of-")[-1] for r in records}
    if len(counts) != 1 or int(counts.pop()) != len(records):
        raise BatchError(
            f"shard records {', '.join(map(str, shard_files))}: expected one of each of "
            f"{len(records)} shards, found {[r.get('shard') for r in records]}"
        )
    scenarios = {(r["scenario"], r["profile"]) for r in records}
    if len(scenarios) != 1:
        raise BatchError(f"shard records of different batches: {sorted(scenarios)}")
    made = [r for r in records if r.get("sessions")]
    if not made:
        raise BatchError(f"no shard ran a session: {', '.join(map(str, shard_files))}")
    main = max(made, key=_latest_run_session)
    sessions = {s["batch_id"]: s for r in records for s in r["sessions"]}
    ordered = sorted(sessions.values(), key=lambda s: s.get("started_utc") or "")
    out = {
        **{k: v for k, v in main.items() if k != "shard"},
        "variants": _joined_variants(ordered, main.get("variants")),
        "run_files": sorted(f for r in records for f in r["run_files"]),
        "sessions": ordered,
        "shards": len(records),
    }
    _write_batch(Path(output), out)
    return out


def _latest_run_session(record: dict) -> str:
    """When a shard's latest session that made runs started ("" if none made any)."""
    return max(
        (s.get("started_utc") or "" for s in record["sessions"] if s.get("runs_written")),
        default="",
    )


def _within(trace: tracing.TraceRequest | None, plan: dict) -> tracing.TraceRequest | None:
    """The request for this plan's points: a batch whose variants set a module's parameters
    differently runs a session per set (`make_plan`'s ``group``), each tracing the points it
    has (`_check_traced` checks them against the whole batch)."""
    if trace is None or trace.points is None:
        return trace
    here = {e["point"] for e in plan["runs"] + plan["skipped"]}
    return dataclasses.replace(trace, points=trace.points & here)


def _check_traced(trace: tracing.TraceRequest | None, plans: list[dict]) -> None:
    """Every traced point is in one of the batch's sessions."""
    if trace is None or trace.points is None:
        return
    everywhere = {e["point"] for p in plans for e in p["runs"] + p["skipped"]}
    missing = trace.points - everywhere
    if missing:
        raise BatchError(f"traced point(s) not in the batch: {', '.join(sorted(missing))}")


def _traced(plan: dict, trace: tracing.TraceRequest | None) -> dict:
    try:
        return tracing.select(plan, trace)
    except ValueError as err:
        raise BatchError(str(err)) from None


def _write_batch(path: Path, out: dict) -> None:
    from emusim.infra.runjson import write_atomically

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
        "variants": s.get("variants"),
    }


def _joined_variants(sessions: list[dict], latest: dict | None) -> dict | None:
    """The TCP-variant facts of a batch's sessions together (a batch with variants of other
    module parameters runs a session per group, `make_plan`): every module loaded and every
    algorithm registered in any, and each parameter with the value the sessions set it to (a
    list where they set it differently). The latest session's own with one session."""
    facts = [s["variants"] for s in sessions if s.get("variants")]
    if len(facts) < 2:
        return latest
    values: dict[str, list] = {}
    for f in facts:
        for key, value in (f.get("module_parameters") or {}).items():
            values.setdefault(key, [])
            if value not in values[key]:
                values[key].append(value)
    return {
        "modules_loaded": sorted({m for f in facts for m in f.get("modules_loaded") or []}),
        "available": sorted({a for f in facts for a in f.get("available") or []}),
        "module_parameters": {k: v[0] if len(v) == 1 else v for k, v in values.items()},
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
    summaries = [_session_summary(s) for s in ordered]
    return {
        **main,
        "variants": _joined_variants(summaries, main.get("variants")),
        "run_files": run_files,
        "sessions": summaries,
    }


VM_HOST_S_PER_BUSY_GUEST_S = 10.0
"""Host seconds a dilated guest may take per second of a busy link: measured 5.2-8.2 CPU-seconds
(docs/mininet.md, "Cost"); the VM's limit allows 10."""


def vm_timeout_s(plan: dict) -> float:
    """The host's limit for a batch's VM: boot, setup and the self-check (1800 s), and per run
    600 s plus its link's busy time (what the workload puts on the wire) at
    VM_HOST_S_PER_BUSY_GUEST_S. In dilated time these are the VM's CPU seconds, which other
    work on the host does not inflate (`emusim.infra.vm.DILATED_WALL_FACTOR`: a limit on wall time
    failed a 1 GB lossy-link batch on a host running four jobs on two cores, at 6149 s, two
    runs of three made). In real time (no icount) they are wall seconds, and a run may also
    last to its cap."""
    rate = plan["topology"]["rate_bps"]
    busy = 0.0
    for run in plan["runs"]:
        busy += workloads.get(run["workload"]["kind"]).wire_busy_s(run["workload"], rate)
    per_run = 600 if plan.get("icount_shift") is not None else max(600, min(plan["cap_s"], 3600))
    return 1800 + len(plan["runs"]) * per_run + VM_HOST_S_PER_BUSY_GUEST_S * busy


def _run_in_vm(
    plan: dict,
    writer: BatchWriter,
    timeout_s: float | None,
    cpus: int | None = None,
    probes: dict[str, str] | None = None,
) -> float:
    from emusim.infra import vm, vm_setup

    PLAN_DIR.mkdir(parents=True, exist_ok=True)
    plan_path = PLAN_DIR / f"{plan['batch_id']}.json"
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
    register(plan["batch_id"])
    os.environ[ENV_MARK] = f"{PREFIX}{plan['batch_id']}"
    timeout = timeout_s or vm_timeout_s(plan)
    try:
        with signals_raise():
            result = vm.run_in_vm(
                _guest_command(plan_path, probes),
                timeout_s=timeout,
                on_line=on_line,
                cpus=cpus or VM_CPUS,
                icount_shift=plan.get("icount_shift"),
                use_kvm=writer.kvm,
                on_start=lambda pgid: setattr(writer, "vm_group", pgid),
            )
    except vm_setup.VMError as err:
        raise BatchError(f"the VM failed: {err}") from None
    finally:
        os.environ.pop(ENV_MARK, None)
        unregister(plan["batch_id"])
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
