# Configuration, scenarios and the target list: validated when the workflow loads, before any
# job runs. Input functions live here too.
import json
import math
import os
import sys
from pathlib import Path
from glob import glob

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from emusim.backends.reference import runs as hw
from emusim.linux import dropper as linux_dropper
from emusim.linux import tcp as linux_tcp
from emusim.backends.ns3 import build as ns3build
from emusim.backends.ns3 import command as ns3mod
from emusim import archive as run_archive
from emusim import profiles as tcp_profiles
from emusim import scenario as sc
from emusim import studies
from emusim import variants as tcp_variants
from emusim import vm
from emusim.paths import scale_prefix
from emusim.runjson import run_path
from emusim.backends.testbed import inventory as testbed_inventory
from emusim.workloads import multiflow as multiflow_workload
from emusim.workloads import udp_flood

validate(config, "../schemas/config.schema.yaml")

SCALE = config["scale"]
# Paper scale writes to results/, figures/, paper/tables/; other scales under scales/<scale>/.
PREFIX = scale_prefix(SCALE)
RESULTS = f"{PREFIX}results"
FIGURES = f"{PREFIX}figures"
TABLES = f"{PREFIX}paper/tables"
BACKENDS = config["backends"]
if (
    "mininet" in BACKENDS
    and os.geteuid() != 0
    and config.get("mininet", {}).get("place", "auto") == "host"
):
    raise WorkflowError(
        "config mininet.place: host needs root (network namespaces, tc, netfilter); run as "
        "root, or run the emulation in a VM (place: vm or auto; QEMU needs no root), or leave "
        "it out: --config 'backends=[hardware,ns3]'"
    )
# The hardware backend: the 2001 measurements (reference) or a testbed over SSH (testbed).
HARDWARE_SOURCE = config.get("hardware", {}).get("source", "reference")
HARDWARE_PROFILE = hw.PROFILE
TESTBED_INVENTORY = config.get("hardware", {}).get("inventory")
TESTBED_DIR = f"{RESULTS}/hardware/testbed"
TESTBED_TABLES = ["hosts", "interfaces", "routes", "tcp_sysctls"]
if HARDWARE_SOURCE == "testbed":
    if not TESTBED_INVENTORY:
        raise WorkflowError(
            "config hardware.source: 'testbed' needs hardware.inventory, the testbed's "
            "inventory file (config/testbed.example.yaml; docs/testbed.md)"
        )
    try:
        testbed_inventory.load(TESTBED_INVENTORY)
    except testbed_inventory.InventoryError as err:
        raise WorkflowError(f"config hardware.inventory: {err}") from None
# Every executable of the ns-3 build: one program per sim/ns3/programs/NAME.cc, and the test
# runner (emusim.backends.ns3.build.PROGRAMS, the one list); a scenario runs the program that
# builds its topology (`ns3_program`).
NS3_PROGRAMS = [f"build/ns3/{name}" for name in ns3build.PROGRAMS]
# The run archive (docs/archive.md); `--config archive=off` (or null in a config file) makes
# every run instead of restoring kept ones.
ARCHIVE = config.get("archive")
if str(ARCHIVE).lower() in ("none", "null", "off", "false", ""):
    ARCHIVE = None
DROPPER_MODULE = "kernel-dropper/dropper.ko"
BLAST_TOOLS = ["build/emu/tcpblast", "build/emu/udpblast"]


def _load_scenarios():
    # all scenarios but those config leave_out names at this scale, unless listed explicitly
    names = config.get("scenarios") or [
        n
        for n in sc.scenario_names()
        if n not in config.get("leave_out", {}).get(SCALE, [])
    ]
    known = set(tcp_profiles.registry())
    loaded = {}
    for name in names:
        try:
            loaded[name] = sc.load(name, SCALE, known)
            if "ns3" in BACKENDS:
                ns3mod.check_topology(loaded[name])
        except (sc.ScenarioError, ValueError) as err:
            raise WorkflowError(str(err)) from None
    return loaded


SCENARIOS = _load_scenarios()
# The hardware's ping sweep gives the fitted delay that every `delay: measured` scenario uses,
# so its reference table is built even when the study leaves the scenario out.
DELAY_SCENARIO = "ping-sweep"
REFERENCE_SCENARIOS = dict(SCENARIOS)
REFERENCE_SCENARIOS.setdefault(
    DELAY_SCENARIO, sc.load(DELAY_SCENARIO, SCALE, set(tcp_profiles.registry()))
)


