"""Rule scenario_table: a scenario's per-point table, every backend side by side."""

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
import _log

from emusim import tables
from emusim.workloads import udp_flood

log = _log.setup(snakemake)  # noqa: F821
scenario = snakemake.params.scenario  # noqa: F821
stats = pd.read_csv(snakemake.input.stats)  # noqa: F821
axes = [a for a in scenario.axes if a in stats]
if scenario.workload_kind == "ping":
    table = tables.rtt_table(stats, x_cols=axes)
elif scenario.workload_kind == udp_flood.WORKLOAD:
    table = tables.side_by_side(stats, udp_flood.TABLE_COLUMNS, x_cols=axes)
else:
    table = tables.elapsed_table(stats, x_cols=axes)
stem = Path(snakemake.output[0]).with_suffix("")  # noqa: F821
caption = f"{scenario.name}: {' '.join(scenario.settings['description'].split())}"
tables.write_table(table, stem, caption, label=f"tab:{scenario.name}")
log.info("%s: %d rows", scenario.name, len(table))
