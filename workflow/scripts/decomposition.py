"""Rule report_2001_decomposition: the emulation's distance from the hardware, taken apart into
"Linux 6.1 is not 2.2" and "the emulator is not the simulator"
(emusim.studies.report_2001.decomposition)."""

from pathlib import Path

import pandas as pd

from emusim.analysis import tables
from emusim.core import script_log
from emusim.studies.report_2001 import decomposition

log = script_log.setup(snakemake)  # noqa: F821
scenarios = snakemake.params.scenarios  # noqa: F821
stats = {n: pd.read_csv(p) for n, p in zip(scenarios, snakemake.input, strict=True)}  # noqa: F821
table = decomposition.decomposition(stats, scenarios)
table.to_csv(snakemake.output.csv, index=False)  # noqa: F821
tables.write_table(
    decomposition.shown(table),
    Path(snakemake.output.table).with_suffix(""),  # noqa: F821
    "The emulation's distance from the hardware taken apart: the median |(exp - sim) / exp| "
    "of each pair over the points both ran (throughput; elapsed time for regular-1in6). "
    "Linux 6.1 against 2.2 is ns-3's linux-6.1 against its linux-2.2 (and the emulation's); the "
    "emulator against the simulator is Mininet against ns-3 with the same profile.",
    label="tab:decomposition",
)
log.info("\n%s", table.to_string())
