"""`python -m emusim.cli ARGS`: the `emusim` command without its script."""

import sys

from emusim.cli import main

sys.exit(main())
