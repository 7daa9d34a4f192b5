"""The ns-3 backend: the programs of sim/ns3 built against the ns-3 3.44 wheel (`build`,
`python -m emusim.backends.ns3.build`), a scenario point's command line (`command`), and the
router-forwarding study's runs with the processing model fitted to the emulation
(`model_run`). Every run goes through emusim.infra.runjson, which writes its run JSON.
"""
