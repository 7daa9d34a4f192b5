# emusim: every scenario of scenarios/ on the hardware (the 2001 report's data, or a testbed over
# SSH), in ns-3 and in Mininet; their distance from the hardware; every figure, table and the
# paper, for each study of src/emusim/studies/ (the 2001 report's, router forwarding, the lossy
# link, FAST TCP's multi-flow dynamics; docs/adding-a-study.md).
#
#   snakemake all [--config scale=quick]      (make study)
#
# The Snakefile only includes; each stage is a file in workflow/rules/, each study's own rules a
# file in workflow/rules/studies/, and every decision a function of emusim.pipeline. Every rule
# that costs CPU keeps its jobs' cost in a benchmark file, {PREFIX}logs/timing/RULE/SCENARIO/...
# (ns3_run's: logs/timing/ns3/...), which `emusim plan` estimates from and
# `python -m emusim.planning.costs collect` keeps (emusim.planning.costs).
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


# Configuration and scenarios first; then each stage's input functions and the studies'
# plug-in API, which the rules below (and the studies' rules files) call as they load.
include: "workflow/rules/common.smk"
include: "workflow/rules/hardware_inputs.smk"
include: "workflow/rules/ns3_inputs.smk"
include: "workflow/rules/mininet_inputs.smk"
include: "workflow/rules/analysis_inputs.smk"
include: "workflow/rules/study_api.smk"
include: "workflow/rules/reference.smk"
include: "workflow/rules/testbed.smk"
include: "workflow/rules/ns3.smk"
include: "workflow/rules/mininet.smk"
include: "workflow/rules/analysis.smk"
# Each study's rules file, a Snakemake module; the figure rule and the paper, included after
# them, read what they registered.
include: "workflow/rules/studies.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/paper.smk"
include: "workflow/rules/cluster.smk"


rule all:
    default_target: True
    input:
        pipeline.targets.all_targets(SETUP),
