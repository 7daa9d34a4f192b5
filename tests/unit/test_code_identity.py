"""A kept run is restored only by the code that made it: the code's identity moves with what the
code does, not with how it reads or where it lives (emusim.infra.code_identity; docs/archive.md)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from emusim.core.paths import REPO_ROOT
from emusim.infra import code_digest
from emusim.infra import code_identity as ci

MODULE = '''"""A module."""
import os

LIMIT = 3
"""How many."""


def f(x):
    """Doc."""
    if x > LIMIT:
        log(f"big {x}")
    return x + 1  # one more


class C:
    """A class."""

    def m(self):
        raise ValueError("no")
'''


def _digests(source: str) -> list[str]:
    return sorted(u.digest for u in code_digest.python_units(source.encode(), "src/emusim/m.py"))


@pytest.mark.parametrize(
    "edit",
    [
        ('"""Doc."""', '"""Another doc, longer."""'),  # a docstring
        ("# one more", "# plus one"),  # a comment
        ("return x + 1", "return (\n        x + 1\n    )"),  # formatting
        ('log(f"big {x}")', 'log(f"x is {x}, above the limit")'),  # a log message
        ('ValueError("no")', 'ValueError("m is not there yet")'),  # an error's text
        ('"""How many."""', ""),  # an attribute's docstring
        ("import os\n", "import os\nimport sys\n"),  # an import
    ],
)
def test_what_does_not_change_behaviour_keeps_the_digests(edit):
    old, new = edit
    assert old in MODULE
    assert _digests(MODULE.replace(old, new)) == _digests(MODULE)


@pytest.mark.parametrize(
    "edit",
    [
        ("LIMIT = 3", "LIMIT = 4"),
        ("return x + 1", "return x + 2"),
        ("def f(x):", "def f(x, y=0):"),
        ('raise ValueError("no")', 'raise KeyError("no")'),
        ('log(f"big {x}")', 'log(f"big {x}")\n        x = 0'),
    ],
)
def test_what_changes_behaviour_changes_a_digest(edit):
    old, new = edit
    assert old in MODULE
    assert _digests(MODULE.replace(old, new)) != _digests(MODULE)


class DictTree(ci.Tree):
    """A repository of a few files, in memory."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def paths(self):
        return sorted(self.files)

    def read(self, path):
        return self.files[path].encode()


RUNNER = "from emusim.tools import helper\n\n\ndef run(n):\n    return helper(n) * 2\n"
TOOLS = "def helper(n):\n    return n + 1\n\n\ndef unused(n):\n    return n - 1\n"
CODE = ci.CodeSet(
    backend="toy",
    entries=("emusim.runner:run",),
    python_roots=("emusim.runner",),
    sources=("sim/*.cc",),
    build="emulation",
)


def _toy(runner=RUNNER, tools=TOOLS, tools_path="src/emusim/tools.py", cc="int a; // x\n"):
    tree = DictTree(
        {
            "src/emusim/__init__.py": "",
            "src/emusim/runner.py": runner,
            tools_path: tools,
            "sim/a.cc": cc,
            "sim/sub/ignored.cc": "int ignored;",
        }
    )
    if tools_path != "src/emusim/tools.py":
        tree.files["src/emusim/pkg/__init__.py"] = ""
    return tree


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(ci.CODE_SETS, "toy", CODE)

    def manifest(**kw):
        return ci.manifest("toy", _toy(**kw), build={"c_compiler": "cc 12"})

    return manifest


def test_a_module_moved_with_its_imports_rewritten_keeps_the_identity(toy):
    moved = toy(
        runner=RUNNER.replace("emusim.tools", "emusim.pkg.tools"),
        tools_path="src/emusim/pkg/tools.py",
    )
    assert moved["digest"] == toy()["digest"]


def test_only_what_the_entries_reach_counts(toy):
    base = toy()
    assert toy(tools=TOOLS.replace("n - 1", "n - 2"))["digest"] == base["digest"]
    changed = toy(tools=TOOLS.replace("n + 1", "n + 2"))
    assert ci.compare(base, changed) == ["Python changed: src/emusim/tools.py:helper"]


def test_c_sources_count_by_content_without_comments(toy):
    base = toy()
    assert toy(cc="int a;   /* y */\n")["digest"] == base["digest"]
    assert ci.compare(base, toy(cc="int a = 1;\n")) == ["files differ: sim/a.cc"]


def test_new_code_beside_the_kept_does_not_orphan_it(toy):
    base = toy()
    grown = toy(tools=TOOLS + "\n\ndef helper2(n):\n    return n\n")
    assert ci.compare(base, grown) == []


def test_a_build_fact_counts(toy):
    base = toy()
    other = ci.manifest("toy", _toy(), build={"c_compiler": "cc 14"})
    assert ci.compare(base, other) == ["build c_compiler: 'cc 12' then, 'cc 14' now"]


# --- the real code sets, on a copy of the checkout -------------------------------------------


def _copy_of_checkout(root: Path) -> Path:
    for top in ("sim/ns3", "emu/blast", "kernel-dropper", "src/emusim"):
        shutil.copytree(
            REPO_ROOT / top, root / top, ignore=shutil.ignore_patterns("__pycache__", "*.ko")
        )
    return root


