"""emusim: one network experiment on hardware, in Mininet and in ns-3, and how far apart.

The package in layers, lowest first; a module imports only from its own layer and those below
(the `layers` contract of `lint-imports`, pyproject.toml):

- `core`: what every layer may name: paths, constants, the backend registry, run statuses, the
  drop decision, plug-in discovery, schema error messages, the scripts' logging;
- `infra`: the run JSON, the VM, the archive of kept runs, its audit and code identity, teardown;
- `linux`: what the study does to a Linux host, as data and command builders;
- `workloads`: what a scenario's hosts do, found by name, and one run of it on Linux hosts;
- `inputs`: scenarios, TCP profiles, TCP variants, the fitted delay, the 2001 measurements;
- `backends`: `reference`, `testbed`, `ns3`, `mininet`, each independent of the others;
- `analysis`: the runs collected, their statistics and comparisons, tables, figures, traces;
- `planning`: what a workflow's jobs cost, and its progress line;
- `report`: the paper's numbers, its set-up tables, its build;
- `pipeline`: the workflow's input functions;
- `studies`: each study's figures, numbers and rules, found by name;
- `cli`: the `emusim` command.
"""

__version__ = "0.1.0"
