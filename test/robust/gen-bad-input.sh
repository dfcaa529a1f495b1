#!/bin/sh
# Writes the list of C API functions for test/robust/test_bad_input.cpp, one
# line per function declared in the headers (those behind an experimental
# guard excepted):  KB_FN(name, "param param ...")
# The header is the one list of the API; the test deduces each parameter's
# type from the function itself and takes only the names from here.
set -eu
out=$1
shift
here=$(dirname "$0")
sh "$here/../../lib/list-api.sh" "$@" | LC_ALL=C awk -F '\t' '
$4 == "" {
    names = ""
    n = split($3, p, /, */)
    for (i = 1; i <= n; i++) {
        q = p[i]
        if (q == "void" || q == "") continue
        sub(/\[\]$/, "", q)
        m = split(q, w, /[ *]+/)
        names = names (names == "" ? "" : " ") w[m]
    }
    printf "KB_FN(%s, \"%s\")\n", $1, names
}' > "$out.tmp"
mv "$out.tmp" "$out"
