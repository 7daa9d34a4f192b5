"""The ns-3 backend: from a scenario point to the command line of sim/ns3's testbed program.

Modelling choices, each with its source (docs/fidelity.md has the full argument):

- Framing: ns-3's point-to-point device sends IP packet + 2-byte PPP header. Ethernet puts
  38 bytes beyond the IP packet on the wire per frame (constants.ETH_FRAME_WIRE_B - MTU), so the
  device's InterframeGap is 36 byte-times: a full frame occupies 1538 byte-times, as on the wire.
- Delay: the report's model is RTT = 2 d + 4 (size + 54) / rate (§3.2), d the one-way delay of
  the path outside serialisation. ns-3's RTT over two links is 4 (size + 30) / rate + 4 c, c
  the channel delay per link. Equal intercepts give c = d / 2 + 24 / rate: half the path's delay
  per link (the split: propagation and processing are not separable in the report's data), plus
  the 24 byte-times by which an Ethernet frame ends later than ns-3's PPP frame.
- Dropper: DropperQueueDisc, the root queue disc of the router's egress toward the receiver,
  so it sees packets before the queue, as the report's hook in dev_queue_xmit did.
- Queues: the queue discs hold tx_queue_len packets (scenario); device queues hold one packet.
- Seeds: RngSeed is derived from scenario and point, RngRun is the repetition; a rerun gives the
  same bytes.
- A fourth host (topology `router2`, the lossy-link family): program lossy-link, the same
  framing and queues on three links; the middle link's loss is the dropper's random decision in
  each direction (a DropperQueueDisc per egress, targets receiver and sender), its delay the
  channel delay of that link on top of the framing correction (docs/variants.md). The hosts'
  links may run at their own rate (topology.access_rate_Mbps), and router's egress toward
  router2 may be CoDel (topology.aqm) in place of its loss and FIFO (`line_args`).
- TCP variant (axis `variant`): the profile's attributes with its congestion control replaced
  by the variant's (emusim.inputs.variants.ns3_attributes); a variant ns-3 lacks is refused.
- Many flows through one bottleneck (workload `multiflow`, the multi-flow study): program
  multiflow on the dumbbell, each flow's propagation delay on its sender's access link, the
  bottleneck a drop-tail FIFO (emusim.workloads.multiflow; docs/multiflow.md).
- A UDP flood (workload `udp-flood`, the router-forwarding study): program router-forwarding,
  testbed-2001's hosts, framing and queues; with the processing model on, the arguments of
  emusim.workloads.udp_flood.ns3_model_args (docs/router-forwarding.md).
"""

from __future__ import annotations

import zlib
from functools import cache
from pathlib import Path

from emusim import workloads
from emusim.backends.ns3 import build as ns3build
from emusim.core import constants, yaml_text
from emusim.core.drop_decision import cutoff_from_rate
from emusim.infra.runjson import run_path
from emusim.inputs import tcp_profiles as profiles_registry
from emusim.inputs import variants
from emusim.inputs.scenario import Point, Scenario
from emusim.inputs.tcp_profiles import Profile


def byte_time_ns(n_bytes: float, link_rate_bps: float) -> float:
    """Time to serialise `n_bytes` at `link_rate_bps`, in ns."""
    return n_bytes * 8 * 1e9 / link_rate_bps


def interframe_gap_ns(link_rate_bps: float) -> int:
    """InterframeGap that makes ns-3's PPP frames take Ethernet's wire time."""
    return round(byte_time_ns(constants.NS3_INTERFRAME_GAP_B, link_rate_bps))


def channel_delay_ns(one_way_delay_us: float, link_rate_bps: float) -> int:
    """Per-link channel delay that reproduces the report's RTT model (see module docstring)."""
    return round(
        one_way_delay_us * 1000 / 2 + byte_time_ns(constants.NS3_LATE_ARRIVAL_B, link_rate_bps)
    )


def rng_seed(scenario: str, point: str) -> int:
    """RngSeed of a point: a stable hash, so points draw independent streams."""
    return zlib.crc32(f"{scenario}/{point}".encode()) % 2_000_000_000 + 1


def repetitions_to_run(
    point: Point, repetitions: int, repeat_deterministic: bool, profile: Profile | None = None
) -> list[int]:
    """Repetitions ns-3 simulates for a point.

    ns-3 draws random numbers in the random dropper and, with a profile that has one (the
    linux-2.2 tick phase, Profile.draws_random_numbers), in the TCP model. A point with neither
    gives the same result for every seed, so it is simulated once unless `repeat_deterministic`
    asks otherwise (a test checks the sameness).
    """
    random_tcp = profile is not None and profile.draws_random_numbers()
    if point.is_random or random_tcp or repeat_deterministic:
        return list(range(1, repetitions + 1))
    return [1]


