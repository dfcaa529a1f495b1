// Direct int8 convolution register tiles, AVX512-VNNI (contract in
// conv_s8_direct.hpp): up to 4 oc blocks x 16 columns, NOC * URW
// accumulators + NOC weight vectors + the broadcast + the flip mask within
// the 32 zmm registers (4 x 7 takes two more: the compiler keeps two
// accumulators on the stack).
#include <immintrin.h>

#include <cstring>

#include "cpu/conv/conv_s8_direct.hpp"
#include "cpu/conv/direct_conv.hpp"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))), \
        apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")
#endif

// Inside the target region: its helpers inline the tiles' code.
#include "cpu/conv/skip_columns.hpp"

namespace kestrel {

namespace {

__attribute__((always_inline)) inline __m512i bcast4(const uint8_t *p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

// One quad of input channels (byte offset q4 in the block) at one tap:
// the quad's 4 bytes of every column against NOC weight vectors. REM > 0:
// only the first REM bytes exist. Checked tiles read column j at cols[j]
// + co + q4.
// Columns whose bit is clear in `live` are skipped (padding that adds
// nothing: s8_direct_args_t::skip_pad).
template <int NOC, int URW, bool CHECK, bool SHIFT>
KESTREL_TILE_STEP void quad(__m512i (&acc)[NOC][URW], const uint8_t *s,
        const uint8_t *const *cols, dim_t co, dim_t s_col, const int8_t *w, dim_t w_ocb, dim_t q4, int rem,
        __m512i flip, uint32_t live = ~0u) {
    __m512i wv[NOC];
    KESTREL_UNROLL(8)
    for (int k = 0; k < NOC; ++k) wv[k] = _mm512_loadu_si512(w + k * w_ocb + q4 * 16);
    const __mmask16 m = (__mmask16)((1u << rem) - 1);
    KESTREL_UNROLL(32)
    for (int j = 0; j < URW; ++j) {
        if (!(live >> j & 1)) continue;
        const uint8_t *p = (CHECK ? cols[j] + co : s + j * s_col) + q4;
        __m512i b = rem ? _mm512_broadcastd_epi32(_mm_maskz_loadu_epi8(m, p)) : bcast4(p);
        if (SHIFT) b = _mm512_xor_si512(b, flip);
        KESTREL_UNROLL(8)
        for (int k = 0; k < NOC; ++k) acc[k][j] = _mm512_dpbusd_epi32(acc[k][j], b, wv[k]);
    }
}

// The quads of ic block icb at one tap.
template <int NOC, int URW, bool CHECK, bool SHIFT>
KESTREL_TILE_STEP void ic_block(__m512i (&acc)[NOC][URW], const s8_direct_conf_t &c, const uint8_t *s,
        const uint8_t *const *cols, dim_t co, const int8_t *w, dim_t icb, __m512i flip) {
    const bool lastb = icb + 1 == c.nicb;
    const dim_t nq = lastb ? c.ic_tail / 4 : 4;
    const int rem = lastb ? (int)(c.ic_tail % 4) : 0;
    if (nq == 4) {
        KESTREL_UNROLL(4)
        for (dim_t q = 0; q < 4; ++q)
            quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, co, c.s_col, w, c.w_ocb, q * 4, 0, flip);
    } else {
        for (dim_t q = 0; q < nq; ++q)
            quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, co, c.s_col, w, c.w_ocb, q * 4, 0, flip);
    }
    if (rem) quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, co, c.s_col, w, c.w_ocb, nq * 4, rem, flip);
}

