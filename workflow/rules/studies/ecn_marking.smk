# The ecn-marking study (emusim.studies.ecn_marking; docs/ecn.md): TCP over a queue that marks,
# ns-3 against Mininet. Its runs and the comparison of the two backends are the generic rules';
# its figure and its numbers are emusim.studies.ecn_marking.rules'. A Snakemake module: it sees
# the workflow only through `api` (emusim.pipeline.studies.api), and config.
from emusim.studies.ecn_marking import rules as ecn_rules

api = config["study_api"]

ecn_rules.register(api)
