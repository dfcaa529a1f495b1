#!/bin/sh
# test_matmul_wdecomp_bf16 with the ISA capped: AVX512_CORE (no AVX512-BF16:
# f32 panels and the AVX-512 GEMV), AVX2 and SSE41 (plain row loops); the
# test expects f32 weights under any cap.
for cap in AVX512_CORE AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/gemm/test_matmul_wdecomp_bf16 || exit 1
done
