"""The ns-3 build directory knows when its CMake cache was made for another checkout."""

from pathlib import Path

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
