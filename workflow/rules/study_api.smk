# The studies' plug-in API (emusim.pipeline.studies; workflow/rules/studies/NAME.smk): a
# study's rules file registers what it adds and its figures; the target list, the figure rule
# and the paper read what they registered, and name no study. STUDY_API is all of the workflow
# a study's rules file sees (studies.smk includes them).

# A scenario no study presents gets the generic figure (emusim.analysis.plots_scenario).
pipeline.studies.add_scenario_figures(SETUP)
STUDY_API = pipeline.studies.api(SETUP)