// The output stage of s8_direct_out_t on the accumulators, stored to dst.
template <int NOC, int URW>
KESTREL_TILE_STEP void store_out(__m512i (&acc)[NOC][URW], const s8_direct_out_t &o) {
    KESTREL_UNROLL(8)
    for (int k = 0; k < NOC; ++k) {
        const dim_t left = o.nn - k * 16;
        if (left <= 0) break;
        const __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
        const __m512 sv = o.scale ? _mm512_maskz_loadu_ps(m, o.scale + k * 16) : _mm512_setzero_ps();
        const __m512 bv = o.bias ? _mm512_maskz_loadu_ps(m, o.bias + k * 16) : _mm512_setzero_ps();
        const __m512 dv = o.dscale ? _mm512_mask_loadu_ps(_mm512_set1_ps(1.f), m, o.dscale + k * 16)
                                   : _mm512_setzero_ps();
        const __m512 zv = _mm512_set1_ps(o.dzp);
        KESTREL_UNROLL(32)
        for (int j = 0; j < URW; ++j) {
            __m512 v = _mm512_cvtepi32_ps(acc[k][j]);
            if (o.scale) v = _mm512_mul_ps(v, sv);
            if (o.bias) v = _mm512_add_ps(v, bv);
            if (o.dscale) v = _mm512_div_ps(v, dv);
            if (o.with_dzp) v = _mm512_add_ps(v, zv);
            char *d = o.dst + j * o.d_w;
            if (o.kind == 0) {
                _mm512_mask_storeu_ps((float *)d + k * 16, m, v);
                continue;
            }
            if (o.finite && o.kind != 1) {
                // No NaN: saturating narrows after one clamp (a float
                // beyond int32 converts to INT32_MIN, which the u8 narrow
                // takes as 2^31 and the s8 one as below -128).
                const bool s8 = o.kind == 2;
                const __m512i r = s8 ? _mm512_cvtps_epi32(_mm512_min_ps(v, _mm512_set1_ps(127.f)))
                                     : _mm512_cvtps_epi32(_mm512_max_ps(v, _mm512_setzero_ps()));
                _mm_mask_storeu_epi8(d + k * 16, m, s8 ? _mm512_cvtsepi32_epi8(r) : _mm512_cvtusepi32_epi8(r));
                continue;
            }
            // NaN to 0, as the scalar stores do.
            v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v);
            if (o.kind == 1) {
                // 2^31 and above: INT32_MAX; below -2^31: INT32_MIN; else
                // rounded to nearest even (the default mode).
                const __mmask16 big = _mm512_cmp_ps_mask(v, _mm512_set1_ps(2147483648.f), _CMP_GE_OQ);
                v = _mm512_max_ps(v, _mm512_set1_ps(-2147483648.f));
                __m512i r = _mm512_cvtps_epi32(v);
                r = _mm512_mask_mov_epi32(r, big, _mm512_set1_epi32(0x7fffffff));
                _mm512_mask_storeu_epi32((int32_t *)d + k * 16, m, r);
                continue;
            }
            const bool s8 = o.kind == 2;
            v = _mm512_max_ps(v, _mm512_set1_ps(s8 ? -128.f : 0.f));
            v = _mm512_min_ps(v, _mm512_set1_ps(s8 ? 127.f : 255.f));
            const __m512i r = _mm512_cvtps_epi32(v);
            _mm_mask_storeu_epi8(d + k * 16, m, _mm512_cvtepi32_epi8(r));
        }
    }
}

// Checked tiles: where each column reads at tap (kh, kw) whose src point
// is `s` for column 0 (padded columns at the pad bytes).
template <int URW>
KESTREL_TILE_STEP void column_pointers(const s8_direct_conf_t &c, const s8_direct_args_t &t, const uint8_t *s,
        dim_t kh, dim_t kw, const uint8_t **cols) {
    if (c.plane) {
        const dim_t dh = kh * c.DH1, dw = kw * c.DW1;
        for (int j = 0; j < URW; ++j) {
            const dim_t ih = t.col_ih[j] + dh, iw = t.col_iw[j] + dw;
            const bool in = ih >= 0 && ih < c.IH && iw >= 0 && iw < c.IW;
            cols[j] = in ? s + t.col_off[j] : t.pad;
        }
    } else {
        const dim_t iw = t.iw0 + kw * c.DW1;
        KESTREL_UNROLL(32)
        for (int j = 0; j < URW; ++j) {
            const bool in = iw + j * c.SW >= 0 && iw + j * c.SW < c.IW;
            cols[j] = in ? s + j * c.s_col : t.pad;
        }
    }
}

