"""The Mininet backend's facts: its design at this scale (which scenarios, profiles and points
it runs), its batches and shards and their inputs and options, and its traced batches."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from snakemake.exceptions import WorkflowError

from emusim.infra import vm_setup as vm
from emusim.inputs import fitted_delay
from emusim.inputs import scenario as sc
from emusim.inputs import variants as tcp_variants
from emusim.linux import dropper as linux_dropper
from emusim.linux import tcp as linux_tcp
from emusim.pipeline import ns3
from emusim.pipeline.setup import Setup, design_of, trace_points, variant_skips

DROPPER_MODULE = "kernel-dropper/dropper.ko"
BLAST_TOOLS = ["build/emu/tcpblast", "build/emu/udpblast"]


def design(setup: Setup) -> dict:
    """The emulation's design at this scale (config mininet.design.SCALE; empty: every
    scenario's own)."""
    return setup.section("mininet").get("design", {}).get(setup.scale, {})


def place(setup: Setup) -> str:
    """Where the emulation runs (config mininet.place)."""
    return setup.section("mininet").get("place", "auto")


def repeat_deterministic(setup: Setup, default: bool = False) -> bool:
    """Whether a deterministic point is run every repetition (config mininet)."""
    return setup.section("mininet").get("repeat_deterministic", default)


def left_out(setup: Setup, name: str) -> str | None:
    """Why the emulation does not run scenario `name` at this scale (config
    mininet.design.SCALE.skip), or None."""
    if name in design(setup).get("skip", []):
        return (
            f"not run: left out at scale {setup.scale} (config mininet.design.{setup.scale}.skip)"
        )
    return None


def profiles(setup: Setup, name: str) -> list[str]:
    """The scenario's profiles that have a Linux meaning (config/tcp_profiles.yaml's ns-3-only
    ones have none); the Mininet backend runs these, unless the design leaves it out."""
    if left_out(setup, name):
        return []
    return [p for p in setup.scenarios[name].profiles if p in linux_tcp.MININET_PROFILES]


def scenarios(setup: Setup) -> list[str]:
    """Scenarios the Mininet backend runs (configured, with a profile Linux can play)."""
    if "mininet" not in setup.backends:
        return []
    return [n for n in setup.scenarios if profiles(setup, n)]


def points(setup: Setup, name: str) -> dict | None:
    """The axis values the emulation's design keeps of scenario `name` at this scale (config
    mininet.design.SCALE.points, `Scenario.points_where`), or None: every point."""
    return design(setup).get("points", {}).get(name)


def skipped_points(setup: Setup, name: str) -> dict:
    """Points of scenario `name` the emulation does not run, point id -> why: all of them when
    the design leaves the scenario out, those its `points` do not keep, and those whose TCP
    variant Linux lacks. The comparison's rows say so."""
    s = setup.scenarios[name]
    if left_out(setup, name):
        return {p.id: left_out(setup, name) for p in s.points}
    out = variant_skips(setup, name, "mininet")
    keep = points(setup, name)
    if keep:
        kept = {p.id for p in s.points_where(keep)}
        why = (
            f"not run: at scale {setup.scale} the emulation runs only {sc.where_text(keep)} "
            f"(config mininet.design.{setup.scale}.points)"
        )
        out = {**{p.id: why for p in s.points if p.id not in kept}, **out}
    return out


def batch_paths(setup: Setup, name: str) -> list[str]:
    """The emulation's batch records of scenario `name`, one per profile."""
    return [f"{setup.results}/mininet/{name}/{p}/batch.json" for p in profiles(setup, name)]


def batches_if_run(setup: Setup, name: str) -> list[str]:
    """The scenario's batch records when the emulation runs it (their self-check flags the
    comparisons' rows, emusim.backends.mininet.selfcheck), else none."""
    return batch_paths(setup, name) if name in scenarios(setup) else []


def all_batch_paths(setup: Setup) -> list[str]:
    """Every batch record of every scenario the emulation runs (its self-check table)."""
    return [p for n in scenarios(setup) for p in batch_paths(setup, n)]


def shards(setup: Setup) -> int:
    """VMs each emulation batch is split over at this scale (config
    mininet.design.SCALE.shards, default 1): in dilated time they run side by side."""
    return int(design(setup).get("shards", 1))


def shard_paths(setup: Setup, name: str, profile: str) -> list[str]:
    """The shards' records of one batch."""
    n = shards(setup)
    base = f"{setup.results}/mininet/{name}/{profile}/shards"
    return [f"{base}/{i}-of-{n}.json" for i in range(1, n + 1)]


