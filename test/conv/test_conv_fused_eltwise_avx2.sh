#!/bin/sh
# test_conv_fused_eltwise with the ISA capped at AVX2 (the nChw8c direct
# kernels, their in-register post-op) and at the baseline.
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_fused_eltwise"
    ./test/conv/test_conv_fused_eltwise || exit 1
done
