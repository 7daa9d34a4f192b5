"""Rule report_2001_ablation_summary: median and max |rel_diff| after each ablation step, and
its table."""

from pathlib import Path

import pandas as pd

from emusim.analysis import tables
from emusim.core import script_log
from emusim.studies.report_2001 import ablation

log = script_log.setup(snakemake)  # noqa: F821
table = ablation.summary([pd.read_csv(p) for p in snakemake.input])  # noqa: F821
table.to_csv(snakemake.output.csv, index=False)  # noqa: F821
shown = table[table["metric"] == "throughput_report_Bps"].pivot_table(
    index=["step", "parameter"],
    columns="scenario",
    values=["median_abs_rel_diff", "max_abs_rel_diff"],
)
shown.columns = [f"{scenario}: {stat.split('_')[0]} |rel_diff|" for stat, scenario in shown.columns]
shown = shown[sorted(shown.columns)].reset_index()
tables.write_table(
    shown,
    Path(snakemake.output.table).with_suffix(""),  # noqa: F821
    "Calibration ablation: ns-3 against the hardware (throughput) as the linux-2.2 parameters "
    "are applied one at a time, in order, to ns-3's defaults.",
    label="tab:ablation",
)
log.info("\n%s", shown.to_string())
