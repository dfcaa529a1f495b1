# Backward propagation of pooling and the normalizations.
EXTRA_DIST += test/norm/bwd_util.hpp
check_PROGRAMS += test/norm/test_pooling_bwd
TESTS += test/norm/test_pooling_bwd
test_norm_test_pooling_bwd_SOURCES = test/norm/test_pooling_bwd.cpp
test_norm_test_pooling_bwd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_norm_test_pooling_bwd_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/norm/test_norm_bwd
TESTS += test/norm/test_norm_bwd
test_norm_test_norm_bwd_SOURCES = test/norm/test_norm_bwd.cpp
test_norm_test_norm_bwd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_norm_test_norm_bwd_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/norm/test_bwd_nohint
TESTS += test/norm/test_bwd_nohint
test_norm_test_bwd_nohint_SOURCES = test/norm/test_bwd_nohint.cpp
test_norm_test_bwd_nohint_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_norm_test_bwd_nohint_LDADD = $(TEST_LIBS)
