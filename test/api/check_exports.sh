#!/bin/sh
# Checks the ABI surface of the built lib/.libs/libdnnl.so.3:
#   - its soname is libdnnl.so.3;
#   - every dynamic symbol it defines starts with dnnl_ (nothing of the C++
#     internals, TBB or libstdc++ leaks out);
#   - every function declared with DNNL_API in dnnl.h and dnnl_common.h is
#     exported (declarations under a condition this build does not define
#     are skipped, and named).
# Runs from the build directory; srcdir points at the source tree.
# Prints "N passed, M failed" and exits non-zero on any failure.

set -u

srcdir=${srcdir:-$(dirname "$0")/../..}
so=lib/.libs/libdnnl.so.3
passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}

for tool in nm readelf; do
    if ! command -v "$tool" > /dev/null 2>&1; then
        echo "SKIP: $tool not found"
        exit 77
    fi
done

if [ ! -f "$so" ]; then
    echo "FAIL: $so was not built"
    echo "0 passed, 1 failed"
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kestrel-exports.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# --- soname
soname=$(LC_ALL=C readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [ "$soname" = "libdnnl.so.3" ]; then
    pass
else
    fail "soname is '$soname', want libdnnl.so.3"
fi

# --- every defined dynamic symbol is dnnl_*
LC_ALL=C nm -D --defined-only "$so" | awk 'NF >= 3 { print $3 }' | LC_ALL=C sort -u \
    > "$tmp/exported"
sed 's/@.*//' "$tmp/exported" | LC_ALL=C sort -u > "$tmp/exported.names"
if [ ! -s "$tmp/exported.names" ]; then
    fail "nm found no exported symbols in $so"
fi
grep -v '^dnnl_' "$tmp/exported.names" > "$tmp/foreign" || true
if [ -s "$tmp/foreign" ]; then
    fail "symbols outside the dnnl_ namespace are exported:"
    sed 's/^/    /' "$tmp/foreign" | head -n 20
else
    pass
fi

# --- every declared function is exported
if ! sh "$srcdir/lib/list-api.sh" "$srcdir/include/dnnl.h" "$srcdir/include/dnnl_common.h" \
        > "$tmp/api"; then
    fail "lib/list-api.sh could not parse the headers"
fi
config_h=include/dnnl_config.h
[ -f "$config_h" ] || config_h="$srcdir/include/dnnl_config.h"
ndecl=0
nmissing=0
while IFS='	' read -r name ret params guard; do
    [ -n "$name" ] || continue
    if [ -n "$guard" ]; then
        # Only the simple defined(X) form is evaluated; X comes from the
        # generated dnnl_config.h.
        macro=$(echo "$guard" | sed -n 's/^defined(\([A-Za-z0-9_]*\))$/\1/p')
        if [ -z "$macro" ] || ! grep -q "^#define[ 	][ 	]*$macro\\b" "$config_h" 2>/dev/null; then
            echo "skipped: $name (needs $guard)"
            continue
        fi
    fi
    ndecl=$((ndecl + 1))
    if ! grep -qx "$name" "$tmp/exported.names"; then
        nmissing=$((nmissing + 1))
        echo "missing: $ret $name($params)"
    fi
done < "$tmp/api"
if [ "$ndecl" -lt 100 ]; then
    fail "only $ndecl declarations found in dnnl.h/dnnl_common.h"
elif [ "$nmissing" -ne 0 ]; then
    fail "$nmissing of $ndecl declared functions are not exported"
else
    echo "all $ndecl declared functions are exported"
    pass
fi

# --- the dnnl_debug.h helpers are exported as well
for f in dnnl_status2str dnnl_dt2str dnnl_fmt_tag2str dnnl_runtime2str; do
    if grep -qx "$f" "$tmp/exported.names"; then
        pass
    else
        fail "$f is not exported"
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
