"""Rule paper: the PDF from paper/paper.tex, with LaTeX's errors on stderr if it fails."""

import sys
from pathlib import Path

from emusim.report import latex_build

params = snakemake.params  # noqa: F821
try:
    latex_build.build(
        Path(snakemake.input.tex),  # noqa: F821
        Path(params.outdir),
        [Path(p) for p in params.texinputs],
        Path(snakemake.log[0]),  # noqa: F821
    )
except latex_build.LatexError as err:
    print(f"paper: LaTeX failed (full log: {snakemake.log[0]}):\n{err}", file=sys.stderr)  # noqa: F821
    sys.exit(1)
