"""Rule figure: one figure, drawn by the study it belongs to (emusim.studies: its
``figures.draw``), or the generic figure of a scenario no study presents."""

from pathlib import Path

import pandas as pd

from emusim import studies
from emusim.analysis import plots_scenario
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
params = snakemake.params  # noqa: F821
inputs = dict(snakemake.input.items())  # noqa: F821
stem = Path(snakemake.output.pdf).with_suffix("")  # noqa: F821
if params.study is None:
    scenario = params.spec["scenario"]
    stats = pd.read_csv(inputs[f"stats_{scenario}"])
    plots_scenario.fig_scenario(stats, stem, scenario, params.spec["axes"])
else:
    studies.get(params.study).draw(params.kind, inputs, params.spec, stem)
log.info("wrote %s.pdf and .png", stem)
