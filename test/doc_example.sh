#!/bin/sh
# Compiles and runs the C example of doc/scratchpad.md against the built
# shared library, so the documented example stays runnable.
srcdir=${srcdir:-.}
# A sanitizer build's library needs its runtime: a plain program cannot use it.
if [ -n "${SAN_FLAGS:-}" ]; then
    echo "SKIP: the library is built with sanitizers"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -n '/^```c$/,/^```$/p' "$srcdir/doc/scratchpad.md" | grep -v '^```' >"$tmp/example.c"
[ -s "$tmp/example.c" ] || { echo "no C example found"; echo "0 passed, 1 failed"; exit 1; }
lib=$(pwd)/lib/.libs
${CC:-cc} -std=c99 -Wall -Werror -Iinclude -I"$srcdir/include" "$tmp/example.c" \
    -L"$lib" -ldnnl -Wl,-rpath,"$lib" -o "$tmp/example" || { echo "0 passed, 1 failed"; exit 1; }
out=$("$tmp/example") || { echo "$out"; echo "0 passed, 1 failed"; exit 1; }
echo "$out"
echo "$out" | grep -q "user mode: done" && echo "1 passed, 0 failed"
