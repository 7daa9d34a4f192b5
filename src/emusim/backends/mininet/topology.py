"""The emulated network's names and shape.

- Names: every node and interface of a batch carries the project prefix ``emsim`` and a
  4-hex batch id (``emsim3f9as-eth0``, at most 15 characters), so `cleanup` can find what a
  killed batch left behind and never touches anything else.
- Topology: the scenario's hosts in a line, with each hop's addresses and interfaces.
- A fourth host (`router2`, the lossy-link family): the link between the routers loses packets
  at random in each direction (netem ``loss`` on both of its egresses, before their queues) and
  its delay is applied on the next egress in each direction, where no queue builds
  (`impaired_link_commands` says why that is the same).
- Offloads: what ethtool turns off on every veth, so that each packet is one frame.
"""

from __future__ import annotations

import ipaddress
import itertools
import os
from dataclasses import dataclass
from decimal import Decimal

from emusim.linux.shaper import delay_line_packets, netem_command

# --- names ------------------------------------------------------------------------------------

PREFIX = "emsim"
"""Every node and interface name of the Mininet backend starts with this."""

ENV_MARK = "EMUSIM_MININET_BATCH"
"""Environment variable carried by every process a batch starts in a namespace (its value is
the batch's prefix), so `cleanup` finds the processes of a killed batch."""

ROLES = {"sender": "s", "router": "r", "router2": "q", "receiver": "c"}
"""Node name suffix of each role of the scenario's topology (router2: a second router)."""

IFNAMSIZ = 15


def new_batch_id() -> str:
    """Four random hex digits: unique enough among the batches of one machine at a time."""
    return os.urandom(2).hex()


def node_name(batch_id: str, role: str) -> str:
    """``emsim<id><s|r|c>``: at most 10 characters, so ``<node>-eth<N>`` fits IFNAMSIZ."""
    name = f"{PREFIX}{batch_id}{ROLES[role]}"
    if len(name) + len("-eth0") > IFNAMSIZ:
        raise ValueError(f"node name {name!r} too long for interface names")
    return name


def intf_name(node: str, port: int) -> str:
    return f"{node}-eth{port}"


# --- topology ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hop:
    """One node of the line: its role, its interface names' keys and addresses, left to right
    (a router has two: toward the sender, toward the receiver)."""

    role: str
    devs: tuple[str, ...]
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class Topology:
    """The hosts of a scenario in a line, sender first: three (the report's testbed) or four
    (with router2), one /24 per link."""

    sender: str
    router_in: str
    router_out: str
    receiver: str
    rate_bps: int
    router_queue: int
    host_queue: int
    prefix_len: int = 24
    router2_in: str | None = None
    router2_out: str | None = None
    # hosts' links when not rate_bps (then rate_bps is the middle link's): None, the same
    access_rate_bps: int | None = None
    # the queue at router's egress toward router2 when not drop-tail (scenario topology.aqm)
    aqm: dict | None = None

    @classmethod
    def from_settings(cls, topo: dict) -> Topology:
        hosts = topo["hosts"]
        routers = {}
        for role in ("router", "router2"):
            if role not in hosts:
                continue
            addresses = hosts[role]["addresses"]
            if len(addresses) != 2:
                raise ValueError(
                    f"key 'topology.hosts.{role}.addresses' has value {addresses!r}; the "
                    "Mininet backend needs two addresses (toward the sender, toward the receiver)"
                )
            routers[role] = addresses
        t = cls(
            sender=hosts["sender"]["address"],
            router_in=routers["router"][0],
            router_out=routers["router"][1],
            receiver=hosts["receiver"]["address"],
            rate_bps=round(float(topo["link_rate_Mbps"]) * 1_000_000),
            router_queue=int(topo["router_queue_packets"]),
            host_queue=int(topo["host_queue_packets"]),
            router2_in=routers.get("router2", (None, None))[0],
            router2_out=routers.get("router2", (None, None))[1],
            access_rate_bps=_access_rate_bps(topo, "router2" in routers),
            aqm=_aqm(topo, "router2" in routers),
        )
        for (a, key_a), (b, key_b) in t.links():
            na = ipaddress.ip_interface(f"{a}/{t.prefix_len}").network
            if b not in [str(h) for h in na.hosts()]:
                raise ValueError(
                    f"topology: {key_a} and {key_b} ({a}, {b}) are not in one "
                    f"/{t.prefix_len}: the Mininet backend joins each pair by one link"
                )
        return t

    def hops(self) -> list[Hop]:
        """The nodes of the line, sender first."""
        line = [
            Hop("sender", ("sender",), (self.sender,)),
            Hop("router", ("router_in", "router_out"), (self.router_in, self.router_out)),
        ]
        if self.router2_in is not None:
            line.append(
                Hop(
                    "router2",
                    ("router2_in", "router2_out"),
                    (self.router2_in, str(self.router2_out)),
                )
            )
        return [*line, Hop("receiver", ("receiver",), (self.receiver,))]

    def links(self) -> list[tuple[tuple[str, str], tuple[str, str]]]:
        """Each link as ((address, device key) of its left end, (the same) of its right end)."""
        line = self.hops()
        return [
            ((left.addresses[-1], left.devs[-1]), (right.addresses[0], right.devs[0]))
            for left, right in itertools.pairwise(line)
        ]

    def routers(self) -> list[str]:
        return [hop.role for hop in self.hops() if hop.role.startswith("router")]

    def link_rates_bps(self) -> list[int]:
        """Each link's rate, in the order of `links`: a link with an end host (sender or
        receiver) at the access rate, a link between the routers at `rate_bps`."""
        access = self.access_rate_bps or self.rate_bps
        return [
            access if HOST_DEVS & {left, right} else self.rate_bps
            for (_, left), (_, right) in self.links()
        ]

    def dev_rate_bps(self, dev_key: str) -> int:
        """The rate of the link a device (by its key, e.g. ``router_out``) is on."""
        for link, rate in zip(self.links(), self.link_rates_bps(), strict=True):
            if dev_key in (link[0][1], link[1][1]):
                return rate
        raise KeyError(dev_key)

    def bottleneck_rate_bps(self) -> int:
        return min(self.link_rates_bps())

    def plan_fields(self) -> dict:
        """The topology as a plan carries it (and the run key digests it): its fields, less
        those a scenario leaves at their defaults that older plans never had (access rate,
        aqm), so that every existing scenario's runs keep their keys."""
        return {k: v for k, v in self.__dict__.items() if v is not None or k not in OPTIONAL_FIELDS}


