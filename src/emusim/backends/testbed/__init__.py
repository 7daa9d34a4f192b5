"""The hardware backend on a real testbed: three hosts driven over SSH (issue 7).

- `inventory`: the testbed's YAML inventory (hosts by role, SSH, data-plane addresses),
  validated against ``emusim/schemas/inventory.schema.yaml``;
- `ssh`: OpenSSH with one reused connection per host, every remote command an argument list;
- `preflight`: the facts of each host (kernel, CPU, memory, interfaces, routes, TCP sysctls,
  the dropper module, clock offset), checked, and the report's Tables 1.1-1.4 from them;
- `checks`: the consistency check of each run (drop counts, elapsed-time outliers);
- `execute`: a scenario's runs on the testbed, resumable, with bounded repeats;
- `virtual`: a testbed of three network namespaces with their own sshd, for the tests.

``python -m emusim.backends.testbed {preflight,tables,batch,virtual}``; docs/testbed.md.
"""
