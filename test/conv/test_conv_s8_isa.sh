#!/bin/sh
# The int8 convolution suite with the ISA capped, so the int8 GEMM engine
# under gemm:s8 runs its AVX2 kernel (AVX512_CORE has no VNNI), its AVX2
# kernel again (AVX2), its AVX-VNNI kernel (AVX2_VNNI, where the CPU has it)
# and the portable one (SSE41).
for cap in AVX512_CORE AVX2_VNNI AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/conv/test_conv_s8 || exit 1
done
