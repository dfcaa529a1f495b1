// Direct int8 convolution register tiles, AVX512-VNNI (contract in
// conv_s8_direct.hpp): up to 4 oc blocks x 16 columns, NOC * URW
// accumulators + NOC weight vectors + the broadcast + the flip mask within
// the 32 zmm registers.
#include <immintrin.h>

#include <cstring>

#include "cpu/conv/conv_s8_direct.hpp"

namespace kestrel {

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))), \
        apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")
#endif

namespace {

__attribute__((always_inline)) inline __m512i bcast4(const uint8_t *p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

// One quad of input channels (byte offset q4 in the block) at one tap:
// the quad's 4 bytes of every column against NOC weight vectors. REM > 0:
// only the first REM bytes exist.
template <int NOC, int URW, bool CHECK, bool SHIFT>
__attribute__((always_inline)) inline void quad(__m512i (&acc)[NOC][URW], const uint8_t *s,
        const uint8_t *const *cols, dim_t s_col, const int8_t *w, dim_t w_ocb, dim_t q4, int rem,
        __m512i flip) {
    __m512i wv[NOC];
    #pragma GCC unroll 8
    for (int k = 0; k < NOC; ++k) wv[k] = _mm512_loadu_si512(w + k * w_ocb + q4 * 16);
    const __mmask16 m = (__mmask16)((1u << rem) - 1);
    #pragma GCC unroll 32
    for (int j = 0; j < URW; ++j) {
        const uint8_t *p = (CHECK ? cols[j] : s + j * s_col) + q4;
        __m512i b = rem ? _mm512_broadcastd_epi32(_mm_maskz_loadu_epi8(m, p)) : bcast4(p);
        if (SHIFT) b = _mm512_xor_si512(b, flip);
        #pragma GCC unroll 8
        for (int k = 0; k < NOC; ++k) acc[k][j] = _mm512_dpbusd_epi32(acc[k][j], b, wv[k]);
    }
}

template <int NOC, int URW, bool CHECK, bool SHIFT>
void tile(const s8_direct_conf_t &c, const s8_direct_args_t &t) {
    __m512i acc[NOC][URW];
    #pragma GCC unroll 8
    for (int k = 0; k < NOC; ++k)
        #pragma GCC unroll 32
        for (int j = 0; j < URW; ++j) acc[k][j] = _mm512_setzero_si512();
    const __m512i flip = _mm512_set1_epi32((int32_t)0x80808080u);
    const uint8_t *cols[URW];
    for (dim_t icb = 0; icb < c.nicb; ++icb) {
        const bool lastb = icb + 1 == c.nicb;
        const dim_t nq = lastb ? c.ic_tail / 4 : 4;
        const int rem = lastb ? (int)(c.ic_tail % 4) : 0;
        for (dim_t kd = 0; kd < t.nkd; ++kd)
            for (dim_t kh = 0; kh < t.nkh; ++kh) {
                const uint8_t *srow = t.src + icb * 16 + kd * c.tap_d + kh * c.tap_h;
                const int8_t *wrow = t.wei + icb * c.w_icb + kd * c.w_kd + kh * c.w_kh;
                for (dim_t kw = 0; kw < c.KW; ++kw) {
                    const uint8_t *s = srow + kw * c.tap_w;
                    const int8_t *w = wrow + kw * c.w_kw;
                    if (CHECK) {
                        // Padded columns read the pad bytes.
                        const dim_t iw = t.iw0 + kw * c.DW1;
                        #pragma GCC unroll 32
                        for (int j = 0; j < URW; ++j) {
                            const bool in = iw + j * c.SW >= 0 && iw + j * c.SW < c.IW;
                            cols[j] = in ? s + j * c.s_col : t.pad;
                        }
                    }
                    if (nq == 4) {
                        #pragma GCC unroll 4
                        for (dim_t q = 0; q < 4; ++q)
                            quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, c.s_col, w, c.w_ocb, q * 4, 0, flip);
                    } else {
                        for (dim_t q = 0; q < nq; ++q)
                            quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, c.s_col, w, c.w_ocb, q * 4, 0, flip);
                    }
                    if (rem)
                        quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, c.s_col, w, c.w_ocb, nq * 4, rem, flip);
                }
            }
    }
    #pragma GCC unroll 8
    for (int k = 0; k < NOC; ++k)
        #pragma GCC unroll 32
        for (int j = 0; j < URW; ++j) _mm512_storeu_si512(t.out + k * t.out_k + j * 16, acc[k][j]);
}

template <int NOC, int U>
void fill_noc(s8_direct_kernels_t &k) {
    if constexpr (U > 0) {
        k.fn[NOC][U][0][0] = tile<NOC, U, false, false>;
        k.fn[NOC][U][1][0] = tile<NOC, U, true, false>;
        k.fn[NOC][U][0][1] = tile<NOC, U, false, true>;
        k.fn[NOC][U][1][1] = tile<NOC, U, true, true>;
        fill_noc<NOC, U - 1>(k);
    }
}

} // namespace

void s8_direct_avx512_vnni_kernels(s8_direct_kernels_t &k) {
    fill_noc<1, 16>(k);
    fill_noc<2, 12>(k);
    fill_noc<3, 8>(k);
    fill_noc<4, 6>(k);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

int s8_direct_max_urw(int noc) {
    static const int m[] = {0, 16, 12, 8, 6};
    return noc >= 1 && noc <= 4 ? m[noc] : 0;
}

} // namespace kestrel
