# Tests link the internal library (libkestrel.la) unless they test the
# shared object itself. Every test prints lines that test/summary.sh counts.
TEST_LIBS = libkestrel.la $(TBB_LIBS) $(NUMA_LIBS)
EXTRA_DIST += test/common/kt_test.hpp test/summary.sh

include test/api/local.mk
include test/scratchpad/local.mk
include test/reorder/local.mk
include test/eltwise/local.mk
include test/pooling/local.mk
include test/gemm/local.mk
include test/conv/local.mk
