// Backward-weights register tile for nCx16c data, AVX-512: one 16 x 16
// block of diff_weights ([i][o], the 16i16o block) in 16 zmm accumulators,
// updated by a row of points: for each point one diff_dst vector (16 oc)
// is loaded and each of the 16 src channels of that point broadcast.
#include <immintrin.h>

#include "cpu/conv/direct_conv_bwd.hpp"

namespace kestrel {

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq")
#endif

void direct_bwd_w_16c_row(float *dw, const float *src, dim_t s_src, const float *ddst, dim_t s_dd, dim_t n) {
    // Unrolled completely, so that acc stays in registers.
    __m512 acc[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_loadu_ps(dw + i * 16);
    for (dim_t j = 0; j < n; ++j) {
        const __m512 d = _mm512_loadu_ps(ddst + j * s_dd);
        const float *s = src + j * s_src;
#pragma GCC unroll 16
        for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(s[i]), d, acc[i]);
    }
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) _mm512_storeu_ps(dw + i * 16, acc[i]);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

} // namespace kestrel
