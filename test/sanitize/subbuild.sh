#!/bin/sh
# Shared by the sanitizer runs: makes a separate build of this source tree in
# $top_builddir/_sub/NAME with the given configure arguments, builds it and
# runs its `make check` (without the sanitizer runs themselves), then prints
# that suite's closing line. CI configures in the source tree, which rules
# out an out-of-tree configure of the same tree, so the tracked files are
# copied. Environment: srcdir (from automake), SUB_TESTS and SUB_PROGRAMS
# (the tests to run and the programs to build for them, instead of all).
#
# usage: subbuild.sh NAME CONFIGURE-ARGS...
set -u
name=$1
shift
top_srcdir=$(cd "${srcdir:-.}" && pwd)
top_builddir=$(pwd)
sub="$top_builddir/_sub/$name"
log="$top_builddir/_sub/$name.build.log"
mkdir -p "$top_builddir/_sub"

if ! command -v git >/dev/null 2>&1 || ! git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
    echo "$name: needs a git checkout (the tracked files are what is built)"
    echo "0 passed, 1 failed"
    exit 1
fi
start=$(date +%s)
rm -rf "$sub"
mkdir -p "$sub"
# Tracked files, plus uncommitted edits to them: what the developer sees.
(cd "$top_srcdir" && git ls-files -z | xargs -0 cp --parents -t "$sub") || {
    echo "$name: copying the sources failed"
    echo "0 passed, 1 failed"
    exit 1
}
cd "$sub" || exit 1
if ! { ./bootstrap && ./configure -q "$@" && ${MAKE:-make} -j2; } >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "$name: the build failed (log: $log)"
    echo "0 passed, 1 failed"
    exit 1
fi
built=$(date +%s)
# The sanitizer runs do not recurse; KESTREL_CI's strictness about skips is
# for the top-level suite (a sanitized library cannot be loaded by python).
if [ -n "${SUB_TESTS:-}" ]; then
    env -u KESTREL_CI -u MAKEFLAGS -u MAKELEVEL ${MAKE:-make} -j2 check SANITIZE_TESTS= TESTS="$SUB_TESTS" \
        check_PROGRAMS="${SUB_PROGRAMS:-}" >>"$log" 2>&1
else
    env -u KESTREL_CI -u MAKEFLAGS -u MAKELEVEL ${MAKE:-make} -j2 check SANITIZE_TESTS= >>"$log" 2>&1
fi
status=$?
if [ -n "${SUB_TESTS:-}" ]; then
    # Only the chosen tests ran: count their closing lines ("N passed, M
    # failed"); a test without a log or with a failing result is a failure.
    p=0 f=0
    : >"$log.summary"
    for t in $SUB_TESTS; do
        if grep -q '^:test-result: PASS' "$t.trs" 2>/dev/null; then
            n=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$t.log" | tail -n 1 | cut -d' ' -f1)
            p=$((p + ${n:-1}))
        else
            echo "summary: $t failed or did not run" >>"$log.summary"
            f=$((f + 1))
        fi
    done
    line="$p passed, $f failed"
else
    line=$(env MAKEFLAGS= MAKELEVEL= MAKE="${MAKE:-make} SANITIZE_TESTS=" sh test/summary.sh 2>"$log.summary")
fi
cat "$log.summary"
grep -h -B2 -A20 -E '^(FAIL|ERROR):' test-suite.log 2>/dev/null | head -n 80
end=$(date +%s)
echo "$name: build $((built - start)) s, tests $((end - built)) s"
# The closing line without the skip count: a test that cannot run under a
# sanitizer (python loading a sanitized library) is named above, not counted.
echo "$line" | sed 's/, [0-9]* skipped$//'
[ "$status" -eq 0 ] && case "$line" in *" 0 failed"*) exit 0 ;; esac
exit 1
