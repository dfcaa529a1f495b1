# Benchmarks: built and run by `make bench`, never part of `make check`.
# Other areas add their programs to BENCH_PROGS (not *_PROGRAMS: automake reserves that suffix) in their own files here.
BENCH_PROGS = bench/bench_gemm bench/bench_conv
EXTRA_PROGRAMS = $(BENCH_PROGS) $(BENCH_EXTRA)
bench_bench_gemm_SOURCES = bench/bench_gemm.cpp
bench_bench_gemm_LDADD = $(TEST_LIBS)
bench_bench_conv_SOURCES = bench/bench_conv.cpp
bench_bench_conv_LDADD = $(TEST_LIBS)
CLEANFILES += $(BENCH_PROGS)

# Creation latency (primitive cache miss and hit) and the machine's FMA peak.
BENCH_PROGS += bench/bench_create bench/bench_peak
bench_bench_create_SOURCES = bench/bench_create.cpp
bench_bench_create_LDADD = $(TEST_LIBS)
bench_bench_peak_SOURCES = bench/bench_peak.cpp
bench_bench_peak_LDADD = -lpthread

# Per-area benchmark fragments append to BENCH_PROGS.
include bench/eltwise.mk
include bench/train.mk
include bench/sparse.mk
include bench/rnn.mk

bench: $(BENCH_PROGS)
	@for b in $(BENCH_PROGS); do echo "== $$b"; ./$$b || exit 1; done
.PHONY: bench

# Kestrel beside oneDNN 2.x and OpenBLAS (bench/compare.sh); the anchor is
# compiled with its own headers only: per-target flags replace AM_CPPFLAGS,
# so Kestrel's include/ is not on its command line.
EXTRA_DIST += bench/README.md bench/compare.sh bench/anchor_onednn.cpp bench/anchor_shapes.hpp bench/anchor_int8_shapes.hpp \
	bench/anchor_timing.hpp bench/rnn_shapes.hpp
BENCH_ROUNDS = 5
if HAVE_ANCHOR
EXTRA_PROGRAMS += bench/anchor_onednn
bench_anchor_onednn_SOURCES = bench/anchor_onednn.cpp
bench_anchor_onednn_CPPFLAGS = $(ANCHOR_CPPFLAGS)
bench_anchor_onednn_CXXFLAGS = -std=c++17 -Wall -Wextra -Werror
bench_anchor_onednn_LDADD = $(ANCHOR_LIBS)
CLEANFILES += bench/anchor_onednn
bench-compare: bench/bench_gemm bench/bench_conv bench/bench_train bench/bench_eltwise bench/bench_rnn \
		bench/bench_create bench/bench_peak bench/anchor_onednn
	$(SHELL) $(top_srcdir)/bench/compare.sh . $(BENCH_ROUNDS)
else
bench-compare:
	@echo "bench-compare: no anchor found (oneDNN 2.x: libdnnl-dev, see ANCHOR_DNNL_LIB; OpenBLAS: libopenblas-dev); nothing to compare."
endif
.PHONY: bench-compare
