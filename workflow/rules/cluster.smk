# Jobs that stay on the machine that runs Snakemake when an executor sends the others to a
# cluster (`--profile workflow/profiles/slurm`; docs/cluster.md). Without such an executor every
# job runs here anyway and this changes nothing.
#
# An emulation shard (mininet_shard) in dilated time goes to a node: its VM (QEMU without KVM,
# one vCPU) needs no root on the node, the guest is root inside, and its clock counts its own
# instructions, so a shared node's load does not change its results (docs/cluster.md, "The
# emulation on nodes"). One in real time (mininet.place host, or icount_shift null) stays here:
# the host's namespaces need root, and a shared node's load would distort its timing.
# mininet_batch only joins the shards' records. dropper_module and blast_tools build for the
# kernel the VM boots, once, here.
# ns3_build compiles once, with the toolchain tools/setup installed here; the nodes run the
# programs from the shared file system.
# The testbed's rules reach its hosts over SSH with this machine's key and known_hosts, and
# measure in real time.


localrules:
    ns3_build,
    dropper_module,
    blast_tools,
    mininet_batch,


if pipeline.mininet.real_time(SETUP):

    localrules:
        mininet_shard,


if pipeline.hardware.testbed_ran(SETUP):

    localrules:
        testbed_preflight,
        testbed_tables,
        testbed_batch,
