// Packing and the 12x32 vdpbf16ps microkernel behind bf16_dot_tile.
//
// K is taken in chunks of at most KC; per chunk, B is packed once for the
// whole tile (it stays in L2) and A one 12-row micro-panel at a time (it
// stays in L1 while the kernel sweeps the B panels).
// Packed layouts (k in pairs, kp = ceil(kc / 2); one 32-bit word holds the
// bf16 values of k = 2g (low half) and 2g + 1 (high half)):
//   A micro-panel of MR rows: pa[i * A_LD + g] = op(A)(i, 2g | 2g + 1)
//     (row i is a plain copy of the row of op(A): no interleaving; the
//     fixed row stride A_LD lets the kernel address all rows off one
//     pointer)
//   B micro-panel of NR cols: pb[g * NR + j]   = op(B)(2g | 2g + 1, j)
// Rows, columns and the odd k past the block are zeros in both.
// Compressed weights (bf16_dot_tile_dq) fill the same B panels from s8/u8/
// s4/u4 values and their scale / zero point tables (pack_b_dq).
#include "cpu/gemm/gemm_bf16.hpp"

#include <cfloat>
#include <cmath>
#include <cstring>

#include "cpu/gemm/gemm_cvt.hpp"
#include "cpu/isa.hpp"
#include "cpu/simd.hpp"
#include "cpu/types.hpp"

#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 10)
#define KESTREL_HAVE_BF16_DOT 1
#endif

