// Direct convolution register tiles for nCx16c data and [g]OIx16i16o
// weights, AVX-512: up to 4 oc blocks x 24 columns (NOC * URW + NOC + 1
// zmm registers at most 32; 4 x 7 takes one more, the broadcast then read
// by the FMAs from memory or an accumulator kept on the stack: pick_tile
// takes it on rows of 7, Zen 4, 512 channels at 7x7, mb1 1.10x, mb16
// 1.02-1.04x against 2 x 7).
#include <immintrin.h>

#include "cpu/conv/direct_conv.hpp"

namespace kestrel {

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq")
#endif

namespace {

struct V {
    using reg = __m512;
    static constexpr int W = 16;
    static reg zero() { return _mm512_setzero_ps(); }
    static reg load(const float *p) { return _mm512_loadu_ps(p); }
    static void store(float *p, reg v) { _mm512_storeu_ps(p, v); }
    static reg bcast(const float *p) { return _mm512_set1_ps(*p); }
    static reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
    // relu: x > 0 ? x : a x; linear: a x + b (one rounding); clip:
    // min(max(x, a), b), NaN giving a as fmax does.
    static reg act(int kind, reg x, reg a, reg b) {
        if (kind == direct_act_relu)
            return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, zero(), _CMP_GT_OQ), _mm512_mul_ps(a, x), x);
        if (kind == direct_act_linear) return _mm512_fmadd_ps(a, x, b);
        return _mm512_min_ps(_mm512_max_ps(x, a), b);
    }
};

#include "cpu/conv/direct_conv_tile.inc"

} // namespace

void direct_conv_16c_kernels(direct_kernels_t &k) {
    fill_noc<1, 24>(k);
    fill_noc<2, 14>(k);
    fill_noc<3, 8>(k);
    fill_noc<4, 7>(k);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

int direct_conv_16c_max_urw(int noc) {
    static const int m[] = {0, 24, 14, 8, 7};
    return noc >= 1 && noc <= 4 ? m[noc] : 0;
}

} // namespace kestrel
