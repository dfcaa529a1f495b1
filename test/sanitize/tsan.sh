#!/bin/sh
# The concurrency tests against a ThreadSanitizer build of the whole
# library, with no suppressions: real kernels (convolution, matmul, inner
# product, pooling, normalizations, reorder, softmax, reduction, LRN,
# eltwise) run from several threads at once, the arena stress and the
# primitive cache; and a planted race that
# must be reported. TBB's own header code is left uninstrumented (see
# tsan-ignorelist.txt), which takes clang. test/scratchpad/check_arena is
# left out: it replaces operator new, which clang's static TSan runtime
# defines too (it runs in the normal and ASan builds).
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
export TSAN_OPTIONS
progs="test/sanitize/concurrent_kernels test/sanitize/tsan_canary test/scratchpad/stress \
test/cache/test_cache"
SUB_PROGRAMS=$progs
SUB_TESTS="test/sanitize/concurrent_kernels test/sanitize/tsan_canary.sh test/scratchpad/stress \
test/cache/test_cache"
export SUB_PROGRAMS SUB_TESTS
if ! command -v clang++ >/dev/null 2>&1; then
    echo "SKIP: clang++ not found (bootstrap installs clang)"
    exit 77
fi
exec sh "${srcdir:-.}/test/sanitize/subbuild.sh" tsan --enable-tsan CC=clang CXX=clang++
