"""The Mininet backend's two dropper implementations on the router (netfilter rules, or the
kernel module through /proc), and none.
"""

from __future__ import annotations

import shlex
import subprocess
from typing import TYPE_CHECKING

from emusim.backends.mininet.host import (
    MODULE_PATH,
    PROC_DROPPER,
    PROC_NUM_DROPPED,
    EmuError,
    module_vermagic,
)
from emusim.linux.dropper import (
    NETFILTER_TABLE,
    dropper_active,
    module_writes,
    netfilter_rule,
    parse_rule_packets,
)

if TYPE_CHECKING:  # a dropper acts on a network, which makes it (no import cycle)
    from emusim.backends.mininet.network import Network


# --- droppers ---------------------------------------------------------------------------------


class NetfilterDropper:
    """xt_statistic rules in the router's mangle POSTROUTING chain; the rule's packet counter
    is the drop count. Each run starts with a fresh rule (the nth counter starts at 0)."""

    name = "netfilter"

    def __init__(self, net: Network):
        self.net = net

    def prepare(self) -> dict:
        version = self.net.run("router", ["iptables", "-V"]).strip()
        return {"iptables": version}

    def configure(self, dropper: dict, target: str) -> None:
        cmds = [["iptables", "-w", "-t", NETFILTER_TABLE, "-F"]]
        rule = netfilter_rule(dropper, target)
        if rule:
            cmds.append(["iptables", "-w", *rule])
        self.net.script("router", cmds)

    def dropped(self) -> int:
        out = self.net.run("router", ["iptables-save", "-c", "-t", NETFILTER_TABLE])
        return parse_rule_packets(out)

    def rules(self) -> str:
        return self.net.run("router", ["iptables-save", "-c", "-t", NETFILTER_TABLE])

    def seen(self) -> int | None:
        """The rule counts its drops only, not the packets it decided on."""
        return None


class ModuleDropper:
    """kernel-dropper's dropper.ko, bound to the router's namespace by writing its /proc file
    from there (the module acts in the namespace of the last writer)."""

    name = "module"

    def __init__(self, net: Network):
        self.net = net

    def prepare(self) -> dict:
        if not PROC_DROPPER.exists():
            proc = subprocess.run(["insmod", str(MODULE_PATH)], capture_output=True, text=True)
            if proc.returncode != 0:
                raise EmuError(f"insmod {MODULE_PATH} failed: {proc.stderr.strip()}")
        return {"module": str(MODULE_PATH), "vermagic": module_vermagic() or "loaded"}

    def configure(self, dropper: dict, target: str) -> None:
        writes = [(PROC_DROPPER, t) for t in module_writes(dropper, target)]
        writes.append((PROC_NUM_DROPPED, "reset"))
        # one write(2) per command, from the router's namespace (which binds the dropper)
        text = "\n".join(f"echo {shlex.quote(t)} > {path}" for path, t in writes)
        ns = self.net.run("router", ["sh", "-ec", text + "\nreadlink /proc/self/ns/net"]).strip()
        info = self.state()
        if info.get("netns") != ns:
            raise EmuError(f"the dropper module acts in {info.get('netns')}, not the router {ns}")

    def state(self) -> dict[str, str]:
        return dict(
            line.split(None, 1) for line in PROC_DROPPER.read_text().splitlines() if " " in line
        )

    def dropped(self) -> int:
        return int(PROC_NUM_DROPPED.read_text().split()[0])

    def seen(self) -> int | None:
        """Target packets the module has decided on since it was loaded (its "packets")."""
        return int(self.state()["packets"])

    def rules(self) -> str:
        return PROC_DROPPER.read_text()


class NoDropper:
    """A batch in which no point drops anything uses no dropper at all."""

    name = "none"

    def __init__(self, net: Network):
        self.net = net

    def prepare(self) -> dict:
        return {}

    def configure(self, dropper: dict, target: str) -> None:
        if dropper_active(dropper):
            raise EmuError(f"this batch has no dropper, but a point asks for {dropper}")

    def dropped(self) -> int:
        return 0

    def seen(self) -> int | None:
        return None

    def rules(self) -> str:
        return ""


def make_dropper(impl: str, net: Network):
    return {"netfilter": NetfilterDropper, "module": ModuleDropper, "none": NoDropper}[impl](net)
