"""What the blast tools' hosts print, parsed: the tools' JSON result line, and Linux's
protocol counters (/proc/net/netstat, /proc/net/snmp). The same tools run in the emulation
(emusim.backends.mininet) and on a testbed (emusim.backends.testbed)."""

from __future__ import annotations

import contextlib
import json


def last_json(text: str) -> dict | None:
    """The last line of a tool's output that is a JSON object (the tools print their result
    last, after any progress lines), or None when there is none."""
    lines = [ln for ln in text.splitlines() if ln.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def parse_netstat(text: str) -> dict[str, int]:
    """/proc/net/netstat or /proc/net/snmp: "Prefix: names" / "Prefix: values" line pairs."""
    out: dict[str, int] = {}
    lines = text.splitlines()
    for head, values in zip(lines[::2], lines[1::2], strict=False):
        prefix, _, names = head.partition(":")
        _, _, nums = values.partition(":")
        for name, num in zip(names.split(), nums.split(), strict=False):
            with contextlib.suppress(ValueError):
                out[f"{prefix}.{name}"] = int(num)
    return out


def udp_blast_metrics(sent: dict, received: dict) -> dict:
    """A UDP blast's metrics from the results of `udpblast send` and `udpblast recv`: its
    duration (the sender's), the datagrams sent, received and lost, and their size."""
    return {
        "elapsed_s": sent["elapsed_s"],
        "datagrams_sent": sent["datagrams_sent"],
        "datagrams_received": received["datagrams_received"],
        "datagrams_lost": sent["datagrams_sent"] - received["datagrams_received"],
        "datagram_size_B": sent["datagram_size_B"],
    }
