"""The report's Tables 1.1-1.4 (hosts, interfaces, routes, TCP sysctls) from a testbed's
preflight facts (emusim.backends.testbed.preflight), in data/reference's columns."""

from __future__ import annotations

import ipaddress

import pandas as pd

ROUTE_NOTE = "experiment route (Figure 1.1): "
"""How interfaces.csv's notes mark an interface of the experiment's route, in data/reference
and in a testbed's tables alike (emusim.report.setup_tables reads it)."""
ROUTE_ROLES = {
    ("sender", 0): "sender egress, to the router",
    ("router", 0): "router ingress, from the sender",
    ("router", 1): "router egress, where the dropper acts",
    ("receiver", 0): "receiver ingress",
}


def tables(pre: dict, source: str) -> dict[str, pd.DataFrame]:
    """hosts, interfaces, routes and tcp_sysctls in data/reference/'s columns (its README)."""
    hosts, interfaces, routes, sysctls = [], [], [], []
    for role in ("sender", "router", "receiver"):
        f = pre["hosts"][role]
        hosts.append(
            {
                "host": f["name"],
                "role": role,
                "cpu": f["cpu"],
                "cpu_mhz": f["cpu_mhz"],
                "memory_mb": f["memory_mb"],
                "swap_mb": f["swap_mb"],
                "distribution": f["distribution"],
                "kernel": f["kernel"],
                "source": source,
                "table": "1.1",
                "notes": f"hostname {f['hostname']}; {f['cpus']} CPUs; {f['machine']}",
            }
        )
        data = dict(zip(pre["testbed"]["hosts"][role]["addresses"], range(2), strict=False))
        for dev, info in sorted(f["interfaces"].items()):
            for addr in info["addresses"]:
                ip = ipaddress.ip_interface(addr)
                k = data.get(addr)
                note = ROUTE_NOTE + ROUTE_ROLES[(role, k)] if k is not None else ""
                interfaces.append(
                    {
                        "host": f["name"],
                        "interface": dev,
                        "speed_mbps": info.get("speed_mbps"),
                        "chip": info.get("driver"),
                        "ip_address": str(ip.ip),
                        "prefix_len": ip.network.prefixlen,
                        "mac": (info.get("mac") or "").upper(),
                        "source": source,
                        "table": "1.2",
                        "notes": note,
                    }
                )
        for r in f["routes"]:
            routes.append(route_row(f["name"], r, source))
    router = pre["hosts"]["router"]
    ends = [pre["hosts"][r] for r in ("sender", "receiver")]
    groups = [([router], "1.3")]
    if ends[0]["tcp_sysctls"] == ends[1]["tcp_sysctls"] and ends[0]["kernel"] == ends[1]["kernel"]:
        groups.append((ends, "1.4"))
    else:
        groups += [([e], "1.4") for e in ends]
    for members, table in groups:
        values = members[0]["tcp_sysctls"]
        for key in sorted(k for k in values if k.startswith("net.ipv4.tcp_")):
            sysctls.append(
                {
                    "hosts": ",".join(m["name"] for m in members),
                    "kernel": members[0]["kernel"],
                    "key": key.removeprefix("net.ipv4."),
                    "value": values[key],
                    "source": source,
                    "table": table,
                    "notes": "",
                }
            )
    return {
        "hosts": pd.DataFrame(hosts),
        "interfaces": pd.DataFrame(interfaces),
        "routes": pd.DataFrame(routes),
        "tcp_sysctls": pd.DataFrame(sysctls),
    }


def route_row(host: str, r: dict, source: str) -> dict:
    """One `ip -j route` entry as a row of the report's route listing (`route -n` columns)."""
    dst = r.get("dst", "")
    net = ipaddress.ip_network("0.0.0.0/0" if dst == "default" else dst, strict=False)
    flags = "U" + ("G" if r.get("gateway") else "") + ("H" if net.prefixlen == 32 else "")
    return {
        "host": host,
        "destination": str(net.network_address),
        "gateway": r.get("gateway", "*"),
        "genmask": str(net.netmask),
        "flags": flags,
        "metric": r.get("metric", 0),
        "iface": r.get("dev", ""),
        "source": source,
        "table": "1.2.2",
        "notes": "",
    }
