"""Workloads that need more than a blast or a ping: what every backend shares about them.

A workload (a scenario's `workload.kind`, scenario schema) is run by the backends; a study
(emusim.studies) presents its results. What a backend needs to run a workload and measure it
(the wire's arithmetic, the metrics and their definitions, the ns-3 program's arguments) lives
here, so that no backend imports a study:

- `udp_flood`: UDP floods against payload size, direct and routed (router forwarding).
- `multiflow`: flows arriving at and leaving a shared bottleneck in phases (FAST TCP's
  dynamics).

The TCP blast, the UDP blast and the ping are the Linux tools' (emusim.linux.blast_output)
and ns-3's own.
"""
