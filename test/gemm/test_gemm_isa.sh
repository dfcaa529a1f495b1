#!/bin/sh
# The f32 GEMM tests again with the ISA capped, so the engine's own kernel
# choice (not only the test's kernel level) is checked at AVX2 (6x16 kernel
# and its direct tiles) and SSE41 (portable kernel, everything packed).
# Weights decompression (s8/u8 and s4/u4) runs its plain row loop below
# AVX-512.
for cap in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_gemm || exit 1
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_matmul || exit 1
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_matmul_wdecomp || exit 1
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_matmul_wdecomp_s4 || exit 1
done
# bf16 products: AVX512-BF16 without a cap (test_matmul_bf16_dot's own run),
# f32 panels under every cap below AVX512_CORE_BF16.
for cap in AVX512_CORE_VNNI AVX2; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_matmul_bf16_dot || exit 1
done
