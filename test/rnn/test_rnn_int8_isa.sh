#!/bin/sh
# The int8 RNN suite again with the ISA capped, so the int8 GEMM's other
# kernels (AVX512_CORE without VNNI and AVX2: the AVX2 kernel; SSE41: the
# portable one) and the scalar activations serve the recurrence too.
for cap in AVX512_CORE AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/rnn/test_rnn_int8 || exit 1
done
