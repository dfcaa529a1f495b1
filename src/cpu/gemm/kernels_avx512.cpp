// AVX-512 12x32 microkernel: 24 zmm accumulators, two B vectors and one
// broadcast of A per k step; column tails through store masks.
// Contract: kernels.hpp.
#include "cpu/gemm/gemm.hpp"
#include "cpu/gemm/kernels.hpp"

#if defined(__x86_64__)
#include "cpu/simd.hpp"
#define KESTREL_HAVE_AVX512_KERNEL 1
#endif

namespace kestrel {
namespace gemm {

#ifdef KESTREL_HAVE_AVX512_KERNEL
namespace {

constexpr int MR = 12, NR = 32;

#define KESTREL_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

template <int M, tile_mode_t Mode, typename... Out>
KESTREL_AVX512 inline void tile(dim_t k, float alpha, const float *a, dim_t ars, dim_t acs,
        const float *b, dim_t ldb, float beta, float *c, dim_t ldc, dim_t nr, Out... out) {
    constexpr bool D = Mode == tile_mode_t::direct, BD = Mode != tile_mode_t::packed;
    __m512 acc[M][2];
    const __mmask16 m0 = nr >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nr) - 1);
    const __mmask16 m1 = nr >= 32 ? (__mmask16)0xffff
            : nr > 16            ? (__mmask16)((1u << (nr - 16)) - 1)
                                 : (__mmask16)0;
    // C's tile is touched only after the k loop: start fetching it now
    // (first and last line of each row; 32 floats span 2 or 3 lines).
    const bool read_c = beta != 0.f;
    KESTREL_UNROLL(12)
    for (int i = 0; i < M; ++i) {
        acc[i][0] = acc[i][1] = _mm512_setzero_ps();
        const float *ci = c + i * ldc;
        _mm_prefetch(reinterpret_cast<const char *>(ci), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char *>(ci + nr - 1), _MM_HINT_T0);
    }
    KESTREL_UNROLL(4)
    for (dim_t p = 0; p < k; ++p) {
        const __m512 b0 = BD ? _mm512_maskz_loadu_ps(m0, b + p * ldb) : _mm512_loadu_ps(b + p * NR);
        const __m512 b1 = BD ? _mm512_maskz_loadu_ps(m1, b + p * ldb + 16) : _mm512_loadu_ps(b + p * NR + 16);
        if constexpr (Mode == tile_mode_t::packing) {
            const packing_out_t o {out...};
            float *pb = o.pb;
            const float *bnext = o.bnext;
            // The last rows fetch themselves again; columns past nr are
            // harmless (a prefetch never faults). 32 floats span 3 lines
            // unless the row is aligned.
            const float *ahead = b + (p + packing_ahead < k ? p + packing_ahead : p) * ldb;
            _mm_prefetch(reinterpret_cast<const char *>(ahead), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char *>(ahead + 16), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char *>(ahead + NR - 1), _MM_HINT_T0);
            if (bnext) { // the next panel's row, into L2 a whole tile ahead
                const float *nx = bnext + p * ldb;
                _mm_prefetch(reinterpret_cast<const char *>(nx), _MM_HINT_T1);
                _mm_prefetch(reinterpret_cast<const char *>(nx + 16), _MM_HINT_T1);
                _mm_prefetch(reinterpret_cast<const char *>(nx + NR - 1), _MM_HINT_T1);
            }
            _mm512_storeu_ps(pb + p * NR, b0);
            _mm512_storeu_ps(pb + p * NR + 16, b1);
        }
        const float *ap = D ? a + p * acs : a + p * MR;
        KESTREL_UNROLL(12)
        for (int i = 0; i < M; ++i) {
            const __m512 ai = _mm512_set1_ps(ap[D ? i * ars : i]);
            acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
        }
    }
    // After a short k loop (K = 64: 1x1 convolutions) the epilogue is a
    // noticeable part of the tile: alpha == 1 skips the multiply, and
    // alpha == 1 with beta == 0 stores the sums as they are.
    if (alpha == 1.f && !read_c) {
        KESTREL_UNROLL(12)
        for (int i = 0; i < M; ++i) {
            _mm512_mask_storeu_ps(c + i * ldc, m0, acc[i][0]);
            _mm512_mask_storeu_ps(c + i * ldc + 16, m1, acc[i][1]);
        }
        return;
    }
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    if (alpha != 1.f) {
        KESTREL_UNROLL(12)
        for (int i = 0; i < M; ++i) {
            acc[i][0] = _mm512_mul_ps(va, acc[i][0]);
            acc[i][1] = _mm512_mul_ps(va, acc[i][1]);
        }
    }
    KESTREL_UNROLL(12)
    for (int i = 0; i < M; ++i) {
        float *ci = c + i * ldc;
        __m512 r0 = acc[i][0], r1 = acc[i][1];
        if (read_c) {
            r0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, ci), r0);
            r1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, ci + 16), r1);
        }
        _mm512_mask_storeu_ps(ci, m0, r0);
        _mm512_mask_storeu_ps(ci + 16, m1, r1);
    }
}