namespace kestrel {
namespace gemm {

namespace {

constexpr dim_t MR = 12, NR = 32;
// K chunk: a 12-row A micro-panel (12 x 512 bf16, 12 KB) in L1 beside the
// B stream; a B block of 512 x 512 (512 KB) in a 1 MB L2. The row stride
// of the A micro-panel is padded by 64 bytes so its rows do not share L1
// sets.
constexpr dim_t KC = 512, A_LD = KC / 2 + 16;

// The value op(X)(r, c) of a block, r and c relative to its origin.
inline uint16_t at(const bf16_block_t &x, dim_t r, dim_t c) {
    return x.trans ? x.p[c * x.ld + r] : x.p[r * x.ld + c];
}

// B panel of `w` <= NR valid columns starting at column c0 (generic:
// tails and transposed B): pairs (2g, 2g + 1) of each column.
// g_done: pairs [0, g_done) of a transposed B panel already written.
void pack_b_panel(const bf16_block_t &b, dim_t c0, dim_t w, dim_t kb, uint32_t *dst, dim_t g_done = 0) {
    const dim_t kp = (kb + 1) / 2;
    if (b.trans) { // column j of op(B) is contiguous along k: one 32-bit load per pair
        const dim_t kfull = kb / 2;
        for (dim_t j = 0; j < NR; ++j) {
            if (j >= w) {
                for (dim_t g = g_done; g < kp; ++g) dst[g * NR + j] = 0;
                continue;
            }
            const uint16_t *s = b.p + (c0 + j) * b.ld;
            for (dim_t g = g_done; g < kfull; ++g) std::memcpy(&dst[g * NR + j], s + 2 * g, 4);
            if (kp > kfull) dst[kfull * NR + j] = s[2 * kfull];
        }
        return;
    }
    for (dim_t g = 0; g < kp; ++g) {
        uint32_t *d = dst + g * NR;
        dim_t j = 0;
        for (; j < w; ++j) {
            const uint16_t lo = at(b, 2 * g, c0 + j);
            const uint16_t hi = 2 * g + 1 < kb ? at(b, 2 * g + 1, c0 + j) : 0;
            d[j] = (uint32_t)lo | (uint32_t)hi << 16;
        }
        for (; j < NR; ++j) d[j] = 0;
    }
}

// A micro-panel: rows [r0, r0 + h) of op(A), k in [0, kb), as MR rows of
// A_LD words (rows past h and the odd k zero).
void pack_a_panel(const bf16_block_t &a, dim_t r0, dim_t h, dim_t kb, uint32_t *dst) {
    const dim_t kp = (kb + 1) / 2;
    for (dim_t i = 0; i < MR; ++i) {
        uint16_t *d = reinterpret_cast<uint16_t *>(dst + i * A_LD);
        if (i >= h) {
            std::memset(d, 0, (size_t)kp * 4);
            continue;
        }
        if (!a.trans) {
            std::memcpy(d, a.p + (r0 + i) * a.ld, (size_t)kb * 2);
        } else {
            const uint16_t *s = a.p + r0 + i;
            for (dim_t k = 0; k < kb; ++k) d[k] = s[k * a.ld];
        }
        if (kb % 2) d[kb] = 0;
    }
}

// ---------------------------------------------------------------- weights
// decompression: op(B) element (k, n), k and n counted from op(B)'s origin,
// as (w - zp) * scale in f32 rounded once to bf16 (to nearest even, a
// subnormal flushed to a zero of its sign, as vcvtne2ps2bf16 does).
inline uint16_t dq_to_bf16(float x) {
    if (std::fabs(x) < FLT_MIN) x = std::signbit(x) ? -0.f : 0.f;
    return f32_to_bf16(x);
}

float dq_scale(const dequant_t &q, dim_t k, dim_t n) {
    return q.sc ? load_f32(q.sc_dt, q.sc, q.sc_off + k / q.sc_group * q.sc_ldk + n * q.sc_ldn) : 1.f;
}
float dq_zero(const dequant_t &q, dim_t k, dim_t n) {
    return q.zp ? load_f32(q.zp_dt, q.zp, q.zp_off + k / q.zp_group * q.zp_ldk + n * q.zp_ldn) : 0.f;
}

// Rows [k0, k0 + kc) x columns [n0, n0 + nb) of op(B) into B micro-panels,
// element by element (any layout; the transposed weights take this path).
void pack_b_dq_generic(const operand_t &B, dim_t k0, dim_t kc, dim_t n0, dim_t nb, uint32_t *dst) {
    const dequant_t &q = *B.dq;
    const dim_t kp = (kc + 1) / 2;
    auto val = [&](dim_t k, dim_t n) -> uint32_t {
        const dim_t e = B.trans ? n * B.ld + k : k * B.ld + n;
        const float w = load_f32(B.dt, B.p, B.nib0 + e);
        return dq_to_bf16((w - dq_zero(q, k, n)) * dq_scale(q, k, n));
    };
    for (dim_t j0 = 0; j0 < nb; j0 += NR) {
        uint32_t *d = dst + (j0 / NR) * kp * NR;
        for (dim_t g = 0; g < kp; ++g)
            for (dim_t j = 0; j < NR; ++j) {
                const dim_t n = n0 + j0 + j, k = k0 + 2 * g;
                if (j0 + j >= nb) {
                    d[g * NR + j] = 0;
                    continue;
                }
                const uint32_t lo = val(k, n), hi = 2 * g + 1 < kc ? val(k + 1, n) : 0;
                d[g * NR + j] = lo | hi << 16;
            }
    }
}

#ifdef KESTREL_HAVE_BF16_DOT
#define KESTREL_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")))

// Full B panels with k along rows in memory (B not transposed): columns
// [0, np * NR), rows 2g and 2g + 1 interleaved by word. Row pair by row
// pair across all the panels, so B is read along its rows (whole cache
// lines, in the order the hardware prefetchers follow) rather than down
// 64-byte columns one page apart.
KESTREL_BF16 void pack_b_rows(const bf16_block_t &b, dim_t np, dim_t kb, uint32_t *dst) {
    // Output word j of the low half pairs r0[j] with r1[j] (index bit 5
    // picks r1); the high half does the same for j + 16.
    alignas(64) static const uint16_t idx[64] = {0, 32, 1, 33, 2, 34, 3, 35, 4, 36, 5, 37, 6, 38, 7, 39,
            8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47, 16, 48, 17, 49, 18, 50, 19,
            51, 20, 52, 21, 53, 22, 54, 23, 55, 24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62,
            31, 63};
    const __m512i lo_idx = _mm512_load_si512(idx), hi_idx = _mm512_load_si512(idx + 32);
    const dim_t kp = (kb + 1) / 2, panel = kp * NR;
    const __m512i z = _mm512_setzero_si512();
    // Rows whose lines are asked for ahead of their use: B's rows are
    // often a multiple of 4 KB apart, which the hardware prefetchers do not
    // follow across pages.
    constexpr dim_t ahead = 8;
    for (dim_t g = 0; g < kp; ++g) {
        const uint16_t *s0 = b.p + 2 * g * b.ld;
        const uint16_t *s1 = 2 * g + 1 < kb ? s0 + b.ld : nullptr;
        uint32_t *d = dst + g * NR;
        if (2 * (g + ahead) + 1 < kb) {
            const uint16_t *f0 = b.p + 2 * (g + ahead) * b.ld;
            for (dim_t j = 0; j < np; ++j) {
                _mm_prefetch(reinterpret_cast<const char *>(f0 + j * NR), _MM_HINT_T0);
                _mm_prefetch(reinterpret_cast<const char *>(f0 + b.ld + j * NR), _MM_HINT_T0);
            }
        }
        for (dim_t j = 0; j < np; ++j) {
            const __m512i r0 = _mm512_loadu_si512(s0 + j * NR);
            const __m512i r1 = s1 ? _mm512_loadu_si512(s1 + j * NR) : z;
            _mm512_store_si512(d + j * panel, _mm512_permutex2var_epi16(r0, lo_idx, r1));
            _mm512_store_si512(d + j * panel + 16, _mm512_permutex2var_epi16(r0, hi_idx, r1));
        }
    }
}

// Full panels of a transposed B (column j of op(B) contiguous along k):
// pairs [0, kp16) (a multiple of 16) of columns [c0, c0 + NR), by 16 x 16
// transposes of 32-bit words (16 columns x 16 pairs in, 16 pairs x 16
// columns out). Returns kp16.
KESTREL_BF16 dim_t pack_b_trans16(const bf16_block_t &b, dim_t c0, dim_t kb, uint32_t *dst) {
    const dim_t kp16 = kb / 2 / 16 * 16;
    for (dim_t g0 = 0; g0 < kp16; g0 += 16)
        for (dim_t h = 0; h < NR; h += 16) {
            __m512i r[16], t[16];
            for (int j = 0; j < 16; ++j) r[j] = _mm512_loadu_si512(b.p + (c0 + h + j) * b.ld + 2 * g0);
            // Words of columns 2q, 2q + 1 interleaved, then pairs of them
            // from columns 4q..4q+3: lane l of t[4q + m] holds pair 4l + m
            // of those four columns.
            for (int q = 0; q < 8; ++q) {
                t[2 * q] = _mm512_unpacklo_epi32(r[2 * q], r[2 * q + 1]);
                t[2 * q + 1] = _mm512_unpackhi_epi32(r[2 * q], r[2 * q + 1]);
            }
            for (int q = 0; q < 4; ++q) {
                r[4 * q + 0] = _mm512_unpacklo_epi64(t[4 * q], t[4 * q + 2]);
                r[4 * q + 1] = _mm512_unpackhi_epi64(t[4 * q], t[4 * q + 2]);
                r[4 * q + 2] = _mm512_unpacklo_epi64(t[4 * q + 1], t[4 * q + 3]);
                r[4 * q + 3] = _mm512_unpackhi_epi64(t[4 * q + 1], t[4 * q + 3]);
            }
            // Gather lane l of the four column groups: pair 4l + m of all 16.
            uint32_t *d = dst + g0 * NR + h;
            for (int m = 0; m < 4; ++m) {
                const __m512i p0 = _mm512_shuffle_i32x4(r[m], r[4 + m], 0x44);
                const __m512i p1 = _mm512_shuffle_i32x4(r[m], r[4 + m], 0xee);
                const __m512i p2 = _mm512_shuffle_i32x4(r[8 + m], r[12 + m], 0x44);
                const __m512i p3 = _mm512_shuffle_i32x4(r[8 + m], r[12 + m], 0xee);
                _mm512_store_si512(d + (0 + m) * NR, _mm512_shuffle_i32x4(p0, p2, 0x88));
                _mm512_store_si512(d + (4 + m) * NR, _mm512_shuffle_i32x4(p0, p2, 0xdd));
                _mm512_store_si512(d + (8 + m) * NR, _mm512_shuffle_i32x4(p1, p3, 0x88));
                _mm512_store_si512(d + (12 + m) * NR, _mm512_shuffle_i32x4(p1, p3, 0xdd));
            }
        }
    return kp16;
}

// n <= 16 bytes at q (zeros past them).
KESTREL_BF16 KESTREL_TILE_STEP __m128i dq_bytes(const uint8_t *q, dim_t n) {
    return n >= 16 ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(q))
                   : _mm_maskz_loadu_epi8((__mmask16)((1u << n) - 1u), q);
}

// Weights of one row of a row-major op(B), columns [c, c + w) (w <= NR)
// from element e (s4/u4: nibble e counted from the byte at p, first in the
// low nibble) as two f32 vectors; lanes past w hold garbage or zeros.
template <data_type_t wdt>
KESTREL_BF16 KESTREL_TILE_STEP void dq_load(const void *p, dim_t e, dim_t w, __m512 &v0, __m512 &v1) {
    const uint8_t *b8 = static_cast<const uint8_t *>(p);
    if (wdt == dnnl_s8 || wdt == dnnl_u8) {
        const uint8_t *b = b8 + e;
        const __m256i raw = w >= NR ? _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b))
                                    : _mm256_maskz_loadu_epi8((__mmask32)((1u << w) - 1u), b);
        const __m128i r0 = _mm256_castsi256_si128(raw), r1 = _mm256_extracti128_si256(raw, 1);
        v0 = _mm512_cvtepi32_ps(wdt == dnnl_s8 ? _mm512_cvtepi8_epi32(r0) : _mm512_cvtepu8_epi32(r0));
        v1 = _mm512_cvtepi32_ps(wdt == dnnl_s8 ? _mm512_cvtepi8_epi32(r1) : _mm512_cvtepu8_epi32(r1));
        return;
    }
    // 16 bytes whose low nibbles are elements e, e + 2, ... and high ones
    // e + 1, e + 3, ...; an odd e takes the high nibble of each byte and the
    // low one of the next.
    const uint8_t *b = b8 + (e >> 1);
    const __m128i low4 = _mm_set1_epi8(0x0f);
    __m128i x;
    if (!(e & 1)) {
        x = dq_bytes(b, (w + 1) / 2);
    } else {
        const __m128i r0 = dq_bytes(b, (w + 1) / 2), r1 = dq_bytes(b + 1, w / 2);
        x = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(r0, 4), low4),
                _mm_andnot_si128(low4, _mm_slli_epi16(r1, 4)));
    }
    const __m128i lo = _mm_and_si128(x, low4), hi = _mm_and_si128(_mm_srli_epi16(x, 4), low4);
    __m128i h0 = _mm_unpacklo_epi8(lo, hi), h1 = _mm_unpackhi_epi8(lo, hi);
    if (wdt == dnnl_s4) {
        const __m128i eight = _mm_set1_epi8(8);
        h0 = _mm_sub_epi8(_mm_xor_si128(h0, eight), eight);
        h1 = _mm_sub_epi8(_mm_xor_si128(h1, eight), eight);
    }
    v0 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(h0));
    v1 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(h1));
}

