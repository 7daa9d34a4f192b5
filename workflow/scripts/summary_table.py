"""Rule summary_table: median and maximum |rel_diff| per scenario, backend and profile."""

from pathlib import Path

import pandas as pd

from emusim.analysis import tables
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
summary = pd.read_csv(snakemake.input[0])  # noqa: F821
summary["selfcheck"] = summary["selfcheck"].fillna("")
stem = Path(snakemake.output[0]).with_suffix("")  # noqa: F821
tables.write_table(
    summary,
    stem,
    "How far each backend is from the hardware: median and maximum |(exp - sim) / exp| over "
    "the points of each scenario. selfcheck: the emulation's fidelity self-check (Mininet; "
    "'failed' marks a batch that missed line rate or its configured delay).",
    label="tab:summary",
    float_formats={"median_abs_rel_diff": ".4f", "max_abs_rel_diff": ".4f"},
)
log.info("%d rows", len(summary))
