"""The paper: its numbers from small hand-made result files, the rule that no result is typed
into its sources, LaTeX's errors reported with their line, and the PDF built by `snakemake
paper` at quick scale in a copy of the workflow, its text checked against the results."""

import json
import math
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from workflow_copy import snakemake_quick

from emusim.core.paths import REPO_ROOT
from emusim.report import latex_build, macros, shared_numbers
from emusim.studies.report_2001 import numbers as report_numbers

PAPER_SOURCES = [
    REPO_ROOT / "paper" / "paper.tex",
    *sorted((REPO_ROOT / "paper/sections").rglob("*.tex")),
]

# The line-rate limit in the report's accounting, from the framing: 10^8 bit/s is 12 500 000 B/s
# on the wire, of which each 1538-byte-time frame is counted as 1526 bytes.
LIMIT_REPORT_BPS = 12_500_000 * 1526 / 1538


# --- macro names and formats ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parts", "name"),
    [
        (("random-drop",), "RandomDrop"),
        (("linux-2.2",), "LinuxTwoTwo"),
        (("ns3", "ns3-default"), "NsThreeNsThreeDefault"),
        (("regular-1in6",), "RegularOneInSix"),
        (
            ("Ablation", "Median", "random-drop", "Step", "delayed-ACK timeout"),
            "AblationMedianRandomDropStepDelayedACKTimeout",
        ),
    ],
)
def test_macro_names_are_letters_only(parts, name):
    assert macros.macro_name(*parts) == name
    assert re.fullmatch(r"[A-Za-z]+", name)


def test_formats():
    assert macros.significant(0.11546095551635893) == "0.115"
    assert macros.significant(0.0019264781936871877) == "0.00193"
    assert macros.significant(4.110351735684443) == "4.11"
    assert macros.significant(0.09996) == "0.100"
    assert macros.significant(float("nan")) == macros.NA
    assert macros.integer(1_000_000) == r"1\,000\,000"
    assert macros.integer(2000) == "2000"
    assert macros.fixed(None, 2) == macros.NA
    assert macros.point_label("iterations=20000+mode=regular") == "20000 writes, regular dropper"
    assert macros.point_label("drop_rate=0.01+every_n=100") == "drop rate 0.01, N = 100"


# --- numbers from hand-made result files ---------------------------------------------------------


def _csv(tmp_path: Path, name: str, text: str) -> pd.DataFrame:
    path = tmp_path / name
    path.write_text(text)
    return pd.read_csv(path)


def test_baseline_numbers_against_the_line_rate_limit(tmp_path):
    stats = _csv(
        tmp_path,
        "baseline-tcp.csv",
        "scenario,backend,profile,point,metric,n,mean\n"
        "baseline-tcp,hardware,native,base,elapsed_s,10,123.316\n"
        "baseline-tcp,hardware,native,base,writes,10,1000000\n"
        "baseline-tcp,hardware,native,base,throughput_report_Bps,10,12374712.12\n"
        "baseline-tcp,ns3,linux-2.2,base,throughput_report_Bps,1,12398551.73\n",
    )
    out = report_numbers.baseline_numbers({"baseline-tcp": stats}, ["linux-2.2", "ns3-default"])
    # 12374712.12 / (12.5e6 * 1526 / 1538) = 0.99776...
    assert out["LineRateFractionBaselineTcpHardwareNative"] == "0.998"
    assert out["LineRateFractionBaselineTcpNsThreeLinuxTwoTwo"] == "1.000"
    assert out["ThroughputMBpsBaselineTcpHardwareNative"] == "12.375"
    assert out["ElapsedSBaselineTcpHardwareNative"] == "123.32"
    assert out["WritesBaselineTcpHardwareNative"] == r"1\,000\,000"
    assert out["LineRateFractionBaselineTcpNsThreeNsThreeDefault"] == macros.NA
    assert out["LineRateFractionBaselineUdpHardwareNative"] == macros.NA
    gap_share = 100 * (12_500_000 - LIMIT_REPORT_BPS) / (12_500_000 - 12374712.12)
    assert out["GapShareOfShortfallPercentBaselineTcp"] == f"{gap_share:.0f}" == "78"


