"""The Mininet backend: a scenario's runs in Mininet with real Linux TCP (docs/mininet.md).

`python -m emusim.backends.mininet` is its command line (`cli`). A batch is planned on the host
(`plan`), run where the kernel has what it needs, on this machine or in a VM (`batch`), by the
executor (`executor`) on a network of namespaces (`topology`, `network`, `droppers`, `host`);
the self-check holds it to its own target (`calibration`, `selfcheck`).
"""
