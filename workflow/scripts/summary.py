"""Rule summary: median and maximum |rel_diff| per scenario, backend and profile."""

import pandas as pd

from emusim.analysis.compare import summarise_comparisons
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
frames = [pd.read_csv(p) for p in snakemake.input]  # noqa: F821
table = summarise_comparisons(frames)
table.to_csv(snakemake.output[0], index=False)  # noqa: F821
log.info("\n%s", table.to_string())
