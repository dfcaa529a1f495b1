// Direct convolution register tiles for nCx8c data and [g]OIx8i8o weights,
// AVX2: up to 3 oc blocks x 12 columns (NOC * URW + NOC + 1 ymm registers
// at most 16).
#include <immintrin.h>

#include "cpu/conv/direct_conv.hpp"

namespace kestrel {

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

namespace {

struct V {
    using reg = __m256;
    static constexpr int W = 8;
    static reg zero() { return _mm256_setzero_ps(); }
    static reg load(const float *p) { return _mm256_loadu_ps(p); }
    static void store(float *p, reg v) { _mm256_storeu_ps(p, v); }
    static reg bcast(const float *p) { return _mm256_broadcast_ss(p); }
    static reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
    // As the AVX-512 file: relu, linear (one rounding), clip (NaN -> a).
    static reg act(int kind, reg x, reg a, reg b) {
        if (kind == direct_act_relu)
            return _mm256_blendv_ps(_mm256_mul_ps(a, x), x, _mm256_cmp_ps(x, zero(), _CMP_GT_OQ));
        if (kind == direct_act_linear) return _mm256_fmadd_ps(a, x, b);
        return _mm256_min_ps(_mm256_max_ps(x, a), b);
    }
};

#include "cpu/conv/direct_conv_tile.inc"

} // namespace

void direct_conv_8c_kernels(direct_kernels_t &k) {
    fill_noc<1, 12>(k);
    fill_noc<2, 6>(k);
    fill_noc<3, 4>(k);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

int direct_conv_8c_max_urw(int noc) {
    static const int m[] = {0, 12, 6, 4};
    return noc >= 1 && noc <= 3 ? m[noc] : 0;
}

} // namespace kestrel