template <int M>
KESTREL_AVX512 void kernel(dim_t k, float alpha, const float *a, const float *b, float beta,
        float *c, dim_t ldc, dim_t nr) {
    tile<M, tile_mode_t::packed>(k, alpha, a, 1, MR, b, NR, beta, c, ldc, nr);
}

template <int M>
KESTREL_AVX512 void direct(dim_t k, float alpha, const float *a, dim_t ars, dim_t acs,
        const float *b, dim_t ldb, float beta, float *c, dim_t ldc, dim_t nr) {
    tile<M, tile_mode_t::direct>(k, alpha, a, ars, acs, b, ldb, beta, c, ldc, nr);
}

template <int M>
KESTREL_AVX512 void packing(dim_t k, float alpha, const float *a, const float *b, dim_t ldb,
        float *pb, const float *bnext, float beta, float *c, dim_t ldc, dim_t nr) {
    tile<M, tile_mode_t::packing>(
            k, alpha, a, 1, MR, b, ldb, beta, c, ldc, nr, packing_out_t {pb, bnext});
}

// ------------------------------------------------------ transposing pack

// Transposes 16 rows of 16 floats in registers: r[c] becomes column c.
// Three stages, each within ever wider groups: pairs of rows interleaved
// (unpack), four rows gathered per 128-bit lane (shuffle_ps), then the
// 128-bit lanes regrouped across four-row groups (two shuffle_f32x4).
KESTREL_AVX512 inline void transpose16(__m512 r[16]) {
    __m512 t[16], u[16];
    KESTREL_UNROLL(8)
    for (int k = 0; k < 8; ++k) { // t[2k]: a0 b0 a1 b1 per lane; t[2k+1]: a2 b2 a3 b3
        t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
    }
    KESTREL_UNROLL(4)
    for (int k = 0; k < 4; ++k) { // u[4k+m], lane L: column m + 4L of rows 4k..4k+3
        u[4 * k + 0] = _mm512_shuffle_ps(t[4 * k], t[4 * k + 2], 0x44);
        u[4 * k + 1] = _mm512_shuffle_ps(t[4 * k], t[4 * k + 2], 0xEE);
        u[4 * k + 2] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0x44);
        u[4 * k + 3] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0xEE);
    }
    KESTREL_UNROLL(4)
    for (int m = 0; m < 4; ++m) { // column m + 4L: lane L of u[m], u[4+m], u[8+m], u[12+m]
        const __m512 v0 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0x88); // lanes 0,2 of each
        const __m512 v1 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0xDD); // lanes 1,3 of each
        const __m512 w0 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0x88);
        const __m512 w1 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0xDD);
        r[m] = _mm512_shuffle_f32x4(v0, w0, 0x88);
        r[m + 8] = _mm512_shuffle_f32x4(v0, w0, 0xDD);
        r[m + 4] = _mm512_shuffle_f32x4(v1, w1, 0x88);
        r[m + 12] = _mm512_shuffle_f32x4(v1, w1, 0xDD);
    }
}

KESTREL_AVX512 inline __mmask16 lanes_below(dim_t n) {
    return n >= 16 ? (__mmask16)0xffff : n <= 0 ? (__mmask16)0 : (__mmask16)((1u << n) - 1);
}

