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
check_PROGRAMS += test/pooling/test_reduction
TESTS += test/pooling/test_reduction
test_pooling_test_reduction_SOURCES = test/pooling/test_reduction.cpp
test_pooling_test_reduction_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_reduction_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/pooling/test_lnorm
TESTS += test/pooling/test_lnorm
test_pooling_test_lnorm_SOURCES = test/pooling/test_lnorm.cpp
test_pooling_test_lnorm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_lnorm_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/pooling/test_gnorm
TESTS += test/pooling/test_gnorm
test_pooling_test_gnorm_SOURCES = test/pooling/test_gnorm.cpp
test_pooling_test_gnorm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_gnorm_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/pooling/test_lrn
TESTS += test/pooling/test_lrn
test_pooling_test_lrn_SOURCES = test/pooling/test_lrn.cpp
test_pooling_test_lrn_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_lrn_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/pooling/test_resampling
TESTS += test/pooling/test_resampling
test_pooling_test_resampling_SOURCES = test/pooling/test_resampling.cpp
test_pooling_test_resampling_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_resampling_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/pooling/test_isa_caps.sh
TESTS += test/pooling/test_isa_caps.sh

# Primitive cache keys of this family's descriptors.
check_PROGRAMS += test/pooling/test_cache_keys
TESTS += test/pooling/test_cache_keys
test_pooling_test_cache_keys_SOURCES = test/pooling/test_cache_keys.cpp
test_pooling_test_cache_keys_LDADD = $(TEST_LIBS)

# 8-bit integer forward against naive references written in the tests
# (test/common/int8_ref.hpp shares nothing with src/).
EXTRA_DIST += test/common/int8_ref.hpp
check_PROGRAMS += test/pooling/test_int8_pooling test/pooling/test_int8_norm \
	test/pooling/test_int8_reduction
TESTS += test/pooling/test_int8_pooling test/pooling/test_int8_norm \
	test/pooling/test_int8_reduction
test_pooling_test_int8_pooling_SOURCES = test/pooling/test_int8_pooling.cpp
test_pooling_test_int8_pooling_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_int8_pooling_LDADD = $(TEST_LIBS)
test_pooling_test_int8_norm_SOURCES = test/pooling/test_int8_norm.cpp
test_pooling_test_int8_norm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_int8_norm_LDADD = $(TEST_LIBS)
test_pooling_test_int8_reduction_SOURCES = test/pooling/test_int8_reduction.cpp
test_pooling_test_int8_reduction_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_int8_reduction_LDADD = $(TEST_LIBS)
# Pooling forward on nchw (register and phase-split paths) and max pooling
# backward with the workspace against a naive reference in the test.
check_PROGRAMS += test/pooling/test_pooling_ncsp
TESTS += test/pooling/test_pooling_ncsp
test_pooling_test_pooling_ncsp_SOURCES = test/pooling/test_pooling_ncsp.cpp
test_pooling_test_pooling_ncsp_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_pooling_ncsp_LDADD = $(TEST_LIBS)
# Pooling forward on nhwc / nChw16c / nChw8c (register and vec_ops paths)
# and max pooling backward with the workspace against a naive reference.
check_PROGRAMS += test/pooling/test_pooling_chan
TESTS += test/pooling/test_pooling_chan
test_pooling_test_pooling_chan_SOURCES = test/pooling/test_pooling_chan.cpp
test_pooling_test_pooling_chan_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_pooling_chan_LDADD = $(TEST_LIBS)
# Batch normalization forward on nChw16c / nChw8c against a naive reference.
check_PROGRAMS += test/pooling/test_bnorm_blocked
TESTS += test/pooling/test_bnorm_blocked
test_pooling_test_bnorm_blocked_SOURCES = test/pooling/test_bnorm_blocked.cpp
test_pooling_test_bnorm_blocked_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_pooling_test_bnorm_blocked_LDADD = $(TEST_LIBS)
