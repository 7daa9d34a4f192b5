"""The report's tables, built from the statistics table and written as CSV, LaTeX and HTML.

`write_table` writes one DataFrame three ways: ``{stem}.csv`` (full precision, for reuse),
``{stem}.tex`` (booktabs, for the paper) and ``{stem}.html`` (a small standalone page). Column
labels may have two levels (a backend over its AVG, Var and throughput): LaTeX and HTML show
them as a spanning header, the CSV joins them as ``top/sub``. `side_by_side` lays the statistics
out as the report does, one row per point and each backend's columns side by side: the columns
of a scenario's table are its workload's (`table_columns`, emusim.workloads).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

#: A column format: a format spec (``".3f"``) or a function of the value.
Format = str | Callable[[object], str]

_TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_HTML_STYLE = (
    "body{font-family:sans-serif;margin:1.5em}"
    "table{border-collapse:collapse;font-size:0.9em}"
    "caption{caption-side:top;text-align:left;font-weight:bold;margin-bottom:0.4em}"
    "th,td{padding:0.2em 0.6em}"
    "thead tr:first-child th{border-top:2px solid #000}"
    "thead tr:last-child th{border-bottom:1px solid #000}"
    "tbody tr:last-child td{border-bottom:2px solid #000}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "th.group{border-bottom:1px solid #888}"
)


def tex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_TEX_ESCAPES.get(ch, ch) for ch in text)


def _auto_format(value: float) -> str:
    """Whole numbers and values ≥ 10⁴ without decimals, others to 6 significant digits."""
    if float(value).is_integer() or abs(value) >= 1e4:
        return f"{value:.0f}"
    return f"{value:.6g}"


def format_cell(value: object, fmt: Format | None = None) -> str:
    """One cell as text: missing values empty, numbers by ``fmt`` (or `_auto_format`)."""
    if value is None or (isinstance(value, float | np.floating) and math.isnan(value)):
        return ""
    if callable(fmt):
        return fmt(value)
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return format(int(value), fmt) if fmt else str(int(value))
    if isinstance(value, float | np.floating):
        return format(float(value), fmt) if fmt else _auto_format(float(value))
    return str(value)


def _column_levels(df: pd.DataFrame) -> list[tuple[str, str]]:
    """Each column label as (top, sub); top is empty for one-level labels."""
    if isinstance(df.columns, pd.MultiIndex):
        if df.columns.nlevels != 2:
            raise ValueError(f"tables have one or two header levels, not {df.columns.nlevels}")
        return [(str(top), str(sub)) for top, sub in df.columns]
    return [("", str(col)) for col in df.columns]


def _spans(tops: Sequence[str]) -> list[tuple[str, int, int]]:
    """Runs of equal top labels as (label, first column, width)."""
    spans: list[tuple[str, int, int]] = []
    for i, top in enumerate(tops):
        if spans and spans[-1][0] == top:
            label, first, width = spans[-1]
            spans[-1] = (label, first, width + 1)
        else:
            spans.append((top, i, 1))
    return spans


def _cells(df: pd.DataFrame, float_formats: Mapping[object, Format] | None) -> list[list[str]]:
    formats = dict(float_formats or {})
    columns = list(df.columns)

    def fmt_of(col: object) -> Format | None:
        if col in formats:
            return formats[col]
        # A two-level label may be formatted by its sub-label alone ("AVG (s)").
        if isinstance(col, tuple) and col[-1] in formats:
            return formats[col[-1]]
        return None

    return [
        [format_cell(value, fmt_of(col)) for col, value in zip(columns, row, strict=True)]
        for row in df.itertuples(index=False, name=None)
    ]


def _is_numeric(df: pd.DataFrame) -> list[bool]:
    return [pd.api.types.is_numeric_dtype(df.iloc[:, i]) for i in range(df.shape[1])]


def to_latex(
    df: pd.DataFrame,
    caption: str,
    label: str,
    float_formats: Mapping[object, Format] | None = None,
) -> str:
    """A booktabs ``table`` environment of ``df`` (numbers right-aligned, text left)."""
    levels = _column_levels(df)
    numeric = _is_numeric(df)
    align = "".join("r" if num else "l" for num in numeric)
    lines = [
        r"\begin{table}[htbp]",
        r"\centering",
        rf"\caption{{{tex_escape(caption)}}}",
        rf"\label{{{label}}}",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
    ]
    tops = [top for top, _ in levels]
    if any(tops):
        heads, rules = [], []
        for top, first, width in _spans(tops):
            if top and width > 1:
                heads.append(rf"\multicolumn{{{width}}}{{c}}{{{tex_escape(top)}}}")
                rules.append(rf"\cmidrule(lr){{{first + 1}-{first + width}}}")
            else:
                heads.extend([tex_escape(top)] * width)
                if top:
                    rules.append(rf"\cmidrule(lr){{{first + 1}-{first + 1}}}")
        lines.append(" & ".join(heads) + r" \\")
        lines.append(" ".join(rules))
    lines.append(" & ".join(tex_escape(sub) for _, sub in levels) + r" \\")
    lines.append(r"\midrule")
    for row in _cells(df, float_formats):
        lines.append(" & ".join(tex_escape(cell) for cell in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


def to_html(
    df: pd.DataFrame,
    caption: str,
    label: str,
    float_formats: Mapping[object, Format] | None = None,
) -> str:
    """A small standalone HTML page holding ``df`` as a table with a caption."""
    levels = _column_levels(df)
    numeric = _is_numeric(df)
    esc = html.escape
    head_rows = []
    tops = [top for top, _ in levels]
    if any(tops):
        cells = []
        for top, _first, width in _spans(tops):
            span = f' colspan="{width}"' if width > 1 else ""
            cls = ' class="group"' if top else ""
            cells.append(f'<th scope="colgroup"{span}{cls}>{esc(top)}</th>')
        head_rows.append("<tr>" + "".join(cells) + "</tr>")
    head_rows.append(
        "<tr>" + "".join(f'<th scope="col">{esc(sub)}</th>' for _, sub in levels) + "</tr>"
    )
    body_rows = []
    for row in _cells(df, float_formats):
        cells = [
            f'<td class="num">{esc(c)}</td>' if num else f"<td>{esc(c)}</td>"
            for c, num in zip(row, numeric, strict=True)
        ]
        body_rows.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f"<title>{esc(caption)}</title>",
            f"<style>{_HTML_STYLE}</style>",
            "</head>",
            "<body>",
            f'<table id="{esc(label)}">',
            f"<caption>{esc(caption)}</caption>",
            "<thead>",
            *head_rows,
            "</thead>",
            "<tbody>",
            *body_rows,
            "</tbody>",
            "</table>",
            "</body>",
            "</html>",
            "",
        ]
    )


def flat_columns(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with two-level column labels joined as ``top/sub`` (one-level ones kept)."""
    levels = _column_levels(df)
    return df.set_axis([f"{top}/{sub}" if top else sub for top, sub in levels], axis=1)