def scenario_repetitions(
    scenario: Scenario,
    point: Point,
    profile: Profile,
    repetitions: int,
    repeat_deterministic: bool,
) -> list[int]:
    """`repetitions_to_run` for a point of a scenario run with a profile: the profile's random
    numbers count where the scenario's runs use TCP, and so does a variant whose runs differ
    by chance (``random`` in config/tcp_variants.yaml)."""
    # a ping sweep or a UDP blast gives the same result whatever the TCP model draws
    tcp = workloads.of(scenario.settings).tcp
    if tcp and variants.is_random(point.variant):
        return list(range(1, repetitions + 1))
    return repetitions_to_run(point, repetitions, repeat_deterministic, profile if tcp else None)


def run_paths(
    results: str,
    scenario: Scenario,
    repeat_deterministic: bool,
    profiles: list[str] | None = None,
    points: list[Point] | None = None,
) -> list[str]:
    """The run JSONs ns-3 makes of a scenario: each profile (all of the scenario's by default),
    each point (likewise) but those whose TCP variant ns-3 lacks (variants.skipped_points), the
    repetitions `scenario_repetitions` gives. The workflow's targets and `emusim run`'s both."""
    chosen = scenario.points if points is None else points
    skips = variants.skipped_points(chosen, "ns3")
    return [
        str(run_path(results, "ns3", scenario.name, name, point.id, k))
        for name in (scenario.profiles if profiles is None else profiles)
        for point in chosen
        if point.id not in skips
        for k in scenario_repetitions(
            scenario,
            point,
            profiles_registry.get(name),
            scenario.repetitions_of(point),
            repeat_deterministic,
        )
    ]


def dropper_args(point: Point) -> list[str]:
    dropper = point.dropper
    args = [f"--target={point.dropper_target}"]
    mode = dropper["mode"]
    if mode == "random":
        args += ["--dropMode=random", f"--cutoff={cutoff_from_rate(dropper['rate'])}"]
    elif mode == "regular" and dropper["every_n"] > 0:
        args += ["--dropMode=regular", f"--everyN={dropper['every_n']}"]
    else:
        args += ["--dropMode=off"]
    return args


LINE_HOSTS = {
    # the report's Table 1.2
    False: {
        "sender": {"address": "192.168.1.2"},
        "router": {"addresses": ["192.168.1.1", "192.168.2.1"]},
        "receiver": {"address": "192.168.2.2"},
    },
    # scenarios/topologies/lossy-link.yaml: one /24 per link
    True: {
        "sender": {"address": "192.168.1.2"},
        "router": {"addresses": ["192.168.1.1", "192.168.2.1"]},
        "router2": {"addresses": ["192.168.2.2", "192.168.3.1"]},
        "receiver": {"address": "192.168.3.2"},
    },
}
"""The addresses each line program (emusim.workloads.LINE_PROGRAMS, by whether it has a
router2) builds; it takes no others."""


def program_hosts(program: str) -> dict:
    """The addresses an ns-3 program builds: a line program's, or those a workload's own
    program builds (its `ns3_hosts`; none: the three-host line's)."""
    for router2, name in workloads.LINE_PROGRAMS.items():
        if program == name:
            return LINE_HOSTS[router2]
    for workload in workloads.registry().values():
        if program in workload.ns3_programs and workload.ns3_hosts is not None:
            return dict(workload.ns3_hosts)
    return LINE_HOSTS[False]


ARGUMENTS_TABLE = ns3build.NS3_SOURCE_DIR / "programs" / "arguments.yaml"


def arguments_table(program: str) -> Path:
    """Where a program's arguments are listed: sim/ns3/programs/arguments.yaml, or for a
    program a workload brings with it, its own programs/NAME.arguments.yaml beside it
    (docs/adding-a-workload.md)."""
    own = ARGUMENTS_TABLE.with_name(f"{program}.arguments.yaml")
    return own if own.exists() else ARGUMENTS_TABLE


@cache
def program_arguments(program: str) -> frozenset[str]:
    """The arguments a program takes (its groups and its own), the one table the programs
    are tested against."""
    table = yaml_text.safe_load(ARGUMENTS_TABLE.read_text())
    path = arguments_table(program)
    spec = yaml_text.safe_load(path.read_text()) if path != ARGUMENTS_TABLE else None
    if spec is None:
        spec = table["programs"].get(program)
    if spec is None:
        raise ValueError(f"{ARGUMENTS_TABLE}: no program {program!r}, and no {path.name}")
    names = [n for group in spec.get("groups", []) for n in table["groups"][group]]
    return frozenset(names + list(spec.get("own", [])))


