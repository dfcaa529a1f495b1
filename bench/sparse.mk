# Sparse matmul's benchmark (CSR src against dense, same shape): BENCH_PROGS += ...
BENCH_PROGS += bench/bench_sparse
bench_bench_sparse_SOURCES = bench/bench_sparse.cpp
bench_bench_sparse_LDADD = $(TEST_LIBS)
# Packed sparse weights (weights compression) against dense, same shape.
BENCH_PROGS += bench/bench_packed
bench_bench_packed_SOURCES = bench/bench_packed.cpp
bench_bench_packed_LDADD = $(TEST_LIBS)
