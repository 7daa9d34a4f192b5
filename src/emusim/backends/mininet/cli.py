"""The Mininet backend: a scenario's runs in Mininet with real Linux TCP (issue 4).

    python -m emusim.backends.mininet batch --scenario scenarios/NAME.yaml --scale {paper|quick}
        --profile PROFILE [--delay-json PATH] --results-dir RESULTS_ROOT
        [--place auto|host|vm] [--dropper-impl auto|module|netfilter] [--no-selfcheck]
        [--repetitions N] [--point-stride K] [--trace POINT|all ...] [--trace-only] [--trace-raw]
        [--trace-send-path] [--trace-ca FUNCTION] [--shard I/N] [--profile-cpu POINT|all ...]
    python -m emusim.backends.mininet merge --output BATCH_JSON SHARD_JSON...
    python -m emusim.backends.mininet cleanup [--all]
    python -m emusim.backends.mininet capabilities

`--trace` traces the emulated TCP sender of the runs of a point (``all``: every point) into
``RUN.csv.gz`` beside each run's JSON, in the CSV of ns-3's TCP event trace (docs/mininet.md,
"Tracing the emulated TCP"); `--trace-only` runs only the traced points.

`batch` runs every point and repetition of the scenario at that scale with one TCP profile
(``linux-2.2``, ``linux-6.1`` or ``linux-default``), or a thinned design (every K-th value of
the first axis, at most N repetitions; config.yaml `mininet.design`), and writes
``RESULTS_ROOT/mininet/NAME/PROFILE/POINT/run{k}.json`` (docs/results-schema.md), skipping
runs already written, then ``RESULTS_ROOT/mininet/NAME/PROFILE/batch.json``: the self-check
(line-rate fraction of a loss-free TCP blast, fitted ping delay against the configured one),
kernel release, place, KVM, dropper implementation, timings and the list of run files.

Where it runs (``--place auto``): on this machine when its kernel has what the batch needs
(netem for a nonzero delay, the congestion control, the dropper module if asked for), else in
one virtme-ng VM booting Debian's kernel (emusim.infra.vm) for the whole batch. The guest runs
``python -m emusim.backends.mininet execute --plan FILE`` and prints each run as one ``EMUSIM-RUN``
line; this process writes the files, so an interrupted batch keeps every finished run.

A point's TCP variant (config/tcp_variants.yaml) sets the sender socket's congestion control;
the blast tool reads it back and a run whose connection had another one is an error. A variant
without a Linux implementation is not run: the batch says so and lists its points in
batch.json (``not_implemented``). Its kernel module is loaded where the batch runs.

Root is needed on the host. Whatever ends a batch (an error, Ctrl-C, SIGTERM), its namespaces,
links, qdiscs and rules are removed; what a SIGKILLed batch leaves is removed by `cleanup`, which
every batch also runs first (sparing batches whose process is still alive).

"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from emusim.backends.mininet.batch import merge_shards, run_batch
from emusim.backends.mininet.executor import execute
from emusim.backends.mininet.host import EmuError, capabilities, cleanup, need_root
from emusim.backends.mininet.plan import LINE_PREFIX, PLACES, VM_CPUS, BatchError, Shard, log
from emusim.linux.dropper import DROPPER_IMPLS
from emusim.linux.hosts import HostError
from emusim.linux.tcp import ProfileError

# --- command line ------------------------------------------------------------------------------


def _print_record(kind: str, obj: dict) -> None:
    print(f"{LINE_PREFIX}{kind} {json.dumps(obj, default=str)}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m emusim.backends.mininet", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("batch", help="run every point and repetition of a scenario")
    b.add_argument("--scenario", required=True, type=Path)
    b.add_argument("--scale", default="paper")
    b.add_argument("--profile", required=True)
    b.add_argument("--delay-json", type=Path)
    b.add_argument("--results-dir", required=True, type=Path)
    b.add_argument("--place", default="auto", choices=PLACES)
    b.add_argument("--dropper-impl", choices=DROPPER_IMPLS)
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
    b.add_argument(
        "--trace",
        action="append",
        metavar="POINT",
        help="trace the TCP sender of this point's runs (repeatable; 'all': every point)",
    )
    b.add_argument(
        "--shard",
        type=Shard.parse,
        metavar="I/N",
        help="run the I-th of N shares of the design (a VM each, side by side) and write "
        "shards/I-of-N.json instead of batch.json",
    )
    b.add_argument(
        "--profile-cpu",
        action="append",
        metavar="POINT",
        help="sample where the CPU time of this point's runs goes, by component of the path "
        "(perf; repeatable; 'all': every point); their times include the sampling's cost",
    )
    b.add_argument(
        "--where",
        action="append",
        metavar="AXIS=V[,V...]",
        help="only the points with one of these values of AXIS (repeatable: every AXIS given "
        "must match), e.g. --where delay_ms=10 --where loss=0.01,0.05",
    )
    b.add_argument(
        "--archive",
        type=Path,
        metavar="DIR",
        help="restore the runs DIR keeps with this run's key instead of running them "
        "(docs/archive.md)",
    )
    b.add_argument("--trace-only", action="store_true", help="run only the traced points")
    b.add_argument(
        "--trace-raw", action="store_true", help="keep the tracefs text too (RUN.tracefs.txt.gz)"
    )
    b.add_argument(
        "--trace-send-path",
        action="store_true",
        help="also probe what sends when (retransmission queue, application writes, pacing "
        "timer): in the tracefs text only (with --trace-raw; emusim.linux.tcp_tracefs)",
    )
    b.add_argument(
        "--trace-ca",
        metavar="FUNCTION",
        help="also probe this function of the congestion-control module (e.g. "
        "tcp_illinois_cong_avoid) with the module's private state: in the tracefs text only "
        "(with --trace-raw)",
    )
    m = sub.add_parser("merge", help="join a batch's shard records into its batch.json")
    m.add_argument("--output", required=True, type=Path, help="the batch.json to write")
    m.add_argument("shards", nargs="+", type=Path, help="shards/I-of-N.json, one of each I")
    e = sub.add_parser("execute", help="(internal) run a plan here; prints EMUSIM- records")
    e.add_argument("--plan", required=True, type=Path)
    e.add_argument("--place", default="vm")
    c = sub.add_parser("cleanup", help="remove what killed batches left behind")
    c.add_argument("--all", action="store_true", help="also batches whose process is alive")
    sub.add_parser("capabilities", help="what this machine's kernel offers the emulation")
    args = parser.parse_args(argv)

    from emusim.infra import vm, vm_setup

    try:
        if args.cmd == "batch":
            from emusim.inputs import scenario as sc

            scenario = sc.load(args.scenario, args.scale)
            run_batch(
                scenario, args.profile, args.results_dir, args.delay_json, args.place,
                args.dropper_impl, not args.no_selfcheck, args.vm_timeout, args.vm_cpus,
                args.repetitions, args.point_stride, vm.parse_icount_shift(args.icount_shift),
                not args.deterministic_once,
                _trace_request(args.trace, args.trace_only, args.trace_raw), args.shard,
                frozenset(args.profile_cpu or ()), args.archive, _where(args.where),
                _probes(args.trace_send_path, args.trace_ca, args.trace, args.trace_raw),
            )  # fmt: skip
        elif args.cmd == "merge":
            out = merge_shards(args.shards, args.output)
            log(f"mininet: wrote {args.output}: {len(out['run_files'])} runs from "
                f"{out['shards']} shard(s), {len(out['sessions'])} session(s)")  # fmt: skip
        elif args.cmd == "execute":
            plan = json.loads(args.plan.read_text())
            execute(plan, _print_record, args.place)
        elif args.cmd == "cleanup":
            need_root()
            removed = cleanup(only_dead=not args.all)
            for item in removed:
                print(f"removed {item}")
            print(f"cleanup: removed {len(removed)} item(s)")
        elif args.cmd == "capabilities":
            print(json.dumps(capabilities("reno").__dict__, indent=1))
    except KeyboardInterrupt as err:
        log(f"mininet: interrupted ({err or 'Ctrl-C'}); cleaned up")
        return 130
    except (BatchError, EmuError, HostError, ProfileError, ValueError, vm_setup.VMError) as err:
        log(f"mininet: error: {err}")
        return 2
    return 0


def _where(items: list[str] | None) -> dict | None:
    """--where AXIS=V1,V2 options as {axis: [values]}."""
    from emusim.core.where import parse_where

    try:
        return parse_where(items)
    except ValueError as err:
        raise BatchError(str(err)) from None


def _trace_request(points: list[str] | None, only: bool, raw: bool):
    from emusim.backends.mininet.tracing import TraceRequest

    if not points:
        if only:
            raise BatchError("--trace-only without --trace: nothing would run")
        return None
    return TraceRequest(None if "all" in points else frozenset(points), None, only, raw)


def _probes(send_path: bool, ca_function: str | None, points: list[str] | None, raw: bool
            ) -> dict[str, str]:  # fmt: skip
    """--trace-send-path and --trace-ca, which need --trace and --trace-raw (their events are in
    the raw text only)."""
    from emusim.backends.mininet.batch import tracer_probes

    for option, given in (("--trace-send-path", send_path), ("--trace-ca", ca_function)):
        if given and not (points and raw):
            raise BatchError(f"{option} needs --trace and --trace-raw (its events are in the "
                             "tracefs text only)")  # fmt: skip
    return tracer_probes(send_path, ca_function)


if __name__ == "__main__":
    sys.exit(main())
