#include "cpu/gemm/gemm_cvt.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cpu/gemm/gemm_bf16.hpp"
#include "cpu/gemm/kernels.hpp"
#include "cpu/isa.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {
namespace gemm {

namespace {

// Tile caps: an A panel (tile_m x tile_k, 480 KB) fills about half of a
// 1 MB L2 as the engine's packed A block does, the B panel (tile_k x
// tile_n, 512 KB) is streamed from L3 a micro-panel at a time; converting B
// once per tile_m rows of C (and A once per tile_n columns) keeps the
// conversion to a few percent of the time. 144 rows converted B three
// times as often (f16 2048^3: 0.4x f32 with the scalar conversion).
constexpr dim_t tile_m = 480, tile_n = 512, tile_k = 256;
constexpr dim_t tile_m_bf16 = 1024;
// The converting packs (pk_) keep the packed A block at tile_mc rows (the
// engine's half of L2) and loop over a tile's rows inside each K chunk, so
// tiles grow to tile_pk square: B is converted once per tile_pk rows of C
// and A once per tile_pk columns (2048^3: twice each instead of 5 and 4
// times).
constexpr dim_t tile_pk = 1024, tile_mc = 480;
constexpr double min_flops_per_thread = 32.0 * 1024;

bool is_runtime(dim_t v) { return v == DNNL_RUNTIME_DIM_VAL; }
dim_t cap(dim_t v, dim_t c) { return is_runtime(v) || v > c ? c : (v < 1 ? 1 : v); }

// Writes rows [r0, r0 + rows) x cols [c0, c0 + cols) of the matrix `op`
// views (op(A) or op(B)) as a row-major f32 panel, zero points removed.
// zp_rows: zp_v runs along rows (A) rather than columns (B).
template <typename load_t>
void convert_with(const load_t &load, const operand_t &op, bool zp_rows, dim_t r0, dim_t c0,
        dim_t rows, dim_t cols, float *out) {
    const float zp = op.zp;
    auto zp_at = [&](dim_t i) { return op.zp_v ? load_f32(op.zp_dt, op.zp_v, i) : 0.f; };
    if (!op.trans) { // element (r, c) at r * ld + c
        for (dim_t r = 0; r < rows; ++r) {
            const dim_t base = (r0 + r) * op.ld + c0;
            float *o = out + r * cols;
            const float zr = zp + (zp_rows ? zp_at(r0 + r) : 0.f);
            if (!zp_rows && op.zp_v) {
                for (dim_t c = 0; c < cols; ++c) o[c] = load(base + c) - zr - zp_at(c0 + c);
            } else {
                for (dim_t c = 0; c < cols; ++c) o[c] = load(base + c) - zr;
            }
        }
    } else { // element (r, c) at c * ld + r
        for (dim_t c = 0; c < cols; ++c) {
            const dim_t base = (c0 + c) * op.ld + r0;
            const float zc = zp + (!zp_rows ? zp_at(c0 + c) : 0.f);
            for (dim_t r = 0; r < rows; ++r)
                out[r * cols + c] = load(base + r) - zc - (zp_rows ? zp_at(r0 + r) : 0.f);
        }
    }
}

// Asks for the cache lines of bytes [p, p + n) ahead of their use.
inline void prefetch_run(const char *p, dim_t n) {
    for (dim_t i = 0; i < n; i += 64) __builtin_prefetch(p + i, 0, 2);
    if (n > 0) __builtin_prefetch(p + n - 1, 0, 2);
}

// One decompressed row: o[c] = (b[c] - z[c]) * s[c], c < n. The AVX-512
// versions widen 16 int8 values at a time; the caller checks the ISA.
template <typename wt_t>
void dq_row_plain(const wt_t *b, const float *z, const float *s, float *o, dim_t n) {
    for (dim_t c = 0; c < n; ++c) o[c] = ((float)b[c] - z[c]) * s[c];
}

template <bool is_signed>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void dq_row_avx512(
        const void *bv, const float *z, const float *s, float *o, dim_t n) {
    const char *b = static_cast<const char *>(bv);
    for (dim_t c = 0; c < n; c += 16) {
        const dim_t left = n - c;
        const __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
        // Full vectors unmasked (the masked byte load measured slower).
        const __m128i raw = left >= 16 ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(b + c))
                                       : _mm_maskz_loadu_epi8(m, b + c);
        const __m512i wide = is_signed ? _mm512_cvtepi8_epi32(raw) : _mm512_cvtepu8_epi32(raw);
        const __m512 w = _mm512_cvtepi32_ps(wide);
        const __m512 d = _mm512_sub_ps(w, _mm512_maskz_loadu_ps(m, z + c));
        _mm512_mask_storeu_ps(o + c, m, _mm512_mul_ps(d, _mm512_maskz_loadu_ps(m, s + c)));
    }
}

// s4/u4 version: 32 packed weights (16 bytes, first one in a low nibble)
// at a time, low and high nibbles interleaved back into element order.
template <bool is_signed>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void dq_row4_avx512(
        const uint8_t *b, const float *z, const float *s, float *o, dim_t n) {
    const __m128i low4 = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
    for (dim_t c = 0; c < n; c += 32) {
        const dim_t left = n - c, nbytes = left >= 32 ? 16 : (left + 1) / 2;
        const __m128i raw = nbytes == 16 ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(b + c / 2))
                                         : _mm_maskz_loadu_epi8((__mmask16)((1u << nbytes) - 1u), b + c / 2);
        const __m128i lo = _mm_and_si128(raw, low4), hi = _mm_and_si128(_mm_srli_epi16(raw, 4), low4);
        __m128i half[2] = {_mm_unpacklo_epi8(lo, hi), _mm_unpackhi_epi8(lo, hi)};
        for (int h = 0; h < 2; ++h) {
            const dim_t cnt = left - 16 * h;
            if (cnt <= 0) break;
            const __m128i v = is_signed ? _mm_sub_epi8(_mm_xor_si128(half[h], eight), eight) : half[h];
            const __mmask16 m = cnt >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << cnt) - 1u);
            const dim_t at = c + 16 * h;
            const __m512 w = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v));
            const __m512 d = _mm512_sub_ps(w, _mm512_maskz_loadu_ps(m, z + at));
            _mm512_mask_storeu_ps(o + at, m, _mm512_mul_ps(d, _mm512_maskz_loadu_ps(m, s + at)));
        }
    }
}

// n f8 codes to f32 with AVX-512, 16 at a time: widened to f16 bit
// patterns (see f8_e5m2_to_f32 / f8_e4m3_to_f32) and converted by vcvtph2ps,
// which also quiets e5m2 signalling NaNs; e4m3 is then scaled by 2^8 and its
// NaN codes (x.1111.111) replaced by a quiet NaN of the same sign.
template <bool e4m3>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void f8_row_avx512(
        const uint8_t *b, float *o, dim_t n) {
    const __m256i sign = _mm256_set1_epi16((short)0x8000), body = _mm256_set1_epi16(0x7f);
    const __m512 scale = _mm512_set1_ps(256.f), qnan = _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN());
    const __m512i sign32 = _mm512_set1_epi32((int)0x80000000u);
    for (dim_t c = 0; c < n; c += 16) {
        const dim_t left = n - c;
        const __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
        const __m256i w = _mm256_cvtepu8_epi16(_mm_maskz_loadu_epi8(m, b + c));
        if (!e4m3) {
            _mm512_mask_storeu_ps(o + c, m, _mm512_cvtph_ps(_mm256_slli_epi16(w, 8)));
            continue;
        }
        const __m256i h = _mm256_or_si256(
                _mm256_and_si256(_mm256_slli_epi16(w, 8), sign), _mm256_slli_epi16(_mm256_and_si256(w, body), 7));
        __m512 f = _mm512_mul_ps(_mm512_cvtph_ps(h), scale);
        const __mmask16 nan = _mm256_cmpeq_epi16_mask(_mm256_and_si256(w, body), body);
        const __m512 signed_nan = _mm512_castsi512_ps(
                _mm512_or_si512(_mm512_castps_si512(qnan), _mm512_and_si512(_mm512_castps_si512(f), sign32)));
        f = _mm512_mask_mov_ps(f, nan, signed_nan);
        _mm512_mask_storeu_ps(o + c, m, f);
    }
}

