# Tests of the C API core and of the shared object as users consume it.
# They link lib/libdnnl.la (the exported ABI), not libkestrel.la.

# The Check suite: one TCase per API family.
if HAVE_CHECK
check_PROGRAMS += test/api/check_core
TESTS += test/api/check_core
test_api_check_core_SOURCES = test/api/check_core.c
test_api_check_core_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_api_check_core_LDADD = lib/libdnnl.la $(CHECK_LIBS)
endif

# A strict C99 user program: only <dnnl.h>, pedantic, no test framework.
check_PROGRAMS += test/api/c_only
TESTS += test/api/c_only
test_api_c_only_SOURCES = test/api/c_only.c
test_api_c_only_CFLAGS = $(AM_CFLAGS) -std=c99 -pedantic -Werror
test_api_c_only_LDADD = lib/libdnnl.la

# Shell tests of the installed and dlopen()ed library. They run from the
# build directory; srcdir comes from AM_TESTS_ENVIRONMENT.
TESTS += test/api/check_exports.sh test/api/pkgconfig_consumer.sh test/api/cmake_consumer.sh \
	test/api/dlopen_python.sh
EXTRA_DIST += test/api/check_exports.sh test/api/pkgconfig_consumer.sh test/api/cmake_consumer.sh \
	test/api/dlopen_python.sh test/api/dlopen_python.py
check_PROGRAMS += test/api/test_md_blob
TESTS += test/api/test_md_blob
test_api_test_md_blob_SOURCES = test/api/test_md_blob.cpp
test_api_test_md_blob_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_api_test_md_blob_LDADD = $(TEST_LIBS)
# Verbose mode: every field of oneDNN's line format, the levels and the
# timestamp column, parsed from the log of forked children.
check_PROGRAMS += test/api/test_verbose_fields
TESTS += test/api/test_verbose_fields
test_api_test_verbose_fields_SOURCES = test/api/test_verbose_fields.cpp test/api/verbose_log.hpp
test_api_test_verbose_fields_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_api_test_verbose_fields_LDADD = lib/libdnnl.la $(TBB_LIBS)
check_PROGRAMS += test/api/test_cache_blob
TESTS += test/api/test_cache_blob
test_api_test_cache_blob_SOURCES = test/api/test_cache_blob.cpp
test_api_test_cache_blob_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_api_test_cache_blob_LDADD = $(TEST_LIBS)
# The effective ISA tier under every cap, against /proc/cpuinfo.
check_PROGRAMS += test/api/test_effective_isa
TESTS += test/api/test_effective_isa
test_api_test_effective_isa_SOURCES = test/api/test_effective_isa.cpp
test_api_test_effective_isa_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_api_test_effective_isa_LDADD = lib/libdnnl.la $(TBB_LIBS)
# Verbose mode's create:check lines of refused creations, the error level,
# filter=REGEX, and the lines of RNN and sparse matmul primitives. Links
# the convenience library for the allocation-failure hook.
check_PROGRAMS += test/api/test_verbose_check
TESTS += test/api/test_verbose_check
test_api_test_verbose_check_SOURCES = test/api/test_verbose_check.cpp test/api/verbose_log.hpp
test_api_test_verbose_check_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test -I$(top_srcdir)/src
test_api_test_verbose_check_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/api/test_cache_blob_id
TESTS += test/api/test_cache_blob_id
test_api_test_cache_blob_id_SOURCES = test/api/test_cache_blob_id.cpp
test_api_test_cache_blob_id_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_api_test_cache_blob_id_LDADD = $(TEST_LIBS)
# A primitive on a sub-memory descriptor runs on the whole tensor's memory.
check_PROGRAMS += test/api/test_submemory_exec
TESTS += test/api/test_submemory_exec
test_api_test_submemory_exec_SOURCES = test/api/test_submemory_exec.cpp
test_api_test_submemory_exec_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_api_test_submemory_exec_LDADD = lib/libdnnl.la $(TBB_LIBS)
# Every primary format tag's layout against the naming rule, worked out
# independently (the library decodes tags through a table built once).
check_PROGRAMS += test/api/test_tag_layouts
TESTS += test/api/test_tag_layouts
test_api_test_tag_layouts_SOURCES = test/api/test_tag_layouts.cpp
test_api_test_tag_layouts_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_api_test_tag_layouts_LDADD = $(TEST_LIBS)
