#!/bin/sh
# Prints one closing line "N passed, M failed, K skipped" for the `make check`
# just run in build directory DIR (default: the current one).
#
# Only the current TESTS count: the list is the one the last make check
# recorded in test/build-started.stamp (see test/local.mk), never whatever
# logs lie in the tree. A listed test without a log did not run (it
# did not build, or make check stopped before it) and counts as a failure; so
# does a log older than the start of the last build (test/build-started.stamp,
# touched by every make and make check). A test program that
# reports its own counts (Check, CMocka, or a "N passed, M failed[, K
# skipped]" line) is counted case by case; any other test counts as one. A
# test that reports no case at all but passes asserted nothing: a failure.
#
# Exit status: 0 when nothing failed. With KESTREL_CI set (CI, where
# bootstrap installed every tool a test needs) a skip is a failure too.
dir=${1:-.}
cd "$dir" || exit 1
make=${MAKE:-make}

stamp=test/build-started.stamp
if [ ! -f "$stamp" ]; then
    echo "summary: $dir has no $stamp: run make check first" >&2
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
# The tests the last make check ran, as it recorded them; a stamp from an
# older build holds no list, so make is asked.
logs=$(cat "$stamp")
[ -n "$logs" ] || logs=$($make -s print-test-logs 2>/dev/null) || logs=
if [ -z "$logs" ]; then
    echo "summary: could not ask make for the list of tests in $dir (did configure run?)" >&2
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi

passed=0
failed=0
skipped=0
for log in $logs; do
    trs=${log%.log}.trs
    name=${log%.log}
    if [ ! -f "$log" ] || [ ! -f "$trs" ]; then
        echo "summary: $name did not run" >&2
        failed=$((failed + 1))
        continue
    fi
    if [ ! "$trs" -nt "$stamp" ]; then
        echo "summary: $name did not run after the last build started (its log is stale)" >&2
        failed=$((failed + 1))
        continue
    fi
    result=$(sed -n 's/^:test-result: *//p' "$trs" | head -n 1)
    counts=$(awk '
        /^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
            gsub(/[,:%]/, " "); p += $3 - $5 - $7; f += $5 + $7; seen = 1; next }
        /^\[  PASSED  \] [0-9]+ test/ { p += $4; seen = 1; next }
        /^\[  FAILED  \] [0-9]+ test/ { f += $4; seen = 1; next }
        /^\[  SKIPPED \] [0-9]+ test/ { s += $4; seen = 1; next }
        /^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped/ { p += $1; f += $3; s += $5; seen = 1; next }
        /^[0-9]+ passed, [0-9]+ failed/ { p += $1; f += $3; seen = 1; next }
        END { if (seen) print p + 0, f + 0, s + 0 }' "$log")
    p=0 f=0 s=0
    if [ -n "$counts" ]; then
        set -- $counts
        p=$1 f=$2 s=$3
    fi
    case "$result" in
        PASS)
            if [ -z "$counts" ]; then
                p=1
            elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
                echo "summary: $name passed without checking anything" >&2
                f=1
            fi
            ;;
        SKIP)
            echo "summary: $name skipped: $(grep -m1 -i 'skip' "$log")" >&2
            p=0 f=0 s=1
            ;;
        *)
            [ "$f" -gt 0 ] || f=1
            # CI shows only this run's output, not the logs: say why here.
            echo "summary: $name failed; the end of $log:" >&2
            tail -n 30 "$log" | sed 's/^/    /' >&2
            ;;
    esac
    [ "$s" -eq 0 ] || [ "$result" = SKIP ] || echo "summary: $name skipped $s case(s)" >&2
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || exit 1
if [ -n "${KESTREL_CI:-}" ] && [ "$skipped" -gt 0 ]; then
    echo "summary: KESTREL_CI is set and $skipped test(s) skipped: a tool bootstrap installs is missing" >&2
    exit 1
fi
exit 0
