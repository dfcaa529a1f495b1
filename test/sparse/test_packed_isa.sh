#!/bin/sh
# The packed-weights matmul tests again with the ISA capped, so each of its
# kernels runs: AVX2 (table-driven expand) and SSE41 (plain C++). The test
# checks from the effective ISA that the implementation's name carries the
# kernel the cap selects.
for cap in AVX2 SSE41; do
    ONEDNN_MAX_CPU_ISA=$cap ./test/sparse/test_packed || exit 1
done
