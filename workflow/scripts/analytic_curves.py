"""Rule report_2001_analytic_curves: Mathis and PFTK throughput for a drop scenario's profiles."""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from emusim.core import script_log
from emusim.inputs import tcp_profiles
from emusim.studies.report_2001 import analytic

log = script_log.setup(snakemake)  # noqa: F821
delay_us = json.loads(Path(snakemake.input.delay).read_text())["one_way_delay_us"]  # noqa: F821
rtt_s = analytic.data_rtt_s(delay_us)
# Loss event rates: fine steps over the report's range (regular: p = 1/N lies on the same axis).
grid = np.unique(
    np.round(np.concatenate([np.linspace(1e-4, 0.01, 100), np.linspace(0.01, 0.15, 141)]), 6)
)
rows = []
for i, name in enumerate(snakemake.params.profiles):  # noqa: F821
    model = analytic.path_model(tcp_profiles.get(name).ns3_attributes(), rtt_s)
    rows += analytic.curve_rows(list(grid), model, name)
    if i == 0:
        # Mathis depends on the profile only through b, 2 in every profile here.
        rows += analytic.curve_rows(list(grid), model, f"b={model.b}", models=("Mathis",))
table = pd.DataFrame(rows)
table.insert(0, "scenario", snakemake.wildcards.scenario)  # noqa: F821
table.to_csv(snakemake.output[0], index=False)  # noqa: F821
log.info("RTT %.1f µs from delay %.3f µs; %d rows", rtt_s * 1e6, delay_us, len(table))