// Columns decompressed per pass; their scale and zero point rows are
// gathered into f32 once per k group (zeros past the last column up to a
// multiple of NR).
constexpr dim_t DQ_BW = 512;
struct dq_rows_t {
    alignas(64) float s[DQ_BW];
    alignas(64) float z[DQ_BW];
    dim_t gs = -1, gz = -1;
};

// One table row: bw values from element off, ldn apart (a missing table:
// dflt); f32 runs copied, a value shared by the row broadcast.
void dq_table_row(const void *tab, data_type_t dt, dim_t off, dim_t ldn, float dflt, dim_t bw, float *dst) {
    if (!tab || ldn == 0) {
        const float v = tab ? load_f32(dt, tab, off) : dflt;
        for (dim_t c = 0; c < bw; ++c) dst[c] = v;
    } else if (dt == dnnl_f32 && ldn == 1) {
        std::memcpy(dst, static_cast<const float *>(tab) + off, (size_t)bw * sizeof(float));
    } else {
        for (dim_t c = 0; c < bw; ++c) dst[c] = load_f32(dt, tab, off + c * ldn);
    }
}

void dq_fetch(const dequant_t &q, dim_t k, dim_t n0, dim_t bw, dq_rows_t &t) {
    const dim_t pad = (bw + NR - 1) / NR * NR;
    const dim_t gs = q.sc ? k / q.sc_group : 0, gz = q.zp ? k / q.zp_group : 0;
    if (gs != t.gs) {
        t.gs = gs;
        dq_table_row(q.sc, q.sc_dt, q.sc_off + gs * q.sc_ldk + n0 * q.sc_ldn, q.sc_ldn, 1.f, bw, t.s);
        for (dim_t c = bw; c < pad; ++c) t.s[c] = 0.f;
    }
    if (gz != t.gz) {
        t.gz = gz;
        dq_table_row(q.zp, q.zp_dt, q.zp_off + gz * q.zp_ldk + n0 * q.zp_ldn, q.zp_ldn, 0.f, bw, t.z);
        for (dim_t c = bw; c < pad; ++c) t.z[c] = 0.f;
    }
}