// f8 operands: plain rows without zero points go through the AVX-512 row
// converter when the CPU has it; everything else element by element.
template <bool e4m3>
void convert_f8(const operand_t &op, bool zp_rows, dim_t r0, dim_t c0, dim_t rows, dim_t cols, float *out) {
    const uint8_t *p = static_cast<const uint8_t *>(op.p);
    if (!op.trans && op.zp == 0.f && !op.zp_v && isa::has(isa::avx512)) {
        for (dim_t r = 0; r < rows; ++r) f8_row_avx512<e4m3>(p + (r0 + r) * op.ld + c0, out + r * cols, cols);
        return;
    }
    convert_with([p](dim_t i) { return e4m3 ? f8_e4m3_to_f32(p[i]) : f8_e5m2_to_f32(p[i]); }, op, zp_rows, r0,
            c0, rows, cols, out);
}

// Rows [k0, k0 + rows) x cols [n0, n0 + cols) of a decompressed op(B).
// `load(i)` reads element i (counted from op.p) as f32; `row(i, z, s, o, n)`
// decompresses n consecutive elements from element i. Row-major B: the
// scale and zero point of a row are gathered into f32 once per group
// (cols <= tile_n, on the stack), so the inner loop is a plain
// (b - z) * s over contiguous memory.
template <typename load_t, typename row_t>
void dequant_with(const load_t &load, const row_t &row, const operand_t &op, dim_t k0, dim_t n0, dim_t rows,
        dim_t cols, float *out) {
    const dequant_t &q = *op.dq;
    auto sc_at = [&](dim_t k, dim_t n) {
        return q.sc ? load_f32(q.sc_dt, q.sc, q.sc_off + k / q.sc_group * q.sc_ldk + n * q.sc_ldn) : 1.f;
    };
    auto zp_at = [&](dim_t k, dim_t n) {
        return q.zp ? load_f32(q.zp_dt, q.zp, q.zp_off + k / q.zp_group * q.zp_ldk + n * q.zp_ldn) : 0.f;
    };
    if (op.trans) { // element (k, n) at n * ld + k
        for (dim_t c = 0; c < cols; ++c)
            for (dim_t r = 0; r < rows; ++r)
                out[r * cols + c] = (load((n0 + c) * op.ld + k0 + r) - zp_at(k0 + r, n0 + c)) * sc_at(k0 + r, n0 + c);
        return;
    }
    float srow[tile_n], zrow[tile_n];
    dim_t sg = -1, zg = -1; // the group the gathered rows hold
    for (dim_t r = 0; r < rows; ++r) {
        const dim_t k = k0 + r;
        // A missing table is gathered (as ones / zeros) once.
        const dim_t ks = q.sc ? k / q.sc_group : 0, kz = q.zp ? k / q.zp_group : 0;
        if (ks != sg) {
            sg = ks;
            for (dim_t c = 0; c < cols; ++c) srow[c] = sc_at(k, n0 + c);
        }
        if (kz != zg) {
            zg = kz;
            for (dim_t c = 0; c < cols; ++c) zrow[c] = zp_at(k, n0 + c);
        }
        // The rows are ld apart (often a multiple of 4 KB, which the
        // hardware prefetchers do not follow): ask for a later row's run.
        if (r + 12 < rows) {
            const bool nib = op.dt == dnnl_s4 || op.dt == dnnl_u4;
            const dim_t e = (k + 12) * op.ld + n0;
            prefetch_run(static_cast<const char *>(op.p) + (nib ? (op.nib0 + e) / 2 : e), nib ? cols / 2 + 1 : cols);
        }
        row(k * op.ld + n0, zrow, srow, out + r * cols, cols);
    }
}

template <typename wt_t>
void dequant_int8(const operand_t &op, dim_t k0, dim_t n0, dim_t rows, dim_t cols, float *out) {
    const wt_t *p = static_cast<const wt_t *>(op.p);
    const bool wide = isa::has(isa::avx512);
    dequant_with([p](dim_t i) { return (float)p[i]; },
            [p, wide](dim_t i, const float *z, const float *s, float *o, dim_t n) {
                if (wide)
                    dq_row_avx512<std::is_signed<wt_t>::value>(p + i, z, s, o, n);
                else
                    dq_row_plain(p + i, z, s, o, n);
            },
            op, k0, n0, rows, cols, out);
}

template <bool is_signed>
void dequant_int4(const operand_t &op, dim_t k0, dim_t n0, dim_t rows, dim_t cols, float *out) {
    const uint8_t *p = static_cast<const uint8_t *>(op.p);
    const dim_t nib0 = op.nib0;
    const bool wide = isa::has(isa::avx512);
    auto load = [p, nib0](dim_t i) { return (float)(is_signed ? load_s4(p, nib0 + i) : load_u4(p, nib0 + i)); };
    dequant_with(load,
            [&](dim_t i, const float *z, const float *s, float *o, dim_t n) {
                dim_t a = nib0 + i, c = 0;
                if (wide && n > 0 && (a & 1)) { // start on a byte boundary
                    o[0] = (load(i) - z[0]) * s[0];
                    c = 1;
                    ++a;
                }
                if (wide) {
                    dq_row4_avx512<is_signed>(p + a / 2, z + c, s + c, o + c, n - c);
                    return;
                }
                for (; c < n; ++c) o[c] = (load(i + c) - z[c]) * s[c];
            },
            op, k0, n0, rows, cols, out);
}

// n 16-bit floats (f16, or bf16 as the high half of an f32) to f32 with
// AVX-512, 16 at a time: vcvtph2ps (which quiets signalling NaNs, as f8
// above) or a 16-bit left shift of the zero-extended code.
template <bool f16>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void half_row_avx512(
        const uint16_t *b, float *o, dim_t n) {
    dim_t c = 0;
    for (; c + 16 <= n; c += 16) {
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + c));
        _mm512_storeu_ps(o + c,
                f16 ? _mm512_cvtph_ps(h) : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)));
    }
    if (c < n) {
        const __mmask16 m = (__mmask16)((1u << (n - c)) - 1u);
        const __m256i h = _mm256_maskz_loadu_epi16(m, b + c);
        _mm512_mask_storeu_ps(o + c, m,
                f16 ? _mm512_cvtph_ps(h) : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)));
    }
}

// bf16 / f16 operands: plain rows without zero points through the AVX-512
// row converter when the CPU has it; everything else element by element.
template <bool f16>
void convert_half(const operand_t &op, bool zp_rows, dim_t r0, dim_t c0, dim_t rows, dim_t cols, float *out) {
    const uint16_t *p = static_cast<const uint16_t *>(op.p);
    if (!op.trans && op.zp == 0.f && !op.zp_v && isa::has(isa::avx512)) {
        for (dim_t r = 0; r < rows; ++r) {
            // Rows are ld apart (see dequant_with): a later row asked for.
            if (r + 12 < rows)
                prefetch_run(reinterpret_cast<const char *>(p + (r0 + r + 12) * op.ld + c0), cols * 2);
            half_row_avx512<f16>(p + (r0 + r) * op.ld + c0, out + r * cols, cols);
        }
        return;
    }
    convert_with([p](dim_t i) { return f16 ? f16_to_f32(p[i]) : bf16_to_f32(p[i]); }, op, zp_rows, r0, c0, rows,
            cols, out);
}

