"""The testbed inventory: which machines play sender, router and receiver, and how to reach them.

A YAML file (documented example: config/testbed.example.yaml) validated against
``emusim/schemas/inventory.schema.yaml``. Errors name the file, the key, the value and what is
accepted. A ``password`` key anywhere is refused: the hosts are reached with a key file (and
BatchMode, so SSH never prompts), and a password must never sit in a file of the study.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from emusim.core import schema_errors, yaml_text

SCHEMA_PATH = Path(__file__).parents[2] / "schemas" / "inventory.schema.yaml"
ROLES = ("sender", "router", "receiver")

DEFAULT_SSH = {"user": "root", "port": 22}
DEFAULT_TOOLS_DIR = "/usr/local/lib/emusim"
DEFAULT_PORT = 1026
"""The report's blast server port."""
DEFAULT_CLOCK_MAX_OFFSET_MS = 50.0
"""See docs/testbed.md, "Clocks": nothing compares two hosts' timestamps within a run."""
DEFAULT_CLOCK_PROBES = 8
DEFAULT_CONNECT_S = 10.0
DEFAULT_COMMAND_S = 60.0
DEFAULT_RUN_MARGIN_S = 120.0
DEFAULT_MAX_ATTEMPTS = 3
FORBIDDEN_KEYS = ("password", "passphrase")


class InventoryError(ValueError):
    """The inventory is invalid; the message names the file, the key and the value."""


@dataclass(frozen=True)
class SshTarget:
    """How the controller reaches one host."""

    host: str
    user: str
    port: int
    identity_file: Path | None
    known_hosts: Path | None


@dataclass(frozen=True)
class Host:
    """One machine of the testbed in its role, with its data-plane interfaces."""

    role: str
    name: str
    ssh: SshTarget
    interfaces: tuple[str, ...]
    addresses: tuple[str, ...]
    """CIDR, one per interface (the router: toward the sender, toward the receiver)."""

    @property
    def ips(self) -> tuple[str, ...]:
        return tuple(a.split("/")[0] for a in self.addresses)

    @property
    def label(self) -> str:
        """How messages name the host: role, name and SSH address."""
        return f"{self.role} {self.name} ({self.ssh.user}@{self.ssh.host}:{self.ssh.port})"


@dataclass(frozen=True)
class Inventory:
    """A validated inventory."""

    path: Path
    name: str
    hosts: dict[str, Host]
    tools_dir: str
    port: int
    dropper_load: str
    dropper_module: str | None
    dropper_source_dir: str | None
    offloads: str
    clock_max_offset_ms: float
    clock_probes: int
    connect_timeout_s: float
    command_timeout_s: float
    run_margin_s: float
    max_attempts: int
    raw: dict

    @property
    def sender(self) -> Host:
        return self.hosts["sender"]

    @property
    def router(self) -> Host:
        return self.hosts["router"]

    @property
    def receiver(self) -> Host:
        return self.hosts["receiver"]

    def summary(self) -> dict:
        """What every run's provenance says about the testbed."""
        return {
            "name": self.name,
            "inventory": str(self.path),
            "hosts": {
                r: {"name": h.name, "ssh": h.ssh.host, "addresses": list(h.addresses)}
                for r, h in self.hosts.items()
            },
        }


@cache
def _schema() -> dict:
    return yaml_text.safe_load(SCHEMA_PATH.read_text())


_key = schema_errors.key


def _find_forbidden(data: Any, path: tuple = ()) -> tuple | None:
    if isinstance(data, dict):
        for key, value in data.items():
            if str(key).lower() in FORBIDDEN_KEYS:
                return (*path, key)
            found = _find_forbidden(value, (*path, key))
            if found:
                return found
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found = _find_forbidden(value, (*path, i))
            if found:
                return found
    return None


def validate(data: dict, path: Path) -> None:
    """Raise InventoryError for the first problem, naming file, key and value."""
    forbidden = _find_forbidden(data)
    if forbidden:
        raise InventoryError(
            f"{path}: key {_key(forbidden)!r}: passwords are not accepted in an inventory; "
            "give the host an SSH key instead (identity_file, and the public key in the "
            "host's authorized_keys; README.md, 'Attach your testbed')"
        )
    message = schema_errors.first_error(data, _schema())
    if message:
        raise InventoryError(f"{path}: {message}")