// Row-major op(B) (k along rows of B.ld elements): rows [k0, k0 + kc) x
// columns [n0, n0 + nb) into B micro-panels. Row pair by row pair, each
// row read as a contiguous run; 32 columns of both rows dequantised in
// f32, rounded to bf16 by vcvtne2ps2bf16 (row 2g in the low 16 words, row
// 2g + 1 in the high ones) and interleaved into pairs by one word permute.
template <data_type_t wdt>
KESTREL_BF16 void pack_b_dq(const operand_t &B, dim_t k0, dim_t kc, dim_t n0, dim_t nb, uint32_t *dst) {
    constexpr bool nib = wdt == dnnl_s4 || wdt == dnnl_u4;
    alignas(64) static const uint16_t idx[32] = {0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23, 8, 24,
            9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
    const __m512i inter = _mm512_load_si512(idx);
    const dequant_t &q = *B.dq;
    const dim_t kp = (kc + 1) / 2;
    const char *base = static_cast<const char *>(B.p);
    // Rows asked for ahead of their use (often 4 KB apart: the hardware
    // prefetchers do not follow them across pages).
    constexpr dim_t ahead = 16;
    dq_rows_t ra, rb;
    for (dim_t cb = 0; cb < nb; cb += DQ_BW) {
        const dim_t bw = nb - cb < DQ_BW ? nb - cb : DQ_BW;
        ra.gs = ra.gz = rb.gs = rb.gz = -1;
        for (dim_t g = 0; g < kp; ++g) {
            const dim_t ka = k0 + 2 * g;
            const bool two = 2 * g + 1 < kc;
            dq_fetch(q, ka, n0 + cb, bw, ra);
            // Row ka + 1 shares ra's tables unless a group starts there.
            const dq_rows_t *tb = &ra;
            if (two
                    && ((q.sc && (ka + 1) / q.sc_group != ra.gs) || (q.zp && (ka + 1) / q.zp_group != ra.gz))) {
                dq_fetch(q, ka + 1, n0 + cb, bw, rb);
                tb = &rb;
            }
            const dim_t ea = B.nib0 + ka * B.ld + n0 + cb, eb = ea + B.ld;
            const bool pf = 2 * g + ahead + 1 < kc;
            for (dim_t c = 0; c < bw; c += NR) {
                const dim_t w = bw - c < NR ? bw - c : NR;
                if (pf && (c % (nib ? 128 : 64)) == 0) {
                    const dim_t ef = ea + ahead * B.ld + c;
                    _mm_prefetch(base + (nib ? ef / 2 : ef), _MM_HINT_T0);
                    _mm_prefetch(base + (nib ? (ef + B.ld) / 2 : ef + B.ld), _MM_HINT_T0);
                }
                const __mmask16 m0 = w >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << w) - 1u);
                const __mmask16 m1 = w >= NR ? (__mmask16)0xffff
                        : w <= 16            ? (__mmask16)0
                                             : (__mmask16)((1u << (w - 16)) - 1u);
                __m512 a0, a1, b0 = _mm512_setzero_ps(), b1 = _mm512_setzero_ps();
                dq_load<wdt>(B.p, ea + c, w, a0, a1);
                a0 = _mm512_maskz_mul_ps(m0, _mm512_sub_ps(a0, _mm512_load_ps(ra.z + c)), _mm512_load_ps(ra.s + c));
                a1 = _mm512_maskz_mul_ps(
                        m1, _mm512_sub_ps(a1, _mm512_load_ps(ra.z + c + 16)), _mm512_load_ps(ra.s + c + 16));
                if (two) {
                    dq_load<wdt>(B.p, eb + c, w, b0, b1);
                    b0 = _mm512_maskz_mul_ps(
                            m0, _mm512_sub_ps(b0, _mm512_load_ps(tb->z + c)), _mm512_load_ps(tb->s + c));
                    b1 = _mm512_maskz_mul_ps(
                            m1, _mm512_sub_ps(b1, _mm512_load_ps(tb->z + c + 16)), _mm512_load_ps(tb->s + c + 16));
                }
                uint32_t *d = dst + ((cb + c) / NR) * kp * NR + g * NR;
                _mm512_store_si512(d, _mm512_permutexvar_epi16(inter, (__m512i)_mm512_cvtne2ps_pbh(b0, a0)));
                _mm512_store_si512(d + 16, _mm512_permutexvar_epi16(inter, (__m512i)_mm512_cvtne2ps_pbh(b1, a1)));
            }
        }
    }
}

