"""Rule testbed_collect: the run JSONs of a testbed batch, to the hardware's tidy per-run table."""

import json
from pathlib import Path

from emusim.analysis.collect import read_runs, tidy
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
batch = json.loads(Path(snakemake.input.batch).read_text())  # noqa: F821
runs = read_runs(batch["run_files"])
frame = tidy(runs, snakemake.params.scenario)  # noqa: F821
frame.to_csv(snakemake.output[0], index=False)  # noqa: F821
inconsistent = [r for r in runs if not r["provenance"]["consistency"]["ok"]]
log.info(
    "%s: %d runs from %d session(s) on testbed %s, %d repeated for consistency, %d still "
    "inconsistent",
    batch["scenario"],
    len(runs),
    len(batch["sessions"]),
    (batch.get("testbed") or {}).get("name"),
    batch["repeats"],
    len(inconsistent),
)
