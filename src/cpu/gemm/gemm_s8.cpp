// The int8 GEMM framework: blocking, packing, sums and threads.
//
//   for jc in N by NC:            pack B block  K x NC (whole K), column sums
//     for ic in M by MC:          pack A block  MC x K, row sums
//       for jr in NC by NR:       one B micro-panel
//         for ir in MC by MR:     microkernel -> MR x NR tile -> epilogue
//
// K is never split: a tile leaves the microkernel complete, so the epilogue
// sees final sums and no s32 partial C is kept anywhere. Threads split C
// into a 2D grid of MR/NR-aligned blocks; each packs into its own buffers.
#include "cpu/gemm/gemm_s8.hpp"

#include <atomic>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu/gemm/kernels_s8.hpp"
#include "cpu/gemm/kernels_s8_direct.hpp"
#include "cpu/isa.hpp"
#include "cpu/threading.hpp"

namespace kestrel {
namespace gemm {

namespace {

// Bytes of one packed A block (MC x K) kept in L2 with a B micro-panel, and
// of one packed B block (K x NC) kept in the L3 share of a core.
constexpr dim_t a_block_bytes = 384 * 1024;
constexpr dim_t b_block_bytes = 4 * 1024 * 1024;
constexpr dim_t max_mc = 192, max_nc = 3072;
// Below this many multiply-adds a problem runs on one thread.
constexpr double min_macs_per_thread = 64.0 * 1024;

std::atomic<int> level_cap {(int)kernel_level_t::best};

const s8_ukernel_t *pick_kernel() {
    const int cap = level_cap.load(std::memory_order_relaxed);
    const s8_ukernel_t *k = u8s8s32_gemm_4x16__portable();
    if (cap >= (int)kernel_level_t::avx2 && isa::has(isa::avx2) && u8s8s32_gemm_4x16__avx2())
        k = u8s8s32_gemm_4x16__avx2();
    if (cap >= (int)kernel_level_t::avx2_vnni && isa::has_avx2_vnni() && u8s8s32_gemm_6x16__avxvnni())
        k = u8s8s32_gemm_6x16__avxvnni();
    if (cap >= (int)kernel_level_t::avx512 && isa::has_avx512_vnni()
            && u8s8s32_gemm_8x48__avx512vnni())
        k = u8s8s32_gemm_8x48__avx512vnni();
    return k;
}

// Up to 4 bytes of a row starting at column p (n = min(4, K - p) valid),
// zero-filled, as one word; `flip` turns s8 into u8 shifted by 128.
inline uint32_t load4(const uint8_t *s, dim_t n, uint32_t flip) {
    uint32_t w = 0;
    if (n >= 4)
        std::memcpy(&w, s, 4);
    else
        for (dim_t q = 0; q < n; ++q) w |= (uint32_t)s[q] << (8 * q);
    const uint32_t valid = n >= 4 ? 0xffffffffu : (uint32_t)((1ull << (8 * n)) - 1);
    return (w ^ flip) & valid;
}

#if defined(__x86_64__)
// Rows [0, m16) (a multiple of 16) x bytes [0, kz) (a multiple of 64) of
// row-major rows into a packed panel of MR rows: per 16 rows x 64 bytes, a
// 16 x 16 transpose of 32-bit words (dword then qword unpacks within
// 128-bit lanes give each lane one group of 4 rows; a 4 x 4 transpose of
// lanes gathers a group's 16 rows), one 64-byte store per group.
__attribute__((target("avx512f,avx512bw"))) void pack16_rows_avx512(const uint8_t *A, dim_t lda,
        dim_t m16, dim_t kz, int MR, uint32_t flip, uint8_t *dst) {
    const __m512i fx = _mm512_set1_epi32((int)flip);
    for (dim_t p = 0; p < kz; p += 64)
        for (dim_t i16 = 0; i16 < m16; i16 += 16) {
            __m512i t[16], u[16];
            for (int k = 0; k < 8; ++k) {
                const __m512i a = _mm512_xor_si512(fx, _mm512_loadu_si512(A + (i16 + 2 * k) * lda + p));
                const __m512i b = _mm512_xor_si512(fx, _mm512_loadu_si512(A + (i16 + 2 * k + 1) * lda + p));
                t[2 * k] = _mm512_unpacklo_epi32(a, b);
                t[2 * k + 1] = _mm512_unpackhi_epi32(a, b);
            }
            // u[4k + m], lane L: group 4L + m of rows 4k..4k+3.
            for (int k = 0; k < 4; ++k) {
                u[4 * k + 0] = _mm512_unpacklo_epi64(t[4 * k], t[4 * k + 2]);
                u[4 * k + 1] = _mm512_unpackhi_epi64(t[4 * k], t[4 * k + 2]);
                u[4 * k + 2] = _mm512_unpacklo_epi64(t[4 * k + 1], t[4 * k + 3]);
                u[4 * k + 3] = _mm512_unpackhi_epi64(t[4 * k + 1], t[4 * k + 3]);
            }
            uint8_t *d = dst + ((p / 4) * MR + i16) * 4;
            for (int m = 0; m < 4; ++m) {
                const __m512i p0 = _mm512_shuffle_i32x4(u[m], u[4 + m], 0x44);
                const __m512i p1 = _mm512_shuffle_i32x4(u[m], u[4 + m], 0xee);
                const __m512i p2 = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0x44);
                const __m512i p3 = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0xee);
                _mm512_storeu_si512(d + (0 + m) * MR * 4, _mm512_shuffle_i32x4(p0, p2, 0x88));
                _mm512_storeu_si512(d + (4 + m) * MR * 4, _mm512_shuffle_i32x4(p0, p2, 0xdd));
                _mm512_storeu_si512(d + (8 + m) * MR * 4, _mm512_shuffle_i32x4(p1, p3, 0x88));
                _mm512_storeu_si512(d + (12 + m) * MR * 4, _mm512_shuffle_i32x4(p1, p3, 0xdd));
            }
        }
}

// Rows [0, 8) x bytes [0, kz) (a multiple of 64) of row-major rows into
// the panel at dst (group g of these rows at dst + g * MR * 4, 32 bytes):
// per 64 bytes, dword then qword unpacks within 128-bit lanes give lane L
// the four rows 0-3 (w[q]) and 4-7 (v[q]) of group 4L + q; two rounds of
// lane shuffles put each group's two halves side by side, two groups per
// vector. The 8-row panel of the VNNI kernel took the 4-row SSE path.
__attribute__((target("avx512f,avx512bw"))) void pack8_rows_avx512(
        const uint8_t *A, dim_t lda, dim_t kz, int MR, uint32_t flip, uint8_t *dst) {
    const __m512i fx = _mm512_set1_epi32((int)flip);
    for (dim_t p = 0; p < kz; p += 64) {
        __m512i r[8];
        // Four lines ahead on each row: the hardware does not follow eight
        // strided rows (+35% on an A-bound shape; a prefetch never faults).
        for (int i = 0; i < 8; ++i)
            _mm_prefetch(reinterpret_cast<const char *>(A + i * lda + p + 256), _MM_HINT_T0);
        for (int i = 0; i < 8; ++i)
            r[i] = _mm512_xor_si512(fx, _mm512_loadu_si512(A + i * lda + p));
        __m512i w[4], v[4];
        for (int h = 0; h < 2; ++h) {
            const __m512i *q = r + 4 * h;
            const __m512i t01 = _mm512_unpacklo_epi32(q[0], q[1]);
            const __m512i u01 = _mm512_unpackhi_epi32(q[0], q[1]);
            const __m512i t23 = _mm512_unpacklo_epi32(q[2], q[3]);
            const __m512i u23 = _mm512_unpackhi_epi32(q[2], q[3]);
            __m512i *o = h ? v : w;
            o[0] = _mm512_unpacklo_epi64(t01, t23);
            o[1] = _mm512_unpackhi_epi64(t01, t23);
            o[2] = _mm512_unpacklo_epi64(u01, u23);
            o[3] = _mm512_unpackhi_epi64(u01, u23);
        }
        __m512i P[4], Q[4];
        for (int q = 0; q < 4; ++q) {
            P[q] = _mm512_shuffle_i32x4(w[q], v[q], 0x44); // lanes 0, 1 of each
            Q[q] = _mm512_shuffle_i32x4(w[q], v[q], 0xee); // lanes 2, 3
        }
        uint8_t *d = dst + (p / 4) * MR * 4;
        for (int q = 0; q < 4; q += 2) {
            // Groups 4L + q and 4L + q + 1 for L = 0..3.
            const __m512i o[4] = {_mm512_shuffle_i32x4(P[q], P[q + 1], 0x88),
                    _mm512_shuffle_i32x4(P[q], P[q + 1], 0xdd),
                    _mm512_shuffle_i32x4(Q[q], Q[q + 1], 0x88),
                    _mm512_shuffle_i32x4(Q[q], Q[q + 1], 0xdd)};
            for (int L = 0; L < 4; ++L) {
                uint8_t *dg = d + (4 * L + q) * MR * 4;
                if (MR == 8) {
                    _mm512_storeu_si512(dg, o[L]);
                } else {
                    __m256i *lo = reinterpret_cast<__m256i *>(dg);
                    __m256i *hi = reinterpret_cast<__m256i *>(dg + MR * 4);
                    _mm256_storeu_si256(lo, _mm512_castsi512_si256(o[L]));
                    _mm256_storeu_si256(hi, _mm512_extracti64x4_epi64(o[L], 1));
                }
            }
        }
    }
}
#endif

// One A micro-panel: rows [0, mr) of op(A) starting at `A` (already at the
// panel's first row), all K, into dst (k4 groups of MR x 4 bytes).
void pack_a_panel(const uint8_t *A, dim_t lda, bool trans, dim_t K, dim_t k4, dim_t mr, int MR,
        uint32_t flip, uint8_t *dst) {
    if (!trans) { // row i of op(A) is contiguous; every word of rows < mr is written
        if (mr < MR)
            for (dim_t g = 0; g < k4; ++g) std::memset(dst + (g * MR + mr) * 4, 0, (size_t)(MR - mr) * 4);
        dim_t i0 = 0;
#if defined(__SSE2__)
        // Four rows x 16 bytes (4 groups) at a time: a 4 x 4 transpose of
        // 32-bit words puts each group's four rows side by side.
        const dim_t kv = K / 16 * 16;
        const __m128i fx = _mm_set1_epi32((int)flip);
        // K outermost: each step fills a few consecutive groups of the
        // panel (a wide panel, a transposed B, is larger than L1), and
        // takes a whole cache line of each row at once (rows a power of 2
        // apart share a few L1 sets and would not survive until the next
        // step).
        const dim_t m4 = kv > 0 ? mr / 4 * 4 : 0;
        dim_t m16 = 0, kz = 0; // rows [0, m16) x bytes [0, kz): done by the AVX-512 transposes
#if defined(__x86_64__)
        if (mr >= 8 && K >= 64 && isa::has(isa::avx512)) {
            m16 = mr / 16 * 16;
            kz = K / 64 * 64;
            if (m16) pack16_rows_avx512(A, lda, m16, kz, MR, flip, dst);
            if (mr - m16 >= 8) {
                pack8_rows_avx512(A + m16 * lda, lda, kz, MR, flip, dst + m16 * 4);
                m16 += 8;
            }
        }
#endif
        for (dim_t p0 = 0; p0 < kv; p0 += 64) {
            const dim_t pe = kv - p0 < 64 ? kv : p0 + 64;
            for (dim_t i4 = p0 < kz ? m16 : 0; i4 < m4; i4 += 4) {
                for (dim_t p = p0; p < pe; p += 16) {
                    __m128i r[4];
                    for (int q = 0; q < 4; ++q)
                        r[q] = _mm_xor_si128(fx,
                                _mm_loadu_si128(reinterpret_cast<const __m128i *>(A + (i4 + q) * lda + p)));
                    const __m128i t0 = _mm_unpacklo_epi32(r[0], r[1]), t1 = _mm_unpackhi_epi32(r[0], r[1]);
                    const __m128i t2 = _mm_unpacklo_epi32(r[2], r[3]), t3 = _mm_unpackhi_epi32(r[2], r[3]);
                    uint8_t *d = dst + ((p / 4) * MR + i4) * 4;
                    _mm_storeu_si128(reinterpret_cast<__m128i *>(d), _mm_unpacklo_epi64(t0, t2));
                    _mm_storeu_si128(reinterpret_cast<__m128i *>(d + MR * 4), _mm_unpackhi_epi64(t0, t2));
                    _mm_storeu_si128(reinterpret_cast<__m128i *>(d + 2 * MR * 4), _mm_unpacklo_epi64(t1, t3));
                    _mm_storeu_si128(reinterpret_cast<__m128i *>(d + 3 * MR * 4), _mm_unpackhi_epi64(t1, t3));
                }
            }
        }
        for (dim_t i = 0; i < m4; ++i) { // the K tail of these rows
            const uint8_t *s = A + i * lda;
            for (dim_t g = kv / 4; g < k4; ++g) {
                const uint32_t w = load4(s + 4 * g, K - 4 * g, flip);
                std::memcpy(dst + (g * MR + i) * 4, &w, 4);
            }
        }
        i0 = m4;
#endif
        for (dim_t i = i0; i < mr; ++i) {
            const uint8_t *s = A + i * lda;
            for (dim_t g = 0; g < k4; ++g) {
                const uint32_t w = load4(s + 4 * g, K - 4 * g, flip);
                std::memcpy(dst + (g * MR + i) * 4, &w, 4);
            }
        }
        return;
    }
    std::memset(dst, 0, (size_t)k4 * MR * 4);
    const uint8_t f = (uint8_t)flip;
    for (dim_t p = 0; p < K; ++p) { // op(A)(i, p) = A[p * lda + i]
        const uint8_t *s = A + p * lda;
        uint8_t *d = dst + (p / 4) * MR * 4 + p % 4;
        for (dim_t i = 0; i < mr; ++i) d[i * 4] = s[i] ^ f;
    }
}

#if defined(__x86_64__)
// Four rows r[0..3] (one full group of k) x columns [0, w / 64 * 64) into
// the panels at dg (column c at dg + c / NR * panel + c % NR * 4): per 64
// columns, the two rounds of byte/word unpacks work within 128-bit lanes
// (lane l: columns 16l..16l+15 as four quarter vectors o0..o3), then a
// 4 x 4 transpose of lanes gathers each 16 columns' quarters. Returns the
// columns done.
__attribute__((target("avx512f,avx512bw"))) dim_t pack4_rows_avx512(
        const int8_t *const r[4], int8_t *dg, dim_t w, int NR, dim_t panel) {
    const int8_t *const r0 = r[0], *const r1 = r[1], *const r2 = r[2], *const r3 = r[3];
    // Column j + 16l sits in panel pc at column oc (kept by increments: a
    // division per store was most of this loop's time).
    dim_t j = 0, pc = 0, oc = 0;
    for (; j + 64 <= w; j += 64) {
        const __m512i v0 = _mm512_loadu_si512(r0 + j), v1 = _mm512_loadu_si512(r1 + j);
        const __m512i v2 = _mm512_loadu_si512(r2 + j), v3 = _mm512_loadu_si512(r3 + j);
        const __m512i t01l = _mm512_unpacklo_epi8(v0, v1), t01h = _mm512_unpackhi_epi8(v0, v1);
        const __m512i t23l = _mm512_unpacklo_epi8(v2, v3), t23h = _mm512_unpackhi_epi8(v2, v3);
        const __m512i o0 = _mm512_unpacklo_epi16(t01l, t23l), o1 = _mm512_unpackhi_epi16(t01l, t23l);
        const __m512i o2 = _mm512_unpacklo_epi16(t01h, t23h), o3 = _mm512_unpackhi_epi16(t01h, t23h);
        const __m512i u0 = _mm512_shuffle_i32x4(o0, o1, 0x44), u1 = _mm512_shuffle_i32x4(o0, o1, 0xee);
        const __m512i u2 = _mm512_shuffle_i32x4(o2, o3, 0x44), u3 = _mm512_shuffle_i32x4(o2, o3, 0xee);
        const __m512i out[4] = {_mm512_shuffle_i32x4(u0, u2, 0x88), _mm512_shuffle_i32x4(u0, u2, 0xdd),
                _mm512_shuffle_i32x4(u1, u3, 0x88), _mm512_shuffle_i32x4(u1, u3, 0xdd)};
        for (int l = 0; l < 4; ++l) {
            _mm512_storeu_si512(dg + pc * panel + oc * 4, out[l]);
            oc += 16;
            if (oc == NR) {
                oc = 0;
                ++pc;
            }
        }
    }
    return j;
}
#endif

// Columns [0, n) of op(B) starting at `B`, all K, as ceil(n / NR)
// consecutive micro-panels of k4 * NR * 4 bytes (columns past n zero).
// Row-major B is read a group of 4 rows at a time across all n columns, so
// the reads stream along rows instead of striding down K once per panel.
void pack_b_block(
        const int8_t *B, dim_t ldb, bool trans, dim_t K, dim_t k4, dim_t n, int NR, int8_t *dst) {
    const dim_t panel = k4 * NR * 4;
    if (trans) { // column j of op(B) is contiguous: the layout of a row-major A panel
        for (dim_t j0 = 0; j0 < n; j0 += NR)
            pack_a_panel(reinterpret_cast<const uint8_t *>(B + j0 * ldb), ldb, false, K, k4,
                    n - j0 < NR ? n - j0 : NR, NR, 0, reinterpret_cast<uint8_t *>(dst + j0 / NR * panel));
        return;
    }
    // Strips of whole panels ~512 columns wide: each row's read is a few
    // full cache lines, and a strip's panels are few enough write streams.
    const dim_t strip = NR * (512 / NR > 1 ? 512 / NR : 1);
    const bool wide = isa::has(isa::avx512);
    const dim_t kfull = K / 4;
    for (dim_t s0 = 0; s0 < n; s0 += strip) {
        const dim_t w = n - s0 < strip ? n - s0 : strip;
        int8_t *ds = dst + s0 / NR * panel;
        const int8_t *bs = B + s0;
        for (dim_t g = 0; g < k4; ++g) {
            const bool full = g < kfull;
            const int8_t *r[4];
            for (int q = 0; q < 4; ++q) r[q] = 4 * g + q < K ? bs + (4 * g + q) * ldb : nullptr;
            int8_t *dg = ds + g * NR * 4;
            dim_t j = 0;
#if defined(__x86_64__)
            if (full && wide) j = pack4_rows_avx512(r, dg, w, NR, panel);
#endif
#if defined(__SSE2__)
            // 4 rows x 16 columns -> 16 columns x 4 bytes by two rounds of
            // unpacks; NR is a multiple of 16, so no chunk straddles panels.
            dim_t pc = j / NR, oc = j % NR; // column j's panel and place in it
            for (; full && j + 16 <= w; j += 16) {
                const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(r[0] + j));
                const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(r[1] + j));
                const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(r[2] + j));
                const __m128i v3 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(r[3] + j));
                const __m128i t01l = _mm_unpacklo_epi8(v0, v1), t01h = _mm_unpackhi_epi8(v0, v1);
                const __m128i t23l = _mm_unpacklo_epi8(v2, v3), t23h = _mm_unpackhi_epi8(v2, v3);
                __m128i *o = reinterpret_cast<__m128i *>(dg + pc * panel + oc * 4);
                oc += 16;
                if (oc == NR) {
                    oc = 0;
                    ++pc;
                }
                _mm_storeu_si128(o + 0, _mm_unpacklo_epi16(t01l, t23l));
                _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(t01l, t23l));
                _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(t01h, t23h));
                _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(t01h, t23h));
            }
