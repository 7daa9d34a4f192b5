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


def impaired_link_commands(
    topo: Topology,
    devs: dict[str, str],
    loss: str,
    delay_ms: float,
    base_delay_us: float = 0.0,
    absorb_us: float = 0.0,
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
    delay on the link itself. `base_delay_us` is the per-link netem delay of the topology's
    own delay (`netem_delay_us`); `absorb_us` is taken off the point's delay: the emulator's
    own latency over the path's hops in one direction that their netem delays could not
    absorb (`delay_shortfall_us` per hop), so the path's one-way delay is the point's.
    """
    if topo.router2_in is None:
        raise ValueError("the impaired link joins router and router2; this topology has none")
    q, rate = topo.router_queue, topo.rate_bps
    delay_us = max(float(delay_ms) * 1000 + base_delay_us - absorb_us, 0.0)
    limit = q + delay_line_packets(delay_us, rate)
    return {
        "router": [
            netem_command(devs["router_out"], rate, q, base_delay_us, loss),
            netem_command(devs["router_in"], rate, limit, delay_us),
        ],
        "router2": [
            netem_command(devs["router2_in"], rate, q, base_delay_us, loss),
            netem_command(devs["router2_out"], rate, limit, delay_us),
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
