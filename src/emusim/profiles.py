"""TCP profiles: the registry in config/tcp_profiles.yaml, and the settings each backend gets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from emusim.paths import CONFIG_DIR

PROFILES_PATH = CONFIG_DIR / "tcp_profiles.yaml"


@dataclass(frozen=True)
class Parameter:
    """One documented TCP setting."""

    profile: str
    name: str
    value: str
    ns3: dict[str, str]
    source: str
    checked: str


@dataclass(frozen=True)
class Profile:
    """A named TCP profile."""

    name: str
    description: str
    parameters: tuple[Parameter, ...]

    def ns3_attributes(self) -> dict[str, str]:
        """ns-3 attribute defaults, common ones first; later entries override earlier ones."""
        attrs: dict[str, str] = {}
        for p in self.parameters:
            attrs.update(p.ns3)
        return attrs

    def ns3_args(self) -> list[str]:
        """Command-line arguments that set the attributes (ns-3's CommandLine syntax)."""
        return [f"--{k}={v}" for k, v in self.ns3_attributes().items()]


def _parameter(profile: str, raw: dict, path: Path) -> Parameter:
    missing = {"name", "value", "source", "checked"} - set(raw)
    if missing:
        raise ValueError(f"{path}: profile {profile}: parameter {raw!r} lacks {sorted(missing)}")
    ns3 = {str(k): str(v) for k, v in (raw.get("ns3") or {}).items()}
    return Parameter(
        profile, str(raw["name"]), str(raw["value"]), ns3, raw["source"], raw["checked"]
    )


@cache
def registry(path: Path = PROFILES_PATH) -> dict[str, Profile]:
    """All profiles by name; the `common` parameters come first in each."""
    data = yaml.safe_load(path.read_text())
    common = tuple(_parameter("common", p, path) for p in data.get("common", []))
    out = {}
    for name, raw in data["profiles"].items():
        params = tuple(_parameter(name, p, path) for p in raw.get("parameters", []))
        out[name] = Profile(name, raw.get("description", "").strip(), common + params)
    return out


def get(name: str) -> Profile:
    """The profile called `name`, or an error listing the known ones."""
    reg = registry()
    if name not in reg:
        raise KeyError(f"no TCP profile {name!r} in {PROFILES_PATH}; known: {', '.join(reg)}")
    return reg[name]
