#!/bin/sh
# The panel-layout inner product suite with the ISA capped: the f32 GEMM's
# AVX2 kernel (16-column panels) and its portable one (SSE41).
for cap in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_weights_panels || exit 1
done
