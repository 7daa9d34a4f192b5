"""Rule delay_fit: the one-way delay from the hardware's ping sweep (report §3.2)."""

import json
from pathlib import Path

import pandas as pd

from emusim.core import script_log
from emusim.infra.runjson import write_atomically
from emusim.inputs.delay import fit_report

log = script_log.setup(snakemake)  # noqa: F821
pings = pd.read_csv(snakemake.input[0])  # noqa: F821
fits = fit_report(pings.rename(columns={"echo": "rep"}))
method = snakemake.params.method  # noqa: F821
key = {"two-point": "two_point", "least-squares": "least_squares"}[method]
result = {
    "method": method,
    "one_way_delay_us": fits[key]["one_way_delay_us"],
    "fits": fits,
    "source": snakemake.input[0],  # noqa: F821
}
write_atomically(Path(snakemake.output[0]), json.dumps(result, indent=1, sort_keys=True) + "\n")  # noqa: F821
log.info("one-way delay %.4f us (%s)", result["one_way_delay_us"], method)
