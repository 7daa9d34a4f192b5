# Input functions of the statistics and the comparisons (analysis.smk); the facts are
# emusim.pipeline.analysis's.


def backend_tables(wildcards):
    """Input function: the tidy per-run tables of the scenario's backends."""
    return pipeline.analysis.backend_tables_of(SETUP, wildcards.scenario)
