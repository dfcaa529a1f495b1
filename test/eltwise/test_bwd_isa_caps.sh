#!/bin/sh
# The eltwise backward suite again with the ISA capped at AVX2 and at the
# baseline: the AVX2 kernel table, then the reference alone.
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_eltwise_bwd"
    ./test/eltwise/test_eltwise_bwd || exit 1
done