def test_comparison_numbers_from_a_summary(tmp_path):
    # Two comparison points of random-drop, |rel_diff| 0.10 and 0.30: median 0.2, max 0.3.
    rel = [0.10, -0.30]
    summary = _csv(
        tmp_path,
        "summary.csv",
        "scenario,backend,profile,metric,n_points,median_abs_rel_diff,max_abs_rel_diff,"
        "point_of_max,selfcheck\n"
        f"random-drop,ns3,linux-2.2,throughput_report_Bps,2,{pd.Series(rel).abs().median()},"
        f"{max(abs(r) for r in rel)},drop_rate=0.1,\n"
        "random-drop,mininet,linux-2.2,throughput_report_Bps,2,0.41527,0.48,drop_rate=0.02,"
        '"failed: throughput, delay"\n',
    )
    out = shared_numbers.comparison_numbers(summary, ["random-drop", "ping-sweep"], ["linux-2.2"])
    assert out["RelDiffMedianRandomDropNsThreeLinuxTwoTwoThroughput"] == "0.200"
    assert out["RelDiffMaxRandomDropNsThreeLinuxTwoTwoThroughput"] == "0.300"
    assert out["RelDiffPointOfMaxRandomDropNsThreeLinuxTwoTwoThroughput"] == "drop rate 0.1"
    assert out["RelDiffPointsRandomDropNsThreeLinuxTwoTwoThroughput"] == "2"
    assert out["RelDiffMedianRandomDropMininetLinuxTwoTwoThroughput"] == "0.415"
    assert out["SelfcheckRandomDropMininetLinuxTwoTwo"] == "failed: throughput, delay"
    assert out["SelfcheckRandomDropNsThreeLinuxTwoTwo"] == macros.NA
    assert out["RelDiffMedianPingSweepNsThreeLinuxTwoTwoRtt"] == macros.NA


def test_delay_numbers(tmp_path):
    published = pd.read_csv(REPO_ROOT / "data/reference/published.csv", dtype=str)
    delay = {
        "method": "two-point",
        "one_way_delay_us": 71.88777777777779,
        "fits": {
            "two_point": {"a": 0.3407986, "b": 161.0555556, "one_way_delay_us": 71.8877778},
            "least_squares": {
                "slope": 0.3477,
                "intercept": 148.8,
                "n": 40,
                "one_way_delay_us": 65.768,
                "one_way_delay_ci95_us": [62.835, 68.702],
            },
        },
    }
    out = report_numbers.delay_numbers(delay, published)
    assert out["FittedDelayUs"] == "71.89"
    assert out["LsqDelayCiLowUs"] == "62.84" and out["LsqDelayCiHighUs"] == "68.70"
    # The report's 71.8878 µs is above 68.70: outside the interval.
    assert out["ReportDelayInsideCi"] == "outside"
    assert report_numbers.report_numbers(published)["ReportDelayUs"] == "72"
    empty = report_numbers.delay_numbers(None, published)
    assert set(empty) == set(out) and empty["FittedDelayUs"] == macros.NA


