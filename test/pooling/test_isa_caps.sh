#!/bin/sh
# The pooling-family suites again with the ISA capped at AVX2 and at the
# baseline, so the AVX2 and scalar vec_ops tables are the ones the optimized
# implementations use (the exact comparisons of LRN and pooling hold there
# too; the int8 pooling path falls back to plain loops below AVX2).
for isa in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$isa
    export ONEDNN_MAX_CPU_ISA
    for t in test_pooling test_bnorm test_lnorm test_reduction test_gnorm test_lrn test_resampling \
            test_int8_pooling test_pooling_ncsp test_pooling_chan test_bnorm_blocked; do
        echo "ONEDNN_MAX_CPU_ISA=$isa $t"
        ./test/pooling/$t || exit 1
    done
done
