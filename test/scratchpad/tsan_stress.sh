#!/bin/sh
# Builds the library's object model and scratchpad arena with
# ThreadSanitizer, together with the stress test, and runs it. The kernels
# are left out: the arena, the executor and the threading layer are what
# several threads share. Skips (77) when the compiler cannot build with TSan.
srcdir=${srcdir:-.}
top_srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CXX=${CXX:-g++}
echo 'int main() { return 0; }' >"$tmp/probe.cpp"
if ! $CXX -fsanitize=thread "$tmp/probe.cpp" -o "$tmp/probe" 2>/dev/null || ! "$tmp/probe"; then
    echo "tsan_stress: ThreadSanitizer unavailable here, skipping"
    exit 77
fi
cd "$top_srcdir" || exit 1
srcs="src/core/*.cpp src/scratchpad/*.cpp src/cpu/isa.cpp src/api/attr.cpp src/api/debug.cpp
      src/api/engine.cpp src/api/memory.cpp src/api/memory_desc.cpp src/api/misc.cpp
      src/api/primitive.cpp test/scratchpad/stress.cpp"
# shellcheck disable=SC2086
$CXX -std=c++17 -O1 -g -fsanitize=thread -include src/cpu/simd.hpp \
    -I"$top_builddir/include" -Iinclude -Isrc -I"$top_builddir/src/api" -I"$top_builddir" \
    $(pkg-config --cflags tbb) $srcs -o "$tmp/stress" $(pkg-config --libs tbb) ${NUMA_LIBS:-} -lpthread || exit 1
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$top_srcdir/test/scratchpad/tsan.supp ${TSAN_OPTIONS:-}" "$tmp/stress"
