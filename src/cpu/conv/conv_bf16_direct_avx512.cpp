// Direct bf16 convolution register tiles, AVX512-BF16 (contract in
// conv_bf16_direct.hpp): up to 4 oc blocks x 16 columns, NOC * URW
// accumulators + NOC weight vectors + the broadcast within the 32 zmm
// registers.
//
// vdpbf16ps treats denormal bf16 inputs as zero and flushes denormal
// results (DAZ/FTZ regardless of MXCSR, round to nearest even); the tests
// keep their data and sums clear of denormals.
#include "cpu/conv/conv_bf16_direct.hpp"
#include "cpu/conv/direct_conv.hpp"

#include <cstring>

#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 10)
#include <immintrin.h>
#define KESTREL_HAVE_BF16_CONV 1
#endif

#ifdef KESTREL_HAVE_BF16_CONV

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16"))), \
        apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")
#endif

// Inside the target region: its helpers inline the tiles' code.
#include "cpu/conv/skip_columns.hpp"

namespace kestrel {
namespace {

// One pair of input channels (element offset p2 in the block) at one tap:
// the pair's two values of every column against NOC weight vectors.
// SINGLE: only the first channel of the pair exists (zero partner).
// Columns whose bit is clear in `live` are skipped (their src is padding).
template <int NOC, int URW, bool CHECK, bool SINGLE>
KESTREL_TILE_STEP void pair(__m512 (&acc)[NOC][URW], const uint16_t *s,
        const uint16_t *const *cols, dim_t s_col, const uint16_t *w, dim_t w_ocb, dim_t p2, uint32_t live = ~0u) {
    __m512bh wv[NOC];
    KESTREL_UNROLL(8)
    for (int k = 0; k < NOC; ++k) wv[k] = (__m512bh)_mm512_loadu_si512(w + k * w_ocb + p2 * 16);
    KESTREL_UNROLL(32)
    for (int j = 0; j < URW; ++j) {
        if (!(live >> j & 1)) continue;
        const uint16_t *p = (CHECK ? cols[j] : s + j * s_col) + p2;
        __m512i b;
        if (SINGLE) {
            // The value in the low half of every dword, zeros above: one
            // masked broadcast from memory, 2 bytes read.
            b = _mm512_maskz_broadcastw_epi16((__mmask32)0x55555555u, _mm_loadu_si16(p));
        } else {
            int32_t v;
            std::memcpy(&v, p, 4);
            b = _mm512_set1_epi32(v);
        }
        KESTREL_UNROLL(8)
        for (int k = 0; k < NOC; ++k) acc[k][j] = _mm512_dpbf16_ps(acc[k][j], (__m512bh)b, wv[k]);
    }
}

// f32 to bf16 as f32_to_bf16: NaN quieted (bit 6 of the half set), else
// round to nearest even on the bits (denormals rounded, not flushed).
__attribute__((always_inline)) inline __m256i to_bf16(__m512 v) {
    const __m512i x = _mm512_castps_si512(v);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7fff)), lsb), 16);
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x40));
    return _mm512_cvtepi32_epi16(r);
}

template <int NOC, int URW>
KESTREL_TILE_STEP void store_out(__m512 (&acc)[NOC][URW], const bf16_direct_out_t &o) {
    const __m512 a = _mm512_set1_ps(o.act_a), b = _mm512_set1_ps(o.act_b);
    KESTREL_UNROLL(8)
    for (int k = 0; k < NOC; ++k) {
        const dim_t left = o.nn - k * 16;
        if (left <= 0) break;
        const __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
        const __m512 bv = o.bias ? _mm512_maskz_loadu_ps(m, o.bias + k * 16) : _mm512_setzero_ps();
        KESTREL_UNROLL(32)
        for (int j = 0; j < URW; ++j) {
            __m512 v = acc[k][j];
            if (o.bias) v = _mm512_add_ps(v, bv);
            // relu: v > 0 ? v : a v; linear: a v + b; clip: min(max(v, a), b).
            if (o.act == direct_act_relu)
                v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ), _mm512_mul_ps(a, v), v);
            else if (o.act == direct_act_linear)
                v = _mm512_fmadd_ps(a, v, b);
            else if (o.act == direct_act_clip)
                v = _mm512_min_ps(_mm512_max_ps(v, a), b);
            char *d = o.dst + j * o.d_w;
            if (o.dst_bf16)
                _mm256_mask_storeu_epi16((uint16_t *)d + k * 16, m, to_bf16(v));
            else
                _mm512_mask_storeu_ps((float *)d + k * 16, m, v);
        }
    }
}

