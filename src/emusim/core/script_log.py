"""Send a workflow script's logging to its rule's log file.

Every script in workflow/scripts starts with ``log = script_log.setup(snakemake)``.
"""

import logging
import sys


def setup(snakemake) -> logging.Logger:
    """Log to snakemake.log[0] when the rule has a log, else to stderr."""
    handlers = [logging.FileHandler(snakemake.log[0])] if snakemake.log else []
    logging.basicConfig(
        level=logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        handlers=handlers or [logging.StreamHandler(sys.stderr)],
        force=True,
    )
    return logging.getLogger(snakemake.rule)
