// Packing and the 12x32 vdpbf16ps microkernel behind bf16_dot_tile.
//
// Packed layouts (k in pairs, kp = ceil(kb / 2); one 32-bit word holds the
// bf16 values of k = 2g (low half) and 2g + 1 (high half)):
//   A micro-panel of MR rows: pa[g * MR + i]   = op(A)(i, 2g | 2g + 1)
//   B micro-panel of NR cols: pb[g * NR + j]   = op(B)(2g | 2g + 1, j)
// Rows, columns and the odd k past the block are zeros in both.
#include "cpu/gemm/gemm_bf16.hpp"

#include <cstring>

#include "cpu/isa.hpp"

#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 10)
#include <immintrin.h>
#define KESTREL_HAVE_BF16_DOT 1
#endif

namespace kestrel {
namespace gemm {

namespace {

constexpr dim_t MR = 12, NR = 32;

// The value op(X)(r, c) of a block, r and c relative to its origin.
inline uint16_t at(const bf16_block_t &x, dim_t r, dim_t c) {
    return x.trans ? x.p[c * x.ld + r] : x.p[r * x.ld + c];
}

// Pairs (r, 2g) and (r, 2g + 1) of op(X) with r along the panel's wide dim:
// for A the rows, for B (read as op(B)^T) the columns.
inline uint32_t pair(const bf16_block_t &x, bool x_is_b, dim_t r, dim_t k, dim_t kb) {
    const uint16_t lo = x_is_b ? at(x, k, r) : at(x, r, k);
    const uint16_t hi = k + 1 < kb ? (x_is_b ? at(x, k + 1, r) : at(x, r, k + 1)) : 0;
    return (uint32_t)lo | (uint32_t)hi << 16;
}

// One panel of `width` lanes (MR or NR) starting at lane r0; w <= width of
// them valid. `contig` says the two halves of a pair are adjacent in memory
// (A not transposed, B transposed): then a pair is one 32-bit load.
void pack_panel(const bf16_block_t &x, bool x_is_b, dim_t r0, dim_t w, dim_t width, dim_t kb,
        uint32_t *dst) {
    const dim_t kp = (kb + 1) / 2;
    const bool contig = x_is_b ? x.trans : !x.trans;
    if (contig) {
        const dim_t kfull = kb / 2;
        for (dim_t r = 0; r < width; ++r) {
            if (r >= w) {
                for (dim_t g = 0; g < kp; ++g) dst[g * width + r] = 0;
                continue;
            }
            const uint16_t *s = x.p + (r0 + r) * x.ld;
            for (dim_t g = 0; g < kfull; ++g) std::memcpy(&dst[g * width + r], s + 2 * g, 4);
            if (kp > kfull) dst[kfull * width + r] = s[2 * kfull];
        }
        return;
    }
    for (dim_t g = 0; g < kp; ++g) {
        uint32_t *d = dst + g * width;
        dim_t r = 0;
        for (; r < w; ++r) d[r] = pair(x, x_is_b, r0 + r, 2 * g, kb);
        for (; r < width; ++r) d[r] = 0;
    }
}

#ifdef KESTREL_HAVE_BF16_DOT
#define KESTREL_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")))

// B panels with k along rows in memory (B not transposed, NR columns per
// panel, full panels only): rows 2g and 2g + 1 interleaved by word.
KESTREL_BF16 void pack_b_rows(const bf16_block_t &b, dim_t n0, dim_t kb, uint32_t *dst) {
    // Output word j of the low half pairs r0[j] with r1[j] (index bit 5
    // picks r1); the high half does the same for j + 16.
    alignas(64) static const uint16_t idx[64] = {0, 32, 1, 33, 2, 34, 3, 35, 4, 36, 5, 37, 6, 38, 7, 39,
            8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47, 16, 48, 17, 49, 18, 50, 19,
            51, 20, 52, 21, 53, 22, 54, 23, 55, 24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62,
            31, 63};
    const __m512i lo_idx = _mm512_load_si512(idx), hi_idx = _mm512_load_si512(idx + 32);
    const dim_t kfull = kb / 2;
    for (dim_t g = 0; g < kfull; ++g) {
        const __m512i r0 = _mm512_loadu_si512(b.p + 2 * g * b.ld + n0);
        const __m512i r1 = _mm512_loadu_si512(b.p + (2 * g + 1) * b.ld + n0);
        _mm512_store_si512(dst + g * NR, _mm512_permutex2var_epi16(r0, lo_idx, r1));
        _mm512_store_si512(dst + g * NR + 16, _mm512_permutex2var_epi16(r0, hi_idx, r1));
    }
    if (kb % 2) {
        const __m512i r0 = _mm512_loadu_si512(b.p + 2 * kfull * b.ld + n0);
        const __m512i z = _mm512_setzero_si512();
        _mm512_store_si512(dst + kfull * NR, _mm512_permutex2var_epi16(r0, lo_idx, z));
        _mm512_store_si512(dst + kfull * NR + 16, _mm512_permutex2var_epi16(r0, hi_idx, z));
    }
}

// acc[i * NR + j] = sum over g of the two products of pa[g * MR + i] and
// pb[g * NR + j] (f32, vdpbf16ps order).
KESTREL_BF16 void kernel(dim_t kp, const uint32_t *a, const uint32_t *b, float *acc) {
    __m512 c[MR][2];
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) c[i][0] = c[i][1] = _mm512_setzero_ps();
    for (dim_t g = 0; g < kp; ++g) {
        const __m512bh b0 = (__m512bh)_mm512_load_si512(b + g * NR);
        const __m512bh b1 = (__m512bh)_mm512_load_si512(b + g * NR + 16);
        const uint32_t *ag = a + g * MR;
#pragma GCC unroll 12
        for (int i = 0; i < MR; ++i) {
            const __m512bh av = (__m512bh)_mm512_set1_epi32((int)ag[i]);
            c[i][0] = _mm512_dpbf16_ps(c[i][0], av, b0);
            c[i][1] = _mm512_dpbf16_ps(c[i][1], av, b1);
        }
    }
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
        _mm512_store_ps(acc + i * NR, c[i][0]);
        _mm512_store_ps(acc + i * NR + 16, c[i][1]);
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
    return (size_t)((tm + MR - 1) / MR * MR) * ((tk + 1) / 2) * 4;
}

size_t bf16_pack_b_bytes(dim_t tk, dim_t tn) {
    return (size_t)((tn + NR - 1) / NR * NR) * ((tk + 1) / 2) * 4;
}

void bf16_dot_tile(dim_t mb, dim_t nb, dim_t kb, float alpha, const bf16_block_t &A, dim_t m0,
        dim_t k0, const bf16_block_t &B, dim_t n0, float beta, float *C, dim_t ldc, uint32_t *pa,
        uint32_t *pb) {
#ifdef KESTREL_HAVE_BF16_DOT
    // The blocks at their origins (m0, k0) and (k0, n0).
    bf16_block_t a = A, b = B;
    a.p = A.trans ? A.p + k0 * A.ld + m0 : A.p + m0 * A.ld + k0;
    b.p = B.trans ? B.p + n0 * B.ld + k0 : B.p + k0 * B.ld + n0;
    const dim_t kp = (kb + 1) / 2;
    for (dim_t j = 0; j < nb; j += NR) {
        const dim_t w = nb - j < NR ? nb - j : NR;
        uint32_t *d = pb + (j / NR) * kp * NR;
        if (!b.trans && w == NR)
            pack_b_rows(b, j, kb, d);
        else
            pack_panel(b, true, j, w, NR, kb, d);
    }
    for (dim_t i = 0; i < mb; i += MR)
        pack_panel(a, false, i, mb - i < MR ? mb - i : MR, MR, kb, pa + (i / MR) * kp * MR);
    alignas(64) float acc[MR * NR];
    for (dim_t i = 0; i < mb; i += MR) {
        const dim_t h = mb - i < MR ? mb - i : MR;
        for (dim_t j = 0; j < nb; j += NR) {
            const dim_t w = nb - j < NR ? nb - j : NR;
            kernel(kp, pa + (i / MR) * kp * MR, pb + (j / NR) * kp * NR, acc);
            for (dim_t r = 0; r < h; ++r) {
                float *c = C + (i + r) * ldc + j;
                const float *t = acc + r * NR;
                if (beta == 0.f)
                    for (dim_t q = 0; q < w; ++q) c[q] = alpha * t[q];
                else
                    for (dim_t q = 0; q < w; ++q) c[q] = alpha * t[q] + beta * c[q];
            }
        }
    }
#else
    (void)mb, (void)nb, (void)kb, (void)alpha, (void)A, (void)m0, (void)k0, (void)B, (void)n0,
            (void)beta, (void)C, (void)ldc, (void)pa, (void)pb;
#endif
}

} // namespace gemm
} // namespace kestrel
