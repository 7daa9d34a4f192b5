# The Mininet backend's input, params and resources functions (mininet.smk): its design at
# this scale (which scenarios, profiles and points it runs), its batches and shards, its
# traced runs; cluster.smk asks whether it measures in real time.
import math
from pathlib import Path

from snakemake.exceptions import WorkflowError

from emusim.inputs import scenario as sc
from emusim.inputs import variants as tcp_variants
from emusim.infra import vm, vm_setup
from emusim.linux import dropper as linux_dropper
from emusim.linux import tcp as linux_tcp

DROPPER_MODULE = "kernel-dropper/dropper.ko"
BLAST_TOOLS = ["build/emu/tcpblast", "build/emu/udpblast"]


def mininet_trace_points(name):
    """Traced points (config `traces`) the emulation runs: its design keeps the scenario and
    Linux has the point's TCP variant."""
    if name not in mininet_scenarios():
        return []
    reg = tcp_variants.registry()
    skipped = mininet_skipped_points(name)
    return [
        p
        for p in trace_points(name)
        if (p.variant is None or reg[p.variant].linux is not None)
        and p.id not in skipped
    ]


def mininet_trace_batches():
    """(scenario, profile) of every traced emulation batch, one VM each: the scenarios of
    config `traces.mininet` (all traced scenarios when it is not given)."""
    traces = config.get("traces", {})
    names = traces.get("mininet", list(traces.get("points", {})))
    return [
        (name, profile)
        for name in names
        if mininet_trace_points(name)
        for profile in mininet_profiles(name)
    ]


def mininet_trace_files(name, profile):
    """A traced emulation batch's outputs: each point's trace and run JSON, and batch.json
    (emusim.backends.mininet.tracing; the batch runs with --results-dir RESULTS/traces).
    """
    base = f"{RESULTS}/traces/mininet/{name}/{profile}"
    return [
        f"{base}/{point.id}/run1.{ext}"
        for point in mininet_trace_points(name)
        for ext in ("csv.gz", "json")
    ] + [f"{base}/batch.json"]


def mininet_trace_paths():
    return [
        path
        for name, profile in mininet_trace_batches()
        for path in mininet_trace_files(name, profile)
    ]


def mininet_profiles(name):
    """The scenario's profiles that have a Linux meaning (config/tcp_profiles.yaml's ns-3-only
    ones have none); the Mininet backend runs these, unless the design leaves it out."""
    if mininet_left_out(name):
        return []
    return [p for p in SCENARIOS[name].profiles if p in linux_tcp.MININET_PROFILES]


def mininet_design():
    """The emulation's design at this scale (config mininet.design.SCALE; empty: every
    scenario's own)."""
    return config.get("mininet", {}).get("design", {}).get(SCALE, {})


def mininet_points(name):
    """The axis values the emulation's design keeps of scenario `name` at this scale (config
    mininet.design.SCALE.points, `Scenario.points_where`), or None: every point."""
    return mininet_design().get("points", {}).get(name)


def mininet_skipped_points(name):
    """Points of scenario `name` the emulation does not run, point id → why: all of them when
    the design leaves the scenario out, those its `points` do not keep, and those whose TCP
    variant Linux lacks. The comparison's rows say so."""
    s = SCENARIOS[name]
    if mininet_left_out(name):
        return {p.id: mininet_left_out(name) for p in s.points}
    out = variant_skips(name, "mininet")
    keep = mininet_points(name)
    if keep:
        kept = {p.id for p in s.points_where(keep)}
        why = (
            f"not run: at scale {SCALE} the emulation runs only {sc.where_text(keep)} "
            f"(config mininet.design.{SCALE}.points)"
        )
        out = {**{p.id: why for p in s.points if p.id not in kept}, **out}
    return out


def mininet_left_out(name):
    """Why the emulation does not run scenario `name` at this scale (config
    mininet.design.SCALE.skip), or None."""
    if name in mininet_design().get("skip", []):
        return (
            f"not run: left out at scale {SCALE} (config mininet.design.{SCALE}.skip)"
        )
    return None


def mininet_batch_paths(name):
    return [f"{RESULTS}/mininet/{name}/{p}/batch.json" for p in mininet_profiles(name)]


def mininet_shards():
    """VMs each emulation batch is split over at this scale (config
    mininet.design.SCALE.shards, default 1): in dilated time they run side by side."""
    return int(mininet_design().get("shards", 1))


def mininet_shard_paths(wildcards):
    n = mininet_shards()
    base = f"{RESULTS}/mininet/{wildcards.scenario}/{wildcards.profile}/shards"
    return [f"{base}/{i}-of-{n}.json" for i in range(1, n + 1)]


