# Tests link the internal library (libkestrel.la) unless they test the
# shared object itself. Every test prints lines that test/summary.sh counts.
TEST_LIBS = libkestrel.la $(TBB_LIBS) $(NUMA_LIBS)
EXTRA_DIST += test/common/kt_test.hpp test/summary.sh

include test/api/local.mk
include test/scratchpad/local.mk
include test/reorder/local.mk
include test/cache/local.mk
include test/eltwise/local.mk
include test/pooling/local.mk
include test/gemm/local.mk
include test/conv/local.mk

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