void convert(const operand_t &op, bool zp_rows, dim_t r0, dim_t c0, dim_t rows, dim_t cols,
        float *out) {
    if (op.dq) {
        switch (op.dt) {
            case dnnl_s8: dequant_int8<int8_t>(op, r0, c0, rows, cols, out); break;
            case dnnl_u8: dequant_int8<uint8_t>(op, r0, c0, rows, cols, out); break;
            case dnnl_s4: dequant_int4<true>(op, r0, c0, rows, cols, out); break;
            default: dequant_int4<false>(op, r0, c0, rows, cols, out); break;
        }
        return;
    }
    switch (op.dt) {
        case dnnl_bf16: convert_half<false>(op, zp_rows, r0, c0, rows, cols, out); break;
        case dnnl_f16: convert_half<true>(op, zp_rows, r0, c0, rows, cols, out); break;
        case dnnl_f8_e5m2: convert_f8<false>(op, zp_rows, r0, c0, rows, cols, out); break;
        case dnnl_f8_e4m3: convert_f8<true>(op, zp_rows, r0, c0, rows, cols, out); break;
        case dnnl_s8: {
            const int8_t *p = static_cast<const int8_t *>(op.p);
            convert_with([p](dim_t i) { return (float)p[i]; }, op, zp_rows, r0, c0, rows, cols, out);
            break;
        }
        case dnnl_u8: {
            const uint8_t *p = static_cast<const uint8_t *>(op.p);
            convert_with([p](dim_t i) { return (float)p[i]; }, op, zp_rows, r0, c0, rows, cols, out);
            break;
        }
        default: {
            const float *p = static_cast<const float *>(op.p);
            convert_with([p](dim_t i) { return p[i]; }, op, zp_rows, r0, c0, rows, cols, out);
            break;
        }
    }
}

// ------------------------------------------------------ converting packs
// Plain f16 / bf16 / f32 operands (no zero points, no decompression) are
// converted straight into the f32 microkernel's packed micro-panels
// (kernels.hpp), which that kernel then multiplies: each piece of A and B
// is read and written once, where converting into an f32 panel and having
// the engine pack that panel again touched it twice (f16 2048^3: 21% of
// the time in the two passes).
//
// A packed operand runs along a wide index u (rows i of op(A) in MR-wide
// micro-panels, columns j of op(B) in NR-wide ones) and along p (K): the
// element (u, p) is at base + u * su + p * sp of the stored operand, and
// goes to dst[u0 * k + p * W + (u - u0)] for the panel starting at u0.
// su == 1: the W values of a step p are contiguous (transposed A,
// row-major B) and are converted in place, rows outermost; sp == 1: each u
// is a contiguous run along p, converted into an L1 buffer a chunk of p
// at a time and transposed by the kernel's transposing pack.
enum src_kind_t { src_f32 = 0, src_f16 = 1, src_bf16 = 2 };

// The kind of a plain operand, or -1.
int plain_kind(const operand_t &op) {
    if (op.zp != 0.f || op.zp_v || op.dq) return -1;
    return op.dt == dnnl_f32 ? src_f32 : op.dt == dnnl_f16 ? src_f16 : op.dt == dnnl_bf16 ? src_bf16 : -1;
}

template <int S>
inline float ld_one(const void *p, dim_t i) {
    if (S == src_f32) return static_cast<const float *>(p)[i];
    const uint16_t v = static_cast<const uint16_t *>(p)[i];
    return S == src_f16 ? f16_to_f32(v) : bf16_to_f32(v);
}

template <int S>
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline __m512 ld16_avx512(
        const void *p, dim_t i, __mmask16 m) {
    if (S == src_f32) return _mm512_maskz_loadu_ps(m, static_cast<const float *>(p) + i);
    const __m256i h = _mm256_maskz_loadu_epi16(m, static_cast<const uint16_t *>(p) + i);
    return S == src_f16 ? _mm512_cvtph_ps(h) : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

template <int S>
__attribute__((target("avx2,fma,f16c"), always_inline)) inline __m256 ld8_avx2(const void *p, dim_t i) {
    if (S == src_f32) return _mm256_loadu_ps(static_cast<const float *>(p) + i);
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(static_cast<const uint16_t *>(p) + i));
    return S == src_f16 ? _mm256_cvtph_ps(h) : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

// Steps p are ld apart: the piece of step p + cvt_rows_ahead is asked for
// early (the rows come from memory or L3; 12 as convert_half).
constexpr dim_t cvt_rows_ahead = 12;

// su == 1 (see above): n values of u, k steps of p (ld apart), W-wide panels.
template <int S>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void pack_steps_avx512(
        const void *src, dim_t base, dim_t ld, dim_t k, dim_t n, int W, float *dst) {
    // Panel by panel: each panel's W-wide piece of a row (one line of f16
    // for NR = 32) is read once and the panel written in order (rows
    // outermost, every step stored to all panels kb * W floats apart: the
    // f16 loads waited on the stores, 128x768x3072 B took a quarter of the
    // time).
    const size_t esz = S == src_f32 ? 4 : 2;
    const dim_t line = 64 / (dim_t)esz;
    for (dim_t u0 = 0; u0 < n; u0 += W) {
        float *d = dst + u0 * k;
        const dim_t wl = n - u0 < W ? n - u0 : W;
        for (dim_t p = 0; p < k; ++p, d += W) {
            const dim_t row = base + p * ld + u0;
            if (p + cvt_rows_ahead < k)
                for (dim_t j = 0; j < wl; j += line)
                    __builtin_prefetch(static_cast<const char *>(src) + (row + cvt_rows_ahead * ld + j) * (dim_t)esz, 0, 2);
            for (int j = 0; j < W; j += 16) {
                const dim_t lw = wl - j, sw = W - j;
                const __mmask16 lm = lw >= 16 ? (__mmask16)0xffff : lw <= 0 ? (__mmask16)0 : (__mmask16)((1u << lw) - 1u);
                const __mmask16 sm = sw >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << sw) - 1u);
                _mm512_mask_storeu_ps(d + j, sm, ld16_avx512<S>(src, row + j, lm));
            }
        }
    }
}

template <int S>
__attribute__((target("avx2,fma,f16c"))) void pack_steps_avx2(
        const void *src, dim_t base, dim_t ld, dim_t k, dim_t n, int W, float *dst) {
    const dim_t esz = S == src_f32 ? 4 : 2;
    for (dim_t u0 = 0; u0 < n; u0 += W) { // panel by panel, as pack_steps_avx512
        float *d = dst + u0 * k;
        const dim_t w = n - u0 < W ? n - u0 : W;
        for (dim_t p = 0; p < k; ++p, d += W) {
            const dim_t row = base + p * ld + u0;
            if (p + cvt_rows_ahead < k)
                __builtin_prefetch(static_cast<const char *>(src) + (row + cvt_rows_ahead * ld) * esz, 0, 2);
            int j = 0;
            for (; j + 8 <= w; j += 8) _mm256_storeu_ps(d + j, ld8_avx2<S>(src, row + j));
            for (; j < W; ++j) d[j] = j < w ? ld_one<S>(src, row + j) : 0.f;
        }
    }
}

