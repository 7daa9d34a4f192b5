# Each study of the registry (emusim.studies) brings its rules file, included as a Snakemake
# module: its names stay in its own namespace, its rules are named STUDY_RULE, and it sees the
# workflow through STUDY_API (study_api.smk). The figure rule and the paper, included after
# them, read what they registered.

pipeline.studies.include_all(
    workflow, config, STUDY_API, Path(workflow.basedir, "workflow", "rules", "studies")
)
