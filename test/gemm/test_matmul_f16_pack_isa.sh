#!/bin/sh
# The converting-pack suite with the ISA capped below AVX-512: the AVX2
# (F16C) conversions and the 6x16 kernel, then the plain conversions and the
# portable kernel; bf16 x bf16 goes through the packs there as well.
for cap in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_matmul_f16_pack || exit 1
done