// Contract: kernels.hpp (pack_fn_t). 16 x 16 tiles through registers: 16
// masked row loads, the transpose, 16 masked stores of up to 16 columns.
// Each source row is fetched two tiles (128 bytes) ahead: up to 16 rows
// read 64 bytes at a time, ld apart, are more streams than the hardware
// prefetchers follow, and without it packing a row-major A (4096 x 576)
// or a transposed B (inner product weights) ran at about 4 GB/s, more
// time than the kernel took on the packed panels (1.8x faster with it on
// one Zen 5 core; 32 floats ahead beat 48, 64 and 128). Nothing is fetched
// beyond the k steps asked for.
KESTREL_AVX512 void pack_transposing(const float *src, dim_t ld, dim_t k, dim_t w, int W, float *dst) {
    constexpr dim_t ahead = 32;
    for (dim_t p0 = 0; p0 < k; p0 += 16) {
        const dim_t pt = k - p0 < 16 ? k - p0 : 16;
        const __mmask16 mp = lanes_below(pt);
        for (dim_t j0 = 0; j0 < W; j0 += 16) {
            const __mmask16 mj = lanes_below(W - j0);
            const dim_t rows = w - j0;
            if (p0 + ahead < k)
                for (int j = 0; j < 16; ++j)
                    if (j < rows)
                        _mm_prefetch(reinterpret_cast<const char *>(src + (j0 + j) * ld + p0 + ahead),
                                _MM_HINT_T0);
            __m512 r[16];
            KESTREL_UNROLL(16)
            for (int j = 0; j < 16; ++j)
                r[j] = j < rows ? _mm512_maskz_loadu_ps(mp, src + (j0 + j) * ld + p0) : _mm512_setzero_ps();
            transpose16(r);
            KESTREL_UNROLL(16)
            for (int p = 0; p < 16; ++p)
                if (p < pt) _mm512_mask_storeu_ps(dst + (p0 + p) * W + j0, mj, r[p]);
        }
    }
}

// ---------------------------------------------------------------- skinny

KESTREL_AVX512 inline __mmask16 first_lanes(dim_t n) {
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
}

// c[0 .. cnt) with stride ccs = alpha * acc + beta * c, cnt <= 16 lanes of acc.
KESTREL_AVX512 inline void store_c(const skinny_args_t &s, float *c, __mmask16 m, __m512 acc) {
    __m512 r = _mm512_mul_ps(_mm512_set1_ps(s.alpha), acc);
    if (s.ccs == 1) {
        if (s.beta != 0.f) r = _mm512_fmadd_ps(_mm512_set1_ps(s.beta), _mm512_maskz_loadu_ps(m, c), r);
        _mm512_mask_storeu_ps(c, m, r);
        return;
    }
    alignas(64) float t[16];
    _mm512_store_ps(t, r);
    for (int l = 0; l < 16 && (m >> l & 1); ++l) {
        float *cl = c + l * s.ccs;
        *cl = s.beta == 0.f ? t[l] : t[l] + s.beta * *cl;
    }
}

// Rows of op(B) contiguous (bcs == 1): NV vectors of C columns per row held
// in registers over the whole k; the last vector may be partial (mlast).
// Rows of b sit ldb apart, usually in different pages, so the hardware
// prefetcher does not follow them: with several rows of C, rows a few
// steps ahead are prefetched. One row of C (M = 1, 16 vectors a row of b)
// runs faster without (Zen 4, 1x1024x1024 from L2: 62-67 GFLOP/s against
// 50-52 with the prefetches).
template <int M, int NV>
KESTREL_AVX512 void axpy_chunk(const skinny_args_t &s, dim_t j0, __mmask16 mlast) {
    constexpr dim_t ahead = 12;
    __m512 acc[M][NV];
    KESTREL_UNROLL(16)
    for (int i = 0; i < M; ++i)
        KESTREL_UNROLL(16)
        for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
    const float *b = s.b + j0;
    for (dim_t p = 0; p < s.k; ++p) {
        const float *bp = b + p * s.brs;
        const char *pf = reinterpret_cast<const char *>(bp + ahead * s.brs);
        if (M > 1) {
            KESTREL_UNROLL(16)
            for (int v = 0; v < NV; ++v) _mm_prefetch(pf + 64 * v, _MM_HINT_T0);
        }
        __m512 bv[NV];
        KESTREL_UNROLL(16)
        for (int v = 0; v < NV - 1; ++v) bv[v] = _mm512_loadu_ps(bp + 16 * v);
        bv[NV - 1] = _mm512_maskz_loadu_ps(mlast, bp + 16 * (NV - 1));
        const float *ap = s.a + p * s.acs;
        KESTREL_UNROLL(8)
        for (int i = 0; i < M; ++i) {
            const __m512 ai = _mm512_set1_ps(ap[i * s.ars]);
            KESTREL_UNROLL(16)
            for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
        }
    }
    KESTREL_UNROLL(8)
    for (int i = 0; i < M; ++i)
        KESTREL_UNROLL(16)
        for (int v = 0; v < NV; ++v)
            store_c(s, s.c + i * s.crs + (j0 + 16 * v) * s.ccs, v == NV - 1 ? mlast : 0xffff,
                    acc[i][v]);
}

