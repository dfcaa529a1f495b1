#!/bin/sh
# The convolution backward suite again with the ISA capped at AVX2 and at
# the baseline, so the GEMMs under backward data and weights run the AVX2
# and the portable microkernels.
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_bwd"
    ./test/conv/test_conv_bwd || exit 1
done