def test_ablation_numbers(tmp_path):
    ablation = _csv(
        tmp_path,
        "ablation.csv",
        "step,parameter,scenario,backend,profile,metric,n_points,median_abs_rel_diff,"
        "max_abs_rel_diff,point_of_max\n"
        "0,none (ns3-default),random-drop,ns3,ns3-default,throughput_report_Bps,4,0.95,0.98,x\n"
        "0,none (ns3-default),random-drop,ns3,ns3-default,elapsed_s,4,9.0,9.5,x\n"
        "1,minimum RTO,random-drop,ns3,ablation-01,throughput_report_Bps,4,0.9,0.99,x\n"
        "2,delayed-ACK timeout,random-drop,ns3,linux-2.2,throughput_report_Bps,4,0.05,0.1,x\n",
    )
    steps = ["none (ns3-default)", "minimum RTO", "delayed-ACK timeout"]
    out = report_numbers.ablation_numbers(ablation, ["random-drop", "regular-drop"], steps)
    assert out["AblationSteps"] == "2"
    assert out["AblationStartMedianRandomDrop"] == "0.950"
    assert out["AblationEndMedianRandomDrop"] == "0.0500"
    # The worst step that applies a parameter, though step 0 (the base) is worse still.
    assert out["AblationWorstMedianRandomDrop"] == "0.900"
    assert out["AblationWorstParameterRandomDrop"] == "minimum RTO"
    assert out["AblationBestParameterRandomDrop"] == "delayed-ACK timeout"
    assert out["AblationMedianRandomDropBeforeDelayedACKTimeout"] == "0.900"
    assert out["AblationMedianRandomDropBeforeNoneNsThreeDefault"] == macros.NA
    assert out["AblationMaxRandomDropStepMinimumRTO"] == "0.990"
    assert out["AblationStartMedianRegularDrop"] == macros.NA
    assert set(
        report_numbers.ablation_numbers(None, ["random-drop", "regular-drop"], steps)
    ) == set(out)


def test_trace_numbers(tmp_path):
    traces = _csv(
        tmp_path,
        "traces.csv",
        "scenario,profile,point,status,elapsed_s,data_packets,retransmissions,dropper_drops,"
        "fast_recoveries,timeout_series,timeouts_retransmission_lost,timeouts_too_few_dupacks,"
        "rto_waits,rto_wait_s,mean_cwnd_segments\n"
        "regular-1in6,linux-2.2,iterations=10000+mode=regular,ok,68.44,12000,2000,2000,1000,"
        "333,333,0,333,65.62,2.27\n"
        "random-drop,linux-2.2,drop_rate=0.1,ok,32.37,11072,1072,1072,489,106,88,18,133,30.09,2.8\n",
    )
    stats = _csv(
        tmp_path,
        "stats.csv",
        "scenario,backend,profile,point,metric,n,mean,median,min,max\n"
        "regular-1in6,hardware,native,iterations=10000+mode=regular,elapsed_s,10,37.4,1.77,1.77,"
        "346.65\n",
    )
    out = report_numbers.trace_numbers(traces, stats, ["linux-2.2", "ns3-default"], every_n=6)
    assert out["PathologyLinuxTwoTwoElapsedS"] == "68.4"
    assert out["PathologyLinuxTwoTwoRtoWaits"] == "333"
    # 65.62 s of 68.44 s waiting: 95.9 %; 65.62 s / 333 waits = 197 ms each.
    assert out["PathologyLinuxTwoTwoRtoWaitPercent"] == "96"
    assert out["PathologyLinuxTwoTwoMeanRtoWaitMs"] == "197"
    assert out["PathologyWrites"] == r"10\,000"
    assert out["PathologyEveryN"] == "6"
    assert out["PathologyHardwareMedianS"] == "1.77" and out["PathologyHardwareMaxS"] == "347"
    assert out["TraceRandomDropRate"] == "0.1"
    assert out["TraceRandomDropLinuxTwoTwoRtoWaitPercent"] == f"{100 * 30.09 / 32.37:.0f}"
    assert out["PathologyNsThreeDefaultElapsedS"] == macros.NA


