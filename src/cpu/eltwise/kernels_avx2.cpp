// The AVX2 table of kernels.hpp. Every function that uses AVX2 carries
// KT_T; the library itself is built for baseline x86-64.
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "cpu/eltwise/kernels.hpp"
#include "cpu/types.hpp"

namespace kestrel {
namespace elt {
namespace {

// The exact kernels must round like the scalar reference (no FMA on the
// baseline target), so a*b+c stays two operations here.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#else
#pragma GCC optimize("fp-contract=off")
#endif

#define KT_T __attribute__((target("avx2,fma")))
#include "cpu/eltwise/simd/avx2.inc"
#include "cpu/eltwise/simd/common.inc"
#include "cpu/eltwise/simd/math.inc"
#include "cpu/eltwise/simd/eltwise.inc"
#include "cpu/eltwise/simd/binary.inc"
#include "cpu/eltwise/simd/softmax.inc"
#include "cpu/eltwise/simd/eltwise_bwd.inc"
#undef KT_T

const kernels_t table = {"avx2", eltwise_has, eltwise, binary, binary_period, softmax_rows, softmax_cols,
        eltwise_bwd_has, eltwise_bwd};

} // namespace

const kernels_t *kernels_avx2() { return &table; }

} // namespace elt
} // namespace kestrel