def icount_shift(setup: Setup):
    """The VM's instruction-count clock shift (config mininet.icount_shift; None: off)."""
    return setup.section("mininet").get("icount_shift", 0)


def shard_runtime_min(setup: Setup, name: str, profile: str, shard: int, count: int) -> int:
    """Minutes a cluster job of one emulation shard may take (the SLURM profile's `runtime`):
    the VM's own time limit for the shard's runs (emusim.backends.mininet.batch.vm_timeout_s:
    boot, setup and self-check, then per run 600 s and 10 host seconds per second of busy
    link; a VM per group of module parameters, one after the other), plus 10 minutes for
    Snakemake and the files."""
    from emusim.backends.mininet.batch import vm_timeout_s
    from emusim.backends.mininet.plan import Shard, make_plan

    reps, stride = design_of(setup, "mininet", name)
    repeat = repeat_deterministic(setup)
    the_shard = Shard(shard, count)

    # every run of the share, as if none were there yet: the limit must hold a fresh start
    def plan(group):
        return make_plan(
            setup.scenarios[name], profile, 0.0, "auto", Path("/nonexistent"),
            True, reps, stride, repeat_deterministic=repeat, shard=the_shard, group=group,
        )  # fmt: skip

    shift = icount_shift(setup)
    plans = [plan(g) for g in range(plan(0)["parameter_groups"])]
    return math.ceil(sum(vm_timeout_s({**p, "icount_shift": shift}) for p in plans) / 60) + 10


def real_time(setup: Setup) -> bool:
    """Whether the emulation measures in real time (place host, or a VM without icount):
    its batches then stay on this machine (workflow/rules/cluster.smk) and take a host-wide
    lock (emusim.backends.mininet.batch.REALTIME_LOCK)."""
    return place(setup) == "host" or icount_shift(setup) is None


def batch_inputs(setup: Setup, name: str) -> dict:
    """The scenario, the blast tools, the fitted delay if it is measured, and the dropper
    module if the batch may load it (a dropper with impl auto or module: the VM loads
    kernel-dropper/dropper.ko)."""
    s = setup.scenarios[name]
    inputs = {
        "scenario": f"scenarios/{s.name}.yaml",
        "profiles": "config/tcp_profiles.yaml",
        "tools": BLAST_TOOLS,
    }
    if ns3.delay_input(setup, name):
        inputs["delay"] = fitted_delay.path(setup.results)
    if any(p.variant is not None for p in s.points):
        # a variant added to the registry is run by the batch (it resumes: only new runs)
        inputs["variants"] = "config/tcp_variants.yaml"
    dropper = s.settings["impairment"]["dropper"]
    uses_dropper = any(linux_dropper.dropper_active(p.dropper) for p in s.points)
    if uses_dropper and dropper.get("impl", "auto") in ("auto", "module"):
        inputs["module"] = DROPPER_MODULE
    return inputs


def vm_kernel_release() -> str:
    """The release of the kernel the emulation's VM boots (emusim.infra.vm_setup.find_kernel)."""
    try:
        return vm.find_kernel().release
    except vm.VMError as err:
        raise WorkflowError(f"the dropper module: {err}") from None


def _clock_and_delay(setup: Setup, input) -> list[str]:
    shift = icount_shift(setup)
    args = [f"--icount-shift {'off' if shift is None else shift}"]
    if "delay" in input.keys():  # noqa: SIM118 (a Snakemake InputFiles: `in` tests its values)
        args.append(f"--delay-json {input.delay}")
    return args


def batch_args(setup: Setup, name: str, input) -> str:
    """Command-line options of a batch: the fitted delay, the design and the VM's clock."""
    reps, stride = design_of(setup, "mininet", name)
    args = [f"--repetitions {reps}", f"--point-stride {stride}"]
    shift = icount_shift(setup)
    args.append(f"--icount-shift {'off' if shift is None else shift}")
    if not repeat_deterministic(setup):
        args.append("--deterministic-once")
    if "delay" in input.keys():  # noqa: SIM118 (a Snakemake InputFiles: `in` tests its values)
        args.append(f"--delay-json {input.delay}")
    for axis, values in (points(setup, name) or {}).items():
        # only the cells the design keeps (config mininet.design.SCALE.points)
        listed = values if isinstance(values, list) else [values]
        args.append(f"--where {axis}={','.join(map(str, listed))}")
    if setup.archive is not None:
        # runs kept with this run's key are restored, not run again (docs/archive.md)
        args.append(f"--archive {setup.archive}")
    return " ".join(args)


