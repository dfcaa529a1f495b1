#!/bin/sh
# valgrind memcheck over the C API suites of the normal build: the Check
# suite (in one process, so valgrind sees every case), the plain C99 program
# and the bad-input matrix. Any invalid access, use of an uninitialised
# value or leak (definite, indirect or possible) fails the test.
# test_bad_input replaces operator new/delete with malloc/free to count
# leaks itself; valgrind then sees new paired with free, which is what the
# test means, so mismatched-free reports are off for it alone.
if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP: valgrind not found (bootstrap installs it)"
    exit 77
fi
passed=0
failed=0
run() {
    prog=$1
    shift
    log="$prog.memcheck"
    if CK_FORK=no ./libtool --mode=execute valgrind -q --leak-check=full \
            --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
            --track-origins=yes --error-exitcode=99 "$@" "$prog" >"$log" 2>&1; then
        echo "memcheck $prog: clean ($(tail -n 1 "$log"))"
        passed=$((passed + 1))
    else
        echo "memcheck $prog: FAILED"
        grep -m 60 '==' "$log"
        tail -n 5 "$log"
        failed=$((failed + 1))
    fi
}
run test/api/check_core
run test/api/c_only
run test/robust/test_bad_input --show-mismatched-frees=no
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
