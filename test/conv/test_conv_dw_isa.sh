#!/bin/sh
# test_conv_dw with the ISA capped at AVX2 (nhwc and nChw8c through the
# AVX2 depthwise kernels, nChw16c through another implementation) and at
# the baseline (no depthwise kernel; numbers still checked).
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_dw"
    ./test/conv/test_conv_dw || exit 1
done
