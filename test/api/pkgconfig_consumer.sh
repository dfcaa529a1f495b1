#!/bin/sh
# Consumes Kestrel the way a user does after `make install`: installs this
# build into a temporary prefix, then builds a small C program and a small
# C++ program (dnnl.hpp: engine, stream, memory, reorder), and a C++ program
# that calls TBB itself, with nothing but
# `pkg-config --cflags --libs dnnl` from that prefix, runs them against the
# installed libdnnl.so.3 and checks what they print. Cleans up after itself.
#
# The installed dnnl.pc names the configured prefix, so pkg-config is told
# the temporary one with --define-variable. Its -I comes first on the
# command line, so headers of another oneDNN in /usr/include stay out; the
# programs also fail to compile unless they see version 3 headers.
#
# With KESTREL_INSTALLED_PREFIX set (`make installcheck` sets it, with
# _LIBDIR and _INCLUDEDIR), the installed tree is checked instead of a
# temporary install of this build.
#
# Runs from the build directory. Prints "N passed, M failed".

set -u

srcdir=${srcdir:-$(dirname "$0")/../..}
MAKE=${MAKE:-make}
CC=${CC:-cc}
CXX=${CXX:-c++}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
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

for tool in "$PKG_CONFIG" "$CC" "$CXX"; do
    if ! command -v "${tool%% *}" > /dev/null 2>&1; then
        echo "SKIP: $tool not found"
        exit 77
    fi
done

# A sanitizer build's library needs its runtime loaded first; plain user
# programs cannot link or load it, so there is nothing to check here.
if [ -n "${SAN_FLAGS:-}" ] || { command -v readelf > /dev/null 2>&1 && [ -f lib/.libs/libdnnl.so.3 ] \
        && readelf -d lib/.libs/libdnnl.so.3 | grep -q 'NEEDED.*\[lib[a-z]*san\.so'; }; then
    echo "SKIP: libdnnl.so.3 is built with a sanitizer"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kestrel-pc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
prefix=$tmp/prefix

# --- install into the temporary prefix (or, for `make installcheck`, use
# the installed tree KESTREL_INSTALLED_PREFIX / _LIBDIR / _INCLUDEDIR)
if [ -n "${KESTREL_INSTALLED_PREFIX:-}" ]; then
    prefix=$KESTREL_INSTALLED_PREFIX
    libdir=${KESTREL_INSTALLED_LIBDIR:-$prefix/lib}
    incdir=${KESTREL_INSTALLED_INCLUDEDIR:-$prefix/include}
# BUILT_SOURCES= : the suite built them already, and remaking them would
# rewrite test/build-started.stamp, making test/summary.sh take the tests
# that finished before this one for stale.
elif "$MAKE" -C . install BUILT_SOURCES= prefix="$prefix" exec_prefix="$prefix" libdir="$prefix/lib" \
        includedir="$prefix/include" bindir="$prefix/bin" datarootdir="$prefix/share" \
        > "$tmp/install.log" 2>&1; then
    libdir=$prefix/lib
    incdir=$prefix/include
    pass
else
    fail "make install prefix=$prefix failed:"
    tail -n 20 "$tmp/install.log"
    finish
fi
for f in "$libdir/libdnnl.so.3" "$libdir/pkgconfig/dnnl.pc" "$incdir/dnnl.h" "$incdir/dnnl.hpp" \
        "$incdir/dnnl_config.h" "$incdir/dnnl_version.h" "$incdir/oneapi/dnnl/dnnl.hpp"; do
    if [ -e "$f" ]; then pass; else fail "not installed: $f"; fi
done

# --- the dnnl(3) manual page, installed under share/man/man3 and valid troff
man3=${KESTREL_INSTALLED_MANDIR:-$prefix/share/man}/man3/dnnl.3
if [ -e "$man3" ]; then pass; else fail "not installed: $man3"; fi
if [ -e "$man3" ] && command -v groff > /dev/null 2>&1; then
    if out=$(groff -man -ww -z "$man3" 2>&1) && [ -z "$out" ]; then pass; else fail "groff warns on dnnl.3: $out"; fi
fi

# --- pkg-config from that prefix
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
if flags=$("$PKG_CONFIG" --define-variable=prefix="$prefix" --cflags --libs dnnl); then
    pass
else
    fail "pkg-config --cflags --libs dnnl failed"
    finish
fi
case "$flags" in
    *"-I$incdir"*"-L$libdir"*) pass ;;
    *) fail "pkg-config flags do not point into the prefix: $flags" ;;
esac
cflags=$("$PKG_CONFIG" --define-variable=prefix="$prefix" --cflags dnnl)
libs=$("$PKG_CONFIG" --define-variable=prefix="$prefix" --libs dnnl)

