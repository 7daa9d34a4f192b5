"""Rule compare: (exp - sim) / exp per backend, profile, point and metric (report Chapter 5)."""

import pandas as pd

from emusim.analysis.compare import compare, unmatched_points
from emusim.backends.mininet import selfcheck
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
stats = pd.read_csv(snakemake.input.stats)  # noqa: F821
metrics = snakemake.params.metrics  # noqa: F821
checks = selfcheck.table(snakemake.input.batches)  # noqa: F821
table = selfcheck.flag(compare(stats, metrics), checks)
table.to_csv(snakemake.output[0], index=False)  # noqa: F821
log.info("%d comparisons of %s", len(table), ", ".join(metrics))
flagged = table[~table["selfcheck"].isin(["", "ok"])]
if len(flagged):
    log.warning(
        "%d comparison rows from batches whose self-check failed: %s",
        len(flagged),
        sorted(set(map(tuple, flagged[["backend", "profile", "selfcheck"]].to_numpy()))),
    )
missing = unmatched_points(stats, metrics)
if len(missing):
    log.warning("points without a counterpart:\n%s", missing.to_string())
