"""The link shaper and delay a Linux host applies (tc): pure command builders, shared by the
Mininet backend and the testbed's virtual hosts. docs/mininet.md explains each choice.

- Shaper: the link rate counts Ethernet's 38 bytes per frame beyond the IP packet. A qdisc on a
  veth sees the IP packet plus the 14-byte MAC header, so the shaper adds the other
  24 bytes (preamble and SFD 8, FCS 4, inter-frame gap 12): a 1500-byte IP packet costs
  1538 byte-times. With netem (delay) the shaper is netem's own ``rate RATE 24`` (24: its
  packet overhead), which releases a packet at the end of its transmission time as a real
  link delivers its last bit; without netem it is HTB (``overhead 24``) with a pfifo of the
  queue length. A host's egress is HTB even with netem, so that a full queue holds its sockets
  back, and its link's netem sits on the router's ingress (`ingress_stage_commands`).
- Delay: the report's model has one echo hop take (L + 26) / rate + d / 2 for an IP packet
  of L bytes (L = size + 28). netem's rate releases a packet (L + 14 + 24) / rate after it
  starts, 12 byte-times (the inter-frame gap) later than the model's last bit, so each link
  direction gets netem delay d / 2 − 12 / rate (ns-3's channel delay is d / 2 + 24 / rate for
  the same reason, with PPP's framing), less the emulator's own per-hop latency measured by
  the batch's calibration.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal

from emusim.core import constants

# --- shaper -----------------------------------------------------------------------------------

ETH_HEADER_B = 14
"""MAC header: part of the length a qdisc sees on an Ethernet (veth) device."""

QDISC_OVERHEAD_B = constants.ETH_FRAME_WIRE_B - constants.IP_MTU_B - ETH_HEADER_B
"""24: what the shaper adds per packet to the length the qdisc sees (IP + 14): preamble and
SFD 8, FCS 4, inter-frame gap 12. 1514 + 24 = 1538 byte-times per full frame."""

HTB_BURST_FRAMES = 2
"""HTB's bucket holds two full frames: it absorbs timer lateness without letting bursts through
(a link that has been idle may start one frame at once, as a real one does)."""


def byte_time_us(n_bytes: float, rate_bps: float) -> float:
    return n_bytes * 8 * 1e6 / rate_bps


def netem_delay_us(one_way_delay_us: float, rate_bps: float, stack_us: float = 0.0) -> float:
    """netem delay per link direction: d / 2 − 12 byte-times (see the module docstring), less
    ``stack_us``, the emulator's own latency per hop (`calibration`); never below 0."""
    return max(_nominal_delay_us(one_way_delay_us, rate_bps) - stack_us, 0.0)


def _nominal_delay_us(one_way_delay_us: float, rate_bps: float) -> float:
    return one_way_delay_us / 2 - byte_time_us(constants.ETH_INTERFRAME_GAP_B, rate_bps)


def delay_shortfall_us(one_way_delay_us: float, rate_bps: float, stack_us: float) -> float:
    """What a hop's netem delay cannot take off because it would go below 0: the part of the
    emulator's own latency (and the inter-frame gap) that a hop of ``one_way_delay_us`` / 2
    cannot absorb. A delayed egress elsewhere on the path absorbs it where there is one."""
    return max(stack_us - _nominal_delay_us(one_way_delay_us, rate_bps), 0.0)


NETEM_TICK_NS = 64
"""The kernel's psched tick (PSCHED_SHIFT 6). iproute2 6.1's netem reads `delay` as whole
microseconds and sends it in these ticks, so a delay is set to 1 µs, then 64 ns."""


def netem_delay_arg(delay_us: float) -> tuple[str, float]:
    """The `delay` argument for tc and the delay netem then really applies, in µs: the
    nearest whole microsecond (tc truncates fractions), floored to 64-ns ticks."""
    whole = round(delay_us)
    ticks = whole * 1000 // NETEM_TICK_NS
    return f"{whole}us", ticks * NETEM_TICK_NS / 1000


def wire_time_us(ip_bytes: int, rate_bps: float) -> float:
    """Time an IP packet of ip_bytes occupies the link (with the 38 bytes of Ethernet)."""
    return byte_time_us(ip_bytes + ETH_HEADER_B + QDISC_OVERHEAD_B, rate_bps)


