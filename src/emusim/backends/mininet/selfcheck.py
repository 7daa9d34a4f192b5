"""The emulation's fidelity self-check, gathered over batches and carried into the comparison.

Every Mininet batch measures itself before its runs (writer.evaluate_selfcheck): a
loss-free TCP blast against the line-rate limit, and a short ping sweep whose fitted one-way
delay is set against the configured one. `table` lays the batches' checks side by side
(``results/mininet/selfcheck.csv``); `flag` marks each comparison row with its batch's verdict,
so a number from an emulation that could not hold line rate or its delay is never read as a
property of Linux TCP. Tolerances: emusim.backends.mininet.calibration (THROUGHPUT_TOLERANCE,
DELAY_TOLERANCE_*).
Each row also says which clock the batch measured in (docs/mininet.md, "Dilated time") and the
emulator's own latency per hop that its calibration took off netem's delay.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

#: Columns of the self-check table, in order.
COLUMNS = (
    "scenario",
    "backend",
    "profile",
    "place",
    "kvm",
    "kernel_release",
    "clock",
    "icount_shift",
    "stack_latency_per_hop_us",
    "netem_delay_us",
    "dropper_impl",
    "line_rate_fraction",
    "line_rate_fraction_min",
    "line_rate_fraction_max",
    "throughput_ok",
    "delay_configured_us",
    "delay_fitted_us",
    "delay_fitted_least_squares_us",
    "delay_tolerance_us",
    "delay_ok",
    "sessions",
    "selfcheck",
)


def verdict(throughput_ok: bool | None, delay_ok: bool | None) -> str:
    """``ok``, or ``failed: `` and what failed; a check that does not apply (None) passes."""
    failed = [
        name for name, ok in (("throughput", throughput_ok), ("delay", delay_ok)) if ok is False
    ]
    return "failed: " + ", ".join(failed) if failed else "ok"


def batch_row(batch: dict) -> dict:
    """One self-check table row from a batch.json (docs/results-schema.md)."""
    check = batch.get("selfcheck") or {}
    tput = check.get("throughput", {})
    delay = check.get("delay", {})
    lo, hi = tput.get("tolerance", (float("nan"), float("nan")))
    row = {
        "scenario": batch["scenario"],
        "backend": batch["backend"],
        "profile": batch["profile"],
        "place": batch.get("place"),
        "kvm": batch.get("kvm"),
        "kernel_release": batch.get("kernel_release"),
        # the clock the batch measured in, and the emulator's own latency it calibrated away
        "clock": batch.get("clock", "host" if batch.get("place") == "host" else "tcg-real"),
        "icount_shift": batch.get("icount_shift"),
        "stack_latency_per_hop_us": (batch.get("calibration") or {}).get(
            "stack_latency_per_hop_us", float("nan")
        ),
        "netem_delay_us": batch.get("netem_delay_us", float("nan")),
        "dropper_impl": batch.get("dropper_impl"),
        "line_rate_fraction": tput.get("fraction_of_line_rate", float("nan")),
        "line_rate_fraction_min": lo,
        "line_rate_fraction_max": hi,
        "throughput_ok": tput.get("ok"),
        "delay_configured_us": delay.get("configured_us", float("nan")),
        "delay_fitted_us": delay.get("fitted_two_point_us", float("nan")),
        "delay_fitted_least_squares_us": delay.get("fitted_least_squares_us", float("nan")),
        "delay_tolerance_us": delay.get("tolerance_us", float("nan")),
        "delay_ok": delay.get("ok"),
    }
    # A batch resumed over several sessions fails a check if any of its checked sessions that
    # made runs did (a session may run with --no-selfcheck).
    sessions = [
        s
        for s in batch.get("sessions", [])
        if s.get("runs_written") and s.get("selfcheck_run", True)
    ]
    if not sessions and check:
        sessions = [row]
    row["sessions"] = len(batch.get("sessions", [])) or 1
    if not sessions:
        row["selfcheck"] = "not run"
    else:
        row["selfcheck"] = verdict(
            _all_ok(s.get("throughput_ok") for s in sessions),
            _all_ok(s.get("delay_ok") for s in sessions),
        )
    return row


def _all_ok(values) -> bool | None:
    """False if any is False, else True if any is True, else None (nothing applied)."""
    values = list(values)
    if any(v is False for v in values):
        return False
    return True if any(v is True for v in values) else None


def table(batch_paths: Iterable[str | Path]) -> pd.DataFrame:
    """The self-check of every batch, one row each, in the order given."""
    rows = [batch_row(json.loads(Path(p).read_text())) for p in batch_paths]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def verdicts(batch_paths: Iterable[str | Path]) -> dict[str, str]:
    """profile → the self-check verdict of its batch (`table`'s ``selfcheck``)."""
    checks = table(batch_paths)
    return dict(zip(checks["profile"], checks["selfcheck"], strict=True))


def flag(comparison: pd.DataFrame, checks: pd.DataFrame) -> pd.DataFrame:
    """The comparison with a ``selfcheck`` column: its batch's verdict, or empty for a backend
    that does not check itself (ns-3 is exact by construction; the hardware is the reference).
    """
    out = comparison.copy()
    if checks.empty:
        out["selfcheck"] = ""
        return out
    keys = ["scenario", "backend", "profile"]
    verdicts = checks[[*keys, "selfcheck"]].drop_duplicates(keys)
    out = out.merge(verdicts, on=keys, how="left", validate="m:1")
    out["selfcheck"] = out["selfcheck"].fillna("")
    return out