template <int S>
void pack_steps_plain(const void *src, dim_t base, dim_t ld, dim_t k, dim_t n, int W, float *dst) {
    for (dim_t u0 = 0; u0 < n; u0 += W) {
        float *d = dst + u0 * k;
        const dim_t w = n - u0 < W ? n - u0 : W;
        for (dim_t p = 0; p < k; ++p, d += W)
            for (int j = 0; j < W; ++j) d[j] = j < w ? ld_one<S>(src, base + p * ld + u0 + j) : 0.f;
    }
}

// n consecutive elements from element i to f32.
template <int S>
__attribute__((target("avx2,fma,f16c"))) void run_avx2(const void *src, dim_t i, float *o, dim_t n) {
    dim_t c = 0;
    for (; c + 8 <= n; c += 8) _mm256_storeu_ps(o + c, ld8_avx2<S>(src, i + c));
    for (; c < n; ++c) o[c] = ld_one<S>(src, i + c);
}

template <int S>
void run_cvt(int lvl, const void *src, dim_t i, float *o, dim_t n) {
    if (S == src_f32) {
        std::memcpy(o, static_cast<const float *>(src) + i, n * sizeof(float));
    } else if (lvl == 2) {
        half_row_avx512<S == src_f16>(static_cast<const uint16_t *>(src) + i, o, n);
    } else if (lvl == 1) {
        run_avx2<S>(src, i, o, n);
    } else {
        for (dim_t c = 0; c < n; ++c) o[c] = ld_one<S>(src, i + c);
    }
}

// The portable transposing pack (kernels.hpp's contract), for kernels
// without their own.
void transpose_plain(const float *src, dim_t ld, dim_t k, dim_t w, int W, float *dst) {
    for (dim_t p = 0; p < k; ++p)
        for (int j = 0; j < W; ++j) dst[p * W + j] = j < w ? src[j * ld + p] : 0.f;
}

constexpr dim_t cvt_chunk = 64; // p steps per L1 buffer of the transposing case
constexpr int cvt_max_w = 32;    // widest panel (MR or NR) packed here

// n values of u (su apart, each a run along p) x k steps into W-wide
// panels: chunks of cvt_chunk steps converted into buf, then transposed.
template <int S>
void pack_runs(int lvl, const void *src, dim_t base, dim_t su, dim_t k, dim_t n, int W, float *dst,
        pack_fn_t pt) {
    alignas(64) float buf[cvt_max_w * cvt_chunk];
    for (dim_t u0 = 0; u0 < n; u0 += W) {
        const dim_t w = n - u0 < W ? n - u0 : W;
        for (dim_t p0 = 0; p0 < k; p0 += cvt_chunk) {
            const dim_t kt = k - p0 < cvt_chunk ? k - p0 : cvt_chunk;
            for (dim_t j = 0; j < w; ++j) run_cvt<S>(lvl, src, base + (u0 + j) * su + p0, buf + j * kt, kt);
            pt(buf, kt, kt, w, W, dst + u0 * k + p0 * W);
        }
    }
}

// The panels of one operand (kind S): see the top of this section.
template <int S>
void pack_kind(int lvl, const void *src, dim_t base, dim_t su, dim_t sp, dim_t k, dim_t n, int W, float *dst,
        pack_fn_t pt) {
    if (su == 1 && lvl == 2) return pack_steps_avx512<S>(src, base, sp, k, n, W, dst);
    if (su == 1 && lvl == 1) return pack_steps_avx2<S>(src, base, sp, k, n, W, dst);
    if (su == 1) return pack_steps_plain<S>(src, base, sp, k, n, W, dst);
    pack_runs<S>(lvl, src, base, su, k, n, W, dst, pt);
}

void pack_cvt(int kind, int lvl, const void *src, dim_t base, dim_t su, dim_t sp, dim_t k, dim_t n, int W,
        float *dst, pack_fn_t pt) {
    switch (kind) {
        case src_f16: pack_kind<src_f16>(lvl, src, base, su, sp, k, n, W, dst, pt); break;
        case src_bf16: pack_kind<src_bf16>(lvl, src, base, su, sp, k, n, W, dst, pt); break;
        default: pack_kind<src_f32>(lvl, src, base, su, sp, k, n, W, dst, pt); break;
    }
}

// The conversion level: 2 AVX-512, 1 AVX2 with F16C, 0 plain.
int cvt_level() {
    if (isa::has(isa::avx512)) return 2;
    return isa::has_f16c() ? 1 : 0;
}

// f32 tile <-> C stored as dt (rows x cols, C at its tile origin).
void load_tile(data_type_t dt, const void *C, dim_t ldc, dim_t rows, dim_t cols, float *t) {
    for (dim_t i = 0; i < rows; ++i)
        for (dim_t j = 0; j < cols; ++j) t[i * cols + j] = load_f32(dt, C, i * ldc + j);
}

