"""What the study does to a Linux host, as data and pure command builders: the link shaper
(`shaper`), the dropper's rules (`dropper`), the TCP profiles' settings (`tcp`) and the blast
tools' output (`blast_output`). Shared by the emulation (emusim.backends.mininet) and the
testbed (emusim.backends.testbed), so that neither imports the other.
"""
