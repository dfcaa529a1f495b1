#!/bin/sh
# dlopen()s the built libdnnl.so.3 from Python (ctypes) and calls a few C
# entry points, as language bindings do. Skipped (exit 77) without python3.
# Runs from the build directory.

srcdir=${srcdir:-$(dirname "$0")/../..}
so=lib/.libs/libdnnl.so.3
incs="-I include -I $srcdir/include"
# `make installcheck`: the installed library and headers instead.
if [ -n "${KESTREL_INSTALLED_PREFIX:-}" ]; then
    so=${KESTREL_INSTALLED_LIBDIR:-$KESTREL_INSTALLED_PREFIX/lib}/libdnnl.so.3
    incs="-I ${KESTREL_INSTALLED_INCLUDEDIR:-$KESTREL_INSTALLED_PREFIX/include}"
fi

if ! command -v python3 > /dev/null 2>&1 || ! python3 -c 'import ctypes' > /dev/null 2>&1; then
    echo "SKIP: python3 with ctypes not found"
    exit 77
fi
if [ ! -f "$so" ]; then
    echo "FAIL: $so was not built"
    echo "0 passed, 1 failed"
    exit 1
fi

# A sanitizer build's library needs its runtime loaded first; a plain
# python3 cannot load it, so there is nothing to check here.
if [ -n "${SAN_FLAGS:-}" ] || { command -v readelf > /dev/null 2>&1 && [ -f "$so" ] \
        && readelf -d "$so" | grep -q 'NEEDED.*\[lib[a-z]*san\.so'; }; then
    echo "SKIP: libdnnl.so.3 is built with a sanitizer"
    exit 77
fi

# Format tag values are not fixed numbers one can type in: they are
# positions in the enum of dnnl_types.h. Ask the C compiler for them.
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kestrel-py.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cat > "$tmp/tags.c" << 'EOC'
#include <stdio.h>
#include "dnnl_types.h"
int main(void) {
    printf("nchw=%d nChw16c=%d\n", (int)dnnl_nchw, (int)dnnl_nChw16c);
    return 0;
}
EOC
# shellcheck disable=SC2086 # incs is a list of words
if ! $cc $incs -o "$tmp/tags" "$tmp/tags.c" > "$tmp/cc.log" 2>&1; then
    echo "FAIL: cannot compile the tag probe:"
    cat "$tmp/cc.log"
    echo "0 passed, 1 failed"
    exit 1
fi
# shellcheck disable=SC2046 # one NAME=VALUE word per tag
python3 "$srcdir/test/api/dlopen_python.py" "$so" $("$tmp/tags")
