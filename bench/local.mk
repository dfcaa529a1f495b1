# Benchmarks: built and run by `make bench`, never part of `make check`.
# Other areas add their programs to BENCH_PROGS (not *_PROGRAMS: automake reserves that suffix) in their own files here.
BENCH_PROGS = bench/bench_gemm bench/bench_conv
EXTRA_PROGRAMS = $(BENCH_PROGS) $(BENCH_EXTRA)
bench_bench_gemm_SOURCES = bench/bench_gemm.cpp
bench_bench_gemm_LDADD = $(TEST_LIBS)
bench_bench_conv_SOURCES = bench/bench_conv.cpp
bench_bench_conv_LDADD = $(TEST_LIBS)
CLEANFILES += $(BENCH_PROGS)

# Per-area benchmark fragments append to BENCH_PROGS.
include bench/eltwise.mk

bench: $(BENCH_PROGS)
	@for b in $(BENCH_PROGS); do echo "== $$b"; ./$$b || exit 1; done
.PHONY: bench
