"""Rule lossy_link_variant_table: ns-3 against Mininet per TCP variant at the headline cell."""

from pathlib import Path

import pandas as pd

from emusim.analysis import tables
from emusim.core import script_log
from emusim.studies.lossy_link import variants_table as lossy

log = script_log.setup(snakemake)  # noqa: F821
compare = pd.read_csv(snakemake.input.compare)  # noqa: F821
table = lossy.variant_table(compare, snakemake.params.variants)  # noqa: F821
stem = Path(snakemake.output[0]).with_suffix("")  # noqa: F821
scenario = stem.name.removesuffix("-variants")
cell = lossy.HEADLINE
caption = (
    f"{scenario}: goodput and completion time per TCP variant at {cell['loss']} random loss "
    f"per direction and {cell['delay_ms']} ms one-way delay, ns-3 against Mininet "
    "(rel_diff = (mininet - ns3) / mininet; status: why a number is missing or partial)."
)


def three_digits(value: float) -> str:
    """Three significant digits, never in exponent form."""
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.3g}"


formats = {c: three_digits for c in table.columns if "(" in c or c == "rel_diff"}
tables.write_table(table, stem, caption, label=f"tab:{scenario}-variants", float_formats=formats)
log.info("%d variants", len(table))
