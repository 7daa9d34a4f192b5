"""Rule profile_table: every TCP profile parameter, its value, ns-3 attribute and source."""

from pathlib import Path

import pandas as pd

from emusim.analysis import tables
from emusim.core import script_log
from emusim.inputs import tcp_profiles

log = script_log.setup(snakemake)  # noqa: F821
rows = [
    {
        "profile": prof.name,
        "parameter": p.name,
        "value": p.value,
        "ns-3 attribute": "; ".join(f"{k} = {v}" for k, v in p.ns3.items()),
        "source": p.source,
        "checked": p.checked,
    }
    for prof in tcp_profiles.registry(Path(snakemake.input[0])).values()  # noqa: F821
    for p in prof.parameters
]
stem = Path(snakemake.output[0]).with_suffix("")  # noqa: F821
tables.write_table(
    pd.DataFrame(rows),
    stem,
    "TCP profiles: each parameter, the ns-3 attribute it sets and its source.",
    label="tab:tcp-profiles",
)
log.info("%d parameters", len(rows))
