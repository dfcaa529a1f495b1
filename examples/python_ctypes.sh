#!/bin/sh
# Runs the Python ctypes example on the built libdnnl.so.3 (or, under
# `make installcheck`, on the installed one). Skipped (exit 77) without
# python3, or when the library is built with a sanitizer, whose runtime a
# plain python3 cannot load. Runs from the build directory.
srcdir=${srcdir:-$(dirname "$0")/..}
so=lib/.libs/libdnnl.so.3
if [ -n "${KESTREL_INSTALLED_PREFIX:-}" ]; then
    so=${KESTREL_INSTALLED_LIBDIR:-$KESTREL_INSTALLED_PREFIX/lib}/libdnnl.so.3
fi
if ! command -v python3 > /dev/null 2>&1; then
    echo "SKIP: python3 not found"
    exit 77
fi
if [ ! -f "$so" ]; then
    echo "FAIL: $so was not built"
    exit 1
fi
if [ -n "${SAN_FLAGS:-}" ] || { command -v readelf > /dev/null 2>&1 \
        && readelf -d "$so" | grep -q 'NEEDED.*\[lib[a-z]*san\.so'; }; then
    echo "SKIP: libdnnl.so.3 is built with a sanitizer"
    exit 77
fi
exec python3 "$srcdir/examples/python_ctypes.py" "$so"