template <int NOC, int URW>
KESTREL_TILE_STEP void zero(__m512 (&acc)[NOC][URW]) {
    KESTREL_UNROLL(8)
    for (int k = 0; k < NOC; ++k)
        KESTREL_UNROLL(32)
        for (int j = 0; j < URW; ++j) acc[k][j] = _mm512_setzero_ps();
}

// The sums to dst through the output stage, or to the tile buffer.
template <int NOC, int URW>
KESTREL_TILE_STEP void finish(__m512 (&acc)[NOC][URW], const bf16_direct_args_t &t) {
    if (t.fo) {
        store_out<NOC, URW>(acc, *t.fo);
        return;
    }
    KESTREL_UNROLL(8)
    for (int k = 0; k < NOC; ++k)
        KESTREL_UNROLL(32)
        for (int j = 0; j < URW; ++j) _mm512_storeu_ps(t.out + k * t.out_k + j * 16, acc[k][j]);
}

// CHECK: a gathered tile (columns spanning output rows, each column's src
// pointer per tap, padded taps at the zero block). SKIP: a row tile that
// reaches into the padding along w, addressed like an unchecked one, each
// kw tap summed over the columns inside src only (padding adds nothing).
template <int NOC, int URW, bool CHECK, bool SKIP = false>
void tile(const bf16_direct_conf_t &c, const bf16_direct_args_t &t) {
    __m512 acc[NOC][URW];
    zero<NOC, URW>(acc);
    const uint16_t *cols[URW];
    const skip_columns_t<URW> sk(t.iw0, c.DW1, c.SW, c.IW, SKIP ? c.KW : 0);
    for (dim_t icb = 0; icb < c.nicb; ++icb) {
        const bool lastb = icb + 1 == c.nicb;
        const dim_t np = lastb ? c.ic_tail / 2 : 8;
        const bool single = lastb && (c.ic_tail & 1);
        auto pairs = [&](const uint16_t *s, const uint16_t *w, uint32_t live) __attribute__((always_inline)) {
            if (np == 8) {
                KESTREL_UNROLL(8)
                for (dim_t q = 0; q < 8; ++q)
                    pair<NOC, URW, CHECK, false>(acc, s, cols, c.s_col, w, c.w_ocb, q * 2, live);
            } else {
                for (dim_t q = 0; q < np; ++q)
                    pair<NOC, URW, CHECK, false>(acc, s, cols, c.s_col, w, c.w_ocb, q * 2, live);
            }
            if (single) pair<NOC, URW, CHECK, true>(acc, s, cols, c.s_col, w, c.w_ocb, np * 2, live);
        };
        for (dim_t kd = 0; kd < t.nkd; ++kd)
            for (dim_t kh = 0; kh < t.nkh; ++kh) {
                const uint16_t *srow = t.src + icb * 16 + kd * c.tap_d + kh * c.tap_h;
                const uint16_t *wrow = t.wei + icb * c.w_icb + kd * c.w_kd + kh * c.w_kh;
                for (dim_t kw = 0; kw < c.KW; ++kw) {
                    const uint16_t *s = srow + kw * c.tap_w;
                    const uint16_t *w = wrow + kw * c.w_kw;
                    if (CHECK) {
                        // Each column's own h and w at this tap.
                        const uint16_t *sb = t.src + icb * 16 + kd * c.tap_d;
                        KESTREL_UNROLL(32)
                        for (int j = 0; j < URW; ++j) {
                            const dim_t ih = t.col_ih[j] + kh * c.DH1, iw = t.col_iw[j] + kw * c.DW1;
                            const bool in = ih >= 0 && ih < c.IH && iw >= 0 && iw < c.IW;
                            cols[j] = in ? sb + ih * c.s_h + iw * c.s_w : t.zero;
                        }
                    }
                    if (SKIP)
                        with_live_columns<URW>(sk.at(kw), [&](uint32_t live) __attribute__((always_inline)) {
                            pairs(s, w, live);
                        });
                    else
                        pairs(s, w, ~0u);
                }
            }
    }
    finish<NOC, URW>(acc, t);
}

