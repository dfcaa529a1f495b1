# Data movement tests: reorder, sum, concat.
check_PROGRAMS += test/reorder/test_reorder
TESTS += test/reorder/test_reorder
test_reorder_test_reorder_SOURCES = test/reorder/test_reorder.cpp test/reorder/dm_naive.hpp
test_reorder_test_reorder_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_reorder_test_reorder_LDADD = $(TEST_LIBS)

check_PROGRAMS += test/reorder/test_sum_concat
TESTS += test/reorder/test_sum_concat
test_reorder_test_sum_concat_SOURCES = test/reorder/test_sum_concat.cpp test/reorder/dm_naive.hpp
test_reorder_test_sum_concat_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_reorder_test_sum_concat_LDADD = $(TEST_LIBS)

check_PROGRAMS += test/reorder/test_dm_cpp
TESTS += test/reorder/test_dm_cpp
test_reorder_test_dm_cpp_SOURCES = test/reorder/test_dm_cpp.cpp
test_reorder_test_dm_cpp_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_reorder_test_dm_cpp_LDADD = $(TEST_LIBS)

# fp8 (f8_e5m2, f8_e4m3): every code, rounding edges and layouts against
# the naive formulas of test/common/f8_naive.hpp.
check_PROGRAMS += test/reorder/test_f8_reorder
TESTS += test/reorder/test_f8_reorder
test_reorder_test_f8_reorder_SOURCES = test/reorder/test_f8_reorder.cpp test/common/f8_naive.hpp
test_reorder_test_f8_reorder_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_reorder_test_f8_reorder_LDADD = $(TEST_LIBS)

# The implementations that accept each reorder problem are the same whether
# their cheap may_accept() pre-checks are asked (verbose off) or not
# (dispatch verbose, in a child run).
check_PROGRAMS += test/reorder/test_reorder_dispatch
TESTS += test/reorder/test_reorder_dispatch
test_reorder_test_reorder_dispatch_SOURCES = test/reorder/test_reorder_dispatch.cpp
test_reorder_test_reorder_dispatch_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_reorder_test_reorder_dispatch_LDADD = $(TEST_LIBS)