def plan_link_rates_bps(topology: dict, links: int) -> list[int]:
    """Each link's rate from a plan's topology (`Topology.plan_fields`): every one of the
    `links` at ``rate_bps`` where it has no access rate of its own."""
    if topology.get("access_rate_bps") is None:
        return [topology["rate_bps"]] * links
    return Topology(**topology).link_rates_bps()


HOST_DEVS = frozenset({"sender", "receiver"})
"""Device keys of the end hosts: a link with one of them is an access link."""

OPTIONAL_FIELDS = ("access_rate_bps", "aqm")
"""Topology fields that a plan leaves out where they are None (`Topology.plan_fields`)."""

AQM_EGRESS = ("router", "router_out")
"""Where `topology.aqm`'s queue is: router's egress toward router2, the middle link's data
direction, which the hosts' faster access links make the bottleneck."""

AQM_STAGE = "router2_in"
"""The device (key) whose ingress stage carries the middle link's wire time and delay in the
data direction when router's egress is `AQM_EGRESS`'s CoDel under HTB."""


def _access_rate_bps(topo: dict, has_router2: bool) -> int | None:
    """topology.access_rate_Mbps in bit/s where it differs from link_rate_Mbps, else None (a
    scenario that sets it equal shapes exactly as one that does not). Only a line with router2
    has a link that is not an access link (the middle one, at link_rate_Mbps)."""
    if "access_rate_Mbps" not in topo:
        return None
    access = round(float(topo["access_rate_Mbps"]) * 1_000_000)
    if access == round(float(topo["link_rate_Mbps"]) * 1_000_000):
        return None
    if not has_router2:
        raise ValueError(
            f"key 'topology.access_rate_Mbps' has value {topo['access_rate_Mbps']!r}, not "
            f"link_rate_Mbps ({topo['link_rate_Mbps']!r}), on a line without router2, whose "
            "links all have an end host: the Mininet backend has no link at link_rate_Mbps there"
        )
    return access


def _aqm(topo: dict, has_router2: bool) -> dict | None:
    """topology.aqm, checked for what the Mininet backend can build: a CoDel queue at router's
    egress toward router2 (`AQM_EGRESS`), so only on a line with router2."""
    aqm = topo.get("aqm")
    if aqm is None:
        return None
    if aqm.get("kind") != "codel":
        raise ValueError(
            f"key 'topology.aqm.kind' has value {aqm.get('kind')!r}; the Mininet backend "
            "builds 'codel' (Linux's sch_codel)"
        )
    if not has_router2:
        raise ValueError(
            f"key 'topology.aqm' has value {aqm!r} on a line without router2; the Mininet "
            "backend puts the queue at router's egress toward router2 (topology.hosts.router2)"
        )
    for key in ("target_us", "interval_us", "ce_threshold_us"):
        if key in aqm and (not isinstance(aqm[key], int) or aqm[key] < 1):
            raise ValueError(
                f"key 'topology.aqm.{key}' has value {aqm[key]!r}; expected a whole number "
                "of microseconds, at least 1 (tc-codel(8) takes microseconds)"
            )
    return dict(aqm)


