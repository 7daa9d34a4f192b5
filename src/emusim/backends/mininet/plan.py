"""What a Mininet batch runs, computed on the host: the runs of a scenario at a scale with one
TCP profile, each run's file, whether a point draws random numbers, and where the batch runs
(this machine or a VM booting Debian's kernel). Also the batch's constants (self-check sizes,
caps) that the executor and the batch writer share.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from emusim import workloads
from emusim.backends.mininet import scheduling
from emusim.backends.mininet.host import aqm_missing, capabilities
from emusim.backends.mininet.topology import Topology, new_batch_id
from emusim.core.backend_registry import MININET
from emusim.infra import runjson
from emusim.inputs import fitted_delay
from emusim.linux import runner
from emusim.linux.dropper import DROPPER_IMPLS, dropper_active
from emusim.linux.tcp import check_profile, tcp_setup

BACKEND = MININET.name
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


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` of a batch: the design's runs dealt out in turn (run k,
    counted from 1 over points and repetitions in design order, goes to shard
    ((k - 1) mod count) + 1), so every shard gets low and high drop rates alike. Runs the
    archive will restore are dealt after all the others (`make_plan`'s ``archived``), so the
    runs still to make are shared evenly however many are kept. The assignment depends only
    on the design and the archive, so a resumed shard finds the same runs."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``I/N`` (or ``I-of-N``, as in the shard's file name), 1 <= I <= N."""
        parts = text.replace("-of-", "/").split("/")
        try:
            index, count = (int(p) for p in parts)
        except ValueError:
            raise BatchError(f"--shard {text!r}: expected I/N, e.g. 1/2") from None
        if not 1 <= index <= count:
            raise BatchError(f"--shard {text!r}: I must be between 1 and N")
        return cls(index, count)

    def owns(self, ordinal: int) -> bool:
        return (ordinal - 1) % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}-of-{self.count}"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --- plan: what a batch runs, computed on the host --------------------------------------------


def one_way_delay_us(scenario, delay_json: Path | None) -> float:
    """The scenario's one-way delay (Scenario.one_way_delay_us), the fitted one read from
    `delay_json` (emusim.inputs.delay's file) for ``delay: measured``."""
    if not fitted_delay.is_measured(scenario):
        return scenario.one_way_delay_us(None)
    if delay_json is None:
        raise BatchError("the scenario's delay is 'measured': give --delay-json (the fitted file)")
    try:
        measured = fitted_delay.read_us(delay_json)
    except (OSError, KeyError, ValueError) as err:
        raise BatchError(f"cannot read one_way_delay_us from {delay_json}: {err}") from None
    return scenario.one_way_delay_us(measured)


