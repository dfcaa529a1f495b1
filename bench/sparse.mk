# Sparse matmul's benchmark (CSR src against dense, same shape): BENCH_PROGS += ...
BENCH_PROGS += bench/bench_sparse
bench_bench_sparse_SOURCES = bench/bench_sparse.cpp
bench_bench_sparse_LDADD = $(TEST_LIBS)
