"""Build the ns-3 programs of sim/ns3 against the ns-3 wheel from PyPI.

`python -m emusim.backends.ns3.build` configures and builds once; CMake rebuilds only what changed.
The wheel's directory is found without importing it (its Python bindings load slowly).
"""

from __future__ import annotations

import argparse
import fcntl
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

from emusim.core.paths import BUILD_DIR, REPO_ROOT

NS3_SOURCE_DIR = REPO_ROOT / "sim" / "ns3"
NS3_BUILD_DIR = BUILD_DIR / "ns3"
TEST_RUNNER = "emusim-ns3-tests"
"""The program that runs the TestSuites of sim/ns3/test."""


def program_names(source_dir: Path = NS3_SOURCE_DIR) -> tuple[str, ...]:
    """The ns-3 programs, sorted: one per `programs/NAME.cc`, named NAME, as CMakeLists.txt
    builds them. That directory is the one list of the programs."""
    return tuple(sorted(p.stem for p in (source_dir / "programs").glob("*.cc")))


PROGRAMS = (*program_names(), TEST_RUNNER)
"""Every executable the build makes in NS3_BUILD_DIR: the programs and the test runner."""


class Ns3BuildError(RuntimeError):
    """The ns-3 wheel is missing or the build failed."""


def ns3_prefix() -> Path:
    """Directory of the installed `ns3` wheel (holds include/ and lib64/)."""
    spec = importlib.util.find_spec("ns3")
    if spec is None or not spec.submodule_search_locations:
        raise Ns3BuildError(
            "the Python package 'ns3' (ns-3 3.44 from PyPI) is not installed; run tools/setup"
        )
    prefix = Path(next(iter(spec.submodule_search_locations)))
    if not (prefix / "lib64" / "libns3.44-core.so").exists():
        raise Ns3BuildError(f"{prefix} holds no libns3.44-core.so: is the ns3 wheel 3.44?")
    return prefix


def configured_elsewhere(build_dir: Path) -> Path | None:
    """The directory `build_dir`'s CMake cache was made in, if not `build_dir` itself.

    A build directory copied or moved with its tree keeps a cache that names the old place, and
    CMake would then write the programs there (into another checkout's build)."""
    cache = build_dir / "CMakeCache.txt"
    if not cache.exists():
        return None
    for line in cache.read_text(errors="replace").splitlines():
        if line.startswith("CMAKE_CACHEFILE_DIR:INTERNAL="):
            made_in = Path(line.partition("=")[2])
            return None if made_in.resolve() == build_dir.resolve() else made_in
    return None


def compiler_cache(source_dir: Path = NS3_SOURCE_DIR) -> tuple[list[str], dict[str, str]]:
    """The CMake arguments and environment that compile through ccache, if it is installed.

    ccache's base_dir is the source directory: the compiler is given its paths relative to the
    build directory, so another checkout (a test's copy of the workflow, a fresh clone) runs the
    same command on the same sources and reuses the objects this one compiled, while a path
    outside it (the ns-3 wheel's headers, Linux's sources extracted into the build, the spec
    directory the test runner names) stays absolute and part of what ccache compares."""
    if shutil.which("ccache") is None:
        return [], {}
    launchers = [f"-DCMAKE_{lang}_COMPILER_LAUNCHER=ccache" for lang in ("C", "CXX")]
    return launchers, {"CCACHE_BASEDIR": str(source_dir.resolve())}


def build(verbose: bool = False) -> Path:
    """Configure (first time, or afresh if the cache was made elsewhere) and build; return the
    build directory. Two processes building at once (`make test`'s two halves, two workflow
    jobs) take turns: the second finds the first one's build done."""
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    with open(BUILD_DIR / "ns3.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(verbose)


def _build(verbose: bool) -> Path:
    made_in = configured_elsewhere(NS3_BUILD_DIR)
    if made_in is not None:
        print(
            f"ns3build: {NS3_BUILD_DIR} was configured in {made_in}; configuring afresh",
            file=sys.stderr,
        )
        shutil.rmtree(NS3_BUILD_DIR)
    NS3_BUILD_DIR.mkdir(parents=True, exist_ok=True)
    out = None if verbose else subprocess.PIPE
    steps = []
    launchers, cache_env = compiler_cache()
    if not (NS3_BUILD_DIR / "CMakeCache.txt").exists():
        steps.append(
            [
                "cmake",
                "-S",
                str(NS3_SOURCE_DIR),
                "-B",
                str(NS3_BUILD_DIR),
                f"-DNS3_PREFIX={ns3_prefix()}",
                "-DCMAKE_BUILD_TYPE=Release",
                *launchers,
            ]
        )
    jobs = str(os.cpu_count() or 1)
    steps.append(["cmake", "--build", str(NS3_BUILD_DIR), "--parallel", jobs])
    for cmd in steps:
        proc = subprocess.run(
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
            env=os.environ | cache_env,
        )
        if proc.returncode != 0:
            raise Ns3BuildError(f"{' '.join(cmd)} failed:\n{proc.stdout or ''}")
    return NS3_BUILD_DIR


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="show the compiler output")
    args = parser.parse_args(argv)
    try:
        print(build(verbose=args.verbose))
    except Ns3BuildError as err:
        print(f"ns3build: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