#endif
            for (; j < w; ++j) {
                int8_t *d = dg + j / NR * panel + j % NR * 4;
                for (int q = 0; q < 4; ++q) d[q] = r[q] ? r[q][j] : 0;
            }
            const dim_t tail = rnd_up(w, (dim_t)NR) - w;
            if (tail) std::memset(dg + (w - 1) / NR * panel + (w % NR) * 4, 0, (size_t)tail * 4);
        }
    }
}

#if defined(__x86_64__)
// Column sums of a packed s8 B panel with W * 4 a multiple of 64 by
// vpdpbusd against bytes of 1: each s32 lane sums its column's 4 bytes.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void panel_sums_vnni(
        const int8_t *panel, dim_t k4, int W, dim_t w, int32_t *out) {
    const int nv = W * 4 / 64;
    __m512i acc[s8_max_nr / 16];
    for (int v = 0; v < nv; ++v) acc[v] = _mm512_setzero_si512();
    const __m512i ones = _mm512_set1_epi8(1);
    for (dim_t g = 0; g < k4; ++g)
        for (int v = 0; v < nv; ++v)
            acc[v] = _mm512_dpbusd_epi32(acc[v], ones, _mm512_loadu_si512(panel + (g * W + 16 * v) * 4));
    alignas(64) int32_t t[s8_max_nr];
    for (int v = 0; v < nv; ++v) _mm512_store_si512(t + 16 * v, acc[v]);
    for (dim_t j = 0; j < w; ++j) out[j] = t[j];
}
#endif

