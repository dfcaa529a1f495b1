#!/bin/sh
# The whole test suite again, against a build with AddressSanitizer and
# UndefinedBehaviorSanitizer (every report is fatal): an invalid access, a
# leak or undefined behaviour anywhere the suite reaches fails CI.
# detect_stack_use_after_return is off: with GCC 12, ASan's fake stack
# frames are not aligned as the AVX-512 kernels' frames require, and the
# vectorised PReLU faulted on a correct program (clean under valgrind and
# without the option).
ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS
exec sh "${srcdir:-.}/test/sanitize/subbuild.sh" asan --enable-asan --enable-ubsan