// A 1x1 unit (flattened rows, never checked): one tap, the full ic blocks
// in one loop of two pointer steps, then the last block's pairs. (A
// function of its own: inside `tile` the column offsets were spilled, one
// extra load per broadcast.)
template <int NOC, int URW>
void tile_flat(const bf16_direct_conf_t &c, const bf16_direct_args_t &t) {
    __m512 acc[NOC][URW];
    zero<NOC, URW>(acc);
    const uint16_t *const *cols = nullptr;
    const dim_t nfull = c.ic_tail == 16 ? c.nicb : c.nicb - 1;
    const uint16_t *s = t.src;
    const uint16_t *w = t.wei;
    // The pairs of a block are 32 values apart in the weights, the blocks
    // w_icb apart: both pointers step per pair.
    for (dim_t icb = 0; icb < nfull; ++icb, w += c.w_icb - 8 * 32) {
        KESTREL_UNROLL(4)
        for (dim_t q = 0; q < 8; ++q, s += 2, w += 32) pair<NOC, URW, false, false>(acc, s, cols, c.s_col, w, c.w_ocb, 0);
    }
    if (nfull < c.nicb) {
        const dim_t np = c.ic_tail / 2;
        for (dim_t q = 0; q < np; ++q) pair<NOC, URW, false, false>(acc, s, cols, c.s_col, w, c.w_ocb, q * 2);
        if (c.ic_tail & 1) pair<NOC, URW, false, true>(acc, s, cols, c.s_col, w, c.w_ocb, np * 2);
    }
    finish<NOC, URW>(acc, t);
}

// Folded kernel rows (unchecked tiles only): per valid (kd, kh), the pairs
// of the row's KW * IC contiguous src values against the folded weights
// (t.wei points at them, oc block 0 of the item, first valid kd/kh).
template <int NOC, int URW>
void tile_fold(const bf16_direct_conf_t &c, const bf16_direct_args_t &t) {
    __m512 acc[NOC][URW];
    zero<NOC, URW>(acc);
    const uint16_t *const *cols = nullptr;
    const dim_t nfull = c.fold_np - (c.fold_single ? 1 : 0);
    for (dim_t kd = 0; kd < t.nkd; ++kd)
        for (dim_t kh = 0; kh < t.nkh; ++kh) {
            const uint16_t *s = t.src + kd * c.tap_d + kh * c.tap_h;
            const uint16_t *w = t.wei + kd * c.fw_kd + kh * c.fw_kh;
            for (dim_t q = 0; q < nfull; ++q) pair<NOC, URW, false, false>(acc, s, cols, c.s_col, w, c.fw_ocb, q * 2);
            if (c.fold_single) pair<NOC, URW, false, true>(acc, s, cols, c.s_col, w, c.fw_ocb, nfull * 2);
        }
    finish<NOC, URW>(acc, t);
}

template <int NOC, int U>
void fill_noc(bf16_direct_kernels_t &k) {
    if constexpr (U > 0) {
        k.fn[NOC][U][0] = tile<NOC, U, false>;
        k.fn[NOC][U][1] = tile<NOC, U, true>;
        k.skip[NOC][U] = tile<NOC, U, false, true>;
        k.fold[NOC][U] = tile_fold<NOC, U>;
        k.flat[NOC][U] = tile_flat<NOC, U>;
        fill_noc<NOC, U - 1>(k);
    }
}

} // namespace
} // namespace kestrel

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace kestrel {

bool bf16_direct_avx512_kernels(bf16_direct_kernels_t &k) {
    fill_noc<1, 16>(k);
    fill_noc<2, 12>(k);
    fill_noc<3, 8>(k);
    fill_noc<4, bf16_direct_wide4_urw>(k);
    return true;
}

#else

namespace kestrel {

bool bf16_direct_avx512_kernels(bf16_direct_kernels_t &) { return false; }

#endif

int bf16_direct_max_urw(int noc) {
    static const int m[] = {0, 16, 12, 8, 6};
    return noc >= 1 && noc <= 4 ? m[noc] : 0;
}

} // namespace kestrel
