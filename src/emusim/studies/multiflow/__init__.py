"""The multi-flow dynamics study (issue 9, docs/multiflow.md): FAST TCP and the variants Linux
also has, flows arriving at and leaving a shared bottleneck, in ns-3 (the emulation cannot run
it). Its scenarios are of workload multiflow (emusim.workloads.multiflow). Its modules: `phases`
(a run's per-phase table), `figures` and `numbers`.
"""

from emusim.studies import Study
from emusim.workloads import multiflow

STUDY = Study(
    name="multiflow",
    title="FAST TCP's multi-flow dynamics",
    order=30,
    claims=lambda scenario: scenario.workload_kind == multiflow.WORKLOAD.kind,
)
