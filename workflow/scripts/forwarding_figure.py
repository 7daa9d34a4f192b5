"""Rule forwarding_figure: the router-forwarding study's figures (emusim.plots_forwarding)."""

import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
import _log

from emusim import plots_forwarding

log = _log.setup(snakemake)  # noqa: F821
inp, params = snakemake.input, snakemake.params  # noqa: F821
stem = Path(snakemake.output.pdf).with_suffix("")  # noqa: F821
if params.kind == "fit":
    plots_forwarding.fig_fit(json.loads(Path(inp.fit).read_text()), stem)
else:
    plots_forwarding.fig_quantity(pd.read_csv(inp.stats), stem, params.kind, params.link_rate_bps)
log.info("wrote %s.pdf and .png", stem)
