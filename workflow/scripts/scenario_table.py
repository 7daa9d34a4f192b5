"""Rule scenario_table: a scenario's per-point table, every backend side by side."""

from pathlib import Path

import pandas as pd

from emusim import workloads
from emusim.analysis import tables
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
scenario = snakemake.params.scenario  # noqa: F821
stats = pd.read_csv(snakemake.input.stats)  # noqa: F821
axes = [a for a in scenario.axes if a in stats]
table = tables.side_by_side(stats, workloads.of(scenario.settings).table_columns, x_cols=axes)
stem = Path(snakemake.output[0]).with_suffix("")  # noqa: F821
caption = f"{scenario.name}: {' '.join(scenario.settings['description'].split())}"
tables.write_table(table, stem, caption, label=f"tab:{scenario.name}")
log.info("%s: %d rows", scenario.name, len(table))