// n floats to bf16 / f16 with AVX-512, 16 at a time, bit for bit what
// f32_to_bf16 / f32_to_f16 give: bf16 rounds to nearest even in integers
// (NaNs keep their high half, quieted); f16 through vcvtps2ph (round to
// nearest even) with NaNs replaced by f32_to_f16's sign | 0x7e00.
template <bool f16>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void narrow_row_avx512(const float *t, uint16_t *c, dim_t n) {
    const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
    for (dim_t j = 0; j < n; j += 16) {
        const dim_t left = n - j;
        const __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
        const __m512i v = _mm512_castps_si512(_mm512_maskz_loadu_ps(m, t + j));
        const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(v, abs_mask), inf);
        __m256i h;
        if (f16) {
            h = _mm512_cvtps_ph(_mm512_castsi512_ps(v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            const __m256i qn = _mm256_or_si256(
                    _mm256_and_si256(_mm512_cvtepi32_epi16(_mm512_srli_epi32(v, 16)), _mm256_set1_epi16((short)0x8000)),
                    _mm256_set1_epi16(0x7e00));
            h = _mm256_mask_mov_epi16(h, nan, qn);
        } else {
            const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(v, 16), _mm512_set1_epi32(1));
            __m512i r = _mm512_srli_epi32(_mm512_add_epi32(v, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
            r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(_mm512_srli_epi32(v, 16), _mm512_set1_epi32(0x40)));
            h = _mm512_cvtepi32_epi16(r);
        }
        _mm256_mask_storeu_epi16(c + j, m, h);
    }
}

void store_tile(data_type_t dt, void *C, dim_t ldc, dim_t rows, dim_t cols, const float *t) {
    if ((dt == dnnl_bf16 || dt == dnnl_f16) && isa::has(isa::avx512)) {
        uint16_t *c = static_cast<uint16_t *>(C);
        for (dim_t i = 0; i < rows; ++i) {
            if (dt == dnnl_f16)
                narrow_row_avx512<true>(t + i * cols, c + i * ldc, cols);
            else
                narrow_row_avx512<false>(t + i * cols, c + i * ldc, cols);
        }
        return;
    }
    if (dt == dnnl_bf16) {
        uint16_t *c = static_cast<uint16_t *>(C);
        for (dim_t i = 0; i < rows; ++i)
            for (dim_t j = 0; j < cols; ++j) c[i * ldc + j] = f32_to_bf16(t[i * cols + j]);
        return;
    }
    for (dim_t i = 0; i < rows; ++i)
        for (dim_t j = 0; j < cols; ++j) store_f32(dt, C, i * ldc + j, t[i * cols + j]);
}

// ---------------------------------------------------------------- GEMV
// Weights decompression with few rows of C (the LLM decoder's M = 1): the
// weights are read once, decompressed in registers and multiplied at once,
// without an f32 panel. op(A) (at most gemv_max_m rows) is converted to f32
// rows once per call and thread; C columns go in blocks of up to 2048
// accumulated in an f32 buffer (on the stack, L1/L2-resident), each over all of K, rows k in
// stretches where the scale and zero point rows stay the same (gathered
// once per stretch). Every element is
// (b - z) * s rounded to f32 and accumulated in k order with an FMA, like
// the panel path (which adds its K chunks of 256 one after the other, so
// sums may differ in the last bits).
constexpr dim_t gemv_max_m = 4, gemv_nb = 2048;
constexpr dim_t gemv_unit = 64; // columns handed to threads

// Four vectors of weights k row, columns [n, n + cnt) (cnt <= 64), as f32.
template <data_type_t wdt>
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline void gemv_load(
        const uint8_t *row, dim_t n, dim_t cnt, __m512 w[4]) {
    if (wdt == dnnl_f16) { // plain f16 weights: vcvtph2ps
        const uint16_t *b = reinterpret_cast<const uint16_t *>(row) + n;
        #pragma GCC unroll 4
        for (int v = 0; v < 4; ++v) {
            const dim_t left = cnt - 16 * v;
            const __mmask16 m = left >= 16 ? (__mmask16)0xffff : left <= 0 ? 0 : (__mmask16)((1u << left) - 1u);
            const __m256i raw = left >= 16 ? _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + 16 * v))
                                           : _mm256_maskz_loadu_epi16(m, b + 16 * v);
            w[v] = _mm512_cvtph_ps(raw);
        }
        return;
    }
    if (wdt == dnnl_s8 || wdt == dnnl_u8) {
        const uint8_t *b = row + n;
        #pragma GCC unroll 4
        for (int v = 0; v < 4; ++v) {
            const dim_t left = cnt - 16 * v;
            const __mmask16 m = left >= 16 ? (__mmask16)0xffff : left <= 0 ? 0 : (__mmask16)((1u << left) - 1u);
            const __m128i raw = left >= 16 ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(b + 16 * v))
                                           : _mm_maskz_loadu_epi8(m, b + 16 * v);
            w[v] = _mm512_cvtepi32_ps(wdt == dnnl_s8 ? _mm512_cvtepi8_epi32(raw) : _mm512_cvtepu8_epi32(raw));
        }
        return;
    }
    // s4 / u4: byte j holds elements 2j (low nibble) and 2j + 1; n even.
    const uint8_t *b = row + n / 2;
    const dim_t nbytes = cnt >= 64 ? 32 : (cnt + 1) / 2;
    const __mmask32 m = nbytes >= 32 ? (__mmask32)0xffffffffu : (__mmask32)((1u << nbytes) - 1u);
    const __m256i raw = nbytes >= 32 ? _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b))
                                     : _mm256_maskz_loadu_epi8(m, b);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i lo = _mm256_and_si256(raw, low4), hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), low4);
    __m256i e0 = _mm256_unpacklo_epi8(lo, hi), e1 = _mm256_unpackhi_epi8(lo, hi); // lanes: 0-15|32-47, 16-31|48-63
    if (wdt == dnnl_s4) {
        const __m256i eight = _mm256_set1_epi8(8);
        e0 = _mm256_sub_epi8(_mm256_xor_si256(e0, eight), eight);
        e1 = _mm256_sub_epi8(_mm256_xor_si256(e1, eight), eight);
    }
    w[0] = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm256_castsi256_si128(e0)));
    w[1] = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm256_castsi256_si128(e1)));
    w[2] = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm256_extracti128_si256(e0, 1)));
    w[3] = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm256_extracti128_si256(e1, 1)));
}

// Rows [k, k + R) into acc (MB rows of gemv_nb floats) over columns
// [n, n + cnt) with the stretch's scales s and zero points z: each weight
// row read as a contiguous run, each accumulator loaded and stored once per
// R rows, the lines of the next R rows prefetched a step ahead (they are
// gemv_nb apart, beyond what the hardware prefetchers follow).
template <data_type_t wdt, int MB, int R>
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline void gemv_step(const uint8_t *b,
        dim_t ldb_bytes, dim_t n, dim_t cnt, dim_t k, dim_t kend, const float *a, dim_t K, const float *sv,
        const float *zv, float *acc) {
    constexpr bool nib = wdt == dnnl_s4 || wdt == dnnl_u4;
    __m512 am[R][MB];
    #pragma GCC unroll 4
    for (int i = 0; i < R; ++i)
        #pragma GCC unroll 4
        for (int m = 0; m < MB; ++m) am[i][m] = _mm512_set1_ps(a[m * K + k + i]);
    const bool pf = k + 5 * R <= kend;
    for (dim_t c = 0; c < cnt; c += 64) {
        const dim_t c64 = cnt - c < 64 ? cnt - c : 64;
        __m512 w[R][4];
        #pragma GCC unroll 4
        for (int i = 0; i < R; ++i) {
            const uint8_t *row = b + (k + i) * ldb_bytes;
            if (pf)
                _mm_prefetch(reinterpret_cast<const char *>(
                                     row + 4 * R * ldb_bytes + (nib ? (n + c) / 2 : wdt == dnnl_f16 ? 2 * (n + c) : n + c)),
                        _MM_HINT_T0);
            // f16 rows are two lines per 64 columns.
            if (pf && wdt == dnnl_f16)
                _mm_prefetch(reinterpret_cast<const char *>(row + 4 * R * ldb_bytes + 2 * (n + c) + 64), _MM_HINT_T0);
            gemv_load<wdt>(row, n + c, c64, w[i]);
        }
        #pragma GCC unroll 4
        for (int v = 0; v < 4 && wdt != dnnl_f16; ++v) { // f16: no scales or zero points
            const __m512 z = _mm512_load_ps(zv + c + 16 * v), s = _mm512_load_ps(sv + c + 16 * v);
            #pragma GCC unroll 4
            for (int i = 0; i < R; ++i) w[i][v] = _mm512_mul_ps(_mm512_sub_ps(w[i][v], z), s);
        }
        #pragma GCC unroll 4
        for (int m = 0; m < MB; ++m)
            #pragma GCC unroll 4
            for (int v = 0; v < 4; ++v) {
                float *p = acc + m * gemv_nb + c + 16 * v;
                __m512 x = _mm512_load_ps(p);
                #pragma GCC unroll 4
                for (int i = 0; i < R; ++i) x = _mm512_fmadd_ps(am[i][m], w[i][v], x);
                _mm512_store_ps(p, x);
            }
    }
}

template <data_type_t wdt, int MB>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void gemv_stretch(const uint8_t *b, dim_t ldb_bytes,
        dim_t n, dim_t cnt, dim_t k0, dim_t k1, const float *a, dim_t K, const float *sv, const float *zv,
        float *acc) {
    dim_t k = k0;
    for (; k + 4 <= k1; k += 4) gemv_step<wdt, MB, 4>(b, ldb_bytes, n, cnt, k, K, a, K, sv, zv, acc);
    for (; k < k1; ++k) gemv_step<wdt, MB, 1>(b, ldb_bytes, n, cnt, k, K, a, K, sv, zv, acc);
}