// One k pair into the 12 x 32 accumulators.
KESTREL_BF16 KESTREL_TILE_STEP void step(const uint32_t *a, const uint32_t *b, __m512 (&c)[MR][2]) {
    const __m512bh b0 = (__m512bh)_mm512_load_si512(b);
    const __m512bh b1 = (__m512bh)_mm512_load_si512(b + 16);
    KESTREL_UNROLL(12)
    for (int i = 0; i < MR; ++i) {
        const __m512bh av = (__m512bh)_mm512_set1_epi32((int)a[i * A_LD]);
        c[i][0] = _mm512_dpbf16_ps(c[i][0], av, b0);
        c[i][1] = _mm512_dpbf16_ps(c[i][1], av, b1);
    }
}

// 16 floats to bf16 as the library's f32_to_bf16 rounds them (to nearest
// even on the bits, subnormals kept; NaNs keep their high half, quieted),
// not vcvtneps2bf16, which flushes subnormals.
KESTREL_BF16 KESTREL_TILE_STEP __m256i to_bf16(__m512 f) {
    const __m512i v = _mm512_castps_si512(f);
    const __mmask16 nan = _mm512_cmpgt_epi32_mask(
            _mm512_and_si512(v, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(v, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(v, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
    r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(_mm512_srli_epi32(v, 16), _mm512_set1_epi32(0x40)));
    return _mm512_cvtepi32_epi16(r);
}

// C rows [0, h) x columns [0, w) (w <= NR) = alpha * sum over g of the
// products of the pairs of a (MR rows of A_LD words) and b (kp groups of
// NR words) + beta * C, with beta == 0 not reading C (vdpbf16ps order).
// out: the results go there as bf16 instead (C only read).
KESTREL_BF16 void kernel(dim_t kp, const uint32_t *a, const uint32_t *b, float *C, dim_t ldc, float alpha,
        float beta, dim_t h, dim_t w, uint16_t *out, dim_t ldo) {
    __m512 c[MR][2];
    KESTREL_UNROLL(12)
    for (int i = 0; i < MR; ++i) c[i][0] = c[i][1] = _mm512_setzero_ps();
    // The C lines are needed once at the end: ask for them now.
    for (dim_t i = 0; i < h; ++i) {
        _mm_prefetch(reinterpret_cast<const char *>(C + i * ldc), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char *>(C + i * ldc + w - 1), _MM_HINT_T0);
    }
    for (dim_t g = 0; g < kp; ++g) step(a + g, b + g * NR, c);
    const __mmask16 m0 = w >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << w) - 1u);
    const __mmask16 m1 = w >= NR ? (__mmask16)0xffff : w <= 16 ? (__mmask16)0 : (__mmask16)((1u << (w - 16)) - 1u);
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    KESTREL_UNROLL(12)
    for (int i = 0; i < MR; ++i) {
        if (i >= h) break;
        float *ci = C + i * ldc;
        __m512 r0 = _mm512_mul_ps(va, c[i][0]), r1 = _mm512_mul_ps(va, c[i][1]);
        if (beta != 0.f) {
            r0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, ci), r0);
            r1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, ci + 16), r1);
        }
        if (out) {
            uint16_t *oi = out + i * ldo;
            _mm256_mask_storeu_epi16(oi, m0, to_bf16(r0));
            _mm256_mask_storeu_epi16(oi + 16, m1, to_bf16(r1));
            continue;
        }
        _mm512_mask_storeu_ps(ci, m0, r0);
        _mm512_mask_storeu_ps(ci + 16, m1, r1);
    }
}
#endif

} // namespace

