#!/bin/sh
# test_conv_dw with the ISA capped at AVX2 and at the baseline: the
# depthwise kernels decline and other implementations serve the same
# problems (numbers still checked).
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_dw"
    ./test/conv/test_conv_dw || exit 1
done