wildcard_constraints:
    scenario="|".join(REFERENCE_SCENARIOS),
    profile=r"[A-Za-z0-9_.+-]+",
    point=r"[^/]+",
    rep=r"\d+",


def ns3_program(name):
    """The ns-3 program that builds scenario `name`'s topology (three hosts or four)."""
    return f"build/ns3/{ns3mod.program_name(SCENARIOS[name])}"


# What one ns-3 run of the multi-flow study costs (docs/multiflow.md, "Cost"): 21.6 s of wall
# time per simulated second for FAST with 3 flows at 800 Mb/s, growing roughly as the rate
# squared, and the loss-based variants 6.7 times FAST's (CUBIC 1.2 s against FAST 0.18 s per
# simulated second at 20 Mb/s). Every other ns-3 run takes at most a minute at paper scale.
MULTIFLOW_WALL_S_PER_SIM_S_800MBPS = 21.6
MULTIFLOW_LOSS_BASED_FACTOR = 6.7
NS3_RUNTIME_MIN = 10


def ns3_runtime_min(name):
    """Minutes a cluster job of one ns-3 run of scenario `name` may take (the SLURM profile's
    `runtime`; docs/cluster.md): twice the measured cost implies for a multi-flow run, with the
    loss-based variants' factor, so that a paper-scale run is not killed; 10 for the rest.
    """
    s = SCENARIOS[name]
    if s.workload_kind != "multiflow":
        return NS3_RUNTIME_MIN
    w = s.settings["workload"]
    simulated_s = w["phases"] * w["phase_s"]
    rate_factor = (s.settings["topology"]["link_rate_Mbps"] / 800) ** 2
    wall_s = simulated_s * MULTIFLOW_WALL_S_PER_SIM_S_800MBPS * rate_factor
    return max(
        NS3_RUNTIME_MIN, math.ceil(2 * wall_s * MULTIFLOW_LOSS_BASED_FACTOR / 60)
    )


def variant_skips(name, backend):
    """Points of scenario `name` whose TCP variant `backend` has no implementation of
    (config/tcp_variants.yaml): point id → why. They are not run; the collect rule's log and
    the comparison table say so."""
    out = {}
    for point in SCENARIOS[name].points:
        if point.variant is not None:
            why = tcp_variants.not_implemented(tcp_variants.get(point.variant), backend)
            if why:
                out[point.id] = why
    return out


def ns3_run_paths(name):
    """Every ns-3 run JSON of a scenario (deterministic points once, see config ns3; a
    profile that draws random numbers, linux-2.2's tick phase, makes every TCP point random),
    but none of a point whose TCP variant ns-3 lacks."""
    s = SCENARIOS[name]
    repeat = config.get("ns3", {}).get("repeat_deterministic", False)
    skips = variant_skips(name, "ns3")
    return [
        str(run_path(RESULTS, "ns3", name, profile, point.id, k))
        for profile in s.profiles
        for point in s.points
        if point.id not in skips
        for k in ns3mod.scenario_repetitions(
            s, point, tcp_profiles.get(profile), s.repetitions, repeat
        )
    ]


def design_of(section, name):
    """(repetitions, point stride) of a scenario in a thinned design (config SECTION.design
    at this scale; `Scenario.thinned_points`); the scenario's own design where none is set.
    """
    s = SCENARIOS[name]
    design = config.get(section, {}).get("design", {}).get(SCALE, {})
    reps = min(design.get("repetitions", s.repetitions), s.repetitions)
    return reps, design.get("point_stride", {}).get(name, 1)


def trace_points(name):
    """Points of a scenario whose ns-3 runs are traced (config `traces`: axis values)."""
    want = config.get("traces", {}).get("points", {}).get(name)
    if not want or name not in SCENARIOS:
        return []
    return list(SCENARIOS[name].points_where(want))


def ns3_traces(name):
    """Whether the ns-3 program of scenario `name` writes the TCP event trace: it takes
    --traceFile (sim/ns3/programs/NAME.cc: testbed-2001 and lossy-link do)."""
    program = ns3mod.program_name(SCENARIOS[name])
    return "traceFile" in Path(f"sim/ns3/programs/{program}.cc").read_text()


