# Tests of convolution and deconvolution forward.
EXTRA_DIST += test/conv/conv_harness.hpp
check_PROGRAMS += test/conv/test_conv
TESTS += test/conv/test_conv
test_conv_test_conv_SOURCES = test/conv/test_conv.cpp
test_conv_test_conv_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/conv/test_conv_api
TESTS += test/conv/test_conv_api
test_conv_test_conv_api_SOURCES = test/conv/test_conv_api.cpp
test_conv_test_conv_api_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_api_LDADD = $(TEST_LIBS)
# The same suites under ONEDNN_MAX_CPU_ISA=AVX2 (run from the build root).
EXTRA_DIST += test/conv/test_conv_avx2.sh
TESTS += test/conv/test_conv_avx2.sh
