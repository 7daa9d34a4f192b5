"""Rule trace_summary: what each traced ns-3 run spent its time on (emusim.tcptrace)."""

import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
import _log

from emusim import tcptrace

log = _log.setup(snakemake)  # noqa: F821
rows = []
for path in snakemake.input:  # noqa: F821
    if not path.endswith(".csv.gz"):
        continue
    run = json.loads(Path(path[: -len(".csv.gz")] + ".json").read_text())
    scenario, profile, point = Path(path).parts[-4:-1]
    trace = tcptrace.read(path)
    row = {"scenario": scenario, "profile": profile, "point": point, "status": run["status"]}
    row.update(tcptrace.summary(trace))
    rows.append(row)
    log.info("%s/%s/%s: %s", scenario, profile, point, row)
pd.DataFrame(rows).to_csv(snakemake.output[0], index=False)  # noqa: F821
