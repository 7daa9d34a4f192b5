"""Rule router_forwarding_compare_model: ns-3 with the router processing model against Mininet.

The same comparison as compare_backends.py (ns-3 without the model), with the model's runs:
rel_diff = (mininet - ns3-model) / mininet per point and metric (docs/router-forwarding.md).
"""

from pathlib import Path

import pandas as pd

from emusim.analysis.compare import compare_backends, run_status
from emusim.backends.mininet import selfcheck
from emusim.core import script_log
from emusim.workloads import udp_flood

log = script_log.setup(snakemake)  # noqa: F821
inp, params = snakemake.input, snakemake.params  # noqa: F821
scenario = params.scenario
stats = pd.read_csv(inp.stats)
runs = {Path(p).parent.name: pd.read_csv(p) for p in inp.runs}
statuses = {backend: run_status(table) for backend, table in runs.items()}
points = pd.DataFrame(
    [
        {"scenario": scenario.name, "profile": profile, "point": p.id, **p.values}
        for profile in scenario.profiles
        for p in scenario.points
    ]
)
checks = selfcheck.table(inp.batches)
verdicts = dict(zip(checks["profile"], checks["selfcheck"], strict=True))
table = compare_backends(
    stats, points, list(udp_flood.METRICS), "mininet", params.other, {}, statuses, verdicts
)
table.to_csv(snakemake.output[0], index=False)  # noqa: F821
for metric, group in table.groupby("metric", sort=False):
    log.info("%s: median |rel_diff| %.3g", metric, group["rel_diff"].abs().median())
