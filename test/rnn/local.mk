# Recurrent primitives: forward against a naive reference; the API surface
EXTRA_DIST += test/rnn/rnn_ref.hpp test/rnn/rnn_bptt_ref.hpp
# (queries, bad input, workspace check, C++ classes, quantisation attributes).
check_PROGRAMS += test/rnn/test_rnn_fwd
TESTS += test/rnn/test_rnn_fwd
test_rnn_test_rnn_fwd_SOURCES = test/rnn/test_rnn_fwd.cpp
test_rnn_test_rnn_fwd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_rnn_test_rnn_fwd_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/rnn/test_rnn_api
TESTS += test/rnn/test_rnn_api
test_rnn_test_rnn_api_SOURCES = test/rnn/test_rnn_api.cpp
test_rnn_test_rnn_api_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_rnn_test_rnn_api_LDADD = lib/libdnnl.la $(TBB_LIBS)
check_PROGRAMS += test/rnn/test_rnn_bwd
TESTS += test/rnn/test_rnn_bwd
test_rnn_test_rnn_bwd_SOURCES = test/rnn/test_rnn_bwd.cpp
test_rnn_test_rnn_bwd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_rnn_test_rnn_bwd_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/rnn/test_rnn_int8
TESTS += test/rnn/test_rnn_int8
test_rnn_test_rnn_int8_SOURCES = test/rnn/test_rnn_int8.cpp
test_rnn_test_rnn_int8_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_rnn_test_rnn_int8_LDADD = $(TEST_LIBS)
TESTS += test/rnn/test_rnn_int8_isa.sh
EXTRA_DIST += test/rnn/test_rnn_int8_isa.sh