def _expand(value: str | None, base: Path) -> Path | None:
    """A file named in the inventory: ~ expanded, relative to the inventory's directory."""
    if value is None:
        return None
    p = Path(value).expanduser()
    return p if p.is_absolute() else (base / p).resolve()


def _ssh_target(defaults: dict, own: dict, base: Path, path: Path, role: str) -> SshTarget:
    merged = {**DEFAULT_SSH, **defaults, **own}
    if "host" not in merged:
        raise InventoryError(f"{path}: key 'hosts.{role}.ssh.host' is missing (address to SSH to)")
    return SshTarget(
        host=str(merged["host"]),
        user=str(merged["user"]),
        port=int(merged["port"]),
        identity_file=_expand(merged.get("identity_file"), base),
        known_hosts=_expand(merged.get("known_hosts"), base),
    )


def _check_addresses(hosts: dict[str, Host], path: Path) -> None:
    """The data plane must be the report's: sender and router ingress on one subnet, router
    egress and receiver on another; and SSH must not travel over it (the dropper would see
    the receiver's SSH packets)."""
    s, r, c = hosts["sender"], hosts["router"], hosts["receiver"]
    for a, b, what in (
        (s.addresses[0], r.addresses[0], "hosts.sender.address and hosts.router.addresses.0"),
        (r.addresses[1], c.addresses[0], "hosts.router.addresses.1 and hosts.receiver.address"),
    ):
        try:
            na, nb = ipaddress.ip_interface(a).network, ipaddress.ip_interface(b).network
        except ValueError as err:
            raise InventoryError(f"{path}: {what}: {err}") from None
        if na != nb:
            raise InventoryError(
                f"{path}: keys {what} have values {a!r}, {b!r}: not one subnet; each link of "
                "the data plane joins two hosts on one subnet"
            )
    data_ips = {ip for h in hosts.values() for ip in h.ips}
    for role, h in hosts.items():
        if h.ssh.host in data_ips:
            raise InventoryError(
                f"{path}: key 'hosts.{role}.ssh.host' has value {h.ssh.host!r}, a data-plane "
                "address; reach the hosts over a management network, not through the router "
                "whose dropper counts and drops packets to the receiver"
            )


def load(path: str | Path) -> Inventory:
    """Read and validate an inventory file."""
    path = Path(path)
    data = schema_errors.read_mapping(path, InventoryError, "hardware.inventory")
    validate(data, path)
    base = path.resolve().parent
    defaults = data.get("ssh", {})
    hosts = {}
    for role in ROLES:
        h = data["hosts"][role]
        ifaces = h["interfaces"] if role == "router" else [h["interface"]]
        addrs = h["addresses"] if role == "router" else [h["address"]]
        hosts[role] = Host(
            role=role,
            name=h["name"],
            ssh=_ssh_target(defaults, h["ssh"], base, path, role),
            interfaces=tuple(ifaces),
            addresses=tuple(addrs),
        )
    _check_addresses(hosts, path)
    dropper = data.get("dropper", {})
    load_mode = dropper.get("load", "present")
    if load_mode == "insmod" and "module" not in dropper:
        raise InventoryError(
            f"{path}: key 'dropper.load' has value 'insmod' but 'dropper.module' (the path of "
            "dropper.ko on the router) is missing"
        )
    clock, timeouts = data.get("clock", {}), data.get("timeouts", {})
    return Inventory(
        path=path,
        name=data["name"],
        hosts=hosts,
        tools_dir=data.get("tools_dir", DEFAULT_TOOLS_DIR),
        port=int(data.get("port", DEFAULT_PORT)),
        dropper_load=load_mode,
        dropper_module=dropper.get("module"),
        dropper_source_dir=dropper.get("source_dir"),
        offloads=data.get("offloads", "off"),
        clock_max_offset_ms=float(clock.get("max_offset_ms", DEFAULT_CLOCK_MAX_OFFSET_MS)),
        clock_probes=int(clock.get("probes", DEFAULT_CLOCK_PROBES)),
        connect_timeout_s=float(timeouts.get("connect_s", DEFAULT_CONNECT_S)),
        command_timeout_s=float(timeouts.get("command_s", DEFAULT_COMMAND_S)),
        run_margin_s=float(timeouts.get("run_margin_s", DEFAULT_RUN_MARGIN_S)),
        max_attempts=int(data.get("checks", {}).get("max_attempts", DEFAULT_MAX_ATTEMPTS)),
        raw=data,
    )
