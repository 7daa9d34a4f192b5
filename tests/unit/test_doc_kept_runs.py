"""docs/archive.md's table of kept runs says what data/archive holds: per scale, backend and
scenario, as many kept runs as the archive's own listing (emusim.infra.archive.kept_runs) finds, and
no row more or less. The fresh/stale split is left to `python -m emusim.infra.archive status`: it
changes with every change of the code the runs were made by."""

import json
import re
from collections import Counter

from emusim.core.paths import REPO_ROOT
from emusim.infra import archive

DOC = REPO_ROOT / "docs" / "archive.md"
HEADER = "| scale | backend | scenario | kept runs |"


def _doc_table() -> dict[tuple[str, str, str], int]:
    """The doc's table: (scale, backend, scenario) -> kept runs."""
    text = DOC.read_text()
    assert HEADER in text, f"{DOC} has no table headed {HEADER!r}"
    rows = {}
    for line in text.split(HEADER, 1)[1].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == 4 and re.fullmatch(r"\d+", cells[3]), f"{DOC}: bad row {line!r}"
        key = tuple(cells[:3])
        assert key not in rows, f"{DOC}: row {key} twice"
        rows[key] = int(cells[3])
    return rows


def _archive_table() -> dict[tuple[str, str, str], int]:
    """The same counted from the archive: each kept run's scale (its directory) and its own
    backend and scenario, as `emusim.infra.archive status` groups them."""
    root = REPO_ROOT / archive.ARCHIVE_DIR
    counts: Counter = Counter()
    for path in archive.kept_runs(root):
        run = json.loads(path.read_text())
        counts[(path.relative_to(root).parts[0], run["backend"], run["scenario"])] += 1
    return dict(counts)


def test_the_docs_kept_runs_are_the_archives():
    doc, kept = _doc_table(), _archive_table()
    assert kept, "data/archive holds no kept run"
    assert doc == kept, (
        f"{DOC}'s kept-runs table differs from data/archive: "
        f"only in the doc {sorted(set(doc.items()) - set(kept.items()))}, "
        f"only in the archive {sorted(set(kept.items()) - set(doc.items()))}"
    )