def check_arguments(program: str, argv: list[str]) -> None:
    """Refuse a command line with an argument its program does not take (ns-3's CommandLine
    would abort on it at run time; ns-3's own --ns3::… attributes aside)."""
    known = program_arguments(program)
    for arg in argv:
        name = arg[2:].split("=", 1)[0]
        if arg.startswith("--") and "::" not in name and name not in known:
            raise ValueError(
                f"the ns-3 program {program} takes no argument --{name} "
                f"({arguments_table(program)})"
            )


def _check_programs_exist() -> None:
    programs = set(workloads.LINE_PROGRAMS.values())
    programs |= {p for w in workloads.registry().values() for p in w.ns3_programs}
    if not programs <= set(ns3build.PROGRAMS):
        raise RuntimeError(
            f"the workloads (emusim.workloads) name ns-3 programs "
            f"{sorted(programs - set(ns3build.PROGRAMS))}, which "
            f"{ns3build.NS3_SOURCE_DIR / 'programs'} does not hold (NAME.cc is the program NAME)"
        )


_check_programs_exist()


def program_name(scenario: Scenario) -> str:
    """The program that runs the scenario: its workload's own, or the one that builds its
    topology (four hosts, a `router2`, or three)."""
    try:
        return workloads.of(scenario.settings).ns3_program(scenario.settings)
    except workloads.WorkloadError as err:
        raise ValueError(f"{scenario.path}: {err}") from None


def check_topology(scenario: Scenario) -> None:
    """Refuse a topology the ns-3 program cannot build, rather than run another one."""
    hosts = scenario.settings["topology"]["hosts"]
    program = program_name(scenario)
    for role, want in program_hosts(program).items():
        for key, value in want.items():
            if hosts[role][key] != value:
                raise ValueError(
                    f"{scenario.path}: key 'topology.hosts.{role}.{key}' has value "
                    f"{hosts[role][key]!r}; the ns-3 program {program} builds fixed "
                    f"addresses and accepts only {value!r}"
                )


def link_args(point: Point, link_rate_bps: float) -> list[str]:
    """The impaired middle link of the lossy-link program: the dropper's random cutoff per
    direction (spec/drop-decision.md) and the link's channel delay (the one-way delay plus the
    framing correction every link has, `channel_delay_ns` with no path delay)."""
    link = point.link or {}
    delay_ns = int(link.get("delay_ms", 0)) * 1_000_000 + channel_delay_ns(0.0, link_rate_bps)
    return [
        f"--lossCutoff={cutoff_from_rate(str(link.get('loss', '0')))}",
        f"--linkDelayNs={delay_ns}",
    ]


def _refuse(scenario: Scenario, key: str, value, why: str) -> None:
    raise ValueError(f"{scenario.path}: key {key!r} has value {value!r}; {why}")


def access_args(scenario: Scenario, program: str) -> list[str]:
    """The hosts' links at their own rate (topology.access_rate_Mbps), with the framing gap at
    that rate: lossy-link only, whose middle link keeps link_rate_Mbps. None without the key,
    so that the commands of the scenarios without it stay as they were."""
    topo = scenario.settings["topology"]
    if "access_rate_Mbps" not in topo:
        return []
    if program != workloads.LINE_PROGRAMS[True]:
        _refuse(
            scenario,
            "topology.access_rate_Mbps",
            topo["access_rate_Mbps"],
            f"the ns-3 program {program} runs every link at link_rate_Mbps; only "
            f"{workloads.LINE_PROGRAMS[True]} (a topology with router2) has access links "
            "of their own rate",
        )
    access_bps = topo["access_rate_Mbps"] * 1e6
    return [
        f"--accessRateBps={round(access_bps)}",
        f"--accessInterframeGapNs={interframe_gap_ns(access_bps)}",
    ]