def shaper_commands(
    dev: str, rate_bps: int, limit_packets: int, delay_us: float, netem: bool
) -> list[list[str]]:
    """tc commands that make `dev`'s egress a link of `rate_bps` with a queue of
    `limit_packets` and `delay_us` of delay (netem), or no delay (HTB, when `netem` is False)."""
    if netem:
        return [
            [
                "tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:", "netem",
                "delay", netem_delay_arg(delay_us)[0],
                "rate", f"{rate_bps}bit", str(QDISC_OVERHEAD_B),  # netem: rate RATE PACKETOVERHEAD
                "limit", str(limit_packets),
            ]
        ]  # fmt: skip
    if delay_us > 0:
        raise ValueError("a nonzero delay needs netem")
    burst = HTB_BURST_FRAMES * constants.ETH_FRAME_WIRE_B
    return [
        ["tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "1"],
        [
            "tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb",
            "rate", f"{rate_bps}bit", "ceil", f"{rate_bps}bit",
            "overhead", str(QDISC_OVERHEAD_B), "linklayer", "ethernet",
            "burst", f"{burst}b", "cburst", f"{burst}b",
        ],
        [
            "tc", "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "pfifo",
            "limit", str(limit_packets),
        ],
    ]  # fmt: skip


# --- backpressure: an end host's link ---------------------------------------------------------


def has_sockets(role: str) -> bool:
    """Whether a role's packets come from its own sockets (the sender and receiver; a router
    only forwards). Such a host's egress must hold its senders back as a NIC's full queue does,
    which netem cannot (`ingress_stage_commands`)."""
    return not role.startswith("router")


def ifb_name(dev: str) -> str:
    """The IFB device that carries the ingress stage of ``<node>-eth<N>``: ``<node>-ifb<N>``
    (the node's prefix keeps it a batch's own; at most IFNAMSIZ like the device)."""
    node, sep, port = dev.rpartition("-eth")
    if not sep:
        raise ValueError(f"{dev!r} is not a <node>-eth<N> device")
    return f"{node}-ifb{port}"


def ingress_stage_commands(
    dev: str, ifb: str, rate_bps: int, limit_packets: int, delay_us: float
) -> list[list[str]]:
    """tc commands that give the link arriving at `dev` its serialisation and delay on the
    receiving side: every packet `dev` receives is redirected to the IFB device `ifb`, whose
    netem (`delay_us`, `rate_bps` with Ethernet's framing) releases it back into `dev`'s
    receive path.

    Why: netem orphans every packet it delays or rate-limits (`netem_enqueue` calls
    skb_orphan_partial, net/sched/sch_netem.c), so a socket whose packets wait in a netem
    egress is never blocked: a UDP sender writes at its CPU's speed and the queue drops the
    excess, and TCP Small Queues does not see the queue. A host's egress is therefore HTB at
    the link's rate (`shaper_commands` with `netem=False`), which keeps a packet charged to its
    socket until it leaves, as a NIC's queue does. HTB releases a packet when its transmission
    starts; this stage adds the transmission time (netem's rate, on packets that arrive at
    that rate, delays each by its own wire time) and the link's delay, so the packet reaches
    the router when its last bit would. The redirect turns the MAC header back on, so the IFB's
    qdisc sees IP + 14 bytes, as an egress does, and the same 24-byte overhead applies.
    `limit_packets` must hold the packets in flight: they arrive no faster than the link's
    rate, so no queue builds here beyond HTB's two-frame burst."""
    return [
        ["ip", "link", "add", ifb, "type", "ifb"],
        ["ip", "link", "set", ifb, "up"],
        ["tc", "qdisc", "replace", "dev", dev, "handle", "ffff:", "ingress"],
        [
            "tc", "filter", "add", "dev", dev, "parent", "ffff:", "protocol", "all",
            "prio", "1", "matchall", "action", "mirred", "egress", "redirect", "dev", ifb,
        ],
        *shaper_commands(ifb, rate_bps, limit_packets, delay_us, True),
    ]  # fmt: skip


def ingress_stage_limit(host_queue: int, delay_us: float, rate_bps: float) -> int:
    """The IFB netem's limit: the host's queue (what HTB may pass at once, with room to spare)
    plus the frames on the wire over the delay (`delay_line_packets`)."""
    return host_queue + delay_line_packets(delay_us, rate_bps)


# --- the impaired link of a four-host line ------------------------------------------------------


def netem_loss_percent(loss: str) -> str:
    """netem's `loss random P%` argument for a loss probability given as a decimal string:
    P = loss x 100 written exactly (tc turns the percentage into round(p x (2^32 - 1)), so the
    probability netem applies is the scenario's to within 2^-32)."""
    value = Decimal(loss)
    if not 0 <= value <= 1:
        raise ValueError(f"loss {loss!r} is outside [0, 1]")
    return format((value * 100).normalize(), "f") + "%"


def delay_line_packets(delay_us: float, rate_bps: float) -> int:
    """How many full frames a link of `rate_bps` holds in flight over `delay_us`, plus one:
    what netem's `limit` must hold beyond its queue where it delays (netem counts the packets
    it delays in its queue)."""
    return math.ceil(delay_us / wire_time_us(constants.IP_MTU_B, rate_bps)) + 1


def netem_command(dev: str, rate_bps: int, limit: int, delay_us: float = 0.0, loss: str = "0"):
    argv = ["tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:", "netem"]
    argv += ["delay", netem_delay_arg(delay_us)[0]]
    argv += ["rate", f"{rate_bps}bit", str(QDISC_OVERHEAD_B), "limit", str(limit)]
    if Decimal(loss) > 0:
        argv += ["loss", "random", netem_loss_percent(loss)]
    return argv


# --- a queue that marks: CoDel under the link's shaper ------------------------------------------


def codel_shaper_commands(
    dev: str, rate_bps: int, limit_packets: int, aqm: dict
) -> list[list[str]]:
    """tc commands that make `dev`'s egress a link of `rate_bps` whose queue is CoDel
    (`aqm`: scenario topology.aqm, kind codel): HTB at the link's rate, as a host's egress
    (`shaper_commands` without netem), with sch_codel as its leaf in place of the pfifo.

    Why HTB and not netem's rate: packets must wait in CoDel, whose sojourn time (enqueue to
    dequeue: vars->ldelay, include/net/codel_impl.h:123) is what it drops or marks by; netem's
    rate would hold them in netem's own queue, after any qdisc it had as a child. HTB dequeues
    from its leaf only when the class's tokens allow (htb_dequeue_tree, net/sched/sch_htb.c:911),
    so a packet's wait in CoDel is its wait for the shaped rate. HTB releases a packet when its
    transmission starts: the link's wire time and delay come after, on the next hop's ingress
    stage (`ingress_stage_commands`). The first two commands are HTB's root and class."""
    return [
        *shaper_commands(dev, rate_bps, limit_packets, 0.0, False)[:2],
        codel_leaf(dev, limit_packets, aqm),
    ]


def codel_leaf(dev: str, limit_packets: int, aqm: dict) -> list[str]:
    """``tc qdisc add … codel limit N target Tus interval Tus ecn|noecn [ce_threshold Tus]``
    (tc-codel(8); iproute2 takes the times in microseconds, sch_codel keeps them in its own
    1024-ns units, so it reads 1000 µs back as 999: codel_change, net/sched/sch_codel.c:168,
    codel_time_to_us, include/net/codel.h:88)."""
    argv = [
        "tc", "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "codel",
        "limit", str(limit_packets),
        "target", f"{aqm['target_us']}us", "interval", f"{aqm['interval_us']}us",
        "ecn" if aqm["ecn"] else "noecn",
    ]  # fmt: skip
    if aqm.get("ce_threshold_us") is not None:
        argv += ["ce_threshold", f"{aqm['ce_threshold_us']}us"]
    return argv


CODEL_COUNTERS = ("packets", "drops", "ecn_mark", "ce_mark", "drop_overlimit")
"""sch_codel's counters a run reads (codel_dump_stats, net/sched/sch_codel.c:279): packets
dequeued, drops (CoDel's control law and a full queue), packets marked CE by the control law
instead of a drop (ecn_mark, include/net/codel_impl.h:188, 219) and for a sojourn over
ce_threshold (ce_mark, codel_impl.h:265; a packet is counted in one of the two at most: the
control law's mark jumps to that test, whose INET_ECN_set_ce fails on a packet already CE,
include/net/inet_ecn.h:77-89), and drops of a full queue (drop_overlimit, sch_codel.c:156)."""


def parse_codel(tc_json: str) -> dict:
    """The sch_codel entry of ``tc [-s] -j qdisc show dev X`` output (its options, and with
    ``-s`` its counters); iproute2 6.1 prints ce_mark only when it is nonzero, so a counter
    that is absent reads 0."""
    for qdisc in json.loads(tc_json):
        if qdisc.get("kind") == "codel":
            return qdisc
    raise ValueError(f"no codel qdisc in {tc_json[:200]!r}")


def codel_counters(entry: dict) -> dict[str, int]:
    """`CODEL_COUNTERS` of a `parse_codel` entry (read with ``-s``)."""
    return {key: int(entry.get(key, 0)) for key in CODEL_COUNTERS}


def parse_qdisc_stats(tc_json: str) -> dict[str, int]:
    """Packets sent and dropped by the root qdisc in ``tc -s -j qdisc show dev X`` output."""
    for qdisc in json.loads(tc_json):
        if qdisc.get("root"):
            return {"packets": int(qdisc["packets"]), "drops": int(qdisc["drops"])}
    raise ValueError(f"no root qdisc in {tc_json[:200]!r}")