def run_path(results_dir: Path, scenario: str, profile: str, point: str, rep: int) -> Path:
    return runjson.run_path(results_dir, BACKEND, scenario, profile, point, rep)


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
    shard: Shard | None = None,
    where: dict | None = None,
    archived: Collection[str] = (),
    group: int | None = None,
) -> dict:
    """Everything the executor needs (it does not load the scenario again).

    ``repetitions`` (at most; `Scenario.repetitions_of`) and ``point_stride`` thin the design:
    every ``point_stride``-th value of the first sweep axis (`Scenario.thinned_points`). Without
    ``repeat_deterministic`` a point that draws no random numbers (`point_is_random`) runs
    once, as ns-3's do: in dilated time such a point repeats to within 0.03 %
    (docs/mininet.md, "Dilated time"). A ``shard`` keeps its share of the design's runs
    (`Shard.owns`), so that several VMs can run one batch side by side; the runs whose paths
    are in ``archived`` (those the archive restores: `batch.archived_runs`) are dealt last.
    ``where`` keeps the points with those axis values (`Scenario.points_where`; e.g. one cell
    of a large sweep). Variants that set one module's parameters differently cannot share a
    kernel (`parameter_groups`): a design with more than one group is planned one ``group``
    at a time (an index; the plan says how many there are in ``parameter_groups``), each a
    session of its own.
    """
    from emusim.inputs import variants as tcp_variants  # on the host only: the guest gets the plan

    check_profile(profile)
    if repetitions is not None and repetitions < 1:
        raise BatchError(f"--repetitions {repetitions}: must be at least 1")
    if point_stride < 1:
        raise BatchError(f"--point-stride {point_stride}: must be at least 1")
    points = scenario.thinned_points(point_stride)
    if where:
        points = scenario.points_where(where, points)
        if not points:
            shown = " ".join(
                f"{k}={','.join(map(str, v)) if isinstance(v, (list, tuple)) else v}"
                for k, v in where.items()
            )
            raise BatchError(f"--where {shown}: no point of {scenario.name} has these values")
    if dropper_impl not in DROPPER_IMPLS:
        raise BatchError(f"--dropper-impl {dropper_impl!r}; accepted: {', '.join(DROPPER_IMPLS)}")
    try:
        topo = Topology.from_settings(scenario.settings["topology"])
    except ValueError as err:
        raise BatchError(f"{scenario.path}: {err}") from None
    runs, skipped, not_implemented = [], [], []
    design = []  # every run of the design, in design order, which the shards divide
    for point in points:
        cc = None
        ecn = False
        random_variant = False
        if point.variant is not None:
            variant = tcp_variants.get(point.variant)
            if variant.linux is None:
                not_implemented.append(
                    {"point": point.id, "variant": variant.name,
                     "reason": tcp_variants.not_implemented(variant, BACKEND)}
                )  # fmt: skip
                continue
            cc = variant.linux.congestion_control
            ecn = variant.ecn
            random_variant = variant.random
        check_aqm(scenario, topo, point)
        point_reps = (
            scenario.repetitions_of(point, repetitions)
            if repeat_deterministic or point_is_random(point, random_variant)
            else 1
        )
        for rep in range(1, point_reps + 1):
            path = run_path(results_dir, scenario.name, profile, point.id, rep)
            design.append(
                runner.plan_entry(
                    point, rep, path, link=point.link, variant=point.variant,
                    congestion_control=cc, ecn=ecn,
                )
            )  # fmt: skip
    plain = any(not e["variant"] for e in design)  # points running the profile's algorithm
    groups = parameter_groups(
        [tcp_variants.get(e["variant"]) for e in design if e["variant"]],
        congestion_control(profile) if plain else None,
    )
    if len(groups) > 1 and group is None:
        raise BatchError(
            f"{scenario.name}: variants {' | '.join(', '.join(g) for g in groups)} set a "
            "module's parameters differently; module parameters are kernel-wide, so each "
            "group is a session of its own: plan one group at a time"
        )
    if group is not None and not 0 <= group < max(len(groups), 1):
        raise BatchError(f"group {group}: {scenario.name} has {len(groups)} parameter group(s)")
    members = set(groups[group or 0]) if groups else set()
    # points without a variant run the profile's own algorithm, with its default parameters:
    # the first group's (`parameter_groups` puts the variants that set none there)
    design = [e for e in design if (e["variant"] in members if e["variant"] else not group)]
    ccs: dict[str, dict] = {}
    for name in dict.fromkeys(e["variant"] for e in design if e["variant"]):
        _add_congestion_control(ccs, tcp_variants.get(name))
    for entry in _dealt(design, shard, archived):
        (skipped if Path(entry["path"]).exists() else runs).append(entry)
    return {
        "scenario": scenario.name,
        "scenario_path": str(scenario.path),
        "scale": scenario.scale,
        "profile": profile,
        "delay_us": delay_us,
        "topology": topo.plan_fields(),
        "cap_s": float(scenario.settings.get("cap_s", DEFAULT_TCP_CAP_S)),
        "dropper_impl": dropper_impl,
        "selfcheck": selfcheck,
        "batch_id": new_batch_id(),
        "runs": runs,
        "skipped": skipped,
        "not_implemented": not_implemented,
        "congestion_controls": ccs,
        "shard": None if shard is None else str(shard),
        "parameter_groups": max(len(groups), 1),
        "parameter_group": group or 0,
        "design_runs": len(design),
    }


def check_aqm(scenario, topo: Topology, point) -> None:
    """A point the Mininet backend can run with `topology.aqm`: its middle link loses nothing
    (the data direction's netem stage comes after the CoDel queue, where a loss would be a
    loss on the wire, not before the queue as without aqm: `impaired_link_commands`)."""
    link = point.link
    if topo.aqm is None or link is None or Decimal(str(link["loss"])) == 0:
        return
    raise BatchError(
        f"{scenario.path}: point {point.id}: key 'impairment.link.loss' has value "
        f"{link['loss']!r} with topology.aqm; the Mininet backend runs a CoDel link without "
        "loss (loss '0')"
    )


def _dealt(design: list[dict], shard: Shard | None, archived: Collection[str]) -> list[dict]:
    """The runs of ``design`` that ``shard`` owns, in design order: the runs not in
    ``archived`` are counted first, then the archived ones (`Shard`)."""
    if shard is None:
        return design
    kept = {str(p) for p in archived}
    order = [e for e in design if e["path"] not in kept] + [e for e in design if e["path"] in kept]
    owned = {id(e) for k, e in enumerate(order, 1) if shard.owns(k)}
    return [e for e in design if id(e) in owned]


def point_is_random(point, random_variant: bool = False) -> bool:
    """Whether a point's runs differ by chance in dilated time: a random dropper, a link
    that loses at random, a TCP variant whose runs differ by chance (``random`` in
    config/tcp_variants.yaml: bbr's random gain phase, lp's reading of randomly offset
    timestamps), or a workload whose runs differ by chance (``random``: a UDP flood, whose
    run-to-run spread the router-forwarding fit reads). A TCP
    or UDP blast or a ping sweep through a regular dropper or none repeats to the
    microsecond: measured, the 5 repetitions of regular-drop's quick points agreed within
    0.03 % (docs/mininet.md)."""
    return point.is_random or random_variant or workloads.of(point.settings).random