bool bf16_dot_available() {
#ifdef KESTREL_HAVE_BF16_DOT
    return isa::has_avx512_bf16();
#else
    return false;
#endif
}

size_t bf16_pack_a_bytes(dim_t tm, dim_t tk) {
    (void)tm, (void)tk;
    return (size_t)(MR * A_LD * 4);
}

size_t bf16_pack_b_bytes(dim_t tk, dim_t tn) {
    const dim_t kc = tk < KC ? tk : KC;
    return (size_t)((tn + NR - 1) / NR * NR) * ((kc + 1) / 2) * 4;
}

namespace {

// The tile of bf16_dot_tile (B bf16: Bb) or of bf16_dot_tile_dq (B
// compressed: Bq, from k = 0).
void dot_tile(dim_t mb, dim_t nb, dim_t kb, float alpha, const bf16_block_t &A, dim_t m0, dim_t k0,
        const bf16_block_t *Bb, const operand_t *Bq, dim_t n0, float beta, float *C, dim_t ldc, uint32_t *pa,
        uint32_t *pb, uint16_t *out, dim_t ldo) {
#ifdef KESTREL_HAVE_BF16_DOT
    if (mb <= 0 || nb <= 0) return;
    if (kb <= 0) { // C = beta * C (0 * C = 0: C is not read)
        for (dim_t i = 0; i < mb; ++i)
            for (dim_t j = 0; j < nb; ++j) C[i * ldc + j] = beta == 0.f ? 0.f : beta * C[i * ldc + j];
        return;
    }
    for (dim_t kc0 = 0; kc0 < kb; kc0 += KC) {
        const dim_t kc = kb - kc0 < KC ? kb - kc0 : KC, kp = (kc + 1) / 2;
        const float bt = kc0 == 0 ? beta : 1.f;
        const float al = alpha;
        uint16_t *o = kc0 + kc >= kb ? out : nullptr; // the last chunk writes out
        // The blocks of this chunk at their origins (m0, k0 + kc0) and (k0 + kc0, n0).
        const dim_t k = k0 + kc0;
        bf16_block_t a = A;
        a.p = A.trans ? A.p + k * A.ld + m0 : A.p + m0 * A.ld + k;
        if (Bq) {
            if (Bq->trans) {
                pack_b_dq_generic(*Bq, k, kc, n0, nb, pb);
            } else {
                switch (Bq->dt) {
                    case dnnl_s8: pack_b_dq<dnnl_s8>(*Bq, k, kc, n0, nb, pb); break;
                    case dnnl_u8: pack_b_dq<dnnl_u8>(*Bq, k, kc, n0, nb, pb); break;
                    case dnnl_s4: pack_b_dq<dnnl_s4>(*Bq, k, kc, n0, nb, pb); break;
                    default: pack_b_dq<dnnl_u4>(*Bq, k, kc, n0, nb, pb); break;
                }
            }
        } else {
            bf16_block_t b = *Bb;
            b.p = Bb->trans ? Bb->p + n0 * Bb->ld + k : Bb->p + k * Bb->ld + n0;
            const dim_t nfull = b.trans ? 0 : nb / NR; // panels for pack_b_rows
            if (nfull > 0) pack_b_rows(b, nfull, kc, pb);
            for (dim_t j = nfull * NR; j < nb; j += NR) {
                const dim_t w = nb - j < NR ? nb - j : NR;
                uint32_t *d = pb + (j / NR) * kp * NR;
                pack_b_panel(b, j, w, kc, d, b.trans && w == NR ? pack_b_trans16(b, j, kc, d) : 0);
            }
        }
        for (dim_t i = 0; i < mb; i += MR) {
            const dim_t h = mb - i < MR ? mb - i : MR;
            pack_a_panel(a, i, h, kc, pa);
            for (dim_t j = 0; j < nb; j += NR) {
                const dim_t w = nb - j < NR ? nb - j : NR;
                kernel(kp, pa, pb + (j / NR) * kp * NR, C + i * ldc + j, ldc, al, bt, h, w,
                        o ? o + i * ldo + j : nullptr, ldo);
            }
        }
    }
#else
    (void)mb, (void)nb, (void)kb, (void)alpha, (void)A, (void)m0, (void)k0, (void)Bb, (void)Bq, (void)n0,
            (void)beta, (void)C, (void)ldc, (void)pa, (void)pb, (void)out, (void)ldo;
    (void)pack_b_dq_generic;
#endif
}

} // namespace

void bf16_dot_tile(dim_t mb, dim_t nb, dim_t kb, float alpha, const bf16_block_t &A, dim_t m0,
        dim_t k0, const bf16_block_t &B, dim_t n0, float beta, float *C, dim_t ldc, uint32_t *pa,
        uint32_t *pb, uint16_t *out, dim_t ldo) {
    dot_tile(mb, nb, kb, alpha, A, m0, k0, &B, nullptr, n0, beta, C, ldc, pa, pb, out, ldo);
}

void bf16_dot_tile_dq(dim_t mb, dim_t nb, dim_t kb, float alpha, const bf16_block_t &A, dim_t m0,
        const operand_t &B, dim_t n0, float beta, float *C, dim_t ldc, uint32_t *pa, uint32_t *pb,
        uint16_t *out, dim_t ldo) {
    dot_tile(mb, nb, kb, alpha, A, m0, 0, nullptr, &B, n0, beta, C, ldc, pa, pb, out, ldo);
}

} // namespace gemm
} // namespace kestrel
