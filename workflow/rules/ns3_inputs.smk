# The ns-3 backend's input and params functions (ns3.smk); the facts are emusim.pipeline.ns3's.

NS3_PROGRAMS = pipeline.ns3.programs()


def _ns3_delay_input(wildcards):
    """The fitted one-way delay's file, for a scenario with `delay: measured`."""
    return pipeline.ns3.delay_input(SETUP, wildcards.scenario)


def _ns3_run(wildcards):
    """Command and identity of one ns-3 run (computed when the job is scheduled)."""
    return pipeline.ns3.run(
        SETUP,
        wildcards.scenario,
        wildcards.profile,
        wildcards.point,
        int(wildcards.rep),
    )


def _ns3_archived(wildcards):
    """The archived run rule ns3_restore writes, or a path that does not exist."""
    return pipeline.ns3.archived(
        SETUP,
        wildcards.scenario,
        wildcards.profile,
        wildcards.point,
        int(wildcards.rep),
    )
