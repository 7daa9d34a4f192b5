# emusim: every scenario of scenarios/ on the hardware (the 2001 report's data, or a testbed over
# SSH), in ns-3 and in Mininet; their distance from the hardware; every figure, table and the
# paper, for the report's study and the others (router forwarding, the lossy link, FAST TCP's
# multi-flow dynamics).
#
#   snakemake all [--config scale=quick]      (make study)
#
# The Snakefile only wires; each stage is a file in workflow/rules/.
import os
import sys

from snakemake.utils import min_version

min_version("9.0")
# emusim reads scenarios, configuration and reference data of this checkout (src/emusim/paths.py).
os.environ.update({"EMUSIM_ROOT": workflow.basedir})
# Shell commands run `python` of the environment that runs Snakemake (.venv), wherever it is.
os.environ.update(
    {"PATH": os.path.dirname(sys.executable) + os.pathsep + os.getenv("PATH", "")}
)


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/reference.smk"
include: "workflow/rules/testbed.smk"
include: "workflow/rules/ns3.smk"
include: "workflow/rules/mininet.smk"
include: "workflow/rules/analysis.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/paper.smk"
include: "workflow/rules/forwarding.smk"
include: "workflow/rules/multiflow.smk"
include: "workflow/rules/cluster.smk"


rule all:
    default_target: True
    input:
        all_targets(),