def parameter_groups(variants: Sequence, default_cc: str | None = None) -> list[list[str]]:
    """The variants (registry entries, in design order) in groups that can share one kernel:
    within a group no congestion control is loaded with two sets of module parameters (they
    are kernel-wide: /sys/module/MODULE/parameters). The variants that set no parameter come
    first, so the first group runs every algorithm with its defaults; each other variant joins
    the first group it does not conflict with. ``default_cc``, the algorithm of the design's
    points without a variant (the profile's), is held at its defaults in the first group. One
    group in all when nothing conflicts; none for a design without variants."""
    groups: list[list[str]] = [[]] if default_cc else []
    # per group, congestion control -> its module and parameters (None: the kernel's defaults)
    specs: list[dict[str, dict | None]] = [{default_cc: None}] if default_cc else []
    unique = list({v.name: v for v in variants}.values())
    for variant in sorted(unique, key=lambda v: bool(v.linux and v.linux.module_parameters)):
        if variant.linux is None:
            continue
        linux = variant.linux
        spec = {"module": linux.module, "module_parameters": dict(linux.module_parameters)}
        fits = [
            k for k, known in enumerate(specs) if _shares(known, linux.congestion_control, spec)
        ]
        if not fits:
            groups.append([])
            specs.append({})
        k = fits[0] if fits else len(groups) - 1
        groups[k].append(variant.name)
        specs[k][linux.congestion_control] = spec
    return groups


def _shares(known: dict, cc: str, spec: dict) -> bool:
    """Whether a group whose kernel has ``known`` can load ``cc`` as ``spec`` says."""
    have = known.get(cc, spec)
    return have == spec or (have is None and not spec["module_parameters"])


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
    return any(dropper_active(r["dropper"]) for r in plan["runs"])


def congestion_control(profile: str) -> str | None:
    return tcp_setup(profile).sysctls.get("net.ipv4.tcp_congestion_control")


def decide_place(plan: dict, place: str, caps=None) -> tuple[str, str]:
    """("host" or "vm", why). A forced host that lacks something is an error naming it."""
    if place == "vm":
        return "vm", "asked for (--place vm)"
    if place == "auto" and os.geteuid() != 0:
        return "vm", "not root: the host's namespaces, tc and netfilter need root, a VM does not"
    if os.environ.get("SLURM_JOB_ID"):
        # A cluster node is shared and its kernel is not configured for the emulation: a VM
        # in dilated time measures the same whatever else the node runs.
        return "vm", f"a SLURM job (job {os.environ['SLURM_JOB_ID']}) on a shared node"
    if caps is None:
        caps = capabilities(congestion_control(plan["profile"]), variant_modules(plan))
    impl = plan["dropper_impl"] if needs_dropper(plan) else "auto"
    missing = caps.missing(
        plan["delay_us"], congestion_control(plan["profile"]), impl, variant_modules(plan),
        needs_link(plan),
    )  # fmt: skip
    missing += aqm_missing(plan["topology"].get("aqm"))
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


# --- what makes two runs the same run: the archive's key (docs/archive.md) ---------------------

RUN_KEY_PLAN_FIELDS = {
    "scenario": "scenario",
    "scale": "scale",
    "profile": "profile",
    "delay_us": "delay_us",
    "topology": "topology",
    "cap_s": "cap_s",
    "dropper_impl": "dropper_impl",
}
"""The key's names for the plan's facts it digests (key name: plan field). The names are the
key's own, so that renaming a plan field keeps every archived run's key
(test_mininet_archive.py pins one)."""
RUN_KEY_ENTRY_FIELDS = (
    "point", "params", "repetition", "workload", "dropper", "link", "variant",
    "congestion_control", "ecn",
)  # fmt: skip


def run_key(plan: dict, entry: dict, clock: dict, kernel_release: str | None) -> str:
    """A digest of everything that decides what one emulated run measures: the scenario's
    resolved topology and workload at its scale, the point, the repetition, the profile's
    socket, route and sysctl settings as they are now, the clock (dilated or real, icount
    shift, guest CPU model), the guest's scheduling (emusim.backends.mininet.scheduling) and
    the kernel. Two runs with the same key are the same experiment; the archive restores a run
    only for its own key (docs/archive.md)."""
    facts = {name: plan[field] for name, field in RUN_KEY_PLAN_FIELDS.items()}
    facts |= {k: entry[k] for k in RUN_KEY_ENTRY_FIELDS}
    facts |= {
        "tcp_setup": dataclasses.asdict(tcp_setup(plan["profile"])),
        "clock": clock,
        "kernel_release": kernel_release,
        "guest_scheduling": scheduling.for_clock(clock["clock"]),
    }
    text = json.dumps(facts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