// Sums over k of each of the W lanes of a packed panel (k4 groups of W x 4
// bytes), for lanes [0, w). T is the stored byte type.
template <typename T>
void panel_sums(const T *panel, dim_t k4, int W, dim_t w, int32_t *out) {
#if defined(__x86_64__)
    if (std::is_signed<T>::value && W * 4 % 64 == 0 && isa::has_avx512_vnni()) {
        panel_sums_vnni(reinterpret_cast<const int8_t *>(panel), k4, W, w, out);
        return;
    }
#endif
    int32_t t[4 * s8_max_nr] = {}; // W <= s8_max_nr
#if defined(__SSE2__)
    if (W * 4 % 16 == 0) {
        // Per 16 bytes (4 lanes x 4 k): widen to 16 bits, then pmaddwd by
        // ones adds neighbours into s32: two k of one lane per element.
        constexpr bool sgn = std::is_signed<T>::value;
        const int nv = W * 4 / 16;
        __m128i lo[s8_max_nr / 4], hi[s8_max_nr / 4];
        for (int v = 0; v < nv; ++v) lo[v] = hi[v] = _mm_setzero_si128();
        const __m128i ones = _mm_set1_epi16(1), z = _mm_setzero_si128();
        for (dim_t g = 0; g < k4; ++g) {
            const __m128i *s = reinterpret_cast<const __m128i *>(panel + g * W * 4);
            for (int v = 0; v < nv; ++v) {
                const __m128i x = _mm_loadu_si128(s + v);
                const __m128i xl = sgn ? _mm_srai_epi16(_mm_unpacklo_epi8(x, x), 8) : _mm_unpacklo_epi8(x, z);
                const __m128i xh = sgn ? _mm_srai_epi16(_mm_unpackhi_epi8(x, x), 8) : _mm_unpackhi_epi8(x, z);
                lo[v] = _mm_add_epi32(lo[v], _mm_madd_epi16(xl, ones));
                hi[v] = _mm_add_epi32(hi[v], _mm_madd_epi16(xh, ones));
            }
        }
        // lo[v] holds lanes 4v, 4v+1 (two s32 each), hi[v] lanes 4v+2, 4v+3.
        for (int v = 0; v < nv; ++v) {
            _mm_storeu_si128(reinterpret_cast<__m128i *>(t + 16 * v), lo[v]);
            _mm_storeu_si128(reinterpret_cast<__m128i *>(t + 16 * v + 4), hi[v]);
        }
        for (dim_t j = 0; j < w; ++j) {
            const int32_t *p = t + 16 * (j / 4) + 2 * (j % 4);
            out[j] = (int32_t)((uint32_t)p[0] + (uint32_t)p[1]);
        }
        return;
    }
#endif
    for (dim_t g = 0; g < k4; ++g) {
        const T *s = panel + g * W * 4;
        for (int l = 0; l < W * 4; ++l) t[l] += s[l];
    }
    for (dim_t j = 0; j < w; ++j) out[j] = t[j * 4] + t[j * 4 + 1] + t[j * 4 + 2] + t[j * 4 + 3];
}

