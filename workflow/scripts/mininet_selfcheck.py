"""Rule mininet_selfcheck: every batch's fidelity self-check as a table and a figure."""

from pathlib import Path

from emusim.analysis import plots_selfcheck, tables
from emusim.backends.mininet import selfcheck
from emusim.backends.mininet.calibration import (
    DELAY_TOLERANCE_REL,
    DELAY_TOLERANCE_US,
    THROUGHPUT_TOLERANCE,
)
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
checks = selfcheck.table(snakemake.input)  # noqa: F821
checks.to_csv(snakemake.output.csv, index=False)  # noqa: F821
lo, hi = THROUGHPUT_TOLERANCE
tables.write_table(
    checks.drop(columns=["backend", "line_rate_fraction_min", "line_rate_fraction_max"]),
    Path(snakemake.output.tables[0]).with_suffix(""),  # noqa: F821
    "The Mininet backend's self-check per batch: a loss-free TCP blast as a fraction of the "
    f"line-rate limit (tolerance {lo} to {hi}) and the one-way delay fitted from the batch's "
    "own ping sweep against the configured delay (tolerance the larger of "
    f"{DELAY_TOLERANCE_US:g} us and {DELAY_TOLERANCE_REL:.0%}).",
    label="tab:mininet-selfcheck",
    float_formats={
        "line_rate_fraction": ".4f",
        "delay_configured_us": ".2f",
        "delay_fitted_us": ".1f",
        "delay_fitted_least_squares_us": ".1f",
        "delay_tolerance_us": ".1f",
    },
)
plots_selfcheck.fig_selfcheck(checks, Path(snakemake.output.figure).with_suffix(""))  # noqa: F821
failed = checks[checks["selfcheck"] != "ok"]
log.info("%d batches, %d outside tolerance", len(checks), len(failed))
if len(failed):
    log.warning("self-check failed:\n%s", failed.to_string(index=False))