def aqm_args(scenario: Scenario, point: Point, program: str) -> list[str]:
    """Router's egress toward router2 as CoDel (topology.aqm; docs/ecn.md maps each parameter
    onto sch_codel and ns-3's CoDelQueueDisc), its limit router_queue_packets. Refused where
    ns-3 cannot do what the key asks, with the file, key and value."""
    aqm = scenario.settings["topology"].get("aqm")
    if aqm is None:
        return []
    if program != workloads.LINE_PROGRAMS[True]:
        _refuse(
            scenario,
            "topology.aqm",
            aqm,
            f"the ns-3 program {program} has no AQM; only {workloads.LINE_PROGRAMS[True]} "
            "(a topology with router2) puts CoDel at router's egress toward router2",
        )
    loss = str((point.link or {}).get("loss", "0"))
    if cutoff_from_rate(loss) > 0:
        _refuse(
            scenario,
            "impairment.link.loss",
            loss,
            "CoDel (topology.aqm) takes the place of the forward loss in ns-3's lossy-link; "
            "a point with topology.aqm needs loss 0",
        )
    threshold = aqm.get("ce_threshold_us")
    if threshold is not None and not aqm["ecn"]:
        # ns-3 3.44's CoDelQueueDisc marks at CeThreshold only with UseEcn
        # (codel-queue-disc.cc:401-402), Linux's sch_codel whenever it is set
        _refuse(
            scenario,
            "topology.aqm.ce_threshold_us",
            threshold,
            "ns-3's CoDel marks at a CE threshold only with ecn: true; set ecn: true or "
            "leave ce_threshold_us out",
        )
    return [
        f"--aqm={aqm['kind']}",
        f"--codelTargetUs={aqm['target_us']}",
        f"--codelIntervalUs={aqm['interval_us']}",
        f"--codelEcn={'true' if aqm['ecn'] else 'false'}",
        *([f"--codelCeThresholdUs={threshold}"] if threshold is not None else []),
    ]


PAYLOAD_LINE_RATE = "{payload_line_rate_bps}"
"""Placeholder a profile's attribute value may hold (the linux-6.1-wan profile's pacing rate, its
stand-in for TCP small queues): the rate at which full segments leave the sender's link, payload
bytes only, rate x 1448 / 1538, rounded down so that pacing never outruns the link."""


def payload_line_rate_bps(link_rate_bps: float) -> int:
    """Payload bits per second of back-to-back full segments on the link (see above)."""
    return int(link_rate_bps * constants.TCP_WRITE_SIZE_B // constants.ETH_FRAME_WIRE_B)


def tcp_args(point: Point, profile: Profile, link_rate_bps: float) -> list[str]:
    """The profile's ns-3 attributes, the congestion control the point's variant's if it has
    one (a variant replaces that and nothing else: emusim.inputs.variants)."""
    attrs = profile.ns3_attributes()
    if point.variant is not None:
        attrs = variants.ns3_attributes(attrs, variants.get(point.variant))
    rate = str(payload_line_rate_bps(link_rate_bps))
    return [f"--{k}={v.replace(PAYLOAD_LINE_RATE, rate)}" for k, v in attrs.items()]


def command(
    binary: str,
    scenario: Scenario,
    point: Point,
    profile: Profile,
    repetition: int,
    delay_us: float,
) -> list[str]:
    """The testbed program's full command line for one run."""
    check_topology(scenario)
    argv = _command(binary, scenario, point, profile, repetition, delay_us)
    check_arguments(program_name(scenario), argv[1:])
    return argv


def _command(
    binary: str, scenario: Scenario, point: Point, profile: Profile, repetition: int, delay_us
) -> list[str]:
    workload = workloads.of(point.settings)
    seeds = [f"--seed={rng_seed(scenario.name, point.id)}", f"--run={repetition}"]
    if workload.ns3_own_topology:
        tcp = tcp_args(point, profile, workload.ns3_sender_rate_bps(point.settings))
        return [binary, *workload.ns3_args(point.settings, interframe_gap_ns), *seeds, *tcp]
    topo = scenario.settings["topology"]
    rate_bps = topo["link_rate_Mbps"] * 1e6
    program = program_name(scenario)
    lossy = program == workloads.LINE_PROGRAMS[True]
    # the hosts' links: the sender's (a profile's pacing is relative to it) and, in lossy-link,
    # those channelDelayNs is for (the middle link has linkDelayNs), so its framing correction
    # is at their rate; access_args refuses access_rate_Mbps elsewhere
    host_link_bps = topo.get("access_rate_Mbps", topo["link_rate_Mbps"]) * 1e6
    tcp = tcp_args(point, profile, host_link_bps)
    return [
        binary,
        f"--linkRateBps={round(rate_bps)}",
        f"--interframeGapNs={interframe_gap_ns(rate_bps)}",
        f"--channelDelayNs={channel_delay_ns(delay_us, host_link_bps)}",
        f"--routerQueuePackets={topo['router_queue_packets']}",
        f"--hostQueuePackets={topo['host_queue_packets']}",
        *workload.ns3_args(point.settings, interframe_gap_ns),
        *(link_args(point, rate_bps) if lossy else dropper_args(point)),
        *access_args(scenario, program),
        *aqm_args(scenario, point, program),
        *seeds,
        *tcp,
    ]
