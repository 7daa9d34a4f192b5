"""Which code makes a backend's runs: its identity, so a kept run is restored only by that code.

A run kept in the archive (emusim.infra.archive) is restored instead of made only while the code
that would make it now is the code that made it, as Nix and Bazel key an output by the digests of
everything that produced it. What "the code" is, per archived backend, is a `CodeSet`:

- **ns-3**: the C++ of `sim/ns3` that the programs are built from (`model/`, `helper/`,
  `programs/`, `linux/`, `CMakeLists.txt`; not `test/`), the Python that turns the program's
  output into the run JSON (`emusim.infra.runjson` and what it imports), and the build's facts: the
  ns-3 release and build the programs link, the C and C++ compilers, and the Linux modules'
  source the build extracts from Debian's `linux-source-6.1`.
- **the emulation**: the guest's executor, the batch and its writer, and the VM's launcher
  (`emusim.backends.mininet.{executor,batch,writer}`, `emusim.infra.vm`, and everything of `emusim`
  they import), the blast tools (`emu/blast`), the dropper module (`kernel-dropper`), and the
  Python and C compiler that run and build them. The settings a run is made with (scenario,
  point, profile, clock, kernel) are its run key (emusim.backends.mininet.plan.run_key).

A change that moves no behaviour must not orphan kept runs, and one that does must. So the code
is digested as what it does, not as where it lives or how it reads:

- Python, definition by definition: each function, method and other top-level statement of a
  module, parsed, without docstrings and comments, as its syntax tree (`ast.dump`); top-level
  import statements are left out, and one inside a definition names each module by the name it
  had before it moved (code_digest.MOVED_MODULES), so a module moved in the package, with its
  imports rewritten, keeps every digest. A kept run stays valid while every definition it was made
  with is still there (new code beside it does not orphan it; a changed or removed one does). What
  this does not see: an import rebound to another, identical-looking name (`from a import f`
  becoming `from b import f`) where both `f` exist unchanged.
- C, C++, CMake, Make, YAML: each file without comments and with whitespace collapsed, by
  content, whatever its path; the set must be the same (a file added to a library can change
  every run, as an interposed definition does).

Each distinct identity is written once as a manifest (`identities/DIGEST.json` in the archive)
listing its parts, and a run names it by digest (`provenance.code_identity`). `compare` says
whether the code now still holds a manifest's, and if not, what changed.
"""

from __future__ import annotations

import ast
import json
import platform
import re
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from emusim.core.paths import REPO_ROOT
from emusim.infra.code_digest import (
    PACKAGE,
    IdentityError,
    Unit,
    digest,
    normalized_source,
    python_units,
    reachable_units,
)

PACKAGE_DIR = "src/emusim"
LINUX_SOURCE_TARBALL = Path("/usr/src/linux-source-6.1.tar.xz")
"""Debian's linux-source-6.1, whose modules the ns-3 build compiles (sim/ns3/CMakeLists.txt)."""


@dataclass(frozen=True)
class CodeSet:
    """The code that makes one backend's runs (see the module's docstring)."""

    backend: str
    entries: tuple[str, ...]
    """Where making a run starts (`MODULE:NAME`): the definitions these reach, by the names
    they use, count (a class counts whole)."""
    python_roots: tuple[str, ...]
    """Modules searched for those definitions, with every `emusim` module they import;
    `PACKAGE.*` stands for every module of a package (those found by name at run time)."""
    sources: tuple[str, ...]
    """Other files that count (glob patterns relative to the repository, `**` for any depth)."""
    build: str
    """Which build facts count: `ns3` or `emulation` (`build_facts`)."""
    python_excluded: tuple[str, ...] = field(default_factory=tuple)
    """Modules imported on the way that make no kept run (not searched), each said why."""
    keyed: tuple[str, ...] = field(default_factory=tuple)
    """Definitions (`MODULE:NAME`, `MODULE:CLASS.METHOD`) not digested, though followed: those
    whose whole effect on a run is a field of its run key, which sees their change, and those
    that run only for a traced run, which the archive does not keep."""


