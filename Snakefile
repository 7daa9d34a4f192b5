# emusim: the 2001 study on hardware (reference data), in ns-3, compared; every figure and table.
#
#   snakemake all [--config scale=quick]
#
# The Snakefile only wires; each stage is a file in workflow/rules/.
import os

from snakemake.utils import min_version

min_version("9.0")
# emusim reads scenarios, configuration and reference data of this checkout (src/emusim/paths.py).
os.environ.update({"EMUSIM_ROOT": workflow.basedir})


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/reference.smk"
include: "workflow/rules/ns3.smk"
include: "workflow/rules/analysis.smk"
include: "workflow/rules/figures.smk"


rule all:
    default_target: True
    input:
        all_targets(),
