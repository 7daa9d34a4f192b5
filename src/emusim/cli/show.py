"""`emusim show RUN_JSON`: a run JSON's metrics and provenance, readable."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from emusim.cli.common import Failure, UsageError, _cell, _table


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


def _metric(value: Any) -> str:
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
        mean = sum(value) / len(value)
        return (
            f"{len(value)} values: mean {_number(mean)}, min {_number(min(value))}, "
            f"max {_number(max(value))}"
        )
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return _number(value)


ROLES = ("sender", "router", "router2", "receiver")
"""A testbed's hosts in the order of the path (a run JSON's keys are sorted)."""


def _by_role(hosts: dict) -> list[tuple[str, Any]]:
    return sorted(hosts.items(), key=lambda kv: ROLES.index(kv[0]) if kv[0] in ROLES else 9)


def _kernel(run: dict, prov: dict) -> str:
    kernel = prov.get("kernel_release")
    if isinstance(kernel, dict):
        return ", ".join(f"{role} {release}" for role, release in _by_role(kernel))
    if kernel:
        return str(kernel)
    if run.get("backend", "").startswith("ns3"):
        return f"none (simulated: ns-3 {(prov.get('ns3') or {}).get('version', '?')})"
    return "-"


def _clock(run: dict, prov: dict) -> str:
    if prov.get("clock"):
        shift = prov.get("icount_shift")
        return str(prov["clock"]) + (f" (icount shift {shift})" if shift is not None else "")
    hosts = ((prov.get("testbed") or {}).get("hosts")) or {}
    offsets = [
        f"{role} {h['clock_offset_ms']:+.3f} ms"
        for role, h in _by_role(hosts)
        if isinstance(h, dict) and h.get("clock_offset_ms") is not None
    ]
    if offsets:
        return "the controller's; host offsets " + ", ".join(offsets)
    if run.get("backend", "").startswith("ns3"):
        return "simulated time (ns-3)"
    return "-"


def _params(params: Any, point: Any) -> str:
    """A point's parameters in its ID's order (the scenario's axes), else the file's."""
    if not isinstance(params, dict):
        return _cell(params)
    order = [part.split("=", 1)[0] for part in str(point).split("+")]
    keys = sorted(params, key=lambda k: order.index(k) if k in order else len(order))
    return ", ".join(f"{k}={params[k]}" for k in keys) or "none (point base)"


SHOWN = (
    "git_revision",
    "kernel_release",
    "clock",
    "icount_shift",
    "scale",
    "one_way_delay_us",
    "dropper_impl",
    "place",
    "host",
    "wall_s",
    "command",
    "ns3",
    "testbed",
)


def cmd_show(args: argparse.Namespace, extra: list[str]) -> int:
    path = Path(args.run)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except OSError as err:
        raise Failure(f"{path}: {err}") from None
    try:
        run = json.loads(text)
    except json.JSONDecodeError as err:
        raise Failure(f"{path}: not JSON: {err}") from None
    missing = [
        k for k in ("scenario", "backend", "metrics") if not isinstance(run, dict) or k not in run
    ]
    if missing:
        raise Failure(
            f"{path}: not a run JSON (docs/results-schema.md): no key {', '.join(missing)}"
        )
    if args.json:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    prov = run.get("provenance") or {}
    ns3 = prov.get("ns3") if isinstance(prov.get("ns3"), dict) else {}
    print(f"run {path}")
    _table(
        ["", ""],
        [
            ["scenario", run.get("scenario")],
            ["point", run.get("point")],
            ["repetition", f"{run.get('repetition')} (seed {_cell(run.get('seed'))})"],
            ["status", run.get("status")],
        ],
    )
    print("\nmetrics")
    metrics = run["metrics"] if isinstance(run["metrics"], dict) else {}
    _table(["metric", "value"], [[k, _metric(v)] for k, v in metrics.items()])
    if "series" in run:
        series = run["series"] if isinstance(run["series"], dict) else {}
        samples = len(series.get("t_s") or [])
        print(f"series: {', '.join(series)} ({samples} samples; --json for them)")
    rows = [
        ["backend", run.get("backend")],
        ["profile", run.get("profile")],
        ["kernel release", _kernel(run, prov)],
        ["clock", _clock(run, prov)],
        ["git revision", prov.get("git_revision", "-")],
        ["parameters", _params(run.get("params"), run.get("point"))],
        ["scale", prov.get("scale", "-")],
    ]
    if "one_way_delay_us" in prov:
        rows.append(["one-way delay", f"{_number(prov['one_way_delay_us'])} µs"])
    if "dropper_impl" in prov:
        rows.append(["dropper", prov["dropper_impl"]])
    if "place" in prov or "host" in prov:
        rows.append(["place", prov.get("place") or prov.get("host")])
    if "wall_s" in prov:
        rows.append(["wall time", f"{_number(prov['wall_s'])} s"])
    if ns3:
        rows.append(["ns-3", ", ".join(f"{k} {_number(v)}" for k, v in ns3.items())])
    if isinstance(prov.get("testbed"), dict):
        hosts = (prov["testbed"].get("hosts")) or {}
        rows.append(
            ["testbed", ", ".join(f"{r} {h.get('hostname', '?')}" for r, h in _by_role(hosts))]
        )
    if isinstance(prov.get("command"), list):
        rows.append(["command", shlex.join(str(c) for c in prov["command"])])
    for key, value in prov.items():
        if key in SHOWN:
            continue
        if isinstance(value, (dict, list)):
            size = f"{len(value)} {'keys' if isinstance(value, dict) else 'items'}"
            rows.append([key, f"({size}; --json for them)"])
        else:
            rows.append([key, _number(value) if isinstance(value, float) else _cell(value)])
    print("\nprovenance")
    _table(None, rows)
    return 0
