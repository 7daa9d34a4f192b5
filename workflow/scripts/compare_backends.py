"""Rule compare_backends: ns-3 against Mininet where there is no hardware (docs/variants.md).

Mininet, real Linux TCP, is the reference: rel_diff = (mininet - ns3) / mininet. Every cell of
the scenario's design is a row; one a backend did not run says why in `status`.
"""

import pandas as pd

from emusim.analysis.collect import RATIOS
from emusim.analysis.compare import compare_backends, design_cells, run_statuses
from emusim.backends.mininet import selfcheck
from emusim.core import script_log
from emusim.inputs import variants

log = script_log.setup(snakemake)  # noqa: F821
inp, params = snakemake.input, snakemake.params  # noqa: F821
scenario = params.scenario
stats = pd.read_csv(inp.stats)
statuses = run_statuses(inp.runs)
skipped = {}
for backend, points in params.skipped.items():
    for point, why in points.items():
        # a design that leaves the backend out says "not run: …"; a missing variant is the rest
        skipped[(backend, point)] = "not run" if why.startswith("not run") else "not implemented"
    for why in sorted(set(points.values())):
        log.warning("%s: %s", backend, why)
points = design_cells(scenario)
verdicts = selfcheck.verdicts(inp.batches)
# ns-3's own model of a Linux variant (ns3-cubic) against the emulation's runs of that variant
stand_ins = variants.stand_in_points(scenario.points)
# the workload's metrics and the tidy tables' ratios (a queue's marked fraction): of these,
# what both backends report (emusim.analysis.compare.shared_metrics)
metrics = [*params.metrics, *RATIOS]
table = compare_backends(
    stats, points, metrics, "mininet", "ns3", skipped, statuses, verdicts, stand_ins
)
table.to_csv(snakemake.output[0], index=False)  # noqa: F821
for status, n in table.drop_duplicates(["profile", "point"])["status"].value_counts().items():
    log.info("%d cells: %s", n, status)
