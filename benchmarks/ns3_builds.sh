#!/usr/bin/env bash
# What a faster ns-3 build could give, measured with what a fresh machine can get from the
# registries (issue 54): the pip wheel ns3==3.44.post0 (logging and asserts compiled in) against
# Debian's binary ns-3 (trixie's libns3.43, built in the release profile with NS3_LOG_ENABLE),
# which needs trixie's C and C++ runtime (glibc 2.38 or later, libstdc++ 14): those are
# unpacked, not installed, into a scratch directory, and the program is linked to run on them.
# Both builds run benchmarks/ns3_builds/bulk.cc, the same source, same arguments; the script
# prints user CPU seconds per run (interleaved) and, with valgrind, the instructions executed.
#
#   benchmarks/ns3_builds.sh [--bytes N] [--runs K] [--callgrind]
#
# Needs network access to Debian's mirror (apt) and the project's .venv. Writes only under
# $TMPDIR (default /tmp)/emusim-ns3-builds.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bytes=100000000
runs=3
callgrind=false
while [ $# -gt 0 ]; do
	case $1 in
	--bytes) bytes=${2:?}; shift ;;
	--runs) runs=${2:?}; shift ;;
	--callgrind) callgrind=true ;;
	*) echo "ns3_builds.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
work=${TMPDIR:-/tmp}/emusim-ns3-builds
mkdir -p "$work/apt/lists/partial" "$work/debs" "$work/root"
echo "deb http://deb.debian.org/debian trixie main" >"$work/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$work/apt/lists")
apt-get "${apt_opts[@]}" update -qq
(cd "$work/debs" && apt-get "${apt_opts[@]}" download -qq libns3.43 libns3-dev libc6 \
	libstdc++6 libgcc-s1 libgsl28 libgslcblas0 libsqlite3-0 libxml2 libicu76 liblzma5 zlib1g \
	2>/dev/null)
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
root=$work/root
lib=$root/usr/lib/x86_64-linux-gnu
wheel=$("$top/.venv/bin/python" -c 'import importlib.util as u; print(list(u.find_spec("ns3").submodule_search_locations)[0])')
src=$top/benchmarks/ns3_builds/bulk.cc
modules=(applications internet point-to-point network core)
g++ -std=c++20 -O2 -I"$wheel/include" -DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE \
	-DNS3_ASSERT_ENABLE "$src" -o "$work/bulk-wheel" -L"$wheel/lib64" -Wl,-rpath,"$wheel/lib64" \
	"${modules[@]/#/-lns3.44-}"
g++ -std=c++20 -O2 -I"$root/usr/include" -DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE "$src" \
	-o "$work/bulk-debian" -L"$lib" -Wl,-rpath,"$lib" -Wl,--allow-shlib-undefined \
	-Wl,--dynamic-linker="$root/usr/lib64/ld-linux-x86-64.so.2" "${modules[@]/#/-lns3-}"
echo "== $bytes bytes, 1 % loss: user CPU seconds (wheel 3.44, Debian 3.43), interleaved"
for _ in $(seq "$runs"); do
	for build in wheel debian; do
		/usr/bin/time -f "$build %U" "$work/bulk-$build" --bytes="$bytes" --loss=0.01 >/dev/null
	done
done 2>&1
if $callgrind; then
	echo "== instructions executed (valgrind --tool=callgrind), $((bytes / 4)) bytes"
	for build in wheel debian; do
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/bulk-$build" \
			--bytes=$((bytes / 4)) --loss=0.01 2>&1 | sed -n "s/.*Collected : /$build /p"
	done
fi