// C rows [m_off, m_off + MB) x columns [j0, j1) (j0 a multiple of 64) of
// the product; a: those rows of op(A) as MB f32 rows of K.
template <data_type_t wdt, int MB>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void gemv_rows(const operand_t &B, dim_t K, const float *a,
        float alpha, float beta, void *C, data_type_t c_dt, dim_t ldc, dim_t m_off, dim_t j0, dim_t j1,
        const epilogue_t *ep) {
    static const dequant_t no_tables; // plain f16 weights
    const dequant_t &q = B.dq ? *B.dq : no_tables;
    const uint8_t *b = static_cast<const uint8_t *>(B.p);
    const dim_t ldb_bytes = wdt == dnnl_s8 || wdt == dnnl_u8 ? B.ld : wdt == dnnl_f16 ? 2 * B.ld : B.ld / 2;
    if (wdt == dnnl_s4 || wdt == dnnl_u4) b += B.nib0 / 2; // nib0 even (checked by the caller)
    alignas(64) float sv[gemv_nb], zv[gemv_nb], acc[MB * gemv_nb];
    const size_t c_sz = data_type_size(c_dt);
    for (dim_t n = j0; n < j1; n += gemv_nb) {
        const dim_t cnt = j1 - n < gemv_nb ? j1 - n : gemv_nb, cpad = rnd_up(cnt, 64);
        for (dim_t i = 0; i < MB * gemv_nb; ++i) acc[i] = 0.f;
        dim_t k = 0;
        while (k < K) {
            // A missing table never changes: no stretch boundary.
            const dim_t sg = q.sc ? k / q.sc_group : 0, zg = q.zp ? k / q.zp_group : 0;
            dim_t k1 = q.sc ? (sg + 1) * q.sc_group : K;
            const dim_t kz = q.zp ? (zg + 1) * q.zp_group : K;
            if (kz < k1) k1 = kz;
            if (k1 > K) k1 = K;
            for (dim_t c = 0; c < cpad; ++c) {
                const bool in = c < cnt;
                sv[c] = !in ? 0.f : q.sc ? load_f32(q.sc_dt, q.sc, q.sc_off + sg * q.sc_ldk + (n + c) * q.sc_ldn) : 1.f;
                zv[c] = !in || !q.zp ? 0.f : load_f32(q.zp_dt, q.zp, q.zp_off + zg * q.zp_ldk + (n + c) * q.zp_ldn);
            }
            gemv_stretch<wdt, MB>(b, ldb_bytes, n, cnt, k, k1, a, K, sv, zv, acc);
            k = k1;
        }
        for (int m = 0; m < MB; ++m)
            for (dim_t c = 0; c < cnt; ++c) {
                float r = alpha * acc[m * gemv_nb + c];
                if (beta != 0.f) r += beta * load_f32(c_dt, C, (m_off + m) * ldc + n + c);
                acc[m * gemv_nb + c] = r;
            }
        if (ep) ep->apply(m_off, n, MB, cnt, acc, gemv_nb);
        for (int m = 0; m < MB; ++m) {
            if (c_dt == dnnl_f32) {
                std::memcpy(static_cast<char *>(C) + ((m_off + m) * ldc + n) * c_sz, acc + m * gemv_nb,
                        cnt * sizeof(float));
                continue;
            }
            for (dim_t c = 0; c < cnt; ++c) store_f32(c_dt, C, (m_off + m) * ldc + n + c, acc[m * gemv_nb + c]);
        }
    }
}

template <data_type_t wdt>
void gemv_cols(const operand_t &B, dim_t M, dim_t K, const float *a, float alpha, float beta, void *C,
        data_type_t c_dt, dim_t ldc, dim_t j0, dim_t j1, const epilogue_t *ep) {
    for (dim_t m0 = 0; m0 < M; m0 += gemv_max_m) {
        const float *am = a + m0 * K;
        switch (M - m0 < gemv_max_m ? M - m0 : gemv_max_m) {
            case 1: gemv_rows<wdt, 1>(B, K, am, alpha, beta, C, c_dt, ldc, m0, j0, j1, ep); break;
            case 2: gemv_rows<wdt, 2>(B, K, am, alpha, beta, C, c_dt, ldc, m0, j0, j1, ep); break;
            case 3: gemv_rows<wdt, 3>(B, K, am, alpha, beta, C, c_dt, ldc, m0, j0, j1, ep); break;
            default: gemv_rows<wdt, 4>(B, K, am, alpha, beta, C, c_dt, ldc, m0, j0, j1, ep); break;
        }
    }
}

// Forwards tile-local coordinates to the caller's epilogue as C-global ones.
struct shifted_ep_t : epilogue_t {
    const epilogue_t *inner;
    dim_t m_off, n_off;
    shifted_ep_t(const epilogue_t *e, dim_t m, dim_t n) : inner(e), m_off(m), n_off(n) {}
    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, float *c, dim_t ldc) const override {
        inner->apply(m_off + m0, n_off + n0, m, n, c, ldc);
    }
};

} // namespace

status_t cvt_plan_t::init(dim_t M, dim_t N, dim_t K, data_type_t a_dt, bool transa,
        data_type_t b_dt, bool transb, data_type_t c_dt, bool with_zp, int nthr, bool bf16_weights) {
    for (dim_t v : {M, N, K})
        if (v < 0 && !is_runtime(v)) return status::invalid_arguments;
    c_dt_ = c_dt;
    cvt_a_ = a_dt != dnnl_f32 || with_zp;
    cvt_b_ = b_dt != dnnl_f32 || with_zp;
    tm_ = cap(M, tile_m);
    tn_ = cap(N, tile_n);
    tk_ = cap(K, tile_k);
    kfull_ = is_runtime(K) ? std::numeric_limits<dim_t>::max() : K;
    nthr_ = nthr > 0 ? nthr : max_threads();
    bf16_dot_ = a_dt == dnnl_bf16 && b_dt == dnnl_bf16 && !with_zp && bf16_dot_available();
    const bool int_w = b_dt == dnnl_s8 || b_dt == dnnl_u8 || b_dt == dnnl_s4 || b_dt == dnnl_u4;
    wdec_dot_ = bf16_weights && int_w && a_dt == dnnl_bf16 && !with_zp && bf16_dot_available();
    // The dot paths pack B once per tile row and K chunk straight from B's
    // rows (no f32 panel to keep small): taller tiles read B from memory
    // fewer times (2048^3: 2 instead of 5).
    if (bf16_dot_ || wdec_dot_) tm_ = cap(M, tile_m_bf16);
    gemv_a_ = 0;
    // Plain f16 weights take the GEMV too (half the bytes of f32 ones).
    const bool f16_w = b_dt == dnnl_f16 && !with_zp
            && (a_dt == dnnl_f32 || a_dt == dnnl_f16 || a_dt == dnnl_bf16);
    if ((int_w || f16_w) && !transb && !is_runtime(K) && K > 0 && isa::has(isa::avx512)) {
        const dim_t mm = is_runtime(M) ? gemv_max_m : M;
        if (mm <= gemv_max_m) gemv_a_ = mm * K;
    }
    // Plain f16 / bf16 (with f32) operands are packed for the f32 kernel
    // while converting (see "converting packs").
    auto plain = [](data_type_t dt) { return dt == dnnl_f32 || dt == dnnl_f16 || dt == dnnl_bf16; };
    uk_ = f32_kernel();
    pk_ = !with_zp && (cvt_a_ || cvt_b_) && plain(a_dt) && plain(b_dt) && uk_ && uk_->mr <= cvt_max_w
            && uk_->nr <= cvt_max_w;
    if (pk_ && !bf16_dot_) {
        tm_ = cap(M, tile_pk);
        tn_ = cap(N, tile_pk);
    }
    const dim_t rt = DNNL_RUNTIME_DIM_VAL;
    // Tiles vary in size, so the inner plan takes its sizes per call.
    return inner_.init(rt, rt, rt, cvt_a_ ? false : transa, cvt_b_ ? false : transb, 1);
}

