"""The router-forwarding study (issue 10, docs/router-forwarding.md, after
../shared/seeds/002_914fa6f1fc42fb8f.txt): UDP floods against payload size, direct and
routed, and a router processing model fitted to the emulation and run in ns-3 (backend
`ns3-model`). Its scenarios are of workload udp-flood (emusim.workloads.udp_flood). Its
modules: `fit` (the processing model's fit), `figures` and `numbers`.
"""

from emusim.studies import Study
from emusim.workloads import udp_flood

STUDY = Study(
    name="router_forwarding",
    title="Router forwarding against packet size",
    order=40,
    claims=lambda scenario: scenario.workload_kind == udp_flood.WORKLOAD.kind,
)