def test_one_in_six_numbers_count_stalls_per_iteration_count():
    # Hardware at 10 000 writes: 1.77 s fastest, 12.73 s (7.2x: not a stall), 346.65 s (a
    # stall); at 20 000: 3.35 s and 455.36 s (a stall). ns-3: every run within 10x.
    runs = pd.DataFrame(
        [
            ("hardware", "native", 10000, "regular", 1.77),
            ("hardware", "native", 10000, "regular", 12.73),
            ("hardware", "native", 10000, "regular", 346.65),
            ("hardware", "native", 20000, "regular", 3.35),
            ("hardware", "native", 20000, "regular", 455.36),
            ("hardware", "native", 10000, "random", 122.34),
            ("ns3", "linux-2.2", 10000, "regular", 2.78),
            ("ns3", "linux-2.2", 10000, "regular", 2.58),
            ("ns3", "linux-2.2", 20000, "regular", 4.51),
            ("ns3", "linux-2.2", 20000, "regular", 80.0),
            ("ns3", "linux-2.2", 30000, "regular", 99.0),
        ],
        columns=["backend", "profile", "iterations", "mode", "elapsed_s"],
    )
    out = report_numbers.one_in_six_numbers(runs, ["linux-2.2", "ns3-default"])
    assert out["OneInSixStallFactor"] == "10"
    assert out["OneInSixHardwareRuns"] == "5" and out["OneInSixHardwareStalled"] == "2"
    assert out["OneInSixHardwarePoints"] == "2" and out["OneInSixHardwarePointsStalled"] == "2"
    assert out["OneInSixHardwareMaxS"] == "455" and out["OneInSixHardwareFastS"] == "1.77"
    assert out["OneInSixNsThreeLinuxTwoTwoRuns"] == "5"
    # 80 s at 20 000 is 17.7x ns-3's fastest there (4.51 s): a stall of its own
    assert out["OneInSixNsThreeLinuxTwoTwoStalled"] == "1"
    # against the hardware's fastest: 80 > 33.5 at 20 000; 30 000 has no hardware run
    assert out["OneInSixNsThreeLinuxTwoTwoStalledVsHardware"] == "1"
    assert out["OneInSixHardwareStalledVsHardware"] == "2"
    assert out["OneInSixNsThreeLinuxTwoTwoFastS"] == "2.58"
    assert out["OneInSixNsThreeNsThreeDefaultRuns"] == macros.NA
    assert set(report_numbers.one_in_six_numbers(None, ["linux-2.2", "ns3-default"])) == set(out)


def test_drop_cost_numbers_split_the_gap_into_drops_and_time_per_drop():
    # Hardware at 0.1: 100 and 120 s (mean 110) with 1000 and 1200 drops (1100); at 0.2: 200 s,
    # 2000 drops. ns-3: 0.1 at 105 s, 1090 drops; 0.2 at 150 s, 1980 drops; rate 0 is left out
    # (no drops), an aborted run too. Elapsed gaps: 0.1 (110 - 105) / 110 = 4.5 %, 0.2
    # (200 - 150) / 200 = 25 %: the point is 0.2. There: drops (2000 - 1980) / 2000 = 1.0 %;
    # per drop 100 ms against 150 / 1980 = 75.76 ms, (100 - 75.76) / 100 = 24.2 %.
    rows = [
        ("hardware", "native", 0.0, "ok", 12.3, 0),
        ("hardware", "native", 0.1, "ok", 100.0, 1000),
        ("hardware", "native", 0.1, "ok", 120.0, 1200),
        ("hardware", "native", 0.2, "ok", 200.0, 2000),
        ("ns3", "linux-2.2", 0.0, "ok", 12.3, 0),
        ("ns3", "linux-2.2", 0.1, "ok", 105.0, 1090),
        ("ns3", "linux-2.2", 0.2, "ok", 150.0, 1980),
        ("ns3", "linux-2.2", 0.2, "aborted", None, 5000),
    ]
    runs = pd.DataFrame(
        rows, columns=["backend", "profile", "drop_rate", "status", "elapsed_s", "packets_dropped"]
    )
    out = report_numbers.drop_cost_numbers(runs, ["linux-2.2", "ns3-default"])
    assert out["DropCostNsThreeLinuxTwoTwoRate"] == "0.2"
    assert out["DropCostNsThreeLinuxTwoTwoElapsedPercent"] == "25.0"
    assert out["DropCostNsThreeLinuxTwoTwoDropsPercent"] == "1.0"
    assert out["DropCostNsThreeLinuxTwoTwoPerDropPercent"] == "24.2"
    assert out["DropCostNsThreeLinuxTwoTwoHardwareMsPerDrop"] == "100.0"
    assert out["DropCostNsThreeLinuxTwoTwoMsPerDrop"] == "75.8"
    assert out["DropCostNsThreeNsThreeDefaultRate"] == macros.NA
    assert out["DropCostMininetLinuxTwoTwoRate"] == macros.NA
    assert set(report_numbers.drop_cost_numbers(None, ["linux-2.2", "ns3-default"])) == set(out)