def impaired_link_commands(
    topo: Topology,
    devs: dict[str, str],
    loss: str,
    delay_ms: float,
    base_delay_us: float = 0.0,
    absorb_us: float = 0.0,
    access_base_delay_us: float | None = None,
    aqm_stage: str | None = None,
) -> dict[str, list[list[str]]]:
    """role → the tc commands that give the router-router2 link one point's impairment.

    Loss: netem ``loss random`` on both egresses of the link (router toward router2 for data,
    router2 toward router for ACKs), with the link's rate and the router's queue: netem drops
    a lost packet on enqueue, before its queue, as ns-3's DropperQueueDisc does. Delay: netem
    ``delay`` on the next egress in each direction (router2 toward the receiver, router toward
    the sender), whose limit also holds the packets in flight. netem counts the packets it
    delays in its `limit`, so a delay on the lossy egress would shrink its 100-packet queue by
    the packets on the wire; one hop on, packets arrive no faster than the link sends them, no
    queue builds, and a constant delay there gives every packet the same arrival time as a
    delay on the link itself. `base_delay_us` is the middle link's netem delay of the
    topology's own delay (`netem_delay_us`), `access_base_delay_us` the access links' (the
    same when None); `absorb_us` is taken off the point's delay: the emulator's own latency
    over the path's hops in one direction that their netem delays could not absorb
    (`delay_shortfall_us` per hop), so the path's one-way delay is the point's.

    With `topo.aqm` the data direction's queue is CoDel under HTB, set once with the network
    (`codel_shaper_commands`), and the middle link's wire time and base delay are the netem of
    `aqm_stage`, the IFB on router2's ingress (`ingress_stage_commands`); such a link takes no
    loss (`plan.check_aqm`)."""
    if topo.router2_in is None:
        raise ValueError("the impaired link joins router and router2; this topology has none")
    q = topo.router_queue
    rate, access = topo.rate_bps, topo.access_rate_bps or topo.rate_bps
    access_base = base_delay_us if access_base_delay_us is None else access_base_delay_us
    delay_us = max(float(delay_ms) * 1000 + access_base - absorb_us, 0.0)
    limit = q + delay_line_packets(delay_us, access)
    if topo.aqm is None:
        forward = {"router": [netem_command(devs["router_out"], rate, q, base_delay_us, loss)]}
    else:
        if aqm_stage is None:
            raise ValueError("topology.aqm: the middle link's netem stage needs its IFB device")
        if Decimal(loss) > 0:
            raise ValueError(f"topology.aqm: the Mininet backend takes no link loss ({loss})")
        stage_limit = q + delay_line_packets(base_delay_us, rate)
        forward = {"router2": [netem_command(aqm_stage, rate, stage_limit, base_delay_us)]}
    return {
        "router": [
            *forward.get("router", []),
            netem_command(devs["router_in"], access, limit, delay_us),
        ],
        "router2": [
            netem_command(devs["router2_in"], rate, q, base_delay_us, loss),
            *forward.get("router2", []),
            netem_command(devs["router2_out"], access, limit, delay_us),
        ],
    }


LOSSY_EGRESS = {"forward": ("router", "router_out"), "reverse": ("router2", "router2_in")}
"""The lossy egress of each direction of the impaired link: (role, device key)."""


# --- offloads ---------------------------------------------------------------------------------

OFFLOADS = {
    # ethtool -K name: the line of `ethtool -k` that must then read "off"
    "tso": "tcp-segmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
    "lro": "large-receive-offload",
    "tx": "tx-checksumming",
    "rx": "rx-checksumming",
    "sg": "scatter-gather",
}
"""Offloads switched off on every interface: with them a veth carries 64 KB super-packets
and a per-packet dropper or shaper sees dozens of segments as one."""


def offload_command(dev: str) -> list[str]:
    argv = ["ethtool", "-K", dev]
    for short in OFFLOADS:
        argv += [short, "off"]
    return argv


def offloads_still_on(ethtool_k_output: str) -> list[str]:
    """The features of OFFLOADS that `ethtool -k` reports as on (or does not report)."""
    state = {}
    for line in ethtool_k_output.splitlines():
        name, sep, rest = line.strip().partition(":")
        if sep:
            state[name.strip()] = rest.split()[0] if rest.split() else ""
    return [long for long in OFFLOADS.values() if state.get(long) != "off"]
