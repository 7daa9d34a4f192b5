"""The numbers docs/linux-cc.md quotes in its quick loss-free table ("Measured: the loss-free
cells") are what ns-3 gives today: every cell, run as the workflow runs it (lossy-link at quick
scale, 10 ms, no loss, profile linux-6.1, repetition 1), rounded to the table's precision. A
change to the model that moves a goodput fails here until the table says what the code does."""

import re

import pytest
from ns3_point import run_point

from emusim.core.paths import REPO_ROOT
from emusim.inputs import scenario

pytestmark = pytest.mark.ns3

DOC = REPO_ROOT / "docs" / "linux-cc.md"
SECTION = "## Measured: the loss-free cells"
CELL = "delay_ms=10+loss=0"
NO_VALUE = "—"


def quoted_goodputs(text: str) -> dict[str, str]:
    """The section's table as {variant: goodput in MB/s as printed}: the first column names a
    variant whose goodput the second column gives; the third gives that of `ns3-NAME`, or
    NO_VALUE where there is no such variant."""
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    assert len(rows) > 2, f"{DOC}: no table under {SECTION!r}"
    quoted = {}
    for row in rows[2:]:  # after the header and the separator
        name, own, model = (cell.strip().strip("`") for cell in row.strip("|").split("|"))
        quoted[name] = own
        if model != NO_VALUE:
            quoted[f"ns3-{name}"] = model
    return quoted


def test_the_table_is_read_as_printed():
    text = (
        f"{SECTION}\n\n| variant | a | b |\n|---|---|---|\n| reno | 5.266 | 5.100 |\n"
        f"| fast | 1.000 | {NO_VALUE} |\n\n## Next\n| x | 9 | 9 |\n"
    )
    assert quoted_goodputs(text) == {"reno": "5.266", "ns3-reno": "5.100", "fast": "1.000"}


QUOTED = quoted_goodputs(DOC.read_text())


@pytest.fixture(scope="module")
def quick():
    return scenario.load("lossy-link", "quick")


@pytest.mark.parametrize("variant", sorted(QUOTED))
def test_quoted_goodput_is_what_ns3_gives(ns3_programs, quick, variant):
    printed = QUOTED[variant]
    assert re.fullmatch(r"\d+\.\d+", printed), (variant, printed)
    run = run_point(ns3_programs, quick, f"{CELL}+variant={variant}")
    assert run["status"] == "ok", (variant, run["status"])
    decimals = len(printed.split(".")[1])
    given = f"{run['metrics']['goodput_Bps'] / 1e6:.{decimals}f}"
    assert given == printed, f"{DOC}: {variant} quoted {printed} MB/s, ns-3 gives {given}"