void cvt_plan_t::book(scratchpad::registry_t &reg, scratchpad::key_t base) const {
    inner_.book(reg, base + key_inner);
    size_t a_bytes = (size_t)tm_ * tk_ * sizeof(float), b_bytes = (size_t)tk_ * tn_ * sizeof(float);
    if (bf16_dot_ || wdec_dot_) {
        a_bytes = std::max(a_bytes, bf16_pack_a_bytes(tm_, tk_));
        // The dot path takes K whole (bf16_dot_tile chunks it itself).
        b_bytes = std::max(b_bytes, bf16_pack_b_bytes(kfull_, tn_));
    }
    if (gemv_a_ > 0) a_bytes = std::max(a_bytes, (size_t)gemv_a_ * sizeof(float));
    if (pk_) { // whole micro-panels
        a_bytes = std::max(a_bytes, (size_t)rnd_up(std::min(tm_, tile_mc), uk_->mr) * tk_ * sizeof(float));
        b_bytes = std::max(b_bytes, (size_t)rnd_up(tn_, uk_->nr) * tk_ * sizeof(float));
    }
    if (cvt_a_ || gemv_a_ > 0 || pk_) reg.book_per_thread(base + key_a, a_bytes);
    if (cvt_b_ || pk_) reg.book_per_thread(base + key_b, b_bytes);
    if (c_dt_ != dnnl_f32) reg.book_per_thread(base + key_c, (size_t)tm_ * tn_ * sizeof(float));
}

status_t cvt_plan_t::run_tiles(dim_t M, dim_t N, dim_t K, float alpha, const operand_t &A,
        const operand_t &B, float beta, void *C, dim_t ldc, const scratchpad::grantor_t &g,
        scratchpad::key_t base, int ithr, dim_t t0, dim_t t1, dim_t tm, dim_t tn,
        const epilogue_t *ep) const {
    float *pa = cvt_a_ || pk_ ? g.get<float>(base + key_a, ithr) : nullptr;
    float *pb = cvt_b_ || pk_ ? g.get<float>(base + key_b, ithr) : nullptr;
    float *pc = c_dt_ != dnnl_f32 ? g.get<float>(base + key_c, ithr) : nullptr;
    if (((cvt_a_ || pk_) && !pa) || ((cvt_b_ || pk_) && !pb) || (c_dt_ != dnnl_f32 && !pc))
        return status::out_of_memory;
    // Plain operands packed while converting, for tiles the skinny kernels
    // would not take (those keep the f32 panels below).
    const int kind_a = plain_kind(A), kind_b = plain_kind(B);
    const bool pk = pk_ && kind_a >= 0 && kind_b >= 0 && K > 0;
    const int lvl = pk ? cvt_level() : 0;
    const pack_fn_t pt = pk && uk_->pack_transposing ? uk_->pack_transposing : transpose_plain;
    const size_t c_sz = data_type_size(c_dt_);
    const dim_t ntn = div_up(N, tn);
    // Plain bf16 operands (no zero points, no decompression) skip the f32
    // panels.
    const bool dot = bf16_dot_ && A.dt == dnnl_bf16 && B.dt == dnnl_bf16 && A.zp == 0.f && !A.zp_v
            && B.zp == 0.f && !B.zp_v && !B.dq;
    // Compressed weights with a plain bf16 A: B decompressed into the
    // bf16 panels.
    const bool wdot = wdec_dot_ && A.dt == dnnl_bf16 && A.zp == 0.f && !A.zp_v && B.dq
            && (B.dt == dnnl_s8 || B.dt == dnnl_u8 || B.dt == dnnl_s4 || B.dt == dnnl_u4);
    const bf16_block_t ab {static_cast<const uint16_t *>(A.p), A.ld, A.trans};
    const bf16_block_t bb {static_cast<const uint16_t *>(B.p), B.ld, B.trans};
    for (dim_t t = t0; t < t1; ++t) {
        const dim_t m0 = (t / ntn) * tm, n0 = (t % ntn) * tn;
        const dim_t mb = M - m0 < tm ? M - m0 : tm, nb = N - n0 < tn ? N - n0 : tn;
        char *c_org = static_cast<char *>(C) + (m0 * ldc + n0) * c_sz;
        float *Cf = pc ? pc : reinterpret_cast<float *>(c_org);
        const dim_t ldcf = pc ? nb : ldc;
        if (pc && beta != 0.f) load_tile(c_dt_, c_org, ldc, mb, nb, pc);
        const shifted_ep_t sep(ep, m0, n0);
        dim_t k0 = 0;
        if (dot || wdot) {
            // A bf16 C without an epilogue takes the kernel's last stores
            // directly (no f32 tile to narrow afterwards).
            uint16_t *c16 = pc && !ep && c_dt_ == dnnl_bf16 && K > 0 ? reinterpret_cast<uint16_t *>(c_org) : nullptr;
            uint32_t *pa32 = reinterpret_cast<uint32_t *>(pa), *pb32 = reinterpret_cast<uint32_t *>(pb);
            if (wdot)
                bf16_dot_tile_dq(mb, nb, K, alpha, ab, m0, B, n0, beta, Cf, ldcf, pa32, pb32, c16, ldc);
            else
                bf16_dot_tile(mb, nb, K, alpha, ab, m0, 0, bb, n0, beta, Cf, ldcf, pa32, pb32, c16, ldc);
            if (ep) sep.apply(0, 0, mb, nb, Cf, ldcf);
            if (pc && !c16) store_tile(c_dt_, c_org, ldc, mb, nb, pc);
            continue;
        }
        if (pk && mb > skinny_max_m && nb > skinny_max_m) {
            const int MR = uk_->mr, NR = uk_->nr;
            // Element (u, p) at base + u * su + p * sp (see pack_steps / pack_runs).
            const dim_t a_su = A.trans ? 1 : A.ld, a_sp = A.trans ? A.ld : 1;
            const dim_t b_su = B.trans ? B.ld : 1, b_sp = B.trans ? 1 : B.ld;
            for (; k0 < K; k0 += tk_) {
                const dim_t kb = K - k0 < tk_ ? K - k0 : tk_;
                pack_cvt(kind_b, lvl, B.p, k0 * b_sp + n0 * b_su, b_su, b_sp, kb, nb, NR, pb, pt);
                const float bk = k0 == 0 ? beta : 1.f;
                const bool last = k0 + kb >= K;
                for (dim_t ic = 0; ic < mb; ic += tile_mc) { // A blocks of tile_mc rows
                    const dim_t mc = mb - ic < tile_mc ? mb - ic : tile_mc;
                    pack_cvt(kind_a, lvl, A.p, (m0 + ic) * a_su + k0 * a_sp, a_su, a_sp, kb, mc, MR, pa, pt);
                    for (dim_t jr = 0; jr < nb; jr += NR) {
                        const dim_t nr = nb - jr < NR ? nb - jr : NR;
                        for (dim_t ir = 0; ir < mc; ir += MR) {
                            const dim_t mr = mc - ir < MR ? mc - ir : MR;
                            float *c = Cf + (ic + ir) * ldcf + jr;
                            uk_->fn[mr](kb, alpha, pa + ir * kb, pb + jr * kb, bk, c, ldcf, nr);
                            if (last && ep) sep.apply(ic + ir, jr, mr, nr, c, ldcf);
                        }
                    }
                }
            }
            if (pc) store_tile(c_dt_, c_org, ldc, mb, nb, pc);
            continue;
        }
        do {
            const dim_t kb = K - k0 < tk_ ? K - k0 : tk_;
            const float *Ap, *Bp;
            dim_t lda, ldb;
            if (cvt_a_) {
                convert(A, true, m0, k0, mb, kb, pa);
                Ap = pa;
                lda = kb;
            } else {
                const float *a = static_cast<const float *>(A.p);
                Ap = A.trans ? a + k0 * A.ld + m0 : a + m0 * A.ld + k0;
                lda = A.ld;
            }
            if (cvt_b_) {
                convert(B, false, k0, n0, kb, nb, pb);
                Bp = pb;
                ldb = nb;
            } else {
                const float *b = static_cast<const float *>(B.p);
                Bp = B.trans ? b + n0 * B.ld + k0 : b + k0 * B.ld + n0;
                ldb = B.ld;
            }
            const bool last = k0 + kb >= K;
            KESTREL_CHECK(inner_.execute_st(mb, nb, kb, alpha, Ap, lda, Bp, ldb, k0 == 0 ? beta : 1.f,
                    Cf, ldcf, g, base + key_inner, ithr, last && ep ? &sep : nullptr));
            k0 += kb;
        } while (k0 < K);
        if (pc) store_tile(c_dt_, c_org, ldc, mb, nb, pc);
    }
    return status::success;
}