CODE_SETS = {
    "ns3": CodeSet(
        backend="ns3",
        # the program's output made into the run JSON (its command is the run's other key)
        entries=("emusim.infra.runjson:main",),
        python_roots=("emusim.infra.runjson",),
        sources=(
            "sim/ns3/CMakeLists.txt",
            "sim/ns3/model/*",
            "sim/ns3/helper/*",
            "sim/ns3/programs/*",
            "sim/ns3/linux/*",
            "sim/ns3/linux/shim/**",
        ),
        build="ns3",
    ),
    "mininet": CodeSet(
        backend="mininet",
        # the guest's executor (and the workloads it runs, found by name), the host's writer
        # of the run JSON, the VM's launcher; not the batch's orchestration (which runs to
        # make or restore, sharding, the kernel to boot), whose choices are the run key's
        entries=(
            "emusim.backends.mininet.executor:execute",
            "emusim.backends.mininet.writer:BatchWriter",
            "emusim.infra.vm:run_in_vm",
        ),
        python_roots=(
            "emusim.backends.mininet.executor",
            "emusim.backends.mininet.writer",
            "emusim.infra.vm",
            "emusim.workloads.*",
        ),
        # the TCP tracer and the CPU profiler run only for a traced or CPU-profiled run, which
        # the archive does not keep (emusim.infra.archive.add)
        python_excluded=(
            "emusim.linux.tcp_tracefs",
            "emusim.linux.tracefs_convert",
            "emusim.linux.btf",
            "emusim.linux.cpu_profile",
        ),
        keyed=(
            # which kernel the VM boots: the run key's kernel_release
            "emusim.infra.vm_setup:find_kernel",
            # the profile's Linux settings, applied as tcp_setup gives them: the run key's
            # tcp_setup (the table also describes each setting, in words)
            "emusim.linux.tcp:LINUX_TCP",
            # reads a traced run's trace
            "emusim.backends.mininet.tracing:RunTrace.read",
        ),
        # the module is its source and Kbuild (its Makefile only picks the kernel tree, whose
        # release is the run key's); the blast tools' Makefile sets their compiler flags
        sources=(
            "emu/blast/*",
            "kernel-dropper/*.c",
            "kernel-dropper/*.h",
            "kernel-dropper/Kbuild",
        ),
        build="emulation",
    ),
}
"""Per archived backend, the code that makes its runs (emusim.infra.archive.IDENTITY names the same
backends)."""


# --- reading a tree: the checkout as it is, or a commit of its history ------------------------


class Tree:
    """Files of the repository at one state: `paths()` lists them, `read(path)` gives bytes."""

    def paths(self) -> list[str]:
        raise NotImplementedError

    def read(self, path: str) -> bytes:
        raise NotImplementedError


class WorkTree(Tree):
    """The checkout as it would be built and run now, edits not yet committed too: its files
    under `root`, and the `emusim` package that is imported (a copy of the workflow, with
    EMUSIM_ROOT naming it, runs the package of the environment's install)."""

    def __init__(self, root: Path = REPO_ROOT, package_dir: Path | None = None) -> None:
        import emusim

        self.root = Path(root)
        self.package_dir = Path(package_dir or Path(emusim.__file__).parent)

    def _file(self, path: str) -> Path:
        if path.startswith(PACKAGE_DIR + "/"):
            return self.package_dir / path[len(PACKAGE_DIR) + 1 :]
        return self.root / path

    def paths(self) -> list[str]:
        out = [
            f"{PACKAGE_DIR}/{p.relative_to(self.package_dir)}"
            for p in self.package_dir.rglob("*.py")
            if "__pycache__" not in p.parts
        ]
        for top in ("sim", "emu", "kernel-dropper"):
            base = self.root / top
            if base.is_dir():
                out += [str(p.relative_to(self.root)) for p in base.rglob("*") if p.is_file()]
        return sorted(out)

    def read(self, path: str) -> bytes:
        return self._file(path).read_bytes()


class GitTree(Tree):
    """The repository's files at commit `revision` (for runs made before their identity was
    recorded: `emusim archive certify`)."""

    def __init__(self, revision: str, root: Path = REPO_ROOT) -> None:
        self.revision = revision
        self.root = Path(root)

    def _git(self, *args: str) -> bytes:
        proc = subprocess.run(
            ["git", "-C", str(self.root), *args], capture_output=True, check=False
        )
        if proc.returncode != 0:
            raise IdentityError(
                f"git {' '.join(args)}: {proc.stderr.decode(errors='replace').strip()}"
            )
        return proc.stdout

    @cache  # noqa: B019 - a tree lives for one command
    def paths(self) -> list[str]:
        out = self._git("ls-tree", "-r", "--name-only", self.revision)
        return sorted(out.decode().splitlines())

    def read(self, path: str) -> bytes:
        return self._git("show", f"{self.revision}:{path}")


# --- which Python modules a set of roots imports -------------------------------------------


def _module_path(module: str, files: set[str]) -> str | None:
    rel = module.split(".")[1:]
    for candidate in (
        "/".join([PACKAGE_DIR, *rel]) + ".py",
        "/".join([PACKAGE_DIR, *rel, "__init__.py"]),
    ):
        if candidate in files:
            return candidate
    return None


