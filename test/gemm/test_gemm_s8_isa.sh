#!/bin/sh
# The int8 GEMM suite again with the ISA capped, so the engine's own choice
# (not only the test's kernel cap) is checked at AVX512_CORE (no VNNI: AVX2
# kernel), AVX2_VNNI (AVX-VNNI kernel where the CPU has it), AVX2 and SSE41
# (portable kernel).
for cap in AVX512_CORE AVX2_VNNI AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_gemm_s8 || exit 1
done