// Whether full panels of A are read in place by the direct kernel (see
// kernels_s8_direct.hpp): a plain u8 A, no row sums, whole groups of 4 k.
bool direct_a(const s8_ukernel_t *uk, bool transa, bool a_signed, bool row_sum, dim_t K) {
    return !transa && !a_signed && !row_sum && K % 4 == 0 && uk == u8s8s32_gemm_8x48__avx512vnni()
            && u8s8s32_gemm_8x48__avx512vnni_direct();
}

} // namespace

kernel_level_t s8_set_kernel_level_for_testing(kernel_level_t l) {
    return (kernel_level_t)level_cap.exchange((int)l);
}

int s8_kernel_nr() { return pick_kernel()->nr; }

const char *s8_plan_t::kernel_name() const { return uk_ ? uk_->name : "none"; }
int s8_plan_t::nr() const { return uk_ ? uk_->nr : 0; }

status_t s8_plan_t::init(dim_t M, dim_t N, dim_t K, bool transa, bool transb, bool a_signed,
        bool want_row_sum, bool want_col_sum, int nthr) {
    if (M < 0 || N < 0 || K < 0) return status::invalid_arguments;
    M_ = M;
    N_ = N;
    K_ = K;
    transa_ = transa;
    transb_ = transb;
    a_signed_ = a_signed;
    row_sum_ = want_row_sum;
    col_sum_ = want_col_sum;
    uk_ = pick_kernel();
    const dim_t MR = uk_->mr, NR = uk_->nr;
    const dim_t kbytes = 4 * (div_up(K, 4) > 0 ? div_up(K, 4) : 1);
    nthr_ = nthr > 0 ? nthr : max_threads();
    const double macs = (double)M * N * (K > 0 ? K : 1);
    if (macs < min_macs_per_thread * nthr_) {
        const int n = (int)(macs / min_macs_per_thread);
        nthr_ = n < 1 ? 1 : n;
    }
    const dim_t mb = div_up(M, MR) > 0 ? div_up(M, MR) : 1;
    const dim_t nb = div_up(N, NR) > 0 ? div_up(N, NR) : 1;
    split_2d(mb, nb, nthr_, nthr_m_, nthr_n_);
    nthr_ = nthr_m_ * nthr_n_;
    const dim_t m_per = div_up(mb, nthr_m_) * MR, n_per = div_up(nb, nthr_n_) * NR;
    mc_ = a_block_bytes / kbytes / MR * MR;
    if (mc_ > max_mc) mc_ = max_mc / MR * MR;
    if (mc_ > m_per) mc_ = m_per;
    if (mc_ < MR) mc_ = MR;
    nc_ = b_block_bytes / kbytes / NR * NR;
    if (nc_ > max_nc) nc_ = max_nc / NR * NR;
    if (nc_ > n_per) nc_ = n_per;
    if (nc_ < NR) nc_ = NR;
    return status::success;
}

