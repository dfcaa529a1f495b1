#!/bin/sh
# test_conv_nhwc with the ISA capped at AVX2 (direct:avx2:nhwc, 8-channel
# blocks) and at the baseline (the GEMM path serves; numbers still checked).
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_nhwc"
    ./test/conv/test_conv_nhwc || exit 1
done