def results_dir_of_shard(output) -> str:
    """RESULTS, from a shard's output: RESULTS/mininet/SCENARIO/PROFILE/shards/I-of-N.json."""
    return str(Path(output[0]).parents[4])


# --- the traced batches (docs/mininet.md, "Tracing the emulated TCP") -------------------------


def trace_points_run(setup: Setup, name: str) -> list:
    """Traced points (config `traces`) the emulation runs: its design keeps the scenario and
    Linux has the point's TCP variant."""
    if name not in scenarios(setup):
        return []
    reg = tcp_variants.registry()
    skipped = skipped_points(setup, name)
    return [
        p
        for p in trace_points(setup, name)
        if (p.variant is None or reg[p.variant].linux is not None) and p.id not in skipped
    ]


def trace_batches(setup: Setup) -> list[tuple[str, str]]:
    """(scenario, profile) of every traced emulation batch, one VM each: the scenarios of
    config `traces.mininet` (all traced scenarios when it is not given)."""
    traces = setup.section("traces")
    names = traces.get("mininet", list(traces.get("points", {})))
    return [
        (name, profile)
        for name in names
        if trace_points_run(setup, name)
        for profile in profiles(setup, name)
    ]


def trace_files(setup: Setup, name: str, profile: str) -> list[str]:
    """A traced emulation batch's outputs: each point's trace and run JSON, and batch.json
    (emusim.backends.mininet.tracing; the batch runs with --results-dir RESULTS/traces)."""
    base = f"{setup.results}/traces/mininet/{name}/{profile}"
    return [
        f"{base}/{point.id}/run1.{ext}"
        for point in trace_points_run(setup, name)
        for ext in ("csv.gz", "json")
    ] + [f"{base}/batch.json"]


def trace_paths(setup: Setup) -> list[str]:
    """Every traced emulation batch's outputs."""
    return [
        path for name, profile in trace_batches(setup) for path in trace_files(setup, name, profile)
    ]


def trace_args(setup: Setup, name: str, input) -> str:
    """A traced batch's options: its traced points only, repetition 1, the clock and delay of
    the scenario's own batch."""
    args = [f"--trace {p.id}" for p in trace_points_run(setup, name)]
    args += ["--trace-only", "--repetitions 1", "--point-stride 1"]
    return " ".join(args + _clock_and_delay(setup, input))


@dataclass
class TraceBatch:
    """One traced emulation batch, as its rule (workflow/rules/mininet_trace.smk, a Snakemake
    module per batch) sees it."""

    setup: Setup
    name: str
    profile: str

    @property
    def rule(self) -> str:
        return f"mininet_trace_{self.name}_{self.profile}".replace("-", "_").replace(".", "_")

    @property
    def outputs(self) -> list[str]:
        return trace_files(self.setup, self.name, self.profile)

    @property
    def log(self) -> str:
        return f"{self.setup.prefix}logs/traces/mininet/{self.name}/{self.profile}.log"

    @property
    def benchmark(self) -> str:
        return f"{self.setup.prefix}logs/timing/{self.rule}.tsv"

    @property
    def place(self) -> str:
        return place(self.setup)

    @property
    def scale(self) -> str:
        return self.setup.scale

    @staticmethod
    def results_dir(output) -> str:
        """RESULTS/traces, from the output: RESULTS/traces/mininet/SCENARIO/PROFILE/batch.json."""
        return str(Path(output[-1]).parents[3])

    def inputs(self, wildcards) -> dict:
        return batch_inputs(self.setup, self.name)

    def args(self, wildcards, input) -> str:
        return trace_args(self.setup, self.name, input)


def include_trace_batches(workflow, setup: Setup, snakefile: str) -> None:
    """A rule per traced batch (their outputs are known only per scenario): the rule of
    `snakefile` included as a Snakemake module per batch, named as TraceBatch.rule."""
    for name, profile in trace_batches(setup):
        batch = TraceBatch(setup, name, profile)
        workflow.module(name=batch.rule, snakefile=snakefile, config={"trace_batch": batch})
        workflow.userule(
            rules=["trace"], from_module=batch.rule, exclude_rules=[], name_modifier=batch.rule
        )(lambda: None)
