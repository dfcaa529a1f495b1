# Tests link the internal library (libkestrel.la) unless they test the
# shared object itself. Every test prints lines that test/summary.sh counts.
TEST_LIBS = libkestrel.la $(TBB_LIBS) $(NUMA_LIBS)
EXTRA_DIST += test/common/kt_test.hpp test/common/naive_attr.hpp test/common/naive_gemm.hpp test/common/attr_cases.hpp test/common/kt_s8.hpp test/summary.sh

include test/api/local.mk
include test/scratchpad/local.mk
include test/reorder/local.mk
include test/cache/local.mk
include test/eltwise/local.mk
include test/pooling/local.mk
include test/norm/local.mk
include test/gemm/local.mk
include test/conv/local.mk
include test/rnn/local.mk
include test/robust/local.mk
include test/conform/local.mk
include test/sanitize/local.mk
include test/fuzz/local.mk
include test/sparse/local.mk
include test/threading/local.mk

# The C++ wrapper: every class and method must compile; linked against the
# shared library so every C function it names must be exported.
check_PROGRAMS += test/cpp/hpp_compile
TESTS += test/cpp/hpp_compile
test_cpp_hpp_compile_SOURCES = test/cpp/hpp_compile.cpp
test_cpp_hpp_compile_LDADD = lib/libdnnl.la

AM_TESTS_ENVIRONMENT = srcdir='$(srcdir)'; top_srcdir='$(top_srcdir)'; \
	NUMA_LIBS='$(NUMA_LIBS)'; CXX='$(CXX)'; CC='$(CC)'; MAKE='$(MAKE)'; \
	SAN_FLAGS='$(SAN_FLAGS)'; \
	export srcdir top_srcdir NUMA_LIBS CXX CC MAKE SAN_FLAGS;

TESTS += test/api_coverage.sh
EXTRA_DIST += test/api_coverage.sh

TESTS += test/doc_example.sh
EXTRA_DIST += test/doc_example.sh

# A suite whose framework configure did not find must not vanish from the
# list: it shows as a skipped test naming what is missing (and fails CI,
# where bootstrap installs every framework; see test/summary.sh).
if !HAVE_CHECK
TESTS += test/missing-check.sh
check_SCRIPTS += test/missing-check.sh
endif
if !HAVE_CMOCKA
TESTS += test/missing-cmocka.sh
check_SCRIPTS += test/missing-cmocka.sh
endif
test/missing-check.sh test/missing-cmocka.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) test && \
	printf '#!/bin/sh\necho "SKIP: %s not found by configure: its suites were not built"\nexit 77\n' \
	    '$(@:test/missing-%.sh=%)' > $@ && chmod +x $@
CLEANFILES += test/missing-check.sh test/missing-cmocka.sh

# Every `make` and `make check` rewrites this stamp before building
# anything, with the logs of the tests that run would produce (TESTS as that
# make was given it: `make check SANITIZE_TESTS=` or `TESTS=...` count only
# what they run). test/summary.sh counts those logs, and only when newer than
# the stamp: a log left from before the last build (a test that no longer
# builds, a run that stopped) is not a result.
BUILT_SOURCES += test/build-started.stamp
test/build-started.stamp:
	@$(MKDIR_P) test && echo '$(TEST_LOGS)' > $@
CLEANFILES += test/build-started.stamp
.PHONY: test/build-started.stamp

print-test-logs:
	@echo $(TEST_LOGS)
.PHONY: print-test-logs