// One row of C over a B beyond a quarter of the last-level cache: R rows
// of B at a time are each read whole across a chunk of CH columns, whose
// sums sit in an L1 buffer. Long sequential runs keep the prefetchers
// streaming (from L3 as from DRAM), where axpy_chunk's 256-column pieces
// of rows ldb apart do not: Zen 4, 1x4096x1024 (16 MB, L3) 55 GFLOP/s
// against 38-40, 1x16384x4096 (DRAM) 12-16 against 9-10; at 8 MB the two
// are even. Each sum still takes its products one p after the other from
// zero, as axpy_chunk's do: the bits are the same.
double rows_m1_min_bytes() {
    static const double v = host_caches().l3 ? host_caches().l3 / 4.0 : 8.0 * (1 << 20);
    return v;
}

KESTREL_AVX512 void axpy_rows_m1(const skinny_args_t &s) {
    constexpr dim_t CH = 2048;
    constexpr int R = 4;
    alignas(64) float acc[CH];
    for (dim_t j0 = 0; j0 < s.n; j0 += CH) {
        const dim_t ch = s.n - j0 < CH ? s.n - j0 : CH;
        const dim_t nv = (ch + 15) / 16, full = ch / 16;
        const __mmask16 ml = first_lanes(ch - full * 16);
        for (dim_t v = 0; v < nv; ++v) _mm512_store_ps(acc + 16 * v, _mm512_setzero_ps());
        const float *b = s.b + j0;
        dim_t p = 0;
        for (; p + R <= s.k; p += R) {
            __m512 ar[R];
            const float *br[R];
            KESTREL_UNROLL(4)
            for (int r = 0; r < R; ++r) {
                ar[r] = _mm512_set1_ps(s.a[(p + r) * s.acs]);
                br[r] = b + (p + r) * s.brs;
            }
            for (dim_t v = 0; v < full; ++v) {
                __m512 x = _mm512_load_ps(acc + 16 * v);
                KESTREL_UNROLL(4)
                for (int r = 0; r < R; ++r) x = _mm512_fmadd_ps(ar[r], _mm512_loadu_ps(br[r] + 16 * v), x);
                _mm512_store_ps(acc + 16 * v, x);
            }
            if (full < nv) {
                __m512 x = _mm512_load_ps(acc + 16 * full);
                KESTREL_UNROLL(4)
                for (int r = 0; r < R; ++r)
                    x = _mm512_fmadd_ps(ar[r], _mm512_maskz_loadu_ps(ml, br[r] + 16 * full), x);
                _mm512_store_ps(acc + 16 * full, x);
            }
        }
        for (; p < s.k; ++p) {
            const __m512 ap = _mm512_set1_ps(s.a[p * s.acs]);
            const float *bp = b + p * s.brs;
            for (dim_t v = 0; v < nv; ++v) {
                const __m512 bv = _mm512_maskz_loadu_ps(v < full ? (__mmask16)0xffff : ml, bp + 16 * v);
                _mm512_store_ps(acc + 16 * v, _mm512_fmadd_ps(ap, bv, _mm512_load_ps(acc + 16 * v)));
            }
        }
        for (dim_t v = 0; v < nv; ++v)
            store_c(s, s.c + (j0 + 16 * v) * s.ccs, v < full ? (__mmask16)0xffff : ml,
                    _mm512_load_ps(acc + 16 * v));
    }
}

template <int M>
KESTREL_AVX512 void skinny_axpy(const skinny_args_t &s) {
    if (M == 1 && (double)s.k * s.brs * sizeof(float) > rows_m1_min_bytes()) {
        axpy_rows_m1(s);
        return;
    }
    constexpr int NV = M == 1 ? 16 : (24 / M > 8 ? 8 : 24 / M);
    dim_t j0 = 0;
    for (; j0 + 16 * NV <= s.n; j0 += 16 * NV) axpy_chunk<M, NV>(s, j0, 0xffff);
    for (; j0 < s.n; j0 += 16) axpy_chunk<M, 1>(s, j0, first_lanes(s.n - j0));
}

