#!/bin/sh
# The convolution suites again with the ISA capped at AVX2, so the AVX2
# kernels are the ones format `any` and the blocked layouts reach.
ONEDNN_MAX_CPU_ISA=AVX2
export ONEDNN_MAX_CPU_ISA
./test/conv/test_conv || exit 1
./test/conv/test_conv_attr || exit 1
exec ./test/conv/test_conv_api
