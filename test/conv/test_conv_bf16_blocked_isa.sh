#!/bin/sh
# The blocked bf16 suite with the ISA capped: at AVX512_CORE the 16c direct
# kernels still serve, at AVX2 only the 8c ones (16c goes to the
# reference), at the baseline neither.
for isa in AVX512_CORE AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_bf16_blocked"
    ./test/conv/test_conv_bf16_blocked || exit 1
done
