# The primitive cache: statistics through the internal hook, LRU order,
# capacity, concurrency, results with and without it.
check_PROGRAMS += test/cache/test_cache
TESTS += test/cache/test_cache
test_cache_test_cache_SOURCES = test/cache/test_cache.cpp
test_cache_test_cache_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_cache_test_cache_LDADD = $(TEST_LIBS)
