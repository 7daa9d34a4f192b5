"""Rule report_2001_ablation: every ablation step's runs of one scenario against the hardware."""

import pandas as pd

from emusim.analysis.collect import read_runs, tidy
from emusim.core import script_log
from emusim.inputs import tcp_profiles
from emusim.studies.report_2001 import ablation

log = script_log.setup(snakemake)  # noqa: F821
scenario = snakemake.params.scenario  # noqa: F821
runs = tidy(read_runs(snakemake.input.runs), scenario)  # noqa: F821
hardware = pd.read_csv(snakemake.input.hardware)  # noqa: F821
random = scenario.settings["impairment"]["dropper"]["mode"] == "random"
table = ablation.step_comparison(
    runs,
    hardware,
    tcp_profiles.ablation(),
    scenario.axes,
    "drop_rate" if random else None,
)
table.to_csv(snakemake.output[0], index=False)  # noqa: F821
log.info("%s: %d comparisons over %d runs", scenario.name, len(table), len(runs))
