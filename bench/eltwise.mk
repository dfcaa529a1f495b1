# Memory-bound primitives' benchmark (eltwise area): BENCH_PROGS += ...
BENCH_PROGS += bench/bench_eltwise
bench_bench_eltwise_SOURCES = bench/bench_eltwise.cpp
bench_bench_eltwise_LDADD = $(TEST_LIBS)
