# The primitive cache: statistics through the internal hook, LRU order,
# capacity, concurrency, results with and without it.
check_PROGRAMS += test/cache/test_cache
TESTS += test/cache/test_cache
test_cache_test_cache_SOURCES = test/cache/test_cache.cpp
test_cache_test_cache_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_cache_test_cache_LDADD = $(TEST_LIBS)

# The cache key of every kind that serializes its op desc: one parameter
# changed at a time misses, equal descriptors hit, cached results equal
# uncached ones.
check_PROGRAMS += test/cache/test_cache_kinds
TESTS += test/cache/test_cache_kinds
test_cache_test_cache_kinds_SOURCES = test/cache/test_cache_kinds.cpp
test_cache_test_cache_kinds_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_cache_test_cache_kinds_LDADD = $(TEST_LIBS)
