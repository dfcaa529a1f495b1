# Recurrent primitives' benchmark (LSTM inference, GRU training step).
BENCH_PROGS += bench/bench_rnn
bench_bench_rnn_SOURCES = bench/bench_rnn.cpp
bench_bench_rnn_LDADD = $(TEST_LIBS)
EXTRA_DIST += bench/rnn_shapes.hpp