void s8_plan_t::book(scratchpad::registry_t &reg, scratchpad::key_t base, bool packs_b) const {
    const size_t k4 = (size_t)div_up(K_, 4);
    reg.book_per_thread(base + s8_key_pack_a, (k4 > 0 ? k4 : 1) * mc_ * 4, 64);
    reg.book_per_thread(base + s8_key_pack_b, packs_b ? (k4 > 0 ? k4 : 1) * nc_ * 4 : 64, 64);
    // Row sums (mc), column sums (nc), s8 compensation (nc).
    reg.book_per_thread(base + s8_key_sums, (size_t)(mc_ + 2 * nc_) * sizeof(int32_t), 64);
}

// Packed B: the NR-column panel holding column j (all K, k4 groups of
// NR x 4 bytes) at j * k4 * 4, then, 64-byte aligned, the column sums.
size_t s8_plan_t::packed_panels_bytes() const {
    return rnd_up((size_t)rnd_up(N_, uk_->nr) * div_up(K_, 4) * 4, (size_t)64);
}

size_t s8_plan_t::packed_b_bytes() const {
    if (!uk_ || M_ <= 0 || N_ <= 0 || K_ <= 0) return 0;
    return packed_panels_bytes() + (size_t)rnd_up(N_, uk_->nr) * sizeof(int32_t);
}