def test_selfcheck_numbers(tmp_path):
    checks = _csv(
        tmp_path,
        "selfcheck.csv",
        "scenario,backend,profile,place,kvm,kernel_release,clock,icount_shift,"
        "stack_latency_per_hop_us,netem_delay_us,dropper_impl,line_rate_fraction,"
        "line_rate_fraction_min,line_rate_fraction_max,throughput_ok,delay_configured_us,"
        "delay_fitted_us,delay_fitted_least_squares_us,delay_tolerance_us,delay_ok,selfcheck\n"
        "baseline-tcp,mininet,linux-2.2,vm,False,6.1.0,tcg-real,,,34.944,none,0.5348,0.95,"
        '1.005,False,71.89,894.0,1261.9,10.8,False,"failed: throughput, delay"\n'
        "regular-drop,mininet,linux-2.2,vm,False,6.1.0,guest-icount,0,6.195,28.992,module,"
        "0.9980,0.95,1.005,True,71.89,75.0,74.0,10.8,True,ok\n",
    )
    out = shared_numbers.selfcheck_numbers(checks)
    assert out["MininetBatches"] == "2" and out["MininetBatchesFailed"] == "1"
    # four decimals: the tolerance is 0.5 % of line rate
    assert out["MininetLineRateFractionMin"] == "0.5348"
    assert out["MininetLineRateFractionMax"] == "0.9980"
    assert out["MininetDelayFittedMinUs"] == "75" and out["MininetDelayFittedMaxUs"] == "894"
    assert out["MininetWhere"] == "in a virtual machine without hardware virtualisation"
    # both clocks, in their order; icount shift 0 is 1 ns per instruction
    assert out["MininetClock"].startswith("in the virtual machine's dilated time")
    assert "advances 1 ns per executed instruction" in out["MininetClock"]
    assert out["MininetClock"].endswith("and in real time under software emulation")
    assert out["MininetStackLatencyMinUs"] == out["MininetStackLatencyMaxUs"] == "6.2"
    assert out["MininetDelayTolerancePercent"] == "5"
    empty = shared_numbers.selfcheck_numbers(None)
    assert set(empty) == set(out) and set(empty.values()) == {macros.NA}


def test_render_is_sorted_and_refuses_bad_names():
    tex = macros.render(
        {"B": "2", "A": "1"}, {"MininetRan": False}, {"figure": ["f2", "f1"]}, "quick"
    )
    lines = tex.splitlines()
    assert lines[1] == r"\newif\ifMininetRan\MininetRanfalse"
    assert lines[2:4] == [r"\newcommand{\A}{1}", r"\newcommand{\B}{2}"]
    assert lines[4:] == [r"\MarkAvailable{figure}{f1}", r"\MarkAvailable{figure}{f2}"]
    with pytest.raises(ValueError, match="letters only"):
        macros.render({"Median2": "1"}, {}, {}, "quick")


def test_a_macro_has_one_source():
    assert macros.merge({"A": "1"}, {"B": "2"}) == {"A": "1", "B": "2"}
    with pytest.raises(ValueError, match="defined twice: A"):
        macros.merge({"A": "1"}, {"A": "2"})


