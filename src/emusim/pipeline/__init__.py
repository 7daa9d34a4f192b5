"""The workflow's facts as plain, tested Python: one function per fact (a scenario's runs, the
command and identity of one ns-3 run, the emulation's batches, the targets, the paper's inputs).

The Snakefile and workflow/rules/*.smk only call these (tests/unit/test_smk_has_no_logic.py
says so). Every function takes the workflow's `Setup` (emusim.pipeline.setup.load: the
configuration and the scenarios at this scale) first. The package sits above the backends,
the inputs and the analysis; nothing below it imports it.
"""

from emusim.pipeline import (  # noqa: F401  (the rules files reach each as pipeline.NAME)
    analysis,
    hardware,
    mininet,
    ns3,
    paper,
    setup,
    studies,
    targets,
)
