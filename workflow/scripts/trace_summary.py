"""Rules trace_summary and mininet_trace_summary: what each traced run spent its time on
(emusim.analysis.tcp_events), ns-3's runs or the emulation's. The emulation's rows (params.backend
mininet) add the run's own counts beside the trace's, and what only its trace has (RTO
firings, the kernel's retransmission count)."""

import json
from pathlib import Path

import pandas as pd

from emusim.analysis import tcp_events
from emusim.core import script_log

log = script_log.setup(snakemake)  # noqa: F821
backend = snakemake.params.get("backend")  # noqa: F821
rows = []
for path in snakemake.input:  # noqa: F821
    if not path.endswith(".csv.gz"):
        continue
    run = json.loads(Path(path[: -len(".csv.gz")] + ".json").read_text())
    scenario, profile, point = Path(path).parts[-4:-1]
    trace = tcp_events.read(path)
    row = {"scenario": scenario, "profile": profile, "point": point, "status": run["status"]}
    if backend is not None:
        row = {"backend": backend, **row}
    row.update(tcp_events.summary(trace))
    if backend == "mininet":
        m, facts = run["metrics"], run["provenance"]["mininet"]["trace"]
        row.update(
            {
                "rto_firings": int((trace["event"] == "timeout").sum()),
                "kernel_retransmits": facts["kernel_retransmits"],
                # a lost SYN's or FIN's: the kernel counts them, ns-3's CSV has no row
                "control_retransmissions": facts.get("control_retransmissions", 0),
                "run_elapsed_s": m["elapsed_s"],
                "run_packets_sent": m["packets_sent"],
                "run_retransmissions": m["retransmissions"],
                "run_rto_timeouts": m["rto_timeouts"],
                "run_fast_recoveries": m["fast_recoveries"],
                "trace_complete": facts["complete"],
            }
        )
    rows.append(row)
    log.info("%s/%s/%s: %s", scenario, profile, point, row)
pd.DataFrame(rows).to_csv(snakemake.output[0], index=False)  # noqa: F821
