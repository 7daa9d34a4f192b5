"""Rule stats: per backend, profile, point and metric: mean, SDs, CI (docs/results-schema.md)."""

import pandas as pd

from emusim.analysis.stats import summarise
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
scenario = snakemake.params.scenario  # noqa: F821
runs = pd.concat([pd.read_csv(p) for p in snakemake.input], ignore_index=True)  # noqa: F821
if "datagrams_sent" in runs:
    # The report's UDP throughput counts datagrams like TCP writes: 1526 x N / elapsed (§3.1.2).
    runs["writes"] = runs["datagrams_sent"]
drop_prob = "drop_rate" if scenario.settings["impairment"]["dropper"]["mode"] == "random" else None
table = summarise(runs, scenario.axes, drop_prob_col=drop_prob)
table.to_csv(snakemake.output[0], index=False)  # noqa: F821
log.info("%s: %d rows from %d runs", scenario.name, len(table), len(runs))