def _imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Names of `emusim` modules (or of attributes of them) that a module imports, anywhere in
    it (imports inside functions too: they run when the function does)."""
    out = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
    return {m for m in out if m == PACKAGE or m.startswith(PACKAGE + ".")}


def _expand(roots: tuple[str, ...], files: set[str]) -> list[str]:
    """The roots with each `PACKAGE.*` replaced by the modules of that package in the tree."""
    out = []
    for root in roots:
        if not root.endswith(".*"):
            out.append(root)
            continue
        package = root[:-2]
        folder = "/".join([PACKAGE_DIR, *package.split(".")[1:]]) + "/"
        out += [
            f"{package}.{p[len(folder) : -3]}"
            for p in sorted(files)
            if p.startswith(folder) and p.endswith(".py") and "/" not in p[len(folder) :]
        ]
    return out


def python_closure(tree: Tree, roots: tuple[str, ...], excluded: tuple[str, ...] = ()) -> list[str]:
    """Files of every `emusim` module the roots import, directly or not, with the packages'
    `__init__.py` along the way (importing a module runs them), sorted; modules `excluded` are
    not followed."""
    files = set(tree.paths())
    roots = tuple(_expand(roots, files))
    seen: set[str] = set()
    skip = {_module_path(m, files) for m in excluded} - {None}
    todo = list(roots)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        # a package's __init__ runs before any module in it; an attribute import names a module
        # or, failing that, a name inside its parent
        candidates = [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
        for module in candidates:
            path = _module_path(module, files)
            if path is None or path in seen or path in skip:
                continue
            seen.add(path)
            source = tree.read(path)
            try:
                parsed = ast.parse(source, filename=path)
            except SyntaxError as err:
                raise IdentityError(f"{path}: does not parse: {err}") from err
            todo += sorted(_imported(parsed, module, path.endswith("__init__.py")))
    for root in roots:
        if _module_path(root, files) is None:
            raise IdentityError(f"module {root} is not in the tree")
    return sorted(seen)


def _glob(pattern: str) -> re.Pattern:
    """A path pattern: `*` within one folder, `**` across folders."""
    parts = re.split(r"(\*\*|\*)", pattern)
    regex = "".join(".*" if p == "**" else "[^/]*" if p == "*" else re.escape(p) for p in parts)
    return re.compile(regex + r"\Z")


def source_files(tree: Tree, code: CodeSet) -> list[str]:
    """The non-Python files of a code set in the tree, sorted."""
    patterns = [_glob(p) for p in code.sources]
    return sorted(p for p in tree.paths() if any(g.match(p) for g in patterns))


# --- the build's facts ---------------------------------------------------------------------


def _first_line(cmd: list[str]) -> str:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError:
        return "not found"
    return (proc.stdout or proc.stderr).splitlines()[0].strip() if proc.returncode == 0 else "?"


@cache
def ns3_release() -> str:
    """The ns-3 the programs link: the wheel's version and the digest of its file list with
    their digests (the wheel's RECORD), the same on every machine that installs it."""
    from importlib import metadata

    try:
        dist = metadata.distribution("ns3")
    except metadata.PackageNotFoundError:
        return "not installed"
    record = dist.read_text("RECORD") or ""
    files = sorted(line for line in record.splitlines() if "/lib64/" in line)
    return f"{dist.version} {digest(chr(10).join(files))}"


def linux_cc_source(tarball: Path = LINUX_SOURCE_TARBALL) -> str:
    """The Linux source the ns-3 build compiles the congestion-control modules from: the
    Debian package that installs its tarball, with its version (or, on a machine without
    dpkg, the tarball's size and modification time)."""
    proc = subprocess.run(
        ["dpkg-query", "-S", str(tarball)], capture_output=True, text=True, check=False
    )
    if proc.returncode == 0 and ":" in proc.stdout:
        package = proc.stdout.split(":", 1)[0].strip()
        version = _first_line(["dpkg-query", "-W", "-f=${Version}\n", package])
        return f"{package} {version}"
    if tarball.exists():
        stat = tarball.stat()
        return f"{tarball} {stat.st_size} B, mtime {int(stat.st_mtime)}"
    return "not installed"


def build_facts(kind: str) -> dict:
    """The toolchain and dependencies behind a code set's runs, as they are on this machine."""
    facts = {
        "c_compiler": _first_line(["cc", "--version"]),
    }
    if kind == "ns3":
        facts |= {
            "cxx_compiler": _first_line(["c++", "--version"]),
            "ns3": ns3_release(),
            "linux_source": linux_cc_source(),
        }
    else:
        facts |= {"python": platform.python_version()}
    return facts


# --- an identity, its manifest, and comparing two ----------------------------------------------


def _qualified(name: str, files: set[str]) -> str:
    """`MODULE:NAME` as a unit's name (`FILE:NAME`)."""
    module, _, attr = name.partition(":")
    return f"{_module_path(module, files)}:{attr}"


def _entry_units(code: CodeSet, tree: Tree, units: dict[str, list[Unit]]) -> list[Unit]:
    files = set(tree.paths())
    out = []
    for entry in code.entries:
        module, _, name = entry.partition(":")
        path = _module_path(module, files)
        found = [u for u in units.get(path or "", []) if name in u.defines]
        if not found:
            raise IdentityError(f"code set {code.backend}: entry {entry} is not in the tree")
        out += found
    return out


def manifest(backend: str, tree: Tree | None = None, build: dict | None = None) -> dict:
    """What a backend's code is in `tree` (default: the checkout): the Python definitions its
    entries reach (`reachable_units`), its other files and its build facts, each as digests,
    and the digest of all that (`digest`)."""
    code = CODE_SETS[backend]
    tree = tree or WorkTree()
    by_module = {
        path: python_units(tree.read(path), path)
        for path in python_closure(tree, code.python_roots, code.python_excluded)
    }
    every = [u for units in by_module.values() for u in units]
    reached = reachable_units(every, _entry_units(code, tree, by_module))
    keyed = {_qualified(k, set(tree.paths())) for k in code.keyed}
    reached = [u for u in reached if u.name not in keyed]
    sources = {digest(normalized_source(p, tree.read(p))): p for p in source_files(tree, code)}
    body = {
        "backend": backend,
        "python_definitions": sorted({u.digest for u in reached if u.defines}),
        "python_statements": sorted({u.digest for u in reached if not u.defines}),
        "sources": sorted(sources),
        "build": build if build is not None else build_facts(code.build),
    }
    # the names explain a difference (`compare`); they are not part of the identity
    names = {"python": {u.digest: u.name for u in reached}, "sources": sources}
    return {"digest": digest(json.dumps(body, sort_keys=True)), **body, "names": names}


@cache
def current(backend: str) -> dict:
    """The manifest of the checkout's code now, computed once per process."""
    return manifest(backend)


def compare(kept: dict, now: dict) -> list[str]:
    """Why code `now` is not the code of manifest `kept` (empty: it is, and the kept runs are
    the runs it would make). A definition the entries now reach beside the kept ones does not
    count (reaching it took a change to one of them, or a name alike: emusim.infra.code_identity);
    a statement run at import does."""
    why = []
    names = {**kept.get("names", {}).get("python", {}), **now.get("names", {}).get("python", {})}
    gone = set(kept["python_definitions"]) - set(now["python_definitions"])
    gone |= set(kept["python_statements"]) ^ set(now["python_statements"])
    if gone:
        why.append("Python changed: " + ", ".join(sorted(names.get(d, d) for d in gone)))
    if kept["sources"] != now["sources"]:
        then_names = kept.get("names", {}).get("sources", {})
        now_names = now.get("names", {}).get("sources", {})
        files = sorted(
            {then_names.get(d, d) for d in set(kept["sources"]) - set(now["sources"])}
            | {now_names.get(d, d) for d in set(now["sources"]) - set(kept["sources"])}
        )
        why.append("files differ: " + ", ".join(files))
    for key in sorted(set(kept["build"]) | set(now["build"])):
        if kept["build"].get(key) != now["build"].get(key):
            then, now_value = kept["build"].get(key), now["build"].get(key)
            why.append(f"build {key}: {then!r} then, {now_value!r} now")
    return why


def manifest_path(archive_dir: Path, digest: str) -> Path:
    """Where the archive keeps the manifest of identity `digest`."""
    return Path(archive_dir) / "identities" / f"{digest}.json"


def write_manifest(archive_dir: Path, m: dict) -> Path:
    """Keep manifest `m` in the archive (once per digest); return its path."""
    from emusim.infra.runjson import write_atomically

    path = manifest_path(archive_dir, m["digest"])
    if not path.exists():
        write_atomically(path, json.dumps(m, indent=0, sort_keys=True) + "\n")
    return path


def read_manifest(archive_dir: Path, digest: str) -> dict | None:
    """The manifest of identity `digest` the archive keeps, or None."""
    path = manifest_path(archive_dir, digest)
    return json.loads(path.read_text()) if path.exists() else None
