# Configuration and scenarios: validated when the workflow loads, before any job runs
# (emusim.pipeline.setup). Every stage's facts are functions of emusim.pipeline, called with
# SETUP; the rules files only call them. The Snakefile includes this one first.
from glob import glob
from pathlib import Path

from snakemake.utils import validate

from emusim import pipeline
from emusim.inputs import scenario as sc

validate(config, "../schemas/config.schema.yaml")

SETUP = pipeline.setup.load(config)
SCALE = SETUP.scale
# Paper scale writes to results/, figures/, paper/tables/; other scales under scales/<scale>/.
PREFIX = SETUP.prefix
RESULTS = SETUP.results
FIGURES = SETUP.figures
TABLES = SETUP.tables
BACKENDS = SETUP.backends
SCENARIOS = SETUP.scenarios
REFERENCE_SCENARIOS = SETUP.reference_scenarios
DELAY_SCENARIO = SETUP.delay_scenario
TESTBED_INVENTORY = SETUP.testbed_inventory
# The wildcards' patterns, for this file's rules and for every study's (the studies are
# Snakemake modules, which the workflow's own constraints do not reach: study_api.smk).
WILDCARD_CONSTRAINTS = pipeline.setup.wildcard_constraints(SETUP)


wildcard_constraints:
    **WILDCARD_CONSTRAINTS,