// SKIP: a row tile reaching into zero padding (skip_pad) summed like an
// unchecked one, each kw tap over the columns inside src only.
template <int NOC, int URW, bool CHECK, bool SHIFT, bool SKIP = false>
void tile(const s8_direct_conf_t &c, const s8_direct_args_t &t) {
    // With the output stage in registers the sums start at -comp.
    __m512i acc[NOC][URW];
    KESTREL_UNROLL(8)
    for (int k = 0; k < NOC; ++k) {
        const dim_t left = t.fo ? t.fo->nn - k * 16 : 0;
        const __mmask16 m = left >= 16 ? (__mmask16)0xffff : left > 0 ? (__mmask16)((1u << left) - 1) : 0;
        const __m512i init = t.fo ? _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_maskz_loadu_epi32(m, t.fo->comp + k * 16))
                                  : _mm512_setzero_si512();
        KESTREL_UNROLL(32)
        for (int j = 0; j < URW; ++j) acc[k][j] = init;
    }
    const __m512i flip = _mm512_set1_epi32((int32_t)0x80808080u);
    const uint8_t *cols[URW];
    const dim_t ntaps = t.nkd * t.nkh * c.KW;
    if (CHECK && c.tap_inner && ntaps <= s8_direct_max_tab_taps) {
        // The column pointers of every tap first, then ic blocks outside
        // and taps inside, so that the weights of an oc block are read in
        // order (tap, then ic block), one stream the prefetcher follows.
        const uint8_t *tab[s8_direct_max_tab_taps][URW];
        const int8_t *wtap[s8_direct_max_tab_taps];
        dim_t n = 0;
        for (dim_t kd = 0; kd < t.nkd; ++kd)
            for (dim_t kh = 0; kh < t.nkh; ++kh)
                for (dim_t kw = 0; kw < c.KW; ++kw, ++n) {
                    const uint8_t *s = t.src + kd * c.tap_d + kh * c.tap_h + kw * c.tap_w;
                    column_pointers<URW>(c, t, s, kh, kw, tab[n]);
                    wtap[n] = t.wei + kd * c.w_kd + kh * c.w_kh + kw * c.w_kw;
                }
        for (dim_t icb = 0; icb < c.nicb; ++icb)
            for (dim_t k = 0; k < ntaps; ++k)
                ic_block<NOC, URW, CHECK, SHIFT>(acc, c, nullptr, tab[k], icb * 16, wtap[k] + icb * c.w_icb, icb, flip);
    } else if (CHECK) {
        // Taps outside, ic blocks inside: the column pointers are set once
        // per tap (padded columns at the pad bytes, which cover every ic
        // block).
        for (dim_t kd = 0; kd < t.nkd; ++kd)
            for (dim_t kh = 0; kh < t.nkh; ++kh)
                for (dim_t kw = 0; kw < c.KW; ++kw) {
                    const uint8_t *s = t.src + kd * c.tap_d + kh * c.tap_h + kw * c.tap_w;
                    column_pointers<URW>(c, t, s, kh, kw, cols);
                    const int8_t *w = t.wei + kd * c.w_kd + kh * c.w_kh + kw * c.w_kw;
                    for (dim_t icb = 0; icb < c.nicb; ++icb)
                        ic_block<NOC, URW, CHECK, SHIFT>(acc, c, s, cols, icb * 16, w + icb * c.w_icb, icb, flip);
                }
    } else if (c.flat) {
        // A 1x1 unit: one tap, the full ic blocks in one loop of two
        // pointer steps, then the last block's quads.
        const dim_t nfull = c.ic_tail == 16 ? c.nicb : c.nicb - 1;
        const uint8_t *s = t.src;
        const int8_t *w = t.wei;
        for (dim_t icb = 0; icb < nfull; ++icb, s += 16, w += c.w_icb) {
            KESTREL_UNROLL(4)
            for (dim_t q = 0; q < 4; ++q)
                quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, 0, c.s_col, w, c.w_ocb, q * 4, 0, flip);
        }
        if (nfull < c.nicb) {
            const dim_t nq = c.ic_tail / 4;
            const int rem = (int)(c.ic_tail % 4);
            for (dim_t q = 0; q < nq; ++q)
                quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, 0, c.s_col, w, c.w_ocb, q * 4, 0, flip);
            if (rem) quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, 0, c.s_col, w, c.w_ocb, nq * 4, rem, flip);
        }
    } else {
        // (The block's quad count hoisted out of the tap loops: measured
        // faster than ic_block here on the 1x1 layers.)
        const skip_columns_t<URW> sk(t.iw0, c.DW1, c.SW, c.IW, SKIP ? c.KW : 0);
        for (dim_t icb = 0; icb < c.nicb; ++icb) {
            const bool lastb = icb + 1 == c.nicb;
            const dim_t nq = lastb ? c.ic_tail / 4 : 4;
            const int rem = lastb ? (int)(c.ic_tail % 4) : 0;
            auto quads = [&](const uint8_t *s, const int8_t *w, uint32_t live) __attribute__((always_inline)) {
                if (nq == 4) {
                    KESTREL_UNROLL(4)
                    for (dim_t q = 0; q < 4; ++q)
                        quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, 0, c.s_col, w, c.w_ocb, q * 4, 0, flip, live);
                } else {
                    for (dim_t q = 0; q < nq; ++q)
                        quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, 0, c.s_col, w, c.w_ocb, q * 4, 0, flip, live);
                }
                if (rem) quad<NOC, URW, CHECK, SHIFT>(acc, s, cols, 0, c.s_col, w, c.w_ocb, nq * 4, rem, flip, live);
            };
            for (dim_t kd = 0; kd < t.nkd; ++kd)
                for (dim_t kh = 0; kh < t.nkh; ++kh) {
                    const uint8_t *srow = t.src + icb * 16 + kd * c.tap_d + kh * c.tap_h;
                    const int8_t *wrow = t.wei + icb * c.w_icb + kd * c.w_kd + kh * c.w_kh;
                    for (dim_t kw = 0; kw < c.KW; ++kw) {
                        const uint8_t *s = srow + kw * c.tap_w;
                        const int8_t *w = wrow + kw * c.w_kw;
                        if (SKIP)
                            with_live_columns<URW>(sk.at(kw), [&](uint32_t live) __attribute__((always_inline)) {
                                quads(s, w, live);
                            });
                        else
                            quads(s, w, ~0u);
                    }
                }
        }
    }
    if (t.fo) {
        store_out<NOC, URW>(acc, *t.fo);
        return;
    }
    KESTREL_UNROLL(8)
    for (int k = 0; k < NOC; ++k)
        KESTREL_UNROLL(32)
        for (int j = 0; j < URW; ++j) _mm512_storeu_si512(t.out + k * t.out_k + j * 16, acc[k][j]);
}

template <int NOC, int U>
void fill_noc(s8_direct_kernels_t &k) {
    if constexpr (U > 0) {
        k.fn[NOC][U][0][0] = tile<NOC, U, false, false>;
        k.fn[NOC][U][1][0] = tile<NOC, U, true, false>;
        k.fn[NOC][U][0][1] = tile<NOC, U, false, true>;
        k.fn[NOC][U][1][1] = tile<NOC, U, true, true>;
        k.skip[NOC][U] = tile<NOC, U, false, false, true>;
        fill_noc<NOC, U - 1>(k);
    }
}

} // namespace

void s8_direct_avx512_vnni_kernels(s8_direct_kernels_t &k) {
    fill_noc<1, 16>(k);
    fill_noc<2, 12>(k);
    fill_noc<3, 8>(k);
    fill_noc<4, s8_direct_wide4_urw>(k);
}

} // namespace kestrel

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace kestrel {

int s8_direct_max_urw(int noc) {
    static const int m[] = {0, 16, 12, 8, 6};
    return noc >= 1 && noc <= 4 ? m[noc] : 0;
}

} // namespace kestrel
