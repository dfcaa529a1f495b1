#!/bin/sh
# The fp8 matmul and reorder suites with the ISA capped below AVX-512, so the
# scalar f8 panel conversion serves gemm:cvt (the AVX-512 row converter runs
# in the uncapped runs).
for cap in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_matmul_f8 || exit 1
    ONEDNN_MAX_CPU_ISA=$cap ./test/reorder/test_f8_reorder || exit 1
done
