# Element-wise primitives: eltwise, binary, softmax, shuffle, prelu.
EXTRA_DIST += test/eltwise/elt_test.hpp
check_PROGRAMS += test/eltwise/test_eltwise
TESTS += test/eltwise/test_eltwise
test_eltwise_test_eltwise_SOURCES = test/eltwise/test_eltwise.cpp
test_eltwise_test_eltwise_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/eltwise/test_binary
TESTS += test/eltwise/test_binary
test_eltwise_test_binary_SOURCES = test/eltwise/test_binary.cpp
test_eltwise_test_binary_LDADD = $(TEST_LIBS)
# Broadcast src0 (and src1, src2) against a naive reference written in the
# test over the public C API only; shape refusals, in place refused.
check_PROGRAMS += test/eltwise/test_binary_bcast
TESTS += test/eltwise/test_binary_bcast
test_eltwise_test_binary_bcast_SOURCES = test/eltwise/test_binary_bcast.cpp
test_eltwise_test_binary_bcast_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/eltwise/test_softmax
TESTS += test/eltwise/test_softmax
test_eltwise_test_softmax_SOURCES = test/eltwise/test_softmax.cpp
test_eltwise_test_softmax_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/eltwise/test_shuffle_prelu
TESTS += test/eltwise/test_shuffle_prelu
test_eltwise_test_shuffle_prelu_SOURCES = test/eltwise/test_shuffle_prelu.cpp
test_eltwise_test_shuffle_prelu_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/eltwise/test_attr
TESTS += test/eltwise/test_attr
test_eltwise_test_attr_SOURCES = test/eltwise/test_attr.cpp
test_eltwise_test_attr_LDADD = $(TEST_LIBS)
# Softmax and PReLU with 8-bit integers against naive references written in
# the test (test/common/int8_ref.hpp shares nothing with src/).
check_PROGRAMS += test/eltwise/test_int8_softmax_prelu
TESTS += test/eltwise/test_int8_softmax_prelu
test_eltwise_test_int8_softmax_prelu_SOURCES = test/eltwise/test_int8_softmax_prelu.cpp
test_eltwise_test_int8_softmax_prelu_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_eltwise_test_int8_softmax_prelu_LDADD = $(TEST_LIBS)
# Backward of the element-wise family against naive references and finite
# differences written in the tests (bwd_test.hpp shares nothing with src/).
EXTRA_DIST += test/eltwise/bwd_test.hpp
check_PROGRAMS += test/eltwise/test_eltwise_bwd
TESTS += test/eltwise/test_eltwise_bwd
test_eltwise_test_eltwise_bwd_SOURCES = test/eltwise/test_eltwise_bwd.cpp
test_eltwise_test_eltwise_bwd_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/eltwise/test_bwd_family
TESTS += test/eltwise/test_bwd_family
test_eltwise_test_bwd_family_SOURCES = test/eltwise/test_bwd_family.cpp
test_eltwise_test_bwd_family_LDADD = $(TEST_LIBS)
# The backward suite with the ISA capped at AVX2 and at the baseline.
EXTRA_DIST += test/eltwise/test_bwd_isa_caps.sh
TESTS += test/eltwise/test_bwd_isa_caps.sh
# GELU (erf, tanh) forward and backward kernels and primitives against
# double formulas and finite differences; again capped at AVX2 and baseline.
check_PROGRAMS += test/eltwise/test_gelu
TESTS += test/eltwise/test_gelu
test_eltwise_test_gelu_SOURCES = test/eltwise/test_gelu.cpp
test_eltwise_test_gelu_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/eltwise/test_gelu_isa_caps.sh
TESTS += test/eltwise/test_gelu_isa_caps.sh
check_PROGRAMS += test/eltwise/test_post_op_select
TESTS += test/eltwise/test_post_op_select
test_eltwise_test_post_op_select_SOURCES = test/eltwise/test_post_op_select.cpp
test_eltwise_test_post_op_select_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_eltwise_test_post_op_select_LDADD = $(TEST_LIBS)