// Columns of op(B) contiguous (brs == 1): dot products along k for M rows
// times J columns at once, reduced across lanes at the end. a rows are
// contiguous along k here (stride ars).
template <int M, int J>
KESTREL_AVX512 void dot_group(const float *a, dim_t ars, const float *b, dim_t bcs, dim_t kb,
        float beta, const skinny_args_t &s, float *c) {
    __m512 acc[M][J];
    KESTREL_UNROLL(8)
    for (int i = 0; i < M; ++i)
        KESTREL_UNROLL(8)
        for (int j = 0; j < J; ++j) acc[i][j] = _mm512_setzero_ps();
    for (dim_t p = 0; p < kb; p += 16) {
        const __mmask16 m = first_lanes(kb - p);
        __m512 bv[J];
        // (No software prefetch: fetching the next group's columns line by
        // line during this one was measured 1.9-2.4x slower on Zen 4 for
        // 4096x1x1024 from L3 and 1024x1x1024 from L2, and no faster from
        // DRAM: with J columns of 4 KB the lines fetched ahead fill L1.)
        KESTREL_UNROLL(8)
        for (int j = 0; j < J; ++j) bv[j] = _mm512_maskz_loadu_ps(m, b + j * bcs + p);
        KESTREL_UNROLL(8)
        for (int i = 0; i < M; ++i) {
            const __m512 av = _mm512_maskz_loadu_ps(m, a + i * ars + p);
            KESTREL_UNROLL(8)
            for (int j = 0; j < J; ++j) acc[i][j] = _mm512_fmadd_ps(av, bv[j], acc[i][j]);
        }
    }
    KESTREL_UNROLL(8)
    for (int i = 0; i < M; ++i)
        KESTREL_UNROLL(8)
        for (int j = 0; j < J; ++j) {
            float *cij = c + i * s.crs + j * s.ccs;
            const float r = s.alpha * _mm512_reduce_add_ps(acc[i][j]);
            *cij = beta == 0.f ? r : r + beta * *cij;
        }
}

// A strided a (acs != 1) is copied into a small contiguous buffer, k cut
// into blocks of KB; C accumulates across blocks (beta = 1 after the
// first). A contiguous a is read in place over the whole k, so each column
// of b is one sequential stream. One row of a takes 4 columns at a time:
// columns 4 KB apart (K = 1024) share an L1 set, and 8 of them filled all
// its ways (Zen 4, 4096x1x1024 from L3: best call 80 GFLOP/s against 73).
template <int M>
KESTREL_AVX512 void skinny_dot(const skinny_args_t &s) {
    constexpr int J = M == 1 ? 4 : M <= 2 ? 8 : M <= 4 ? 4 : 2;
    constexpr dim_t KB = 512;
    alignas(64) float abuf[M * KB];
    const dim_t kblk = s.acs == 1 ? (s.k > KB ? s.k : KB) : KB;
    dim_t p0 = 0;
    do {
        const dim_t kb = s.k - p0 < kblk ? s.k - p0 : kblk;
        const float beta = p0 == 0 ? s.beta : 1.f;
        const float *a = s.a + p0 * s.acs;
        dim_t ars = s.ars;
        if (s.acs != 1 && kb > 0) {
            for (int i = 0; i < M; ++i)
                for (dim_t p = 0; p < kb; ++p) abuf[i * KB + p] = a[i * s.ars + p * s.acs];
            a = abuf;
            ars = KB;
        }
        const float *b = s.b + p0;
        dim_t j = 0;
        for (; j + J <= s.n; j += J)
            dot_group<M, J>(a, ars, b + j * s.bcs, s.bcs, kb, beta, s, s.c + j * s.ccs);
        for (; j < s.n; ++j)
            dot_group<M, 1>(a, ars, b + j * s.bcs, s.bcs, kb, beta, s, s.c + j * s.ccs);
        p0 += kb;
    } while (p0 < s.k);
}

template <int M>
KESTREL_AVX512 void skinny_m(const skinny_args_t &s) {
    if (s.bcs == 1)
        skinny_axpy<M>(s);
    else
        skinny_dot<M>(s);
}

void skinny(const skinny_args_t &s) {
    static const skinny_fn_t by_m[skinny_max_m + 1] = {nullptr, skinny_m<1>, skinny_m<2>,
            skinny_m<3>, skinny_m<4>, skinny_m<5>, skinny_m<6>, skinny_m<7>, skinny_m<8>};
    by_m[s.m](s);
}

const ukernel_t table = {"f32_gemm_12x32__avx512", MR, NR,
        {nullptr, kernel<1>, kernel<2>, kernel<3>, kernel<4>, kernel<5>, kernel<6>, kernel<7>,
                kernel<8>, kernel<9>, kernel<10>, kernel<11>, kernel<12>},
        skinny, "f32_gemm_skinny8__avx512",
        {nullptr, direct<1>, direct<2>, direct<3>, direct<4>, direct<5>, direct<6>, direct<7>,
                direct<8>, direct<9>, direct<10>, direct<11>, direct<12>},
        pack_transposing,
        {nullptr, packing<1>, packing<2>, packing<3>, packing<4>, packing<5>, packing<6>,
                packing<7>, packing<8>, packing<9>, packing<10>, packing<11>, packing<12>}};

} // namespace

const ukernel_t *f32_gemm_12x32__avx512() { return &table; }
#else
const ukernel_t *f32_gemm_12x32__avx512() { return nullptr; }
#endif

} // namespace gemm
} // namespace kestrel
