# Jobs that stay on the machine that runs Snakemake when an executor sends the others to a
# cluster (`--profile workflow/profiles/slurm`; docs/cluster.md). Without such an executor every
# job runs here anyway and this changes nothing.
#
# mininet_batch needs root (network namespaces, tc, netfilter, the dropper module) and runs in
# real time (a VM under software emulation): a cluster starts jobs as the submitting user, not
# root, and shares nodes, whose load would distort the emulation's timing. dropper_module and
# blast_tools build for the machine that runs the emulation (the VM kernel's headers).
# ns3_build compiles once, with the toolchain tools/setup installed here; the nodes run the
# programs from the shared file system.
# The testbed's rules reach its hosts over SSH with this machine's key and known_hosts, and
# measure in real time.


localrules:
    ns3_build,
    dropper_module,
    blast_tools,
    mininet_batch,


if HARDWARE_SOURCE == "testbed":

    localrules:
        testbed_preflight,
        testbed_tables,
        testbed_batch,