def write_table(
    df: pd.DataFrame,
    stem: str | Path,
    caption: str,
    label: str,
    float_formats: Mapping[object, Format] | None = None,
) -> list[Path]:
    """Write ``{stem}.csv``, ``{stem}.tex`` and ``{stem}.html``; return their paths.

    ``float_formats`` maps a column label (or, for two-level labels, the sub-label) to a
    format spec such as ``".3f"`` or to a function; it applies to LaTeX and HTML, while the
    CSV keeps full precision so it reads back to the same numbers.
    """
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_name(stem.name + ext) for ext in (".csv", ".tex", ".html")]
    flat_columns(df).to_csv(paths[0], index=False, lineterminator="\n")
    paths[1].write_text(to_latex(df, caption, label, float_formats), encoding="utf-8")
    paths[2].write_text(to_html(df, caption, label, float_formats), encoding="utf-8")
    return paths


# --- builders ------------------------------------------------------------------------------------


def series_label(backend: str, profile: str) -> str:
    """The header of one (backend, profile) column group."""
    return f"{backend} ({profile})"


def side_by_side(
    stats: pd.DataFrame,
    columns: Mapping[str, tuple[str, str]],
    x_cols: Sequence[str] = (),
    backends: Sequence[str] | None = None,
) -> pd.DataFrame:
    """One row per point, each (backend, profile) a group of columns side by side.

    ``columns`` maps a column label to (metric, statistic), e.g. ``{"AVG (s)": ("elapsed_s",
    "mean")}``. The rows start with ``x_cols`` (axis columns of the statistics table) or, if
    none are given, the point id. Points keep the statistics table's order; ``backends``
    selects and orders backends (default: all, as they appear).
    """
    if backends is not None:
        stats = stats[stats["backend"].isin(backends)]
    points = list(pd.unique(stats["point"]))
    x_cols = list(x_cols) or ["point"]
    index = stats.drop_duplicates("point").set_index("point").reindex(points)
    out = pd.DataFrame(
        {("", col): (points if col == "point" else index[col].to_numpy()) for col in x_cols}
    )
    pairs = list(dict.fromkeys(stats[["backend", "profile"]].itertuples(index=False, name=None)))
    if backends is not None:
        pairs.sort(key=lambda pair: list(backends).index(pair[0]))
    for backend, profile in pairs:
        mine = stats[(stats["backend"] == backend) & (stats["profile"] == profile)]
        for label, (metric, stat) in columns.items():
            values = mine[mine["metric"] == metric].set_index("point")[stat]
            out[(series_label(backend, profile), label)] = values.reindex(points).to_numpy()
    out.columns = pd.MultiIndex.from_tuples(out.columns)
    return out
