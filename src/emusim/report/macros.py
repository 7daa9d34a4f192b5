"""The paper's numbers as macros: result files in, LaTeX macros out
(``{PREFIX}paper/generated/numbers.tex``).

The paper's text types no result: every number it states is a macro defined from the results
of one scale, here for what every study shares and in each study's ``numbers.paper_numbers``
for its own (emusim.studies, which read their inputs through `PaperInputs`), so a rerun on
another testbed, variant or scale rewrites the numbers with the results. Each ``*_numbers``
function maps already-read results (DataFrames, dicts; ``None`` where the workflow did not
produce them) to ``{macro name: LaTeX text}`` and defines the same names whether or not its
input exists (``n/a`` then), so a section whose part was not run still compiles. `render`
writes the file, with the ``\\if`` switches that say what ran and the figures and tables
that exist at this scale.

Macro names are TeX control words, letters only. `macro_name` joins the parts of a key in
CamelCase and spells digits as words: ``macro_name("RelDiffMedian", "random-drop", "ns3",
"linux-2.2", "throughput_report_Bps")`` is ``RelDiffMedianRandomDropNsThreeLinuxTwoTwoThroughput``
(a metric is shortened by emusim.report.shared_numbers.METRIC_NAMES). The families are listed
in paper/README.md; those every study shares are emusim.report.shared_numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from emusim.analysis.tables import tex_escape

#: What a macro holds when its result was not produced at this scale.
NA = "n/a"


_DIGIT_WORDS = ("Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")


Numbers = dict[str, str]


@dataclass(frozen=True)
class PaperInputs:
    """What a study's ``numbers.paper_numbers`` reads (emusim.studies): the paper rule's named
    inputs, each ``None`` where the workflow did not make it at this scale, and the study's own
    parameters (its rules file's ``paper_params``)."""

    table: Callable[[str], pd.DataFrame | None]
    """A named input CSV."""
    read_json: Callable[[str], Mapping | None]
    """A named input JSON."""
    runs: Callable[[str], pd.DataFrame | None]
    """The collected runs of every backend of a named input (a list of CSVs)."""
    path: Callable[[str], str | None]
    """A named input's path."""
    stats: Mapping[str, pd.DataFrame | None]
    """Every scenario's statistics table (scenario file name -> table or None)."""
    scenarios: Sequence[str]
    """Every scenario file name, run at this scale or not."""
    profiles: Sequence[str]
    """Every profile name the text may use."""
    scale: str
    params: Mapping[str, Any] = field(default_factory=dict)
    """The study's own parameters."""


def macro_name(*parts: str) -> str:
    """A letters-only TeX control word for a key: each run of letters with its first letter
    capitalised, each digit spelled out, everything else dropped ("linux-2.2" -> LinuxTwoTwo).
    """
    words = []
    for part in parts:
        for chunk in re.findall(r"[A-Za-z]+|[0-9]", str(part)):
            words.append(
                _DIGIT_WORDS[int(chunk)] if chunk.isdigit() else chunk[0].upper() + chunk[1:]
            )
    name = "".join(words)
    if not name:
        raise ValueError(f"no letters or digits in macro key {parts!r}")
    return name


def is_missing(value: object) -> bool:
    if value is None:
        return True
    try:
        return math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def fixed(value: object, decimals: int) -> str:
    """``value`` with ``decimals`` digits after the point, or n/a."""
    return NA if is_missing(value) else f"{float(value):.{decimals}f}"


def significant(value: object, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits in positional notation (0.00193, 0.115,
    4.11, 71.9), never in exponent form; whole numbers of more digits keep them all."""
    if is_missing(value):
        return NA
    x = float(value)
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    text = f"{x:.{decimals}f}"
    # Rounding can add a digit (0.09996 -> 0.1000): format again at the rounded magnitude.
    rounded = float(text)
    if rounded != 0 and math.floor(math.log10(abs(rounded))) != math.floor(math.log10(abs(x))):
        text = f"{rounded:.{max(0, digits - 1 - math.floor(math.log10(abs(rounded))))}f}"
    return text


def integer(value: object) -> str:
    """A count, digits grouped by thin spaces from 10 000 on (the report's own style)."""
    if is_missing(value):
        return NA
    n = round(float(value))
    text = f"{abs(n):,}".replace(",", r"\,") if abs(n) >= 10_000 else str(abs(n))
    return ("-" if n < 0 else "") + text


def text(value: object) -> str:
    """A string result (a parameter's name, a point id), escaped for LaTeX, or n/a."""
    return NA if is_missing(value) or value == "" else tex_escape(str(value))


#: How a sweep axis reads in the text, by its name in point ids (emusim.inputs.scenario AXES).
AXIS_LABELS = {
    "drop_rate": "drop rate {}",
    "every_n": "N = {}",
    "iterations": "{} writes",
    "mode": "{} dropper",
    "request_size_B": "{}-byte requests",
}


def point_label(point_id: object) -> str:
    """A point id (``drop_rate=0.02``, ``iterations=10000+mode=regular``) as readable text
    ("drop rate 0.02", "10000 writes, regular dropper")."""
    if is_missing(point_id) or point_id == "":
        return NA
    parts = []
    for part in str(point_id).split("+"):
        axis, _, value = part.partition("=")
        parts.append(AXIS_LABELS.get(axis, axis.replace("_", " ") + " {}").format(value).strip())
    return tex_escape(", ".join(parts))


def merge(*families: Numbers) -> Numbers:
    """The families of numbers as one mapping; a name defined twice is an error, so every
    macro has one source."""
    out: Numbers = {}
    for family in families:
        twice = sorted(set(out) & set(family))
        if twice:
            raise ValueError(f"macro names defined twice: {', '.join(twice)}")
        out.update(family)
    return out


def render(
    numbers: Mapping[str, str],
    switches: Mapping[str, bool],
    available: Mapping[str, Iterable[str]],
    scale: str,
) -> str:
    """numbers.tex: a ``\\newif`` per switch (``\\ifMininetRan``), a ``\\newcommand`` per
    number, and ``\\MarkAvailable{kind}{stem}`` for each figure and table of this scale
    (paper.tex defines \\MarkAvailable before it reads this file). Sorted, so the same results
    give the same bytes."""
    lines = [
        # the file's first line reads as it always has (the module's name before the package's
        # layers), so that the same results give the same bytes
        f"% The paper's numbers at scale {scale}: generated by workflow/scripts/paper_numbers.py"
        " from the results (emusim.paper_numbers); do not edit.",
    ]
    for name, on in sorted(switches.items()):
        _check_name(name)
        lines.append(rf"\newif\if{name}\{name}{'true' if on else 'false'}")
    for name, value in sorted(numbers.items()):
        _check_name(name)
        lines.append(rf"\newcommand{{\{name}}}{{{value}}}")
    for kind, stems in sorted(available.items()):
        lines += [rf"\MarkAvailable{{{kind}}}{{{stem}}}" for stem in sorted(stems)]
    return "\n".join(lines) + "\n"


def _check_name(name: str) -> None:
    if not re.fullmatch(r"[A-Za-z]+", name):
        raise ValueError(f"macro name {name!r} is not letters only (use macro_name)")


def render_paths(figures_dir: str, tables_dir: str, generated_dir: str) -> str:
    """paths.tex: where this scale's figures, tables and generated files are, relative to the
    directory LaTeX runs in (the repository)."""
    return "\n".join(
        [
            "% Where the paper reads this scale's results: generated by "
            "workflow/scripts/paper_numbers.py; do not edit.",
            rf"\newcommand{{\FigDir}}{{{figures_dir.rstrip('/')}/}}",
            rf"\newcommand{{\TabDir}}{{{tables_dir.rstrip('/')}/}}",
            rf"\newcommand{{\GenDir}}{{{generated_dir.rstrip('/')}/}}",
            "",
        ]
    )


def render_study_sections(sections: Sequence[str]) -> str:
    """studies.tex: an ``\\input`` of each study's section, in the registry's order (paper.tex
    inputs this file where the studies go; emusim.studies)."""
    lines = ["% The studies' sections, in order: generated from emusim.studies; do not edit."]
    lines += [rf"\input{{{section}}}" for section in sections]
    return "\n".join(lines) + "\n"


def render_scenario_appendix(scenarios: Sequence[Mapping[str, object]]) -> str:
    """scenarios.tex: the appendix's entry of each scenario no study presents (one a user
    added to scenarios/): its description, its generic figure and its per-point table. Each
    mapping has `name`, `description`, `figure` (the figure's stem) and `axis` (the figure's
    x axis). Empty of entries when every scenario belongs to a study."""
    lines = [
        "% Scenarios no study of the paper presents: generated by "
        "workflow/scripts/paper_numbers.py; do not edit.",
    ]
    if scenarios:
        lines += [
            r"\subsection*{Scenarios outside the paper's studies}",
            "Scenarios of \\texttt{scenarios/} that no study of this paper presents: each "
            "metric that varies against the first sweep axis, a line per backend and profile, "
            "and the per-point table.",
        ]
    for s in scenarios:
        name = tex_escape(str(s["name"]))
        axis = tex_escape(str(s["axis"]))
        lines += [
            "",
            rf"\paragraph{{\Scn{{{name}}}}} {tex_escape(' '.join(str(s['description']).split()))}",
            rf"\ResultFigure{{{s['figure']}}}{{\Scn{{{name}}}: every metric against {axis}.}}",
            r"\begingroup\let\table\sidewaystable\let\endtable\endsidewaystable",
            rf"\ResultTable{{{s['name']}}}",
            r"\endgroup",
        ]
    return "\n".join([*lines, ""])