def _edit_line(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path} no longer has {old!r}"
    path.write_text(text.replace(old, new, 1))


def test_a_one_line_change_to_a_model_or_the_executor_is_seen(tmp_path):
    root = _copy_of_checkout(tmp_path)

    def manifests():
        tree = ci.WorkTree(root, root / "src/emusim")
        return {b: ci.manifest(b, tree, build={}) for b in ("ns3", "mininet")}

    before = manifests()
    _edit_line(root / "sim/ns3/model/dropper-queue-disc.cc", "++m_dropped;", "m_dropped += 2;")
    _edit_line(
        root / "src/emusim/backends/mininet/executor.py",
        "def execute(plan: dict, emit: Callable[[str, dict], None], place: str) -> None:",
        "def execute(plan: dict, emit: Callable[[str, dict], None], place: str) -> None:\n"
        "    plan = dict(plan)",
    )
    after = manifests()
    assert ci.compare(before["ns3"], after["ns3"]) == [
        "files differ: sim/ns3/model/dropper-queue-disc.cc"
    ]
    assert ci.compare(before["mininet"], after["mininet"]) == [
        "Python changed: src/emusim/backends/mininet/executor.py:execute"
    ]


def test_archive_status_lists_the_runs_a_model_change_makes_stale(tmp_path):
    """The acceptance of issue 54: a one-line change to an ns-3 model source makes the kept
    ns-3 runs stale (not restored: emusim.infra.archive.matches; listed by `archive status`), and
    leaves the emulated ones as they were."""
    root = _copy_of_checkout(tmp_path / "checkout")
    archive_dir = tmp_path / "archive"
    env = {"EMUSIM_ROOT": str(root), "PYTHONPATH": str(root / "src"), "PATH": "/usr/bin:/bin"}
    kept = {}
    for backend in ("ns3", "mininet"):
        source = next(
            (REPO_ROOT / "data/archive/paper" / backend / "lossy-link").rglob("run1.json")
        )
        relative = source.relative_to(REPO_ROOT / "data/archive")
        kept[backend] = archive_dir / relative
        kept[backend].parent.mkdir(parents=True)
        run = json.loads(source.read_text())
        run["provenance"]["code_identity"] = _identity(backend, env, archive_dir)
        kept[backend].write_text(json.dumps(run))

    def status():
        proc = subprocess.run(
            [sys.executable, "-m", "emusim.infra.archive", "status", "--archive", str(archive_dir)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return proc.stdout

    assert "2 of 2 kept runs are this checkout's code's" in status()
    _edit_line(root / "sim/ns3/model/dropper-queue-disc.cc", "++m_dropped;", "m_dropped += 2;")
    report = status()
    assert f"stale  {kept['ns3']}" in report
    assert "files differ: sim/ns3/model/dropper-queue-disc.cc" in report
    assert f"stale  {kept['mininet']}" not in report
    assert "1 of 2 kept runs are this checkout's code's" in report


def _identity(backend: str, env: dict, archive_dir: Path) -> str:
    """The copy's code identity, its manifest kept in `archive_dir`, as `archive add` keeps it."""
    script = (
        "import sys; from pathlib import Path; from emusim.infra import code_identity as ci; "
        f"m = ci.current({backend!r}); ci.write_manifest(Path(sys.argv[1]), m); print(m['digest'])"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(archive_dir)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout.strip()


def test_every_kept_run_names_a_kept_manifest():
    """Every run of data/archive says which code made it, and the archive keeps that code's
    manifest (emusim archive certify gave the runs kept before identities were recorded
    theirs, from git's history)."""
    archive_dir = REPO_ROOT / "data/archive"
    runs = sorted(archive_dir.glob("*/*/*/*/*/run*.json"))
    assert runs
    for path in runs:
        digest = json.loads(path.read_text())["provenance"].get("code_identity")
        assert digest, f"{path}: no provenance.code_identity"
        assert ci.manifest_path(archive_dir, digest).exists(), f"{path}: no manifest {digest}"


def test_a_moved_module_keeps_the_digest_of_a_definition_that_imports_it():
    # the layers of issue 56 moved emusim.variants to emusim.inputs.variants and
    # emusim.runjson to emusim.infra.runjson: an import inside a definition names the module
    # it imports, and is digested with the name it had when the kept runs were made
    before = (
        "def f():\n    from emusim import variants as v\n"
        "    from emusim.runjson import write_atomically\n    return v.get, write_atomically\n"
    )
    after = before.replace("from emusim import variants", "from emusim.inputs import variants")
    after = after.replace("from emusim.runjson", "from emusim.infra.runjson")
    digest = [u.digest for u in code_digest.python_units(before.encode(), "m.py")]
    assert [u.digest for u in code_digest.python_units(after.encode(), "m.py")] == digest
    # another module's import is another definition
    other = before.replace("from emusim import variants", "from emusim import scenario")
    assert [u.digest for u in code_digest.python_units(other.encode(), "m.py")] != digest
