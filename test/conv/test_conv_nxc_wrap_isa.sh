#!/bin/sh
# The blocked / channels-first low-precision convolution suite with the ISA
# capped: the wrapped channels-last implementation becomes the AVX-512
# int8 GEMM route without VNNI and bf16 (AVX512_CORE), the AVX-VNNI direct
# kernel (AVX2_VNNI, where the CPU has it), the AVX2 GEMM routes (AVX2) and
# the portable ones (SSE41).
for cap in AVX512_CORE AVX2_VNNI AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/conv/test_conv_nxc_wrap || exit 1
done
