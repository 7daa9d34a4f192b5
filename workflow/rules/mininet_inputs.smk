# The Mininet backend's input and params functions (mininet.smk); the facts are
# emusim.pipeline.mininet's.

DROPPER_MODULE = pipeline.mininet.DROPPER_MODULE
BLAST_TOOLS = pipeline.mininet.BLAST_TOOLS


def mininet_batch_inputs(wildcards):
    """The scenario, the blast tools, the fitted delay and the dropper module of a batch."""
    return pipeline.mininet.batch_inputs(SETUP, wildcards.scenario)


def mininet_shard_paths(wildcards):
    """The shards' records of one batch."""
    return pipeline.mininet.shard_paths(SETUP, wildcards.scenario, wildcards.profile)


def mininet_shard_runtime_min(wildcards):
    """Minutes a cluster job of one emulation shard may take."""
    return pipeline.mininet.shard_runtime_min(
        SETUP,
        wildcards.scenario,
        wildcards.profile,
        int(wildcards.shard),
        int(wildcards.shards),
    )


def mininet_batch_args(wildcards, input):
    """Command-line options of a batch: the fitted delay, the design and the VM's clock."""
    return pipeline.mininet.batch_args(SETUP, wildcards.scenario, input)
