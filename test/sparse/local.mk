# Sparse memory (CSR, COO, packed descriptors; memory objects with several
# buffers) and sparse matmul.
EXTRA_DIST += test/sparse/sparse_util.hpp
check_PROGRAMS += test/sparse/test_sparse_api
TESTS += test/sparse/test_sparse_api
test_sparse_test_sparse_api_SOURCES = test/sparse/test_sparse_api.cpp
test_sparse_test_sparse_api_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_sparse_test_sparse_api_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/sparse/test_sparse_matmul
TESTS += test/sparse/test_sparse_matmul
test_sparse_test_sparse_matmul_SOURCES = test/sparse/test_sparse_matmul.cpp
test_sparse_test_sparse_matmul_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_sparse_test_sparse_matmul_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/sparse/test_sparse_f16
TESTS += test/sparse/test_sparse_f16
test_sparse_test_sparse_f16_SOURCES = test/sparse/test_sparse_f16.cpp
test_sparse_test_sparse_f16_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_sparse_test_sparse_f16_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/sparse/test_packed
TESTS += test/sparse/test_packed
test_sparse_test_packed_SOURCES = test/sparse/test_packed.cpp
test_sparse_test_packed_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_sparse_test_packed_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/sparse/test_packed_isa.sh
TESTS += test/sparse/test_packed_isa.sh