def trace_paths():
    """The traced runs: repetition 1 of each traced point, every ns-3 profile of the scenario."""
    if "ns3" not in BACKENDS:
        return []
    return [
        f"{RESULTS}/traces/{name}/{profile}/{point.id}/run1.{ext}"
        for name in config.get("traces", {}).get("points", {})
        if name in SCENARIOS and ns3_traces(name)
        for point in trace_points(name)
        for profile in SCENARIOS[name].profiles
        for ext in ("csv.gz", "json")
    ]


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
    link), plus 10 minutes for Snakemake and the files."""
    from emusim.backends.mininet.batch import vm_timeout_s
    from emusim.backends.mininet.plan import Shard, make_plan

    reps, stride = design_of("mininet", wildcards.scenario)
    repeat = config.get("mininet", {}).get("repeat_deterministic", False)
    shard = Shard(int(wildcards.shard), int(wildcards.shards))
    # every run of the share, as if none were there yet: the limit must hold a fresh start
    plan = make_plan(
        SCENARIOS[wildcards.scenario], wildcards.profile, 0.0, "auto", Path("/nonexistent"),
        True, reps, stride, repeat_deterministic=repeat, shard=shard,
    )  # fmt: skip
    plan["icount_shift"] = config.get("mininet", {}).get("icount_shift", 0)
    return math.ceil(vm_timeout_s(plan) / 60) + 10


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
    """The release of the kernel the emulation's VM boots (emusim.vm.find_kernel)."""
    try:
        return vm.find_kernel().release
    except vm.VMError as err:
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


def testbed_ran():
    """Whether the hardware's results come from a testbed (hardware.source: testbed)."""
    return HARDWARE_SOURCE == "testbed"


def hardware_runs(name):
    """Whether the hardware backend has the scenario: a testbed runs every scenario, the
    2001 measurements only the report's."""
    return HARDWARE_SOURCE == "testbed" or hw.has_reference(name)


def testbed_needs_dropper():
    """Whether any configured scenario drops (the preflight then requires the module)."""
    return any(
        linux_dropper.dropper_active(p.dropper)
        for s in REFERENCE_SCENARIOS.values()
        for p in s.points
    )


def testbed_table(name):
    """A table of the testbed the hardware's results came from: the testbed's preflight
    facts when one ran, else the 2001 report's (data/reference/)."""
    if testbed_ran():
        return f"{TESTBED_DIR}/{name}.csv"
    return f"data/reference/{name}.csv"


def backend_tables(wildcards):
    """Input function: the tidy per-run tables of the scenario's backends."""
    return backend_tables_of(wildcards.scenario)


def backend_tables_of(name):
    """The tidy per-run tables of every configured backend that can run the scenario."""
    tables = []
    if "hardware" in BACKENDS and hardware_runs(name):
        tables.append(f"{RESULTS}/hardware/{name}.csv")
    if "ns3" in BACKENDS:
        tables.append(f"{RESULTS}/ns3/{name}.csv")
    if "mininet" in BACKENDS and mininet_profiles(name):
        tables.append(f"{RESULTS}/mininet/{name}.csv")
    # a study's own backends' runs (the router-forwarding study's ns3-model)
    return tables + [
        t for hooks in STUDY_RULES.values() for t in hooks.run_tables(name)
    ]


def compare_metrics(name):
    """What the comparison measures: throughput always; elapsed time where sizes match."""
    kind = SCENARIOS[name].workload_kind
    if kind == "ping":
        return ["rtt_us"]
    metrics = ["throughput_report_Bps"]
    if SCALE == "paper":
        metrics.append("elapsed_s")
    return metrics


def compared_scenarios():
    return [n for n in SCENARIOS if hardware_runs(n) and "hardware" in BACKENDS]


def backend_compared_scenarios():
    """Scenarios without a hardware reference: ns-3 is compared with Mininet instead, every
    cell of the design a row (results/compare/NAME-ns3-vs-mininet.csv; a cell Mininet did not
    run says why)."""
    if not {"ns3", "mininet"} & set(BACKENDS):
        return []
    # only ns-3 runs the multiflow workload (docs/multiflow.md): nothing to compare it with
    return [
        n
        for n in SCENARIOS
        if not hw.has_reference(n)
        and SCENARIOS[n].workload_kind != multiflow_workload.WORKLOAD
    ]