# --- a C program
cat > "$tmp/consumer.c" << 'EOF'
#include <stdio.h>
#include <dnnl.h>
#include <oneapi/dnnl/dnnl.h>
#if DNNL_VERSION_MAJOR != 3
#error "compiled against headers that are not oneDNN v3 compatible"
#endif
int main(void) {
    const dnnl_version_t *v = dnnl_version();
    dnnl_engine_t e = NULL;
    dnnl_memory_desc_t md = NULL;
    dnnl_dims_t dims = {2, 17, 3, 5};
    size_t size;
    if (dnnl_engine_create(&e, dnnl_cpu, 0) != dnnl_success) return 1;
    if (dnnl_memory_desc_create_with_tag(&md, 4, dims, dnnl_f32, dnnl_nChw16c)
            != dnnl_success)
        return 1;
    size = dnnl_memory_desc_get_size(md);
    dnnl_memory_desc_destroy(md);
    dnnl_engine_destroy(e);
    printf("c-consumer %d.%d size %zu\n", v->major, v->minor, size);
    return 0;
}
EOF
# shellcheck disable=SC2086 # pkg-config output is a list of words
if $CC $cflags -o "$tmp/consumer_c" "$tmp/consumer.c" $libs > "$tmp/cc.log" 2>&1; then
    pass
    out=$(LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/consumer_c")
    # nChw16c 2x17x3x5 pads C to 32: 2*32*3*5 floats = 3840 bytes.
    if [ "$out" = "c-consumer 3.9 size 3840" ]; then
        pass
    else
        fail "C consumer printed '$out'"
    fi
else
    fail "the C consumer did not build:"
    cat "$tmp/cc.log"
fi

# --- a C++ program through the oneapi/ include path
cat > "$tmp/consumer.cpp" << 'EOF'
#include <cstdio>
#include <vector>
#include "oneapi/dnnl/dnnl.hpp"
#if DNNL_VERSION_MAJOR != 3
#error "compiled against headers that are not oneDNN v3 compatible"
#endif
int main() {
    using namespace dnnl;
    try {
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        const memory::dims dims = {2, 17, 3, 5};
        memory::desc plain_md(dims, memory::data_type::f32, memory::format_tag::nchw);
        memory::desc blocked_md(dims, memory::data_type::f32, memory::format_tag::nChw16c);
        std::vector<float> src(2 * 17 * 3 * 5), dst(src.size(), -1.f);
        for (size_t i = 0; i < src.size(); ++i) src[i] = (float)(i % 29) - 14.f;
        memory src_m(plain_md, eng, src.data());
        memory blk_m(blocked_md, eng);
        memory dst_m(plain_md, eng, dst.data());
        reorder(src_m, blk_m).execute(strm, src_m, blk_m);
        reorder(blk_m, dst_m).execute(strm, blk_m, dst_m);
        strm.wait();
        size_t bad = 0;
        for (size_t i = 0; i < src.size(); ++i) bad += src[i] != dst[i];
        std::printf("cpp-consumer roundtrip mismatches %zu\n", bad);
        return bad == 0 ? 0 : 1;
    } catch (const dnnl::error &e) {
        std::printf("cpp-consumer dnnl::error status %d: %s\n", (int)e.status, e.what());
        return 1;
    }
}
EOF
# shellcheck disable=SC2086
if $CXX $cflags -o "$tmp/consumer_cpp" "$tmp/consumer.cpp" $libs > "$tmp/cxx.log" 2>&1; then
    pass
    out=$(LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/consumer_cpp")
    if [ "$out" = "cpp-consumer roundtrip mismatches 0" ]; then
        pass
    else
        fail "C++ consumer printed '$out'"
    fi
else
    fail "the C++ consumer did not build:"
    cat "$tmp/cxx.log"
fi

# --- static consumers: `pkg-config --static --libs dnnl` must carry what the
# library itself needs (TBB through Requires, libnuma when built
# with it, the C++ runtime, libm), so that a C program links against the
# archive alone. The archive is the installed libdnnl.a when the tree was
# configured with --enable-static; otherwise one assembled from the
# objects libdnnl.so.3 is linked from (this build's convenience library
# and the generated stubs).
static_dir=$tmp/static
mkdir -p "$static_dir"
if [ -f "$libdir/libdnnl.a" ]; then
    cp "$libdir/libdnnl.a" "$static_dir/libdnnl.a"
elif [ -f .libs/libkestrel.a ] && [ -f lib/.libs/libdnnl_la-stubs.o ]; then
    cp .libs/libkestrel.a "$static_dir/libdnnl.a" && ${AR:-ar} r "$static_dir/libdnnl.a" lib/.libs/libdnnl_la-stubs.o \
        > /dev/null 2>&1
fi
static_libs=$("$PKG_CONFIG" --define-variable=prefix="$prefix" --static --libs dnnl)
for w in -ldnnl -ltbb -lstdc++ -lm; do
    case " $static_libs " in
        *" $w "*) pass ;;
        *) fail "pkg-config --static --libs dnnl lacks $w: $static_libs" ;;
    esac
