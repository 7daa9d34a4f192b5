"""`python -m emusim.backends.mininet`: the Mininet backend's command line (see `cli`)."""

import sys

from emusim.backends.mininet.cli import main

if __name__ == "__main__":
    sys.exit(main())
