# Tests of the pooling-family kinds.
EXTRA_DIST += test/pooling/harness.hpp
check_PROGRAMS += test/pooling/test_pooling
TESTS += test/pooling/test_pooling
test_pooling_test_pooling_SOURCES = test/pooling/test_pooling.cpp
test_pooling_test_pooling_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_pooling_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/pooling/test_bnorm
TESTS += test/pooling/test_bnorm
test_pooling_test_bnorm_SOURCES = test/pooling/test_bnorm.cpp
test_pooling_test_bnorm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_bnorm_LDADD = $(TEST_LIBS)
