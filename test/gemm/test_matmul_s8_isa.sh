#!/bin/sh
# The int8 matmul suite with the ISA capped: the int8 GEMM engine's AVX2
# kernel (AVX512_CORE has no VNNI, and AVX2), its AVX-VNNI kernel
# (AVX2_VNNI, where the CPU has it) and its portable one (SSE41), each with
# its own panel width for the packed weights layout.
for cap in AVX512_CORE AVX2_VNNI AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_matmul_s8 || exit 1
done
