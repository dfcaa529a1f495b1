#!/bin/sh
# The bf16 convolution suite again with the ISA capped at AVX2, then at the
# baseline, so the GEMM microkernels of those levels serve it.
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa ./test/conv/test_conv_bf16 || exit 1
done
