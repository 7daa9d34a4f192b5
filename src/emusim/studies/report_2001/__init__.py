"""The 2001 report's study (../shared/seeds/000_823aea286f446f9b.txt): a Linux router with a
kernel packet dropper between a TCP/UDP blast sender and a receiver on 100 Mb/s Ethernet; the
ping sweep's one-way delay, throughput against drop rate, the 1-in-6 pathology, and how far
ns-3 and Mininet are from the hardware, with the calibration ablation.

Its scenarios are those the report measured (emusim.backends.reference.runs.has_reference).
Its modules: `figures` (the report's figures, by their numbering), `numbers` (its section's
numbers), `analytic` (the Mathis and PFTK curves beside Figures 4.1 and 4.2) and `ablation`
(ns-3's defaults to linux-2.2, one parameter at a time).
"""

from emusim.backends.reference.runs import has_reference
from emusim.studies import Study

STUDY = Study(
    name="report_2001",
    title="The 2001 report: a Linux router's packet dropper, hardware against models",
    order=10,
    claims=has_reference,
)
