#!/bin/sh
# test_isa_hints with the hint from the environment, and with a set that
# comes after the first primitive (test_isa_hints alone covers set-then-get).
ONEDNN_CPU_ISA_HINTS=PREFER_YMM ./test/sparse/test_isa_hints env || exit 1
env -u ONEDNN_CPU_ISA_HINTS -u DNNL_CPU_ISA_HINTS ./test/sparse/test_isa_hints late || exit 1
