"""Rule router_forwarding_fit: the router processing model fitted to the emulation's runs
(emusim.studies.router_forwarding.fit; docs/router-forwarding.md, "The fit")."""

import json
import math
from pathlib import Path

import pandas as pd

from emusim.core import script_log
from emusim.infra.runjson import write_atomically
from emusim.studies.router_forwarding import fit as forwarding_fit

log = script_log.setup(snakemake)  # noqa: F821
inp, out = snakemake.input, snakemake.output  # noqa: F821
runs = pd.read_csv(inp.runs)
# The kernel's backlog limit and where the emulation ran, from a run of each batch
facts = {}
for path in inp.batches:
    batch = json.loads(Path(path).read_text())
    if batch.get("run_files"):
        first = json.loads(Path(batch["run_files"][0]).read_text())["provenance"]
        facts = {
            "place": first.get("place"),
            "kvm": first.get("kvm"),
            "kernel_release": first.get("kernel_release"),
            "netdev_max_backlog": (first.get("mininet") or {}).get("netdev_max_backlog"),
        }
fit = forwarding_fit.fit(
    runs,
    "mininet",
    link_rate_bps=snakemake.params.link_rate_bps,  # noqa: F821
    queue_packets=facts.get("netdev_max_backlog"),
)
fit["emulation"] = facts


def clean(value):
    """NaN as null: the file is JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


write_atomically(Path(out.json), json.dumps(clean(fit), indent=1, sort_keys=True) + "\n")
pd.DataFrame(fit["sizes"]).to_csv(out.sizes, index=False)
host, router = fit["host"], fit["router"]
log.info(
    "generator %.3g s/datagram + %.3g s/extra frame + %.3g s/B (n %d); "
    "router %.3g s/packet + %.3g s/B (n %d); %s; notes: %s",
    host["per_datagram_s"],
    host["per_extra_frame_s"],
    host["per_byte_s"],
    host["n"],
    router["per_packet_s"],
    router["per_byte_s"],
    router["n"],
    fit["status"],
    "; ".join(host["notes"] + router["notes"]) or "none",
)
