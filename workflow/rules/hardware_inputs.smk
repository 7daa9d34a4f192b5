# The hardware backend's paths (reference.smk: the 2001 measurements; testbed.smk: a testbed
# over SSH, hardware.source: testbed); its facts are emusim.pipeline.hardware's.
from emusim.backends.reference import runs as hw

HARDWARE_PROFILE = hw.PROFILE
TESTBED_DIR = pipeline.hardware.testbed_dir(SETUP)
