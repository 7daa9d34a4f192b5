"""Rule ns3_collect: a backend's run JSONs to its tidy per-run table."""

from emusim.analysis.collect import read_runs, tidy
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
for point, why in getattr(snakemake.params, "skipped", {}).items():  # noqa: F821
    log.warning("%s: not run: %s", point, why)
runs = read_runs(snakemake.input.runs)  # noqa: F821
frame = tidy(runs, snakemake.params.scenario)  # noqa: F821
frame.to_csv(snakemake.output[0], index=False)  # noqa: F821
timeouts = int((frame["status"] != "ok").sum()) if not frame.empty else 0
log.info("%d runs, %d rows, %d not ok", len(runs), len(frame), timeouts)
