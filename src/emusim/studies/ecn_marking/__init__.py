"""The ecn-marking study (issue 55, docs/ecn.md): a queue that marks. DCTCP and two loss-based
variants over CoDel with ECN marking at the bottleneck of the lossy-link line, ns-3 against
Mininet on goodput and on the fraction of packets the queue marked. Its modules: `figures` and
`numbers`.
"""

from emusim.studies import Study

AQM_KEY = "aqm"
"""The topology key of a queue that marks (scenario schema): the scenarios the study presents."""

STUDY = Study(
    name="ecn_marking",
    title="TCP over a queue that marks",
    order=25,
    claims=lambda scenario: AQM_KEY in scenario.settings["topology"],
)
