#!/bin/sh
# The convolution backward suites again with the ISA capped at AVX2 and at
# the baseline: the GEMMs under backward data and weights run the AVX2 and
# the portable microkernels; backward data on nCx8c runs the AVX2 direct
# kernels, and nCx16c backward data and weights (then everything, at the
# baseline) fall back to the GEMM path.
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_bwd"
    ./test/conv/test_conv_bwd || exit 1
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_bwd_direct"
    ./test/conv/test_conv_bwd_direct || exit 1
done
