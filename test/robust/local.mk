# Robustness: allocation failures injected one by one.
check_PROGRAMS += test/robust/test_oom
TESTS += test/robust/test_oom
test_robust_test_oom_SOURCES = test/robust/test_oom.cpp test/robust/oom_scenarios.hpp
test_robust_test_oom_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
# The test replaces operator new/delete (malloc-based) to fail them in turn,
# and wraps Kestrel's posix_memalign calls for its aligned allocations.
test_robust_test_oom_LDADD = $(TEST_LIBS)
test_robust_test_oom_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=posix_memalign
# Bad input over every function of the C API, listed from the headers.
check_PROGRAMS += test/robust/test_bad_input
TESTS += test/robust/test_bad_input
test_robust_test_bad_input_SOURCES = test/robust/test_bad_input.cpp test/robust/bad_input_ctx.hpp
nodist_test_robust_test_bad_input_SOURCES = test/robust/bad_input_fns.inc
test_robust_test_bad_input_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_builddir)/test/robust
test_robust_test_bad_input_LDADD = lib/libdnnl.la
test/robust/bad_input_fns.inc: $(kestrel_c_api) $(top_srcdir)/test/robust/gen-bad-input.sh $(top_srcdir)/lib/list-api.sh
	$(AM_V_GEN)$(MKDIR_P) test/robust && $(SHELL) $(top_srcdir)/test/robust/gen-bad-input.sh $@ $(kestrel_c_api)
test/robust/test_bad_input-test_bad_input.$(OBJEXT): test/robust/bad_input_fns.inc
CLEANFILES += test/robust/bad_input_fns.inc
EXTRA_DIST += test/robust/gen-bad-input.sh
# Conformance regressions: zero-sized pooling, NULL memory in the arguments.
check_PROGRAMS += test/robust/test_zero_null
TESTS += test/robust/test_zero_null
test_robust_test_zero_null_SOURCES = test/robust/test_zero_null.cpp
test_robust_test_zero_null_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_robust_test_zero_null_LDADD = $(TEST_LIBS)
# Numerical edges: NaN, infinities, denormals, MXCSR, saturation.
check_PROGRAMS += test/robust/test_numeric
TESTS += test/robust/test_numeric
test_robust_test_numeric_SOURCES = test/robust/test_numeric.cpp
test_robust_test_numeric_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_robust_test_numeric_LDADD = $(TEST_LIBS)
# Aliasing between execution arguments: in place where documented, refused
# elsewhere.
check_PROGRAMS += test/robust/test_alias
TESTS += test/robust/test_alias
test_robust_test_alias_SOURCES = test/robust/test_alias.cpp
test_robust_test_alias_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_robust_test_alias_LDADD = $(TEST_LIBS)
# Zero padding of blocked destinations, post-ops included, every kind.
check_PROGRAMS += test/zpad/test_zero_pad
TESTS += test/zpad/test_zero_pad
test_zpad_test_zero_pad_SOURCES = test/zpad/test_zero_pad.cpp test/zpad/zp_util.hpp
test_zpad_test_zero_pad_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_zpad_test_zero_pad_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/zpad/test_prelu_post_op
TESTS += test/zpad/test_prelu_post_op
test_zpad_test_prelu_post_op_SOURCES = test/zpad/test_prelu_post_op.cpp test/zpad/zp_util.hpp
test_zpad_test_prelu_post_op_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_zpad_test_prelu_post_op_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/zpad/test_pool_bnorm_ops
TESTS += test/zpad/test_pool_bnorm_ops
test_zpad_test_pool_bnorm_ops_SOURCES = test/zpad/test_pool_bnorm_ops.cpp test/zpad/zp_util.hpp
test_zpad_test_pool_bnorm_ops_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_zpad_test_pool_bnorm_ops_LDADD = $(TEST_LIBS)
# Execution allocates nothing: real primitives, every implementation, every
# scratchpad mode, 1 and 2 threads, and dnnl_sgemm. operator new is replaced;
# the library's C allocation calls are wrapped at the link.
check_PROGRAMS += test/robust/test_exec_noalloc
TESTS += test/robust/test_exec_noalloc
test_robust_test_exec_noalloc_SOURCES = test/robust/test_exec_noalloc.cpp
test_robust_test_exec_noalloc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_robust_test_exec_noalloc_LDADD = $(TEST_LIBS)
test_robust_test_exec_noalloc_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc \
	-Wl,--wrap=aligned_alloc -Wl,--wrap=memalign -Wl,--wrap=posix_memalign
