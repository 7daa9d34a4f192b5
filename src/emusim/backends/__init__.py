"""The backends a scenario runs on, each a package here: `reference` (the 2001 report's
measurements), `testbed` (three hosts over SSH), `ns3` (simulation) and `mininet` (emulation).
No backend imports another (a contract `lint-imports` checks, pyproject.toml): what they share
sits in lower layers (emusim.core.backend_registry names them, emusim.linux, emusim.infra).
"""
