"""YAML read safely, with libyaml's parser where PyYAML was built with it: it is several times
faster than PyYAML's own, and every Snakemake start reads some fifty YAML files (scenarios,
registries, profiles) through emusim.pipeline."""

import yaml

SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""PyYAML's safe loader: libyaml's parser under PyYAML's safe constructor, or all PyYAML's."""


def safe_load(text: str):
    """yaml.safe_load with the faster parser."""
    return yaml.load(text, Loader=SafeLoader)
