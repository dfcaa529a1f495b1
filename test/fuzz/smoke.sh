#!/bin/sh
# Bounded fuzzing: builds this tree with clang, libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer in $top_builddir/_sub/fuzz (incrementally:
# only changed files are copied, so a second run rebuilds little), then runs
# every target of test/fuzz for FUZZ_SECONDS, FUZZ_JOBS at a time, starting
# from the committed corpus. New inputs go to a scratch corpus in
# _sub/fuzz-run/NAME, never into the source tree. A crash, leak, undefined
# behaviour or timeout fails the run and leaves the reproducer in
# _sub/fuzz-run/NAME-crash-* (or -leak-, -timeout-, -oom-); add it to test/fuzz/corpus/NAME/ once fixed.
#
# In `make check` the run is bounded by work, not time: FUZZ_RUNS inputs a
# target (1000; half for matmul, whose inputs are the slowest) from the
# fixed seed FUZZ_SEED (1), so CI runs (nearly) what a developer runs here;
# libFuzzer steers by coverage, and kernels that split work over threads
# can make two runs drift apart a little. FUZZ_SECONDS (120 there) only caps
# a machine far slower than expected. Exploration is `make fuzz-smoke` /
# `make fuzz`: FUZZ_RUNS=0, a seed from the clock, FUZZ_SECONDS a target.
#
# Environment: FUZZ_SECONDS, FUZZ_RUNS, FUZZ_SEED, FUZZ_TARGETS (names,
# default all), FUZZ_JOBS (default 2), FUZZ_RSS_MB (default 2048),
# FUZZ_TIMEOUT (seconds per input, default 20).
set -u
seconds=${FUZZ_SECONDS:-120}
runs=${FUZZ_RUNS:-1000}
seed=${FUZZ_SEED:-1}
if [ "$runs" -eq 0 ]; then
    runs=-1
    seed=$(( $(date +%s) % 100000 + 1 ))
fi
targets=${FUZZ_TARGETS:-md conv matmul pooling reorder eltwise_binary cache_blob}
jobs=${FUZZ_JOBS:-2}
rss=${FUZZ_RSS_MB:-2048}
per_input=${FUZZ_TIMEOUT:-20}
top_srcdir=$(cd "${srcdir:-.}" && pwd)
top_builddir=$(pwd)
sub="$top_builddir/_sub/fuzz"
run="$top_builddir/_sub/fuzz-run"
log="$top_builddir/_sub/fuzz.build.log"
make=${MAKE:-make}
ntargets=$(echo $targets | wc -w)

fail_all() {
    echo "fuzz: $1"
    echo "0 passed, $ntargets failed"
    exit 1
}

if ! command -v clang++ >/dev/null 2>&1; then
    echo "SKIP: clang++ not found: the fuzz targets need clang's libFuzzer"
    exit 77
fi
if ! git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
    fail_all "needs a git checkout (the tracked files are what is built)"
fi

start=$(date +%s)
mkdir -p "$sub" "$run"
# Tracked files, plus uncommitted edits to them. Timestamps are kept, so
# a second run rebuilds only what changed.
(cd "$top_srcdir" && git ls-files -z | xargs -0 cp -p --parents -t "$sub") ||
    fail_all "copying the sources failed"
fuzz_programs=
for t in $targets; do fuzz_programs="$fuzz_programs test/fuzz/fuzz_$t"; done
(
    cd "$sub" || exit 1
    # -O1: the usual optimisation for fuzzing with ASan. The library builds
    # warning-clean with clang -Werror, so no warning is silenced here.
    flags="-g -O1"
    if [ ! -f Makefile ] || [ "$(cat fuzz-flags 2>/dev/null)" != "$flags" ]; then
        ./bootstrap && ./configure -q CC=clang CXX=clang++ CFLAGS="$flags" CXXFLAGS="$flags" \
            --enable-fuzz --enable-asan --enable-ubsan || exit 1
        $make clean >/dev/null
        echo "$flags" >fuzz-flags
    fi
    # Only the library and the targets: the rest of the tree is the other
    # sanitizer runs' business.
    $make -j2 $fuzz_programs
) >"$log" 2>&1 || {
    tail -n 40 "$log"
    fail_all "the build failed (log: $log)"
}
built=$(date +%s)
if [ "$runs" -gt 0 ]; then
    echo "fuzz: built in $((built - start)) s; $runs inputs a target (matmul $((runs / 2))) from seed $seed (at most $seconds s), $jobs at a time"
else
    echo "fuzz: built in $((built - start)) s; $seconds s a target from seed $seed, $jobs at a time"
fi

# libFuzzer options: a bounded run, a memory cap, a time cap per input,
# statistics at the end; reports of the sanitizers are fatal.
ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS

run_one() {
    t=$1
    work="$run/$t"
    rm -rf "$work" && mkdir -p "$work"
    rm -f "$run/$t"-crash-* "$run/$t"-leak-* "$run/$t"-timeout-* "$run/$t"-oom-*
    # The scratch corpus comes first: libFuzzer writes new inputs there and
    # only reads the committed one.
    n=$runs
    [ "$t" = matmul ] && [ "$n" -gt 0 ] && n=$((n / 2))
    "$sub/test/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb="$rss" -timeout="$per_input" \
        -print_final_stats=1 -artifact_prefix="$run/$t-" -seed="$seed" -runs="$n" \
        "$work" "$top_srcdir/test/fuzz/corpus/$t" >"$run/$t.log" 2>&1
    echo $? >"$run/$t.status"
}

# FUZZ_JOBS targets at a time.
set -- $targets
while [ $# -gt 0 ]; do
    pids=
    i=0
    while [ $i -lt "$jobs" ] && [ $# -gt 0 ]; do
        run_one "$1" &
        pids="$pids $!"
        shift
        i=$((i + 1))
    done
    for p in $pids; do wait "$p"; done
done

passed=0
failed=0
for t in $targets; do
    l="$run/$t.log"
    status=$(cat "$run/$t.status" 2>/dev/null || echo 1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$l" | tail -n 1)
    cov=$(grep -E '^#[0-9]+' "$l" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\).*/cov \1, ft \2/p')
    corp=$(ls "$run/$t" 2>/dev/null | wc -l)
    if [ "$status" -eq 0 ]; then
        echo "fuzz $t: ok, ${execs:-?} executions, ${cov:-cov ?}, $corp new inputs"
        passed=$((passed + 1))
    else
        echo "FAIL: fuzz $t (exit $status), ${execs:-?} executions, ${cov:-cov ?}"
        grep -E -A25 '^==[0-9]+==ERROR|runtime error|fuzz finding|deadly signal|ALARM|out-of-memory' "$l" | head -n 60
        for a in "$run/$t"-crash-* "$run/$t"-leak-* "$run/$t"-timeout-* "$run/$t"-oom-*; do
            [ -f "$a" ] && echo "reproducer: $a"
        done
        echo "replay: $sub/test/fuzz/fuzz_$t REPRODUCER (full log: $l)"
        failed=$((failed + 1))
    fi
done
end=$(date +%s)
echo "fuzz: build $((built - start)) s, fuzzing $((end - built)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
