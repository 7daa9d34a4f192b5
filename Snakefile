# emusim: the 2001 study on hardware (reference data), in ns-3, compared; every figure and table.
#
#   snakemake all [--config scale=quick]
#
# The Snakefile only wires; each stage is a file in workflow/rules/.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/reference.smk"
include: "workflow/rules/ns3.smk"
include: "workflow/rules/analysis.smk"
include: "workflow/rules/figures.smk"


rule all:
    input:
        all_targets(),
    default_target: True
