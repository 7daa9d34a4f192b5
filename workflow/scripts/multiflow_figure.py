"""Rule multiflow_figure: one of the multi-flow study's figures (emusim.plots_multiflow)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import _log

from emusim import multiflow, plots_multiflow
from emusim.collect import read_runs

log = _log.setup(snakemake)  # noqa: F821
scenario = snakemake.params.scenario  # noqa: F821
runs = read_runs(snakemake.input.runs)  # noqa: F821
variants = list(dict.fromkeys(p.variant for p in scenario.points))
alpha = {v: t[0] for v in variants if (t := multiflow.queue_target_pkts(v))}
stem = Path(snakemake.output.pdf).with_suffix("")  # noqa: F821
plots_multiflow.figure(snakemake.params.kind, runs, scenario, variants, alpha, stem)  # noqa: F821
log.info("%s: %d runs", stem.name, len(runs))