def mininet_shard_runtime_min(wildcards):
    """Minutes a cluster job of one emulation shard may take (the SLURM profile's `runtime`):
    the VM's own time limit for the shard's runs (emusim.backends.mininet.batch.vm_timeout_s:
    boot, setup and self-check, then per run 600 s and 10 host seconds per second of busy
    link; a VM per group of module parameters, one after the other), plus 10 minutes for
    Snakemake and the files."""
    from emusim.backends.mininet.batch import vm_timeout_s
    from emusim.backends.mininet.plan import Shard, make_plan

    reps, stride = design_of("mininet", wildcards.scenario)
    repeat = config.get("mininet", {}).get("repeat_deterministic", False)
    shard = Shard(int(wildcards.shard), int(wildcards.shards))

    # every run of the share, as if none were there yet: the limit must hold a fresh start
    def plan(group):
        return make_plan(
            SCENARIOS[wildcards.scenario], wildcards.profile, 0.0, "auto", Path("/nonexistent"),
            True, reps, stride, repeat_deterministic=repeat, shard=shard, group=group,
        )  # fmt: skip

    shift = config.get("mininet", {}).get("icount_shift", 0)
    plans = [plan(g) for g in range(plan(0)["parameter_groups"])]
    return (
        math.ceil(sum(vm_timeout_s({**p, "icount_shift": shift}) for p in plans) / 60)
        + 10
    )


def mininet_real_time():
    """Whether the emulation measures in real time (place host, or a VM without icount):
    its batches then stay on this machine (workflow/rules/cluster.smk) and take a host-wide
    lock (emusim.backends.mininet.batch.REALTIME_LOCK)."""
    mininet = config.get("mininet", {})
    return (
        mininet.get("place", "auto") == "host" or mininet.get("icount_shift", 0) is None
    )


def mininet_scenarios():
    """Scenarios the Mininet backend runs (configured, with a profile Linux can play)."""
    if "mininet" not in BACKENDS:
        return []
    return [n for n in SCENARIOS if mininet_profiles(n)]


def mininet_batch_inputs(wildcards):
    """The scenario, the blast tools, the fitted delay if it is measured, and the dropper
    module if the batch may load it (a dropper with impl auto or module: the VM loads
    kernel-dropper/dropper.ko).
    """
    s = SCENARIOS[wildcards.scenario]
    inputs = {
        "scenario": f"scenarios/{s.name}.yaml",
        "profiles": "config/tcp_profiles.yaml",
        "tools": BLAST_TOOLS,
    }
    if _ns3_delay_input(wildcards):
        inputs["delay"] = f"{RESULTS}/delay/one_way_delay.json"
    if any(p.variant is not None for p in s.points):
        # a variant added to the registry is run by the batch (it resumes: only new runs)
        inputs["variants"] = "config/tcp_variants.yaml"
    dropper = s.settings["impairment"]["dropper"]
    uses_dropper = any(linux_dropper.dropper_active(p.dropper) for p in s.points)
    if uses_dropper and dropper.get("impl", "auto") in ("auto", "module"):
        inputs["module"] = DROPPER_MODULE
    return inputs


def vm_kernel_release():
    """The release of the kernel the emulation's VM boots (emusim.infra.vm.find_kernel)."""
    try:
        return vm_setup.find_kernel().release
    except vm_setup.VMError as err:
        raise WorkflowError(f"the dropper module: {err}") from None


def mininet_batch_args(wildcards, input):
    """Command-line options of a batch: the fitted delay, the design and the VM's clock."""
    reps, stride = design_of("mininet", wildcards.scenario)
    args = [f"--repetitions {reps}", f"--point-stride {stride}"]
    shift = config.get("mininet", {}).get("icount_shift", 0)
    args.append(f"--icount-shift {'off' if shift is None else shift}")
    if not config.get("mininet", {}).get("repeat_deterministic", False):
        args.append("--deterministic-once")
    if "delay" in input.keys():
        args.append(f"--delay-json {input.delay}")
    for axis, values in (mininet_points(wildcards.scenario) or {}).items():
        # only the cells the design keeps (config mininet.design.SCALE.points)
        listed = values if isinstance(values, list) else [values]
        args.append(f"--where {axis}={','.join(map(str, listed))}")
    if ARCHIVE is not None:
        # runs kept with this run's key are restored, not run again (docs/archive.md)
        args.append(f"--archive {ARCHIVE}")
    return " ".join(args)