def backend_compare_metrics(name):
    """What ns-3 and Mininet are compared on: goodput and completion time (same size); a UDP
    flood's Mbit/s, packets/s and loss (emusim.workloads.udp_flood)."""
    if udp_flood.is_flood(SCENARIOS[name]):
        return list(udp_flood.METRICS)
    return ["goodput_Bps", "elapsed_s"]


# --- the studies (emusim.studies; workflow/rules/studies/NAME.smk) --------------------------
# A study's rules file registers what it adds (register_study) and its figures (add_figure);
# the target list, the figure rule and the paper loop over these, and name no study.


class StudyRules:
    """What one study's rules file adds to the workflow at this scale; every hook is a
    function, empty by default."""

    def __init__(
        self,
        name,
        targets=list,
        tables=list,
        run_tables=lambda scenario: [],
        paper_inputs=dict,
        paper_params=dict,
        paper_tables=list,
        switches=dict,
    ):
        self.name = name
        # files `all` makes beyond its figures and tables (runs, fits, summaries)
        self.targets = targets
        # its tables: stems under TABLES, each made as .csv, .tex and .html
        self.tables = tables
        # a scenario's tidy run tables of the study's own backends (the statistics read them)
        self.run_tables = run_tables
        # the named inputs and the parameters of its paper numbers (emusim.paper_numbers)
        self.paper_inputs = paper_inputs
        self.paper_params = paper_params
        # table stems the paper may show beyond `tables` (made by other rules)
        self.paper_tables = paper_tables
        # \if switches of numbers.tex: which of its parts ran at this scale
        self.switches = switches


STUDY_RULES = {}
# stem -> {"study", "kind", "inputs": a function giving the named input files, "params"}
FIGURE_SPECS = {}


def register_study(name, **hooks):
    """Called once by workflow/rules/studies/NAME.smk, NAME a study of emusim.studies."""
    if name not in studies.registry():
        raise WorkflowError(
            f"workflow/rules/studies/{name}.smk: register_study({name!r}): there is no "
            f"package src/emusim/studies/{name}/ (known: {', '.join(studies.registry())})"
        )
    STUDY_RULES[name] = StudyRules(name, **hooks)


def add_figure(study, stem, kind, inputs, params=None, caption=None):
    """A figure of `study` at FIGURES/STEM.{pdf,png}, drawn by the study's
    ``figures.draw(kind, inputs, params, stem)`` (rule figure); `caption` is its caption in
    the HTML report (snakemake --report)."""
    if stem in FIGURE_SPECS:
        raise WorkflowError(
            f"figure {stem!r} is added twice (by {FIGURE_SPECS[stem]['study']} and {study})"
        )
    FIGURE_SPECS[stem] = {
        "study": study,
        "kind": kind,
        "inputs": inputs,
        "params": params or {},
        "caption": caption or f"Figure {stem}.",
    }


def claimed(name):
    """Whether a study presents scenario `name` (its `claims`, emusim.studies). Any other
    scenario (one a user added) gets the generic figure and an appendix entry."""
    return bool(studies.claimed_by(SCENARIOS[name]))


# A scenario no study presents: every metric against its first sweep axis (emusim.plots_scenario).
# stem -> scenario
SCENARIO_FIGURES = {
    f"fig_scenario_{name.replace('-', '_')}": name
    for name in SCENARIOS
    if not claimed(name)
}
for _stem, _name in SCENARIO_FIGURES.items():
    add_figure(
        None,
        _stem,
        "scenario",
        lambda name=_name: {f"stats_{name}": f"{RESULTS}/stats/{name}.csv"},
        {"scenario": _name, "axes": SCENARIOS[_name].axes},
        caption=f"Scenario {_name}: every metric that varies against its first sweep axis, "
        "a line per backend and profile (a scenario no study presents).",
    )


def figure_targets():
    return [
        f"{FIGURES}/{stem}.{ext}" for stem in FIGURE_SPECS for ext in ("pdf", "png")
    ]


def table_targets():
    tables = [f"{TABLES}/tcp_profiles", f"{TABLES}/delay_fit", f"{TABLES}/summary"]
    # a multiflow run's metrics are time series: its table is per phase (its study's)
    tables += [
        f"{TABLES}/{n}"
        for n in SCENARIOS
        if SCENARIOS[n].workload_kind != multiflow_workload.WORKLOAD
    ]
    tables += [
        f"{TABLES}/{t}" for hooks in STUDY_RULES.values() for t in hooks.tables()
    ]
    return [f"{t}.{ext}" for t in tables for ext in ("csv", "tex", "html")]


