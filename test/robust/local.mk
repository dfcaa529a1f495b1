# Robustness: allocation failures injected one by one.
check_PROGRAMS += test/robust/test_oom
TESTS += test/robust/test_oom
test_robust_test_oom_SOURCES = test/robust/test_oom.cpp test/robust/oom_scenarios.hpp
test_robust_test_oom_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
# The test replaces operator new/delete (malloc-based) to fail them in turn,
# and wraps Kestrel's posix_memalign calls for its aligned allocations.
test_robust_test_oom_LDADD = $(TEST_LIBS)
test_robust_test_oom_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=posix_memalign
