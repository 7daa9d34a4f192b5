# Paths of the paper's rules (paper.smk); what this scale produced is emusim.pipeline.paper's.

PAPER_GENERATED = pipeline.paper.generated_dir(SETUP)
# the paper's PDF, the last of `all`'s targets (emusim.pipeline.targets.all_targets)
PAPER_PDF = pipeline.targets.paper_pdf(SETUP)


def paper_number_inputs(wildcards):
    """Every result file the numbers come from that this scale produces."""
    return pipeline.paper.number_inputs(SETUP)
