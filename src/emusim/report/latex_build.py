"""Build a LaTeX document with latexmk: quiet when it works, LaTeX's own error when it fails.

`build` runs latexmk in the repository (so the paper's relative paths hold) with the
intermediate files in a build directory, never among the sources; TEXINPUTS puts the
generated files of one scale and the shared sources on LaTeX's search path. Warnings about
undefined references count as errors (-Werror): a paper with "??" in it is not built.
SOURCE_DATE_EPOCH pins the dates pdfTeX writes, so the same inputs give the same PDF.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

#: LaTeX's file:line:error lines (-file-line-error), e.g. "./paper/sections/x.tex:12: Undefined".
ERROR_LINE = re.compile(r"^(?P<file>[^\s:][^:]*\.(?:tex|sty|cls|def)):(?P<line>\d+): (?P<msg>.+)$")

#: What -Werror turns into an error: LaTeX's warnings of undefined or doubly defined labels.
REFERENCE_PROBLEM = re.compile(
    r"^(?:LaTeX Warning: )?(?:Reference|Citation|Label) `[^']*' .*(?:undefined|multiply defined)"
)

#: A fixed date for pdfTeX (the paper prints none): reproducible bytes.
SOURCE_DATE_EPOCH = "0"


class LatexError(RuntimeError):
    """latexmk failed; the message holds LaTeX's errors with file and line."""


def command(tex: Path, outdir: Path) -> list[str]:
    """The latexmk command line for ``tex`` with every output in ``outdir``."""
    return [
        "latexmk",
        "-pdf",
        "-interaction=nonstopmode",
        "-halt-on-error",
        "-file-line-error",
        "-Werror",
        f"-outdir={outdir}",
        str(tex),
    ]


def errors(log_text: str) -> list[str]:
    """The error lines of a LaTeX or latexmk log, each followed by LaTeX's context line
    (``l.12 ...``) where there is one, and the reference warnings -Werror fails on."""
    lines = log_text.splitlines()
    found = []
    for i, line in enumerate(lines):
        if ERROR_LINE.match(line):
            found.append(line.strip())
            context = next((ln for ln in lines[i + 1 : i + 12] if re.match(r"^l\.\d+ ", ln)), None)
            if context:
                found.append("    " + context)
        elif REFERENCE_PROBLEM.match(line.strip()):
            # LaTeX's log and latexmk's summary state each one: keep one wording.
            found.append(line.strip().removeprefix("LaTeX Warning: ").rstrip("."))
    return list(dict.fromkeys(found))


def build(tex: Path, outdir: Path, texinputs: Sequence[Path], log: Path) -> Path:
    """Run latexmk on ``tex``; return the PDF. latexmk's output goes to ``log``; on failure
    raise `LatexError` with the errors `errors` finds in it and in LaTeX's own log."""
    outdir.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        # A trailing separator keeps TeX's default search path after ours.
        TEXINPUTS=os.pathsep.join(str(p) for p in texinputs) + os.pathsep,
        SOURCE_DATE_EPOCH=SOURCE_DATE_EPOCH,
        FORCE_SOURCE_DATE="1",
        # Long log lines, so a file:line: error is never cut in two.
        max_print_line="1000",
        error_line="254",
        half_error_line="238",
    )
    with log.open("w", encoding="utf-8") as out:
        proc = subprocess.run(
            command(tex, outdir), stdout=out, stderr=subprocess.STDOUT, env=env, check=False
        )
    pdf = outdir / tex.with_suffix(".pdf").name
    if proc.returncode == 0 and pdf.exists():
        return pdf
    text = log.read_text(encoding="utf-8", errors="replace")
    tex_log = outdir / tex.with_suffix(".log").name
    if tex_log.exists():
        text += "\n" + tex_log.read_text(encoding="utf-8", errors="replace")
    found = errors(text) or [f"latexmk exited with status {proc.returncode}; see {log}"]
    raise LatexError("\n".join(found))