# --- no result typed into the sources ------------------------------------------------------------

# What may carry digits in the paper's sources: structure and constants, never a result.
ALLOWED = [
    # LaTeX lengths and sizes: 0.42\textheight, 25mm, 11pt
    r"\d*\.?\d+\s*(?:\\(?:text|line|column)width|\\textheight|pt|mm|cm|em|ex)\b",
    # options and file names of packages, the class and included graphics
    r"\\(?:usepackage|documentclass|includegraphics)(?:\[[^\]]*\])?\{[^{}]*\}",
    # labels and the files, figures and tables they name: \label{fig:x}, \input{sections/x},
    # \ResultFigure{fig3_1_...} (its caption is prose, and scanned), \TabRef{stem}{label}
    r"\\(?:label|ref|input|ResultFigure|ResultTable|FigRef|MarkAvailable)\{[^{}]*\}",
    r"\\TabRef\{[^{}]*\}\{[^{}]*\}",
    # names of things, which hold a letter: \Scn{regular-1in6}, \Prof{linux-2.2}, \File{a/b.csv}
    r"\\(?:Scn|Prof|Backend|File|texttt|nolinkurl)\{[^{}]*[A-Za-z][^{}]*\}",
    r"\\verb\|[^|]*\|",
    # macro definitions: argument counts and parameters, \newcommand{\X}[2]{...#1...}
    r"\\(?:new|renew|provide)command\{?\\[A-Za-z]+\}?\[\d\]",
    r"#\d",
    # the report's own numbering: Table~3.1, Figures~4.1, 5.1 and~5.2, Chapter~5, §3.2
    r"(?:Tables?|Figures?|Chapters?|Sections?|§)~?\s*\d+(?:\.\d+)*"
    r"(?:(?:,\s*|\s+and~?\s*|~and~)\d+(?:\.\d+)*)*",
    # constants with a source: the report's year, the Ethernet standard, the kernel series,
    # ns-3's name, the regular dropper's nominal rate 1/N, the project's issue numbers
    r"\b2001\b",
    r"IEEE~802\.3",
    r"Linux~2\.2(?:\.\d+)?\b",
    r"Linux~6\.1\b",
    r"\bns-3\b",
    r"\$1/N\$",
    r"issue~\d+",
    # standards by number: RFC~8289
    r"RFC~\d+",
]


def _strip_comments(text: str) -> str:
    return re.sub(r"(?<!\\)%.*$", "", text, flags=re.MULTILINE)


def stray_digits(text: str) -> list[tuple[int, str]]:
    """(line, text) of every digit in LaTeX source outside the allowed patterns."""
    found = []
    for lineno, line in enumerate(_strip_comments(text).splitlines(), start=1):
        for pattern in ALLOWED:
            line = re.sub(pattern, " ", line)
        found += [(lineno, m.group(0)) for m in re.finditer(r"\d(?:[\d.]*\d)?", line)]
    return found


@pytest.mark.parametrize("source", PAPER_SOURCES, ids=lambda p: p.name)
def test_sources_type_no_result(source):
    assert stray_digits(source.read_text()) == [], (
        f"{source.relative_to(REPO_ROOT)}: digits outside the allow-list; use a macro of "
        "numbers.tex (emusim.report.macros; paper/README.md)"
    )


@pytest.mark.parametrize(
    "typed",
    [
        r"ns-3 is at a median \RelDiff{} of 0.115 from the hardware.",
        r"The fitted delay is 71.89\us.",
        r"It took 68 s.",
        r"one packet in 6 dropped",
        r"\section{The 1-in-6 pathology}",
    ],
)
def test_a_typed_result_is_found(typed):
    assert stray_digits(typed), typed


