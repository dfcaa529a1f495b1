#!/bin/sh
# test_conv_bf16_direct with the ISA capped below AVX512-BF16: AVX512_CORE
# and AVX2, where the GEMM route must serve every case (the test asks the
# effective ISA which implementation to expect and checks it).
for isa in AVX512_CORE AVX2; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    echo "ONEDNN_MAX_CPU_ISA=$isa test_conv_bf16_direct"
    ./test/conv/test_conv_bf16_direct || exit 1
done
