"""TCP profiles: the registry in config/tcp_profiles.yaml, and the settings each backend gets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from emusim.core import yaml_text
from emusim.core.paths import CONFIG_DIR

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

    def draws_random_numbers(self) -> bool:
        """Whether an attribute is a random variable other than a constant (the linux-2.2
        tick phase): then every repetition of every point differs, dropper or not."""
        return any(
            "RandomVariable[" in v and "ConstantRandomVariable" not in v
            for v in self.ns3_attributes().values()
        )


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
    data = yaml_text.safe_load(path.read_text())
    common = tuple(_parameter("common", p, path) for p in data.get("common", []))
    out = {}
    for name, raw in data["profiles"].items():
        params = tuple(_parameter(name, p, path) for p in raw.get("parameters", []))
        parent = raw.get("extends")
        if parent is not None:
            # another profile's parameters, those named again here replaced in place
            if parent not in out:
                raise ValueError(
                    f"{path}: key 'profiles.{name}.extends' has value {parent!r}; it must "
                    f"name a profile defined above it ({', '.join(out) or 'none'})"
                )
            own = {p.name: p for p in params}
            inherited = out[parent].parameters[len(common) :]
            params = tuple(own.pop(p.name, p) for p in inherited) + tuple(own.values())
        out[name] = Profile(name, raw.get("description", "").strip(), common + params)
    return out


@dataclass(frozen=True)
class AblationStep:
    """Step k of the ablation: the base profile plus the target's first k parameters."""

    index: int
    parameter: str  # the parameter this step adds ("none (<base>)" for step 0)
    profile: Profile


ABLATION_PREFIX = "ablation-"


@cache
def ablation(path: Path = PROFILES_PATH) -> list[AblationStep]:
    """The ablation's steps (the `ablation` block of the registry), step 0 being the base.

    Step k's profile is called ``ablation-kk``; it holds the common parameters, the base
    profile's own, and the first k parameters of the documented order: the target profile's,
    or `stand_ins` (what an earlier model used in place of one of them, overridden when the
    target's own parameter of the same attribute follows). Step 0
    is the base profile and the last step the target profile, under their own names, so their
    runs are those of the main sweeps. The order must name every parameter of the target once.
    """
    data = yaml_text.safe_load(path.read_text())
    spec = data.get("ablation")
    if not spec:
        return []
    reg = registry(path)
    for key in ("base", "target"):
        if spec.get(key) not in reg:
            raise ValueError(
                f"{path}: key 'ablation.{key}' has value {spec.get(key)!r}; "
                f"it must name a profile ({', '.join(reg)})"
            )
    base, target = reg[spec["base"]], reg[spec["target"]]
    own = {p.name: p for p in target.parameters if p.profile == target.name}
    stand_ins = {
        p.name: p for p in (_parameter("stand-in", raw, path) for raw in spec.get("stand_ins", []))
    }
    clash = sorted(set(stand_ins) & set(own))
    if clash:
        raise ValueError(
            f"{path}: key 'ablation.stand_ins' repeats names of {target.name}: {clash}"
        )
    order = list(spec.get("order", []))
    known = {**own, **stand_ins}
    if sorted(order) != sorted(known) or len(set(order)) != len(order):
        raise ValueError(
            f"{path}: key 'ablation.order' must name each parameter of {target.name} and each "
            f"stand-in once; missing {sorted(set(known) - set(order))}, unknown or repeated "
            f"{sorted({n for n in order if n not in known or order.count(n) > 1})}"
        )
    if order and order[-1] not in own:
        raise ValueError(
            f"{path}: key 'ablation.order' must end with a parameter of {target.name}, not "
            f"the stand-in {order[-1]!r} (the last step is the target itself)"
        )
    steps = [AblationStep(0, f"none ({base.name})", base)]
    for k in range(1, len(order)):
        params = base.parameters + tuple(known[name] for name in order[:k])
        name = f"{ABLATION_PREFIX}{k:02d}"
        desc = f"{base.name} + the first {k} parameters of {target.name}"
        steps.append(AblationStep(k, order[k - 1], Profile(name, desc, params)))
    # The last step is the target itself: its runs are the main sweep's.
    return [*steps, AblationStep(len(order), order[-1], target)]


def get(name: str) -> Profile:
    """The profile called `name` (a registry profile or an ablation step), or an error."""
    reg = registry()
    if name in reg:
        return reg[name]
    for step in ablation():
        if step.profile.name == name:
            return step.profile
    raise KeyError(f"no TCP profile {name!r} in {PROFILES_PATH}; known: {', '.join(reg)}")