def test_structure_is_not_a_result():
    text = "\n".join(
        [
            r"\includegraphics[width=0.9\textwidth]{\FigDir fig3_1_rtt_vs_size.pdf}",
            r"the report's Tables~4.1 and~4.2, Figures~4.1, 5.1 and~5.2 (§3.2) in 2001 % 42",
            r"\ResultFigure{fig4_5_pathology}{The pathology at \PathologyWrites{} writes.}",
            r"\Scn{regular-1in6} with \Prof{linux-2.2} on IEEE~802.3; issue~8;",
            r"\TabRef{delay_fit}{tab:delay-fit} and 50\,\% of \LsqDelayUs",
        ]
    )
    assert stray_digits(text) == [(5, "50")]


# --- LaTeX's errors ------------------------------------------------------------------------------


def test_errors_are_read_from_the_log():
    log = "\n".join(
        [
            "This is pdfTeX, Version 3.14",
            "./paper/sections/delay.tex:12: Undefined control sequence.",
            r"l.12 ... \FittedDelayUS",
            "                       {} ms",
            "LaTeX Warning: Reference `fig:x' on page 3 undefined on input line 5.",
            "Latexmk: ====List of undefined refs and citations:",
            "  Reference `fig:x' on page 3 undefined on input line 5",
            "Overfull \\hbox (1.0pt too wide) in paragraph at lines 3--4",
        ]
    )
    assert latex_build.errors(log) == [
        "./paper/sections/delay.tex:12: Undefined control sequence.",
        r"    l.12 ... \FittedDelayUS",
        "Reference `fig:x' on page 3 undefined on input line 5",
    ]


def test_a_latex_error_names_file_and_line(tmp_path, latex_ready):
    tex = tmp_path / "broken.tex"
    tex.write_text(
        "\\documentclass{article}\n\\begin{document}\nok\n\\NoSuchMacro\n\\end{document}\n"
    )
    with pytest.raises(latex_build.LatexError) as err:
        latex_build.build(tex, tmp_path / "build", [], tmp_path / "latexmk.log")
    assert re.search(r"broken\.tex:4: Undefined control sequence", str(err.value))
    assert not (tmp_path / "broken.pdf").exists()  # nothing among the sources


# --- the PDF at quick scale ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def quick_paper(quick_study):
    """The quick-scale study's copy (conftest.py: `snakemake all`, the paper included) and
    the PDF's text."""
    pdf = quick_study / "scales/quick/paper/build/paper.pdf"
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    return quick_study, " ".join(text.split())


@pytest.mark.slow
@pytest.mark.ns3
def test_paper_has_every_figure_and_table(quick_paper):
    _root, text = quick_paper
    for caption in (
        "Round-trip time against ICMP request size",
        "Throughput against the random dropper's rate",
        "Throughput against the regular dropper's nominal rate",
        "Random against regular dropping at the same nominal drop rate",
        "Elapsed time of every run with one packet in",
        "loop in ns-3, from the TCP event traces",
        "Experiment against simulation under random dropping",
        "Relative difference (exp − sim)/exp of the throughput per drop rate",
        "Calibration ablation: median and maximum",
        # the workflow's tables, by their own captions
        "How far each backend is from the hardware",
        "One-way delay from the ping sweep",
        "Calibration ablation: ns-3 against the hardware",
        "The testbed's hosts",
        "The TCP profiles: each parameter",
        "random-drop: TCP blast through the random dropper",
    ):
        assert caption.replace("'", "’") in text, caption
    # Every part ran (Mininet aside), so nothing is missing or unavailable.
    assert "n/a" not in text and "not produced at this scale" not in text
    assert "Mininet was not among the backends of this build" in text


