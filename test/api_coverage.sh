#!/bin/sh
# doc/api-coverage.md is generated from the code (make api-coverage); this
# test fails when the committed page no longer matches what the library
# implements.
srcdir=${srcdir:-.}
gen=doc/api-coverage.md.gen
if ! ${MAKE:-make} -s "$gen" >/dev/null 2>&1 || [ ! -f "$gen" ]; then
    echo "api_coverage: could not generate $gen"
    exit 1
fi
if diff -u "$srcdir/doc/api-coverage.md" "$gen"; then
    echo "api_coverage: doc/api-coverage.md is up to date"
    echo "1 passed, 0 failed"
else
    echo "api_coverage: doc/api-coverage.md is stale; run 'make api-coverage' and commit it"
    echo "0 passed, 1 failed"
    exit 1
fi
