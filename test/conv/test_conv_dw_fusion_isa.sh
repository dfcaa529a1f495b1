#!/bin/sh
# The fused depthwise suite with the ISA capped: the 1x1 part runs on the
# GEMM engine's AVX2 and baseline microkernels.
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_dw_fusion"
    ./test/conv/test_conv_dw_fusion || exit 1
done
