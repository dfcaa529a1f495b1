#!/bin/sh
# Consumes Kestrel the way a CMake user of oneDNN does: installs this build
# into a temporary prefix, then configures and builds a small C++ project
# with find_package(dnnl 3.9 CONFIG REQUIRED) and target DNNL::dnnl, runs it
# against the installed libdnnl.so.3 and checks its result; checks that the
# version file accepts 3.0 to 3.9 and refuses 3.10 and 4 (Debian's oneDNN 2.x
# package, if installed, would answer a request for 2.x itself), and that a moved
# copy of the installed tree is still found (the package paths are relative).
#
# With KESTREL_INSTALLED_PREFIX set (`make installcheck`), the installed
# tree is checked instead of a temporary install of this build.
#
# Runs from the build directory. Prints "N passed, M failed". cmake is
# installed by `bootstrap --install-deps`; without it the test fails.

set -u

srcdir=${srcdir:-$(dirname "$0")/../..}
MAKE=${MAKE:-make}
CMAKE=${CMAKE:-cmake}
passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

# A sanitizer build's library needs its runtime loaded first; plain user
# programs cannot link or load it, so there is nothing to check here.
if [ -n "${SAN_FLAGS:-}" ] || { command -v readelf > /dev/null 2>&1 && [ -f lib/.libs/libdnnl.so.3 ] \
        && readelf -d lib/.libs/libdnnl.so.3 | grep -q 'NEEDED.*\[lib[a-z]*san\.so'; }; then
    echo "SKIP: libdnnl.so.3 is built with a sanitizer"
    exit 77
fi
if ! command -v "$CMAKE" > /dev/null 2>&1; then
    fail "cmake not found (./bootstrap --install-deps installs it)"
    finish
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kestrel-cmake.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
prefix=$tmp/prefix

if [ -n "${KESTREL_INSTALLED_PREFIX:-}" ]; then # make installcheck
    prefix=$KESTREL_INSTALLED_PREFIX
    libdir=${KESTREL_INSTALLED_LIBDIR:-$prefix/lib}
# BUILT_SOURCES= : the suite built them already, and remaking them would
# rewrite test/build-started.stamp, making test/summary.sh take the tests
# that finished before this one for stale.
elif "$MAKE" -C . install BUILT_SOURCES= prefix="$prefix" exec_prefix="$prefix" libdir="$prefix/lib" \
        includedir="$prefix/include" bindir="$prefix/bin" datarootdir="$prefix/share" \
        > "$tmp/install.log" 2>&1; then
    libdir=$prefix/lib
    pass
else
    fail "make install into $prefix"
    tail -20 "$tmp/install.log"
    finish
fi
for f in dnnlConfig.cmake dnnlConfigVersion.cmake; do
    if [ -f "$libdir/cmake/dnnl/$f" ]; then pass; else fail "$libdir/cmake/dnnl/$f not installed"; fi
done

# --- the consumer: a 2x3 by 3x2 matmul through dnnl.hpp, and a sum with
# TBB called directly (as oneDNN's example_utils.hpp does): it links only
# DNNL::dnnl, so it builds only if TBB comes with it as an interface
# dependency.
proj=$tmp/proj
mkdir -p "$proj"
cat > "$proj/main.cpp" <<'CPP'
#include <atomic>
#include <cstdio>
#include <tbb/parallel_for.h>
#include "dnnl.hpp"
int main() {
    std::atomic<int> sum {0};
    tbb::parallel_for(0, 100, [&](int i) { sum += i; });
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4] = {};
    memory::desc ad({2, 3}, memory::data_type::f32, memory::format_tag::ab);
    memory::desc bd({3, 2}, memory::data_type::f32, memory::format_tag::ab);
    memory::desc cd({2, 2}, memory::data_type::f32, memory::format_tag::ab);
    memory A(ad, eng, a), B(bd, eng, b), C(cd, eng, c);
    matmul(matmul::primitive_desc(eng, ad, bd, cd)).execute(s, {{DNNL_ARG_SRC, A}, {DNNL_ARG_WEIGHTS, B}, {DNNL_ARG_DST, C}});
    s.wait();
    std::printf("%g %g %g %g v%d.%d tbb%d\n", c[0], c[1], c[2], c[3], DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR,
            sum.load());
    return 0;
}
CPP
write_lists() { # $1: the version find_package asks for
    cat > "$proj/CMakeLists.txt" <<LISTS
cmake_minimum_required(VERSION 3.13)
project(kestrel_consumer CXX)
find_package(dnnl $1 CONFIG REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE DNNL::dnnl)
LISTS
}

# configure NAME PREFIX_PATH VERSION: 0 when find_package succeeds
configure() {
    rm -rf "$tmp/build-$1"
    write_lists "$3"
    "$CMAKE" -S "$proj" -B "$tmp/build-$1" -DCMAKE_PREFIX_PATH="$2" -DCMAKE_BUILD_TYPE=Release \
        > "$tmp/cmake-$1.log" 2>&1
}

if configure main "$prefix" 3.9; then
    pass
    if "$CMAKE" --build "$tmp/build-main" > "$tmp/build-main.log" 2>&1; then
        pass
        out=$("$tmp/build-main/consumer" 2>&1)
        if [ "$out" = "4 5 10 11 v3.9 tbb4950" ]; then
            pass
        else
            fail "consumer printed '$out', expected '4 5 10 11 v3.9 tbb4950'"
        fi
        # It runs on the installed library, not the build tree's.
        if command -v ldd > /dev/null 2>&1; then
            lib=$(ldd "$tmp/build-main/consumer" | awk '/libdnnl\.so\.3/ {print $3}')
            case "$lib" in
                "$libdir"/*) pass ;;
                *) fail "consumer loads libdnnl.so.3 from '$lib', not from $libdir" ;;
            esac
        fi
    else
        fail "cmake --build of the consumer"
        tail -20 "$tmp/build-main.log"
    fi
else
    fail "find_package(dnnl 3.9 CONFIG REQUIRED) against $prefix"
    tail -20 "$tmp/cmake-main.log"
fi

for v in 3 3.0 3.5; do
    if configure "v$v" "$prefix" "$v"; then pass; else fail "find_package(dnnl $v) refused"; fi
done
for v in 3.10 4; do
    if configure "v$v" "$prefix" "$v"; then fail "find_package(dnnl $v) accepted"; else pass; fi
done

# A moved copy of the installed tree is found where it now is (not done on
# a real installation: it is not ours to move).
if [ -n "${KESTREL_INSTALLED_PREFIX:-}" ]; then
    :
elif mv "$prefix" "$tmp/moved" && configure moved "$tmp/moved" 3.9 && "$CMAKE" --build "$tmp/build-moved" > "$tmp/build-moved.log" 2>&1 \
        && [ "$("$tmp/build-moved/consumer" 2>&1)" = "4 5 10 11 v3.9 tbb4950" ]; then
    pass
else
    fail "the moved installed tree is not found or does not work"
    tail -20 "$tmp/cmake-moved.log"
fi

finish
