"""The ns-3 build directory knows when its CMake cache was made for another checkout; the
build compiles through ccache where it is installed."""

from pathlib import Path

from emusim.backends.ns3 import build
from emusim.backends.ns3.build import configured_elsewhere


def _cache(build_dir: Path, made_in: Path) -> None:
    build_dir.mkdir(parents=True, exist_ok=True)
    (build_dir / "CMakeCache.txt").write_text(
        "# This is the CMakeCache file.\n"
        f"CMAKE_CACHEFILE_DIR:INTERNAL={made_in}\n"
        "CMAKE_BUILD_TYPE:STRING=Release\n"
    )


def test_a_cache_made_in_place_is_kept(tmp_path):
    build_dir = tmp_path / "build" / "ns3"
    _cache(build_dir, build_dir)
    assert configured_elsewhere(build_dir) is None


def test_a_copied_cache_names_the_checkout_it_came_from(tmp_path):
    build_dir = tmp_path / "copy" / "build" / "ns3"
    original = tmp_path / "main" / "build" / "ns3"
    _cache(build_dir, original)
    assert configured_elsewhere(build_dir) == original


def test_no_cache_is_not_elsewhere(tmp_path):
    assert configured_elsewhere(tmp_path) is None


def test_ccache_compiles_the_sources_relative_to_the_build(tmp_path, monkeypatch):
    monkeypatch.setattr(build.shutil, "which", lambda name: f"/usr/bin/{name}")
    launchers, env = build.compiler_cache(tmp_path / "sim" / "ns3")
    assert launchers == [
        "-DCMAKE_C_COMPILER_LAUNCHER=ccache",
        "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
    ]
    # ccache rewrites the paths under its base_dir only: the sources, not the ns-3 wheel's
    assert env == {"CCACHE_BASEDIR": str((tmp_path / "sim" / "ns3").resolve())}


def test_without_ccache_the_compiler_runs_alone(monkeypatch):
    monkeypatch.setattr(build.shutil, "which", lambda name: None)
    assert build.compiler_cache() == ([], {})
