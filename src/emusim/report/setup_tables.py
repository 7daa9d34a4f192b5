"""The paper's testbed tables, laid out from data/reference/ and config/tcp_profiles.yaml.

The workflow's own tables (paper/tables/, emusim.analysis.tables) are the results; these three
describe the set-up the paper states: the hosts (Table 1.1), the interfaces on the experiment's
route (Table 1.2) and the TCP profiles side by side without their long source notes (those are in
paper/tables/tcp_profiles.*). Each is a DataFrame for `emusim.analysis.tables.to_latex`.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from emusim.backends.testbed.host_tables import ROUTE_NOTE
from emusim.inputs.tcp_profiles import Profile


def hosts_table(hosts: pd.DataFrame) -> pd.DataFrame:
    """Table 1.1: one row per host, in the order of the route (sender, router, receiver)."""
    order = {"sender": 0, "router": 1, "receiver": 2}
    rows = hosts.assign(_order=hosts["role"].map(order)).sort_values("_order")
    return pd.DataFrame(
        {
            "host": rows["host"].str.capitalize(),
            "role": rows["role"],
            "CPU": rows["cpu"] + " " + rows["cpu_mhz"].map(lambda v: f"{v:.0f}") + " MHz",
            "memory (MB)": rows["memory_mb"],
            "distribution": rows["distribution"],
            "kernel": rows["kernel"],
        }
    ).reset_index(drop=True)


def route_interfaces_table(interfaces: pd.DataFrame) -> pd.DataFrame:
    """Table 1.2, the interfaces on the experiment's route only, with their part in it."""
    notes = interfaces["notes"].fillna("")
    rows = interfaces[notes.str.startswith(ROUTE_NOTE)]
    return pd.DataFrame(
        {
            "host": rows["host"].str.capitalize(),
            "interface": rows["interface"],
            "chip": rows["chip"],
            "speed (Mb/s)": rows["speed_mbps"],
            "address": rows["ip_address"] + "/" + rows["prefix_len"].astype(str),
            "on the route": rows["notes"].str.slice(len(ROUTE_NOTE)),
        }
    ).reset_index(drop=True)


def profiles_table(registry: Mapping[str, Profile], left: str, right: str) -> pd.DataFrame:
    """Every parameter of either profile: its value in ``left`` and ``right`` (empty where the
    profile leaves ns-3's default) and the ns-3 attribute the ``right`` profile sets."""
    values = {name: {p.name: p for p in registry[name].parameters} for name in (left, right)}
    names = list(dict.fromkeys([*values[right], *values[left]]))
    rows = []
    for name in names:
        mine = values[right].get(name)
        rows.append(
            {
                "parameter": name,
                left: values[left][name].value if name in values[left] else "",
                right: mine.value if mine else "",
                "ns-3 attribute": ", ".join(k.removeprefix("ns3::") for k in mine.ns3)
                if mine
                else "",
            }
        )
    return pd.DataFrame(rows)