void s8_plan_t::pack_b_all(const int8_t *B, dim_t ldb, void *packed_b) const {
    if (packed_b_bytes() == 0) return;
    int8_t *panels = static_cast<int8_t *>(packed_b);
    int32_t *csum = reinterpret_cast<int32_t *>(panels + packed_panels_bytes());
    const dim_t NR = uk_->nr, k4 = div_up(K_, 4), np = div_up(N_, NR);
    parallel(nthr_ < np ? nthr_ : (int)np, [&](int ithr, int nthr) {
        dim_t ps, pe;
        balance211(np, nthr, ithr, ps, pe);
        if (ps >= pe) return;
        const dim_t j0 = ps * NR, j1 = pe * NR < N_ ? pe * NR : N_;
        int8_t *d = panels + j0 * k4 * 4;
        pack_b_block(transb_ ? B + j0 * ldb : B + j0, ldb, transb_, K_, k4, j1 - j0, (int)NR, d);
        for (dim_t p = ps; p < pe; ++p) {
            const dim_t jp = p * NR, nr = N_ - jp < NR ? N_ - jp : NR;
            panel_sums(panels + jp * k4 * 4, k4, (int)NR, nr, csum + jp);
        }
    });
}

void s8_plan_t::packed_col_sums(const void *panels, int32_t *out) const {
    if (!uk_ || N_ <= 0) return;
    const int8_t *p = static_cast<const int8_t *>(panels);
    const dim_t NR = uk_->nr, k4 = div_up(K_, 4), kfull = K_ / 4, np = div_up(N_, NR);
    parallel(nthr_ < np ? nthr_ : (int)np, [&](int ithr, int nthr) {
        dim_t ps, pe;
        balance211(np, nthr, ithr, ps, pe);
        for (dim_t q = ps; q < pe; ++q) {
            const dim_t j0 = q * NR, nr = N_ - j0 < NR ? N_ - j0 : NR;
            const int8_t *pp = p + j0 * k4 * 4;
            panel_sums(pp, kfull, (int)NR, nr, out + j0);
            if (kfull < k4) // the real rows of the last group
                for (dim_t j = 0; j < nr; ++j) {
                    uint32_t t = (uint32_t)out[j0 + j];
                    for (dim_t r = 0; r < K_ - 4 * kfull; ++r) t += (uint32_t)(int32_t)pp[(kfull * NR + j) * 4 + r];
                    out[j0 + j] = (int32_t)t;
                }
        }
    });
}

