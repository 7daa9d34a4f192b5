"""Rule delay_table: the two fits of the ping sweep and the one-way delay each gives."""

import json
from pathlib import Path

import pandas as pd

from emusim.analysis import tables
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
result = json.loads(Path(snakemake.input[0]).read_text())  # noqa: F821
tp, ls = result["fits"]["two_point"], result["fits"]["least_squares"]
lo, hi = ls["one_way_delay_ci95_us"]
rows = [
    {
        "fit": "two points (report)",
        "slope (us/B)": tp["a"],
        "intercept (us)": tp["b"],
        "one-way delay (us)": tp["one_way_delay_us"],
        "95% CI (us)": "",
    },
    {
        "fit": "least squares",
        "slope (us/B)": ls["slope"],
        "intercept (us)": ls["intercept"],
        "one-way delay (us)": ls["one_way_delay_us"],
        "95% CI (us)": f"{lo:.2f} to {hi:.2f}",
    },
]
stem = Path(snakemake.output[0]).with_suffix("")  # noqa: F821
tables.write_table(
    pd.DataFrame(rows),
    stem,
    f"One-way delay from the ping sweep; the models use the {result['method']} value.",
    label="tab:delay-fit",
    float_formats={"slope (us/B)": ".4f", "intercept (us)": ".2f", "one-way delay (us)": ".2f"},
)
log.info("delay %.3f us", result["one_way_delay_us"])
