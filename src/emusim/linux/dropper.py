"""The packet dropper on a Linux router, as commands: netfilter rules with xt_statistic exactly
as spec/drop-decision.md says, in the router's mangle POSTROUTING chain (after routing, right
before the device queue: where the report's hook in dev_queue_xmit and the kernel module's
NF_INET_POST_ROUTING hook act), or the kernel module's /proc writes. Shared by the Mininet
backend and the testbed.
"""

from __future__ import annotations

from decimal import Decimal

from emusim.core.drop_decision import cutoff_from_rate

# --- dropper ----------------------------------------------------------------------------------

DROPPER_IMPLS = ("module", "netfilter", "auto")
NETFILTER_TABLE = "mangle"
NETFILTER_CHAIN = "POSTROUTING"


def netfilter_probability(rate: str) -> str:
    """p = cutoff / 65536 written so that iptables reads it back exactly (a binary fraction:
    Python's repr is exact), spec/drop-decision.md."""
    return repr(cutoff_from_rate(rate) / 65536)


def dropper_active(dropper: dict) -> bool:
    """Whether the point's dropper can drop anything at all."""
    mode = dropper["mode"]
    if mode == "random":
        return cutoff_from_rate(str(dropper.get("rate", "0"))) > 0
    return mode == "regular" and int(dropper.get("every_n", 0)) > 0


def netfilter_rule(dropper: dict, target: str) -> list[str] | None:
    """The iptables arguments (after ``iptables -w``) of the point's dropper rule, or None
    when the point drops nothing (mode off, rate 0, N = 0)."""
    base = ["-t", NETFILTER_TABLE, "-A", NETFILTER_CHAIN, "-d", f"{target}/32"]
    mode = dropper["mode"]
    if mode == "random":
        rate = str(dropper.get("rate", "0"))
        if cutoff_from_rate(rate) == 0:
            return None
        stat = ["--mode", "random", "--probability", netfilter_probability(rate)]
    elif mode == "regular":
        n = int(dropper.get("every_n", 0))
        if n == 0:
            return None
        stat = ["--mode", "nth", "--every", str(n), "--packet", str(n - 1)]
    else:
        return None
    return [*base, "-m", "statistic", *stat, "-j", "DROP"]


def parse_rule_packets(iptables_save: str) -> int:
    """The packet counter of the dropper's rule in ``iptables-save -c -t mangle`` output
    (the rules' ``[packets:bytes]`` prefix); 0 when there is no statistic rule."""
    total = 0
    for line in iptables_save.splitlines():
        if line.startswith("[") and f"-A {NETFILTER_CHAIN}" in line and "statistic" in line:
            total += int(line[1:].split(":", 1)[0])
    return total


def module_writes(dropper: dict, target: str) -> list[str]:
    """What to write, one write each, to /proc/dropperInfo/dropper (kernel-dropper/README.md).
    The last write binds the dropper to the writer's namespace and restarts the count."""
    mode = dropper["mode"]
    if mode == "regular":
        return ["mode regular", f"every {int(dropper.get('every_n', 0))}"]
    rate = str(dropper.get("rate", "0")) if mode == "random" else "0"
    return ["mode random", f"{module_rate(rate)} {target}"]


def module_rate(rate: str) -> str:
    """The rate as the module's parser takes it: 0, 1, or 0./1. with 1 to 9 decimals."""
    d = Decimal(rate)
    if d in (0, 1):
        return str(int(d))
    text = format(d.normalize(), "f")
    whole, _, frac = text.partition(".")
    if len(frac) > 9:
        raise ValueError(f"drop rate {rate!r} has more than 9 decimals (the module's limit)")
    return f"{whole}.{frac}"