void s8_plan_t::run_block(const void *Av, dim_t lda, const int8_t *B, dim_t ldb, dim_t m0,
        dim_t m1, dim_t n0, dim_t n1, uint8_t *pa, int8_t *pb, int32_t *sums,
        const s8_epilogue_t &ep, const void *packed_b, const int32_t *packed_csum) const {
    const uint8_t *A = static_cast<const uint8_t *>(Av);
    const int MR = uk_->mr, NR = uk_->nr;
    const dim_t K = K_, k4 = div_up(K, 4);
    const uint32_t flip = a_signed_ ? 0x80808080u : 0u;
    int32_t *rsum = sums, *csum_buf = sums + mc_, *comp = sums + mc_ + nc_;
    const int32_t *csum = csum_buf;
    alignas(64) int32_t tile[s8_max_mr * s8_max_nr];
    const int8_t *bpre = static_cast<const int8_t *>(packed_b);
    // Full MR-row panels of a plain u8 A (no row sums, whole groups of 4 k)
    // are read in place by the direct kernel; the rest are packed.
    const s8_direct_fn_t direct
            = direct_a(uk_, transa_, a_signed_, row_sum_, K) ? u8s8s32_gemm_8x48__avx512vnni_direct() : nullptr;
    for (dim_t jc = n0; jc < n1; jc += nc_) {
        const dim_t nc = n1 - jc < nc_ ? n1 - jc : nc_;
        if (bpre) { // packed beforehand, column sums included or apart
            if (packed_csum)
                csum = packed_csum + jc;
            else if (col_sum_ || a_signed_)
                csum = reinterpret_cast<const int32_t *>(bpre + packed_panels_bytes()) + jc;
        } else {
            pack_b_block(transb_ ? B + jc * ldb : B + jc, ldb, transb_, K, k4, nc, NR, pb);
            if (col_sum_ || a_signed_)
                for (dim_t jr = 0; jr < nc; jr += NR)
                    panel_sums(pb + jr * k4 * 4, k4, NR, nc - jr < NR ? nc - jr : NR, csum_buf + jr);
        }
        if (a_signed_) // -128 * colsum(B), wrapping like the s32 accumulators
            for (dim_t j = 0; j < rnd_up(nc, NR); ++j)
                comp[j] = j < nc ? (int32_t)(0u - ((uint32_t)csum[j] << 7)) : 0;
        for (dim_t ic = m0; ic < m1; ic += mc_) {
            const dim_t mc = m1 - ic < mc_ ? m1 - ic : mc_;
            for (dim_t ir = 0; ir < mc; ir += MR) {
                const dim_t mr = mc - ir < MR ? mc - ir : MR;
                if (direct && mr == MR) continue;
                const uint8_t *src = transa_ ? A + ic + ir : A + (ic + ir) * lda;
                uint8_t *d = pa + ir * k4 * 4;
                pack_a_panel(src, lda, transa_, K, k4, mr, MR, flip, d);
                if (row_sum_) {
                    panel_sums(d, k4, MR, mr, rsum + ir);
                    if (a_signed_) // undo the +128 of every real k
                        for (dim_t i = 0; i < mr; ++i)
                            rsum[ir + i] = (int32_t)((uint32_t)rsum[ir + i] - ((uint32_t)K << 7));
                }
            }
            for (dim_t jr = 0; jr < nc; jr += NR) {
                const dim_t nr = nc - jr < NR ? nc - jr : NR;
                const int8_t *bp = bpre ? bpre + (jc + jr) * k4 * 4 : pb + jr * k4 * 4;
                for (dim_t ir = 0; ir < mc; ir += MR) {
                    const dim_t mr = mc - ir < MR ? mc - ir : MR;
                    if (direct && mr == MR) {
                        direct(k4, A + (ic + ir) * lda, lda, bp, nullptr, tile);
                    } else {
                        const s8_ukernel_fn_t fn = mr < MR && uk_->rows ? uk_->rows[mr] : uk_->fn;
                        fn(k4, pa + ir * k4 * 4, bp, a_signed_ ? comp + jr : nullptr, tile);
                    }
                    ep.apply(ic + ir, jc + jr, mr, nr, tile, NR, row_sum_ ? rsum + ir : nullptr,
                            col_sum_ ? csum + jr : nullptr);
                }
            }
        }
    }
}

