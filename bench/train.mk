# Training primitives' benchmark (convolution / inner product backward).
BENCH_PROGS += bench/bench_train
bench_bench_train_SOURCES = bench/bench_train.cpp
bench_bench_train_LDADD = $(TEST_LIBS)
