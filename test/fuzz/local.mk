# Fuzzing. Seven targets, one per family (test/fuzz/fuzz_*.cpp), each a
# libFuzzer entry point over the C API; see test/fuzz/README.md.
#
# Every build replays the committed corpus (test/fuzz/corpus/NAME/, the
# seeds and every finding's reproducer) through each target: the
# regression tests below, built by any compiler.
EXTRA_DIST += test/fuzz/fuzz_common.hpp test/fuzz/smoke.sh test/fuzz/README.md \
	test/fuzz/corpus test/fuzz/open test/fuzz/gen-seeds.py

check_PROGRAMS += test/fuzz/replay_md test/fuzz/replay_conv test/fuzz/replay_matmul \
	test/fuzz/replay_pooling test/fuzz/replay_reorder test/fuzz/replay_eltwise_binary \
	test/fuzz/replay_cache_blob
TESTS += test/fuzz/replay_md test/fuzz/replay_conv test/fuzz/replay_matmul \
	test/fuzz/replay_pooling test/fuzz/replay_reorder test/fuzz/replay_eltwise_binary \
	test/fuzz/replay_cache_blob
test_fuzz_replay_md_SOURCES = test/fuzz/fuzz_md.cpp test/fuzz/replay_main.cpp
test_fuzz_replay_md_CPPFLAGS = $(AM_CPPFLAGS) -DKFUZZ_NAME=md
test_fuzz_replay_md_LDADD = $(TEST_LIBS)
test_fuzz_replay_conv_SOURCES = test/fuzz/fuzz_conv.cpp test/fuzz/replay_main.cpp
test_fuzz_replay_conv_CPPFLAGS = $(AM_CPPFLAGS) -DKFUZZ_NAME=conv
test_fuzz_replay_conv_LDADD = $(TEST_LIBS)
test_fuzz_replay_matmul_SOURCES = test/fuzz/fuzz_matmul.cpp test/fuzz/replay_main.cpp
test_fuzz_replay_matmul_CPPFLAGS = $(AM_CPPFLAGS) -DKFUZZ_NAME=matmul
test_fuzz_replay_matmul_LDADD = $(TEST_LIBS)
test_fuzz_replay_pooling_SOURCES = test/fuzz/fuzz_pooling.cpp test/fuzz/replay_main.cpp
test_fuzz_replay_pooling_CPPFLAGS = $(AM_CPPFLAGS) -DKFUZZ_NAME=pooling
test_fuzz_replay_pooling_LDADD = $(TEST_LIBS)
test_fuzz_replay_reorder_SOURCES = test/fuzz/fuzz_reorder.cpp test/fuzz/replay_main.cpp
test_fuzz_replay_reorder_CPPFLAGS = $(AM_CPPFLAGS) -DKFUZZ_NAME=reorder
test_fuzz_replay_reorder_LDADD = $(TEST_LIBS)
test_fuzz_replay_eltwise_binary_SOURCES = test/fuzz/fuzz_eltwise_binary.cpp test/fuzz/replay_main.cpp
test_fuzz_replay_eltwise_binary_CPPFLAGS = $(AM_CPPFLAGS) -DKFUZZ_NAME=eltwise_binary
test_fuzz_replay_eltwise_binary_LDADD = $(TEST_LIBS)
test_fuzz_replay_cache_blob_SOURCES = test/fuzz/fuzz_cache_blob.cpp test/fuzz/replay_main.cpp
test_fuzz_replay_cache_blob_CPPFLAGS = $(AM_CPPFLAGS) -DKFUZZ_NAME=cache_blob
test_fuzz_replay_cache_blob_LDADD = $(TEST_LIBS)

# The libFuzzer targets themselves: only in a build configured with
# --enable-fuzz (clang; the library is then instrumented with
# -fsanitize=fuzzer-no-link). test/fuzz/smoke.sh makes such a build in
# _sub/fuzz and runs them; it is one of the sanitizer runs of `make check`
# (SANITIZE_TESTS= leaves it out, as the sub-builds do).
if KESTREL_FUZZ
noinst_PROGRAMS += test/fuzz/fuzz_md test/fuzz/fuzz_conv test/fuzz/fuzz_matmul \
	test/fuzz/fuzz_pooling test/fuzz/fuzz_reorder test/fuzz/fuzz_eltwise_binary \
	test/fuzz/fuzz_cache_blob
FUZZ_LINK_FLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
test_fuzz_fuzz_md_SOURCES = test/fuzz/fuzz_md.cpp
test_fuzz_fuzz_md_LDADD = $(TEST_LIBS)
test_fuzz_fuzz_md_LDFLAGS = $(FUZZ_LINK_FLAGS)
test_fuzz_fuzz_conv_SOURCES = test/fuzz/fuzz_conv.cpp
test_fuzz_fuzz_conv_LDADD = $(TEST_LIBS)
test_fuzz_fuzz_conv_LDFLAGS = $(FUZZ_LINK_FLAGS)
test_fuzz_fuzz_matmul_SOURCES = test/fuzz/fuzz_matmul.cpp
test_fuzz_fuzz_matmul_LDADD = $(TEST_LIBS)
test_fuzz_fuzz_matmul_LDFLAGS = $(FUZZ_LINK_FLAGS)
test_fuzz_fuzz_pooling_SOURCES = test/fuzz/fuzz_pooling.cpp
test_fuzz_fuzz_pooling_LDADD = $(TEST_LIBS)
test_fuzz_fuzz_pooling_LDFLAGS = $(FUZZ_LINK_FLAGS)
test_fuzz_fuzz_reorder_SOURCES = test/fuzz/fuzz_reorder.cpp
test_fuzz_fuzz_reorder_LDADD = $(TEST_LIBS)
test_fuzz_fuzz_reorder_LDFLAGS = $(FUZZ_LINK_FLAGS)
test_fuzz_fuzz_eltwise_binary_SOURCES = test/fuzz/fuzz_eltwise_binary.cpp
test_fuzz_fuzz_eltwise_binary_LDADD = $(TEST_LIBS)
test_fuzz_fuzz_eltwise_binary_LDFLAGS = $(FUZZ_LINK_FLAGS)
test_fuzz_fuzz_cache_blob_SOURCES = test/fuzz/fuzz_cache_blob.cpp
test_fuzz_fuzz_cache_blob_LDADD = $(TEST_LIBS)
test_fuzz_fuzz_cache_blob_LDFLAGS = $(FUZZ_LINK_FLAGS)
endif

# The bounded fuzz run of CI, part of the sanitizer runs of `make check`
# (test/sanitize/local.mk adds SANITIZE_TESTS to TESTS). It runs each
# target for FUZZ_SECONDS (40 s there; see test/fuzz/README.md).
SANITIZE_TESTS += test/fuzz/smoke.sh

# By hand, exploring from a seed taken from the clock: `make fuzz-smoke`
# (60 s a target) and `make fuzz` (600 s a target); FUZZ_SECONDS,
# FUZZ_TARGETS and FUZZ_JOBS override.
fuzz-smoke:
	FUZZ_RUNS=0 FUZZ_SECONDS=$${FUZZ_SECONDS:-60} srcdir='$(srcdir)' MAKE='$(MAKE)' sh $(srcdir)/test/fuzz/smoke.sh
fuzz:
	FUZZ_RUNS=0 FUZZ_SECONDS=$${FUZZ_SECONDS:-600} srcdir='$(srcdir)' MAKE='$(MAKE)' sh $(srcdir)/test/fuzz/smoke.sh
.PHONY: fuzz fuzz-smoke