status_t s8_plan_t::execute(const void *A, dim_t lda, const int8_t *B, dim_t ldb,
        const scratchpad::grantor_t &g, scratchpad::key_t base, const s8_epilogue_t &ep,
        const void *packed_b, const int32_t *packed_csum) const {
    if (M_ <= 0 || N_ <= 0) return status::success;
    const dim_t MR = uk_->mr, NR = uk_->nr;
    const dim_t mb = div_up(M_, MR), nb = div_up(N_, NR);
    int nthr = nthr_, nthr_m = nthr_m_, nthr_n = nthr_n_;
    if (nthr > g.nthr()) { // fewer slots granted than planned: one thread
        nthr = nthr_m = nthr_n = 1;
    }
    std::atomic<bool> oom {false};
    // Threads that split only N, on an A read in place (nothing packed per
    // column range but B's own columns), take chunks of a few panels from a
    // shared counter instead of one equal share each: a thread that runs
    // slower (the two vCPUs here differ by 15-20% on one-core runs) takes
    // fewer chunks.
    const bool chunked = nthr > 1 && nthr_m == 1 && direct_a(uk_, transa_, a_signed_, row_sum_, K_);
    const dim_t cw = chunked ? (nb / (4 * nthr) > 1 ? nb / (4 * nthr) : 1) : 1; // panels a chunk
    const dim_t chunks = chunked ? div_up(nb, cw) : 0;
    std::atomic<dim_t> next {0};
    auto chunk_body = [&](int ithr, int) {
        uint8_t *pa = g.get<uint8_t>(base + s8_key_pack_a, ithr);
        int8_t *pb = g.get<int8_t>(base + s8_key_pack_b, ithr);
        int32_t *sums = g.get<int32_t>(base + s8_key_sums, ithr);
        if (!pa || !pb || !sums) {
            oom = true;
            return;
        }
        for (dim_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) {
            const dim_t ns = c * cw * NR, ne = (c + 1) * cw * NR < N_ ? (c + 1) * cw * NR : N_;
            run_block(A, lda, B, ldb, 0, M_, ns, ne, pa, pb, sums, ep, packed_b, packed_csum);
        }
    };
    if (chunked) {
        parallel(nthr, chunk_body);
        return oom ? status::out_of_memory : status::success;
    }
    auto body = [&](int ithr, int) {
        const int im = ithr / nthr_n, in = ithr % nthr_n;
        dim_t ms, me, ns, ne;
        balance211(mb, nthr_m, im, ms, me);
        balance211(nb, nthr_n, in, ns, ne);
        ms *= MR;
        me = me * MR < M_ ? me * MR : M_;
        ns *= NR;
        ne = ne * NR < N_ ? ne * NR : N_;
        if (ms >= me || ns >= ne) return;
        uint8_t *pa = g.get<uint8_t>(base + s8_key_pack_a, ithr);
        int8_t *pb = g.get<int8_t>(base + s8_key_pack_b, ithr);
        int32_t *sums = g.get<int32_t>(base + s8_key_sums, ithr);
        if (!pa || !pb || !sums) {
            oom = true;
            return;
        }
        run_block(A, lda, B, ldb, ms, me, ns, ne, pa, pb, sums, ep, packed_b, packed_csum);
    };
    if (nthr == 1)
        body(0, 1);
    else
        parallel(nthr, body);
    return oom ? status::out_of_memory : status::success;
}

status_t s8_plan_t::execute_st(dim_t M, const void *A, dim_t lda, const int8_t *B, dim_t ldb,
        const scratchpad::grantor_t &g, scratchpad::key_t base, int ithr,
        const s8_epilogue_t &ep, const void *packed_b) const {
    if (M > M_) return status::invalid_arguments;
    if (M <= 0 || N_ <= 0) return status::success;
    uint8_t *pa = g.get<uint8_t>(base + s8_key_pack_a, ithr);
    int8_t *pb = g.get<int8_t>(base + s8_key_pack_b, ithr);
    int32_t *sums = g.get<int32_t>(base + s8_key_sums, ithr);
    if (!pa || !pb || !sums) return status::out_of_memory;
    run_block(A, lda, B, ldb, 0, M, 0, N_, pa, pb, sums, ep, packed_b, nullptr);
    return status::success;
}

} // namespace gemm
} // namespace kestrel
