"""docs/*.md and README.md describe the system as it is now: no git revision and no date in
them (the history is git's, and CHANGELOG.md's), and together they stay short enough to read:
at most half of the 6 267 lines they had as logbooks, README.md under 150."""

import re
import subprocess

import pytest

from emusim.core.paths import REPO_ROOT

MAX_LINES = 3133
"""docs/*.md and README.md together: half of their 6 267 lines before they became reference."""

MAX_README_LINES = 149
"""README.md is read in five minutes: under 150 lines."""

MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
DATE = re.compile(
    rf"\b20\d\d-[01]\d-[0-3]\d\b"  # 2026-11-28
    rf"|\b[0-3]?\d (?:{MONTHS})\b"  # 28 November (2026)
    rf"|\b(?:{MONTHS}) 20[2-9]\d\b"  # November 2026 (a paper's 2006 is a citation)
)
HEX_RUN = re.compile(r"(?<![0-9A-Za-z_])[0-9a-f]{7,40}(?![0-9A-Za-z_])")
NAMED_REVISION = re.compile(r"\b(?:git|revision|at)\s+$")
"""What the text calls a revision of its own ("git 4306763", "at 7b64d8c")."""


def commits_of_this_repository(words: list[str]) -> set[str]:
    """The words git resolves to a commit of this repository (none outside a git checkout)."""
    if not words or not (REPO_ROOT / ".git").exists():
        return set()
    proc = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "cat-file", "--batch-check"],
        input="".join(f"{w}^{{commit}}\n" for w in words),
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    answers = proc.stdout.splitlines()
    return {w for w, a in zip(words, answers, strict=False) if a.split()[1:2] == ["commit"]}


def revisions_in(text: str) -> list[str]:
    """The git revisions of this project a text quotes: a hex run of 7 to 40 digits that git
    resolves to one of the repository's commits, or that the text names as one. A kernel tree's
    commit (`tag 2.2.16, commit 980c3cbb`), a wheel's digest or `ed25519` is none."""
    runs = [m for m in HEX_RUN.finditer(text) if re.search(r"[0-9]", m.group())]
    ours = commits_of_this_repository(sorted({m.group() for m in runs}))
    named = {  # with a letter: "at 1448000 B/s" is no revision
        m.group()
        for m in runs
        if re.search(r"[a-f]", m.group())
        and NAMED_REVISION.search(text[max(0, m.start() - 10) : m.start()])
    }
    return [m.group() for m in runs if m.group() in ours or m.group() in named]


def history_in(text: str) -> list[str]:
    """The git revisions and dates a document quotes, in order."""
    return revisions_in(text) + [m.group() for m in DATE.finditer(text)]


def test_history_is_found_and_nothing_else():
    head = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "rev-parse", "--short=7", "HEAD"],
        capture_output=True, text=True, check=False,
    ).stdout.strip()  # fmt: skip
    assert history_in("made at git c5a0488 on 28 November 2026, kernel 6.1.0-56-amd64") == [
        "c5a0488",
        "28 November",
    ]
    assert history_in("(2026-11-29)") == ["2026-11-29"]
    assert history_in("November 2026") == ["November 2026"]
    if head:
        assert history_in(f"the runs of {head} and after") == [head]
    clean = (
        "1 048 576 bytes, 0x7fffffff, 10000000 packets, a decade, ssh-keygen -t ed25519, "
        "the 2.2.16 tree (commit 980c3cbb of Linux's), the wheel's sha256 8fdf75f5…, "
        "Dec. 2006, IEEE JSAC 13(8), 1995; 6.1.192; paced at 1448000 B/s"
    )
    assert history_in(clean) == []


REFERENCE_DOCS = [*sorted((REPO_ROOT / "docs").glob("*.md")), REPO_ROOT / "README.md"]


@pytest.mark.parametrize("doc", REFERENCE_DOCS, ids=lambda p: p.name)
def test_no_git_revision_or_date(doc):
    found = history_in(doc.read_text())
    assert not found, (
        f"{doc.relative_to(REPO_ROOT)} quotes history ({', '.join(found[:10])}): say what the "
        "system does now; what changed when belongs in git or CHANGELOG.md"
    )


def test_docs_stay_short():
    lines = {doc.name: len(doc.read_text().splitlines()) for doc in REFERENCE_DOCS}
    assert lines["README.md"] <= MAX_README_LINES, lines["README.md"]
    assert sum(lines.values()) <= MAX_LINES, (sum(lines.values()), lines)
