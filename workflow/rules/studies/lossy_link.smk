# The lossy-link study (emusim.studies.lossy_link; docs/variants.md): bulk TCP over a lossy
# long link per TCP variant, ns-3 against Mininet. Its runs and the comparison of the two
# backends are the generic rules'; its figures, per-variant table and numbers are
# emusim.studies.lossy_link.rules'. A Snakemake module (the Snakefile includes every study as
# one, with its rules named lossy_link_RULE): it sees the workflow only through `api`, the
# studies' plug-in API (emusim.pipeline.studies.api), and config.
from emusim.studies.lossy_link import rules as lossy_rules

api = config["study_api"]


wildcard_constraints:
    **api.WILDCARD_CONSTRAINTS,


lossy_rules.register(api)


rule variant_table:
    input:
        compare=f"{api.RESULTS}/compare/{{scenario}}-ns3-vs-mininet.csv",
    output:
        multiext(f"{api.TABLES}/{{scenario}}-variants", ".csv", ".tex", ".html"),
    log:
        f"{api.PREFIX}logs/tables/{{scenario}}-variants.log",
    benchmark:
        f"{api.PREFIX}logs/timing/lossy_link_variant_table/{{scenario}}.tsv"
    conda:
        "../../envs/emusim.yaml"
    params:
        variants=lambda wc: lossy_rules.variants(),
    script:
        "../../scripts/variant_table.py"
