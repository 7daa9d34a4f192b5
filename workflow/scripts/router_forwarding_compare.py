"""Rule router_forwarding_compare_model: ns-3 with the router processing model against Mininet.

The same comparison as compare_backends.py (ns-3 without the model), with the model's runs:
rel_diff = (mininet - ns3-model) / mininet per point and metric (docs/router-forwarding.md).
"""

import pandas as pd

from emusim.analysis.compare import compare_backends, design_cells, run_statuses
from emusim.backends.mininet import selfcheck
from emusim.core import script_log
from emusim.workloads import udp_flood

log = script_log.setup(snakemake)  # noqa: F821
inp, params = snakemake.input, snakemake.params  # noqa: F821
scenario = params.scenario
stats = pd.read_csv(inp.stats)
statuses = run_statuses(inp.runs)
points = design_cells(scenario)
verdicts = selfcheck.verdicts(inp.batches)
table = compare_backends(
    stats, points, list(udp_flood.METRICS), "mininet", params.other, {}, statuses, verdicts
)
table.to_csv(snakemake.output[0], index=False)  # noqa: F821
for metric, group in table.groupby("metric", sort=False):
    log.info("%s: median |rel_diff| %.3g", metric, group["rel_diff"].abs().median())
