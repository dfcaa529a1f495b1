#!/bin/sh
# test_conv_s8_direct with the ISA capped below AVX512-VNNI: AVX512_CORE
# (no VNNI: gemm:s8), AVX2_VNNI (direct:avx2_vnni:nhwc:s8 where the CPU has
# AVX-VNNI), AVX2 and SSE41 (gemm:s8). The test asks the effective ISA
# which implementation must serve and checks it.
for isa in AVX512_CORE AVX2_VNNI AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_s8_direct"
    ./test/conv/test_conv_s8_direct || exit 1
done
