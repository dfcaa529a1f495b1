# Concurrency of real kernels: a plain test in every build, and the heart
# of the ThreadSanitizer run.
check_PROGRAMS += test/sanitize/concurrent_kernels
TESTS += test/sanitize/concurrent_kernels
test_sanitize_concurrent_kernels_SOURCES = test/sanitize/concurrent_kernels.cpp
test_sanitize_concurrent_kernels_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_sanitize_concurrent_kernels_LDADD = $(TEST_LIBS)

# A race planted on purpose, which a ThreadSanitizer build must report.
if KESTREL_TSAN
check_PROGRAMS += test/sanitize/tsan_canary
TESTS += test/sanitize/tsan_canary.sh
test_sanitize_tsan_canary_SOURCES = test/sanitize/tsan_canary.cpp
test_sanitize_tsan_canary_LDADD = $(TEST_LIBS)
endif

# Separate builds of the tree under sanitizers, and valgrind over the normal
# build, run from `make check` (the sub-builds run their own suite with
# SANITIZE_TESTS= so they do not recurse).
SANITIZE_TESTS = test/sanitize/asan.sh test/sanitize/tsan.sh test/sanitize/memcheck.sh
TESTS += $(SANITIZE_TESTS)
EXTRA_DIST += test/sanitize/subbuild.sh test/sanitize/asan.sh test/sanitize/tsan.sh test/sanitize/memcheck.sh \
	test/sanitize/tsan_canary.sh test/sanitize/tsan-ignorelist.txt

clean-local: clean-sanitize
clean-sanitize:
	rm -rf _sub
.PHONY: clean-sanitize
