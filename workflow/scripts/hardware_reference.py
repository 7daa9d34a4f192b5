"""Rule hardware_reference: the 2001 measurements as the hardware backend's tidy table."""

from emusim.analysis.collect import tidy
from emusim.backends.reference.runs import reference_runs
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
scenario = snakemake.params.scenario  # noqa: F821
runs = tidy(reference_runs(scenario), scenario)
if runs.empty:
    raise SystemExit(f"data/reference/ holds no runs for the points of {scenario.path}")
runs.to_csv(snakemake.output[0], index=False)  # noqa: F821
log.info("%s: %d reference runs over %d points", scenario.name, len(runs), runs.point.nunique())