def all_targets():
    # Every run is a target itself, so a deleted run is redone even when the tables
    # built from it are still there.
    targets = (
        [p for n in SCENARIOS for p in ns3_run_paths(n)] if "ns3" in BACKENDS else []
    )
    targets += [f"{RESULTS}/stats/{n}.csv" for n in SCENARIOS]
    targets += [f"{RESULTS}/compare/{n}.csv" for n in compared_scenarios()]
    targets += [
        f"{RESULTS}/compare/{n}-ns3-vs-mininet.csv"
        for n in backend_compared_scenarios()
    ]
    targets += [f"{RESULTS}/compare/summary.csv"]
    if mininet_scenarios():
        targets += [
            f"{RESULTS}/mininet/selfcheck.csv",
            f"{TABLES}/mininet_selfcheck.csv",
        ]
    if trace_paths():
        targets += [f"{RESULTS}/traces/summary.csv"]
    if mininet_trace_paths():
        targets += [f"{RESULTS}/traces/mininet/summary.csv"]
    if testbed_ran() and "hardware" in BACKENDS:
        targets += [f"{TESTBED_DIR}/{name}.csv" for name in TESTBED_TABLES]
    targets += [t for hooks in STUDY_RULES.values() for t in hooks.targets()]
    targets += [PAPER_PDF]
    return targets + figure_targets() + table_targets()


# --- input and params functions of the ns-3 and figure rules ----------------------------


def _ns3_delay_input(wildcards):
    measured = SCENARIOS[wildcards.scenario].settings["topology"]["delay"] == "measured"
    return [f"{RESULTS}/delay/one_way_delay.json"] if measured else []


def _measured_delay_us():
    path = f"{RESULTS}/delay/one_way_delay.json"
    with open(path) as f:
        return json.load(f)["one_way_delay_us"]


def _ns3_archived(wildcards):
    """The archived run that rule ns3_restore writes for this run, when the archive holds one
    made by the command ns3_run would run now (docs/archive.md); otherwise a path that does
    not exist, so that ns3_run simulates it. A run whose command needs the measured delay is
    simulated while that delay is not yet measured."""
    w = wildcards
    relative = run_path("", "ns3", w.scenario, w.profile, w.point, int(w.rep))
    missing = f"{PREFIX}logs/not-archived/{relative}"
    if ARCHIVE is None:
        return missing
    archived = run_archive.archive_path(ARCHIVE, SCALE, relative)
    delay_known = all(os.path.exists(p) for p in _ns3_delay_input(wildcards))
    if not (archived.exists() and delay_known):
        return missing
    ok, why = run_archive.matches(archived, _ns3_run(wildcards)["cmd"])
    if not ok:
        print(f"archive not used: {why}", file=sys.stderr)
    return str(archived) if ok else missing


def _ns3_run(wildcards):
    """Command and identity of one ns-3 run (computed when the job is scheduled)."""
    s = SCENARIOS[wildcards.scenario]
    point = s.point(wildcards.point)
    profile = tcp_profiles.get(wildcards.profile)
    measured = _measured_delay_us() if _ns3_delay_input(wildcards) else None
    delay_us = ns3mod.one_way_delay_us(s, measured)
    rep = int(wildcards.rep)
    cmd = ns3mod.command(ns3_program(s.name), s, point, profile, rep, delay_us)
    meta = {
        "scenario": s.name,
        "backend": "ns3",
        "profile": profile.name,
        "point": point.id,
        "params": point.values,
        "repetition": rep,
        "seed": ns3mod.rng_seed(s.name, point.id),
        # No git revision or interpreter path here: params are compared between runs, and a
        # new commit must not redo every run. runjson records the revision when it runs.
        "provenance": {
            "scale": SCALE,
            "one_way_delay_us": delay_us,
            "command": cmd,
            "dropper_impl": "ns3::DropperQueueDisc",
        },
    }
    return {"cmd": cmd, "meta": json.dumps(meta, sort_keys=True)}


def _figure_inputs(wildcards):
    return FIGURE_SPECS[wildcards.stem]["inputs"]()


# --- the paper (workflow/rules/paper.smk) -----------------------------------------------------

PAPER_PDF = f"{PREFIX}paper/build/paper.pdf"