bool cvt_plan_t::use_gemv(dim_t M, dim_t K, const operand_t &B) const {
    if (gemv_a_ <= 0 || M > gemv_max_m || K <= 0 || M * K > gemv_a_ || B.trans) return false;
    if (B.dt == dnnl_f16) return !B.dq && B.zp == 0.f && !B.zp_v;
    if (!B.dq) return false;
    if (B.dt == dnnl_s4 || B.dt == dnnl_u4) return B.ld % 2 == 0 && B.nib0 % 2 == 0;
    return B.dt == dnnl_s8 || B.dt == dnnl_u8;
}

status_t cvt_plan_t::run_gemv(dim_t M, dim_t N, dim_t K, float alpha, const operand_t &A, const operand_t &B,
        float beta, void *C, dim_t ldc, const scratchpad::grantor_t &g, scratchpad::key_t base, int ithr,
        dim_t j0, dim_t j1, const epilogue_t *ep) const {
    (void)N;
    float *pa = g.get<float>(base + key_a, ithr);
    if (!pa) return status::out_of_memory;
    convert(A, true, 0, 0, M, K, pa);
    switch (B.dt) {
        case dnnl_s8: gemv_cols<dnnl_s8>(B, M, K, pa, alpha, beta, C, c_dt_, ldc, j0, j1, ep); break;
        case dnnl_u8: gemv_cols<dnnl_u8>(B, M, K, pa, alpha, beta, C, c_dt_, ldc, j0, j1, ep); break;
        case dnnl_s4: gemv_cols<dnnl_s4>(B, M, K, pa, alpha, beta, C, c_dt_, ldc, j0, j1, ep); break;
        case dnnl_f16: gemv_cols<dnnl_f16>(B, M, K, pa, alpha, beta, C, c_dt_, ldc, j0, j1, ep); break;
        default: gemv_cols<dnnl_u4>(B, M, K, pa, alpha, beta, C, c_dt_, ldc, j0, j1, ep); break;
    }
    return status::success;
}

status_t cvt_plan_t::execute_st(dim_t M, dim_t N, dim_t K, float alpha, const operand_t &A,
        const operand_t &B, float beta, void *C, dim_t ldc, const scratchpad::grantor_t &g,
        scratchpad::key_t base, int ithr, const epilogue_t *ep) const {
    if (M <= 0 || N <= 0) return status::success;
    if (use_gemv(M, K, B)) return run_gemv(M, N, K, alpha, A, B, beta, C, ldc, g, base, ithr, 0, N, ep);
    const dim_t ntiles = div_up(M, tm_) * div_up(N, tn_);
    return run_tiles(M, N, K, alpha, A, B, beta, C, ldc, g, base, ithr, 0, ntiles, tm_, tn_, ep);
}

status_t cvt_plan_t::execute(dim_t M, dim_t N, dim_t K, float alpha, const operand_t &A,
        const operand_t &B, float beta, void *C, dim_t ldc, const scratchpad::grantor_t &g,
        scratchpad::key_t base, const epilogue_t *ep) const {
    if (M <= 0 || N <= 0) return status::success;
    int nthr = nthr_ < g.nthr() ? nthr_ : g.nthr();
    const double flops = (double)M * N * (K > 0 ? K : 1);
    if (flops < min_flops_per_thread * nthr) nthr = (int)(flops / min_flops_per_thread);
    if (nthr < 1) nthr = 1;
    if (use_gemv(M, K, B)) { // threads take blocks of gemv_unit columns
        const dim_t units = div_up(N, gemv_unit);
        if (units < nthr) nthr = (int)units;
        if (nthr <= 1) return run_gemv(M, N, K, alpha, A, B, beta, C, ldc, g, base, 0, 0, N, ep);
        std::atomic<bool> oom {false};
        parallel(nthr, [&](int ithr, int n) {
            dim_t u0, u1;
            balance211(units, n, ithr, u0, u1);
            if (u0 >= u1) return;
            const dim_t e = u1 * gemv_unit < N ? u1 * gemv_unit : N;
            if (run_gemv(M, N, K, alpha, A, B, beta, C, ldc, g, base, ithr, u0 * gemv_unit, e, ep) != status::success)
                oom = true;
        });
        return oom ? status::out_of_memory : status::success;
    }
    // Threads take whole tiles, so each side is cut into equal tiles (1000
    // rows as 336 + 336 + 328, not 480 + 480 + 40, which gave the first of
    // two threads 72% of an inner product's weights gradient), and the
    // longer tile side is cut again until every thread has a tile and the
    // count divides among the threads (3 tiles on 2 threads run 2:1) or is
    // large enough for the remainder not to matter. Sides stay multiples
    // of 16 (down to 16) within the booked tm_ x tn_.
    dim_t tm = tm_, tn = tn_;
    if (nthr > 1) {
        auto side = [](dim_t v, dim_t parts, dim_t booked) {
            const dim_t t = rnd_up(div_up(v, parts), 16);
            return t < booked ? t : booked;
        };
        dim_t ntm = div_up(M, tm_), ntn = div_up(N, tn_);
        for (;;) {
            tm = side(M, ntm, tm_);
            tn = side(N, ntn, tn_);
            const dim_t nt = div_up(M, tm) * div_up(N, tn);
            if (nt >= nthr && (nt % nthr == 0 || nt >= 4 * (dim_t)nthr)) break;
            if (tn >= tm && tn > 16)
                ++ntn;
            else if (tm > 16)
                ++ntm;
            else if (tn > 16)
                ++ntn;
            else
                break;
        }
    }
    const dim_t ntiles = div_up(M, tm) * div_up(N, tn);
    if (ntiles < nthr) nthr = (int)ntiles;
    if (nthr <= 1) return run_tiles(M, N, K, alpha, A, B, beta, C, ldc, g, base, 0, 0, ntiles, tm, tn, ep);
    std::atomic<bool> oom {false};
    parallel(nthr, [&](int ithr, int n) {
        dim_t t0, t1;
        balance211(ntiles, n, ithr, t0, t1);
        if (run_tiles(M, N, K, alpha, A, B, beta, C, ldc, g, base, ithr, t0, t1, tm, tn, ep) != status::success)
            oom = true;
    });
    return oom ? status::out_of_memory : status::success;
}

} // namespace gemm
} // namespace kestrel