done
if [ -f "$static_dir/libdnnl.a" ]; then
    pass
    # The plain flags do not suffice for the archive (the C++ runtime is
    # missing), which is why the static ones exist.
    # shellcheck disable=SC2086
    if $CC $cflags -o "$tmp/consumer_static_plain" "$tmp/consumer.c" -L"$static_dir" $libs > /dev/null 2>&1; then
        fail "the archive linked with the non-static flags: the test cannot tell the static ones are needed"
    else
        pass
    fi
    # -L to the archive first: the linker takes libdnnl.a from there.
    # shellcheck disable=SC2086
    if $CC $cflags -o "$tmp/consumer_static" "$tmp/consumer.c" -L"$static_dir" $static_libs \
            > "$tmp/cc-static.log" 2>&1; then
        pass
        if command -v readelf > /dev/null 2>&1; then
            if readelf -d "$tmp/consumer_static" | grep -q 'NEEDED.*libdnnl'; then
                fail "the static consumer still needs libdnnl.so"
            else
                pass
            fi
        fi
        out=$("$tmp/consumer_static")
        if [ "$out" = "c-consumer 3.9 size 3840" ]; then pass; else fail "static C consumer printed '$out'"; fi
    else
        fail "the C consumer did not link against libdnnl.a with pkg-config --static --libs dnnl:"
        cat "$tmp/cc-static.log"
    fi
else
    fail "no libdnnl.a installed and none could be assembled from the build tree"
fi

# --- TBB is a public requirement: dnnl_config.h says the threading runtime
# is TBB, so programs written for oneDNN call TBB themselves (its
# example_utils.hpp does). The plain flags carry -ltbb, and dnnl.pc lists
# tbb in Requires, not Requires.private.
for w in -ldnnl -ltbb; do
    case " $libs " in
        *" $w "*) pass ;;
        *) fail "pkg-config --libs dnnl lacks $w: $libs" ;;
    esac
done
if "$PKG_CONFIG" --define-variable=prefix="$prefix" --print-requires dnnl | grep -q '^tbb\b'; then
    pass
else
    fail "dnnl.pc does not list tbb in Requires"
fi
if "$PKG_CONFIG" --define-variable=prefix="$prefix" --print-requires-private dnnl | grep -q '^tbb\b'; then
    fail "dnnl.pc still lists tbb in Requires.private"
else
    pass
fi

# A C++ program that uses TBB itself, as oneDNN's example_utils.hpp does
# when DNNL_CPU_THREADING_RUNTIME is DNNL_RUNTIME_TBB, built with the plain
# flags alone (with TBB private this failed to link: "libtbb.so.12: DSO
# missing from command line"), and once more with the --static ones.
cat > "$tmp/consumer_tbb.cpp" << 'EOF'
#include <atomic>
#include <cstdio>
#include "dnnl.hpp"
#if DNNL_CPU_THREADING_RUNTIME != DNNL_RUNTIME_TBB
#error "dnnl_config.h no longer names TBB: this check is moot"
#endif
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
int main() {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
    std::atomic<int> sum {0};
    tbb::parallel_for(0, 100, [&](int i) { sum += i; });
    const int nthr = tbb::this_task_arena::max_concurrency();
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::memory::desc md({3, 5}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
    std::printf("tbb-consumer %d %zu %s\n", sum.load(), md.get_size(), nthr >= 1 ? "ok" : "no-threads");
    return 0;
}
EOF
# shellcheck disable=SC2086 # pkg-config output is a list of words
if $CXX $cflags -o "$tmp/consumer_tbb" "$tmp/consumer_tbb.cpp" $libs > "$tmp/cxx-tbb.log" 2>&1; then
    pass
    out=$(LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/consumer_tbb")
    if [ "$out" = "tbb-consumer 4950 60 ok" ]; then pass; else fail "TBB consumer printed '$out'"; fi
else
    fail "the TBB-using C++ consumer did not build with pkg-config --cflags --libs dnnl alone:"
    cat "$tmp/cxx-tbb.log"
fi
static_cflags=$("$PKG_CONFIG" --define-variable=prefix="$prefix" --static --cflags dnnl)
# shellcheck disable=SC2086
if $CXX $static_cflags -o "$tmp/consumer_tbb_static" "$tmp/consumer_tbb.cpp" $static_libs \
        > "$tmp/cxx-tbb-static.log" 2>&1; then
    pass
    out=$(LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/consumer_tbb_static")
    if [ "$out" = "tbb-consumer 4950 60 ok" ]; then pass; else fail "TBB consumer (--static flags) printed '$out'"; fi
else
    fail "the TBB-using C++ consumer did not build with pkg-config --static --cflags --libs dnnl:"
    cat "$tmp/cxx-tbb-static.log"
fi

# --- the programs load the installed library, not another one
if command -v ldd > /dev/null 2>&1 && [ -x "$tmp/consumer_c" ]; then
    where=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/consumer_c" | sed -n 's/.*libdnnl\.so\.3 => \([^ ]*\).*/\1/p')
    case "$where" in
        "$libdir/"*) pass ;;
        *) fail "libdnnl.so.3 resolves to '$where'" ;;
    esac
fi

finish
