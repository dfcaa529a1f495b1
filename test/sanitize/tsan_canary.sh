#!/bin/sh
# Runs the planted race five times; each run must be reported by TSan with a
# frame in the canary's body. Fails when any run goes unreported.
prog=test/sanitize/tsan_canary
reported=0
runs=5
i=0
while [ $i -lt $runs ]; do
    out=$(TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$prog" 2>&1)
    rc=$?
    if [ $rc -eq 66 ] && echo "$out" | grep -q "WARNING: ThreadSanitizer: data race" \
            && echo "$out" | grep -q "tsan_canary.cpp"; then
        reported=$((reported + 1))
    else
        echo "run $i: the planted race was not reported (exit $rc)"
        echo "$out" | head -n 20
    fi
    i=$((i + 1))
done
echo "tsan_canary: planted race reported $reported of $runs runs"
echo "$reported passed, $((runs - reported)) failed"
[ $reported -eq $runs ]
