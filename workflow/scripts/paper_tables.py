"""Rule paper_tables: the testbed tables the paper states (hosts, route, TCP profiles)."""

from pathlib import Path

import pandas as pd

from emusim.analysis import tables
from emusim.core import script_log
from emusim.inputs import tcp_profiles
from emusim.report import setup_tables

log = script_log.setup(snakemake)  # noqa: F821
inp, out = snakemake.input, snakemake.output  # noqa: F821
registry = tcp_profiles.registry(Path(inp.profiles))
made = {
    out.hosts: tables.to_latex(
        setup_tables.hosts_table(pd.read_csv(inp.hosts)),
        "The testbed's hosts (the report's Table 1.1).",
        label="tab:hosts",
    ),
    out.interfaces: tables.to_latex(
        setup_tables.route_interfaces_table(pd.read_csv(inp.interfaces)),
        "The interfaces on the experiment's route (the report's Table 1.2 and Figure 1.1).",
        label="tab:interfaces",
    ),
    out.profiles: tables.to_latex(
        setup_tables.profiles_table(registry, "ns3-default", "linux-2.2"),
        "The TCP profiles: each parameter in ns3-default (empty: ns-3's default, unchanged) "
        "and in linux-2.2, with the ns-3 attribute linux-2.2 sets; the sources of every value "
        "are in config/tcp_profiles.yaml.",
        label="tab:profiles",
    ),
}
for path, tex in made.items():
    Path(path).write_text(tex, encoding="utf-8")
log.info("wrote %s", ", ".join(made))
