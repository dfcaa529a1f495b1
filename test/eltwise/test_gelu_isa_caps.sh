#!/bin/sh
# test_gelu again with the ISA capped at AVX2 (the AVX2 kernel table alone)
# and at the baseline (the reference implementation, in double).
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_gelu"
    ./test/eltwise/test_gelu || exit 1
done