@pytest.mark.slow
@pytest.mark.ns3
def test_paper_numbers_are_the_results(quick_paper):
    root, text = quick_paper
    results = root / "scales/quick/results"
    delay = json.loads((results / "delay/one_way_delay.json").read_text())["one_way_delay_us"]
    used = re.search(r"The models use the two-point value, d = ([0-9.]+) µs", text)
    assert used and float(used.group(1)) == pytest.approx(delay, abs=0.005)

    summary = pd.read_csv(results / "compare/summary.csv")
    row = summary[
        (summary["scenario"] == "random-drop")
        & (summary["backend"] == "ns3")
        & (summary["profile"] == "linux-2.2")
        & (summary["metric"] == "throughput_report_Bps")
    ].iloc[0]
    stated = re.search(
        r"ns-3 with linux-2.2 follows the hardware at a median \|rel_diff\| of ([0-9.]+)", text
    )
    # Three significant digits: within half a unit of the third digit.
    half_unit = 0.5 * 10 ** (math.floor(math.log10(row["median_abs_rel_diff"])) - 2)
    assert stated and abs(float(stated.group(1)) - row["median_abs_rel_diff"]) <= half_unit

    traces = pd.read_csv(results / "traces/summary.csv")
    patho = traces[
        (traces["scenario"] == "regular-1in6")
        & (traces["profile"] == "linux-2.2")
        & traces["point"].str.contains("mode=regular")
    ].iloc[0]
    # (the PDF's text may hyphenate the word at a line break, and a page's foot and the next
    # page's floats may come between its halves)
    waits = re.search(r"in (\d+) waits for the retrans", text)
    assert waits and int(waits.group(1)) == patho["rto_waits"]

    # Table 4.4's stalls at quick scale (10 000 and 20 000 writes): a run is stalled when it
    # took more than 10 times the fastest run of its iteration count.
    hw = pd.read_csv(results / "hardware/regular-1in6.csv")
    hw = hw[hw["mode"] == "regular"]
    fastest = hw.groupby("iterations")["elapsed_s"].transform("min")
    stalls = re.search(r"(\d+) of the hardware['’]s (\d+) regular-dropper runs stalled", text)
    assert stalls and int(stalls.group(2)) == len(hw)
    assert int(stalls.group(1)) == int((hw["elapsed_s"] > 10 * fastest).sum()) == 2


@pytest.mark.slow
@pytest.mark.ns3
def test_paper_rerun_does_nothing(quick_paper):
    root, _text = quick_paper
    proc = snakemake_quick(root, "paper", "-n")
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_emulation_design_numbers_say_what_is_left_out_and_why():
    design = {
        "repetitions": 3,
        "skip": ["lossy-link"],
        "skip_why": {"lossy-link": "its runs would take\n 90 CPU-hours"},
    }
    out = shared_numbers.emulation_design_numbers(design, False)
    assert out["MininetDesignRepetitions"] == "3"
    assert out["MininetDesignDeterministic"] == "once"
    assert out["MininetDesignSkipped"] == "lossy-link"
    assert out["MininetDesignSkipWhy"] == "lossy-link: its runs would take 90 CPU-hours"
    bare = shared_numbers.emulation_design_numbers(None, True)
    assert bare["MininetDesignSkipped"] == "none"
    assert bare["MininetDesignSkipWhy"] == "nothing"
    assert bare["MininetDesignDeterministic"] == "as often"
    with pytest.raises(ValueError, match=r"skip or points names \['lossy-link'\] without a"):
        shared_numbers.emulation_design_numbers({"skip": ["lossy-link"]}, False)
    cells = {
        "points": {"lossy-link": {"delay_ms": 10, "loss": ["0.01", "0.05"]}},
        "skip_why": {"lossy-link": "the other cells would take 90 CPU-hours"},
    }
    some = shared_numbers.emulation_design_numbers(cells, False)
    assert some["MininetDesignSkipped"] == "lossy-link but for delay\\_ms 10, loss 0.01 or 0.05"
    assert some["MininetDesignSkipWhy"] == (
        "lossy-link but for delay\\_ms 10, loss 0.01 or 0.05: the other cells would take 90 "
        "CPU-hours"
    )
    with pytest.raises(ValueError, match=r"points names \['lossy-link'\] without a reason"):
        shared_numbers.emulation_design_numbers({"points": cells["points"]}, False)
