"""A workflow setup at quick scale from a hand-made configuration (emusim.pipeline.setup)."""

import pytest

from emusim.pipeline import setup as pipeline_setup


@pytest.fixture
def make_setup():
    """setup(**config keys) at quick scale, every backend, as root unless `euid` says not."""

    def make(euid=0, **config):
        base = {"scale": "quick", "backends": ["hardware", "ns3", "mininet"]}
        return pipeline_setup.load({**base, **config}, euid=euid)

    return make
