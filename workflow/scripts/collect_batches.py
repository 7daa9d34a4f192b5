"""Rule mininet_collect: the run JSONs a backend's batches list, to its tidy per-run table."""

import json
from pathlib import Path

from emusim.analysis.collect import read_runs, tidy
from emusim.core import script_log
from emusim.linux.tcp import MININET_PROFILES

log = script_log.setup(snakemake)  # noqa: F821
paths = []
for batch in snakemake.input.batches:  # noqa: F821
    info = json.loads(Path(batch).read_text())
    paths += info["run_files"]
    check = info.get("selfcheck", {})
    log.info(
        "%s: %d runs, place %s, kernel %s, self-check %s",
        batch,
        len(info["run_files"]),
        info.get("place"),
        info.get("kernel_release"),
        check.get("ok", check),
    )
scenario = snakemake.params.scenario  # noqa: F821
skipped = [p for p in scenario.profiles if p not in MININET_PROFILES]
if skipped:
    log.warning(
        "%s: profile(s) %s have no Linux meaning; Mininet ran %s only",
        scenario.name,
        skipped,
        [p for p in scenario.profiles if p not in skipped],
    )
frame = tidy(read_runs(paths), snakemake.params.scenario)  # noqa: F821
frame.to_csv(snakemake.output[0], index=False)  # noqa: F821
log.info(
    "%d runs, %d not ok", len(frame), int((frame["status"] != "ok").sum()) if len(frame) else 0
)
