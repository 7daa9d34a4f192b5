"""emusim.analysis.tables: the three formats carry the same values; builders lay out the
statistics."""

import pandas as pd
import pytest

from emusim import workloads
from emusim.analysis import stats, tables

ELAPSED = workloads.get("tcp-blast").table_columns


@pytest.fixture
def stats_table():
    rows = []
    # hardware: Table 4.1's first two rows; ns3: slower, two runs a point
    hardware = {
        0.0: [12.32] + [12.31] * 9,
        0.004: [12.58, 12.59, 12.60, 12.78, 12.40, 12.59, 12.79, 12.79, 12.59, 12.59],
    }
    ns3 = {0.0: [12.5, 12.7], 0.004: [13.0, 13.4]}
    for backend, points in (("hardware", hardware), ("ns3", ns3)):
        for rate, times in points.items():
            for k, t in enumerate(times):
                rows.append(
                    {"scenario": "random_drop", "backend": backend, "profile": "p",
                     "point": f"drop_rate={rate}", "drop_rate": rate, "repetition": k + 1,
                     "seed": k, "status": "ok", "elapsed_s": t, "writes": 100_000}
                )  # fmt: skip
    return stats.summarise(pd.DataFrame(rows), ["drop_rate"])


def test_write_table_three_formats(tmp_path):
    df = pd.DataFrame(
        {"drop_rate": [0.0, 0.004], "AVG_s": [12.311, 12.63], "note": ["a_b & 50%", None]}
    )
    paths = tables.write_table(
        df, tmp_path / "t" / "table", "Elapsed & more", "tab:x", {"AVG_s": ".3f"}
    )
    csv, tex, html = paths
    assert [p.name for p in paths] == ["table.csv", "table.tex", "table.html"]
    back = pd.read_csv(csv)
    pd.testing.assert_frame_equal(back[["drop_rate", "AVG_s"]], df[["drop_rate", "AVG_s"]])
    tex_text = tex.read_text()
    assert r"\toprule" in tex_text and r"\midrule" in tex_text and r"\bottomrule" in tex_text
    assert r"\begin{tabular}{rrl}" in tex_text
    assert "12.630" in tex_text and "12.311" in tex_text
    assert r"a\_b \& 50\%" in tex_text and r"AVG\_s" in tex_text
    assert r"\caption{Elapsed \& more}" in tex_text and r"\label{tab:x}" in tex_text
    html_text = html.read_text()
    assert html_text.startswith("<!DOCTYPE html>") and html_text.rstrip().endswith("</html>")
    assert '<td class="num">12.630</td>' in html_text
    assert "a_b &amp; 50%" in html_text and "<caption>Elapsed &amp; more</caption>" in html_text


def test_write_table_is_deterministic(tmp_path):
    df = pd.DataFrame({"x": [1.5, 2.25], "y": ["u", "v"]})
    a = tables.write_table(df, tmp_path / "a", "c", "l")
    b = tables.write_table(df, tmp_path / "b", "c", "l")
    for x, y in zip(a, b, strict=True):
        assert x.read_bytes() == y.read_bytes()


def test_format_cell():
    assert tables.format_cell(float("nan")) == ""
    assert tables.format_cell(12395418.73) == "12395419"
    assert tables.format_cell(12.311) == "12.311"
    assert tables.format_cell(3) == "3"
    assert tables.format_cell(0.1234, ".2f") == "0.12"
    assert tables.format_cell(0.1234, lambda v: f"{100 * v:.1f} %") == "12.3 %"


def test_elapsed_table_side_by_side(stats_table, tmp_path):
    table = tables.side_by_side(stats_table, ELAPSED, x_cols=["drop_rate"])
    assert list(table.columns) == [
        ("", "drop_rate"),
        ("hardware (p)", "AVG (s)"), ("hardware (p)", "SD (s)"), ("hardware (p)", "MAD (s)"),
        ("hardware (p)", "Throughput (B/s)"),
        ("ns3 (p)", "AVG (s)"), ("ns3 (p)", "SD (s)"), ("ns3 (p)", "MAD (s)"),
        ("ns3 (p)", "Throughput (B/s)"),
    ]  # fmt: skip
    assert list(table[("", "drop_rate")]) == [0.0, 0.004]
    first = table.iloc[0]
    assert first[("hardware (p)", "AVG (s)")] == pytest.approx(12.311)
    assert first[("hardware (p)", "SD (s)")] == pytest.approx(0.003)  # Table 4.1 prints 0.003
    # 12.32 and nine 12.31: (0.009 + 9 x 0.001) / 10
    assert first[("hardware (p)", "MAD (s)")] == pytest.approx(0.0018)
    assert round(first[("hardware (p)", "Throughput (B/s)")]) == 12395419
    # ns3 at 0.004: runs 13.0, 13.4 → mean 13.2, population SD 0.2
    assert table.iloc[1][("ns3 (p)", "AVG (s)")] == pytest.approx(13.2)
    assert table.iloc[1][("ns3 (p)", "SD (s)")] == pytest.approx(0.2)
    assert table.iloc[1][("ns3 (p)", "MAD (s)")] == pytest.approx(0.2)
    assert table.iloc[1][("ns3 (p)", "Throughput (B/s)")] == pytest.approx(1526e5 / 13.2)

    formats = {"AVG (s)": ".3f", "SD (s)": ".3f", "Throughput (B/s)": ".0f", "drop_rate": ".3f"}
    csv, tex, html = tables.write_table(table, tmp_path / "t4_1", "Random", "tab:t41", formats)
    tex_text, html_text = tex.read_text(), html.read_text()
    assert r"\multicolumn{4}{c}{hardware (p)}" in tex_text and r"\cmidrule(lr){2-5}" in tex_text
    assert "0.004 & 12.630 & 0.117" in tex_text  # Table 4.1's 0.004 row: AVG 12.630, VAR 0.117
    assert "12395419" in tex_text and "12395419" in html_text
    assert 'colspan="4" class="group">ns3 (p)</th>' in html_text
    back = pd.read_csv(csv)
    assert list(back.columns)[:2] == ["drop_rate", "hardware (p)/AVG (s)"]
    assert back["ns3 (p)/AVG (s)"].tolist() == pytest.approx([12.6, 13.2])


def test_elapsed_table_selects_backends(stats_table):
    table = tables.side_by_side(stats_table, ELAPSED, backends=["ns3"])
    assert {top for top, _ in table.columns} == {"", "ns3 (p)"}


def test_tex_escape():
    assert tables.tex_escape(r"a_b%c&d$e#f{g}h~i^j\k") == (
        r"a\_b\%c\&d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
    )
