"""The udp-blast workload: ``datagrams`` datagrams of ``datagram_size_B`` bytes sent as fast as
the sender can (the 2001 report's UDP blast test, its Table 3.2). Its metrics are the send's
elapsed time and the datagrams lost (docs/results-schema.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from emusim.linux import tools
from emusim.linux.blast_output import udp_blast_metrics
from emusim.linux.hosts import Dropper, Hosts
from emusim.workloads import LINE_PROGRAMS, Blast, blast_schema


class UdpBlast(Blast):
    kind = "udp-blast"
    summary = "a fixed number of UDP datagrams sent as fast as the sender can"
    ns3_workload, count_key, size_key = "udp", "datagrams", "datagram_size_B"
    schema: ClassVar[Mapping[str, Any]] = blast_schema(kind, count_key, size_key, 65507)
    ns3_programs = (LINE_PROGRAMS[False],)

    def run_linux(self, hosts: Hosts, dropper: Dropper, entry: dict, plan: dict) -> dict:
        w = entry["workload"]
        datagrams, cap_s = int(w["datagrams"]), plan["cap_s"]
        sent, got = tools.udp_blast(hosts, datagrams, int(w["datagram_size_B"]), cap_s)
        return {
            "status": "ok",
            "metrics": {**udp_blast_metrics(sent, got), "packets_dropped": dropper.dropped()},
            "facts": {
                "send_errors": sent["send_errors"],
                "receiver_end": got.get("end"),
                "host_io_irqs": sent.get("host_io_irqs"),
                "cpu_busy_fraction": sent.get("cpu_busy_fraction"),
            },
        }

    def consistency_checks(
        self, metrics: Mapping[str, Any], workload: Mapping[str, Any], dropper_active: bool
    ) -> list[dict[str, Any]]:
        # the receiver may lose datagrams, but never fewer than the dropper dropped
        return [loss_check(int(metrics["datagrams_lost"]), int(metrics["packets_dropped"]))]


def loss_check(lost: int, dropped: int) -> dict[str, Any]:
    return {"check": "udp_loss", "lost": lost, "dropped": dropped, "ok": lost >= dropped}


WORKLOAD = UdpBlast()
