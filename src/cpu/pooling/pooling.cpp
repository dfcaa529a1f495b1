// Pooling forward: a reference implementation for any layout and a fast one
// for channel-innermost layouts (nhwc, nChw8c, nChw16c), vectorised over
// channels through vec_ops_t (max and avg pooling on AVX-512 and AVX2:
// register kernels, chan_row_avx512 / chan_row_avx2; 3x3 stride-2 windows
// two output rows at a time on AVX-512, chan_pair_row_avx512). Plain
// channel-first layouts have their own
// (pooling_ncsp.cpp), vectorised along output rows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/pooling/pooling_pd.hpp"
#include "cpu/isa.hpp"
#include "cpu/post_ops.hpp"
#include "cpu/simd.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Logical index of (n, c, d, h, w) for a tensor with `nd` dims.
inline void make_pos(dim_t *pos, int nd, dim_t n, dim_t c, dim_t d, dim_t h, dim_t w) {
    pos[0] = n;
    pos[1] = c;
    if (nd == 5) pos[2] = d;
    if (nd >= 4) pos[nd - 2] = h;
    pos[nd - 1] = w;
}

inline void store_idx(void *ws, data_type_t dt, dim_t off, int32_t k) {
    if (dt == dnnl_u8)
        static_cast<uint8_t *>(ws)[off] = (uint8_t)k;
    else
        static_cast<int32_t *>(ws)[off] = k;
}


// Pooling with the same storage type in src and dst (f32 or bf16), one
// output row (fixed n, channel block, od, oh) at a time, a 16-channel vector
// per output point, accumulated in AVX-512 registers and written straight
// to dst (and the workspace) from them. Max: every stored value is one of
// the inputs or max_init, exact in the dst type; the first greatest tap wins
// (strict >, kd, kh, kw order), as in the reference. Avg: the taps are added
// in the reference's order from 0 and the sum divided (not multiplied by a
// reciprocal) by the same divisor, so f32 results equal the reference's bit
// for bit and bf16 ones round once, to nearest even.
struct chan_row_t {
    const char *src; // src at (n, channel block, 0, 0, 0)
    char *dst, *ws; // dst and workspace at (n, channel block, od, oh, 0)
    bool ws_s32;
    bool excl; // avg: divide by the taps inside the src, else by KD * KH * KW
    dim_t C; // channels in one contiguous run
    dim_t kd0, kd1, kh0, kh1; // valid kernel rows of this output row
    dim_t id0, ih0; // first input depth / row of the window
    dim_t sd, sh, sw; // src byte strides
    dim_t dsw, wsw; // dst and workspace byte strides along ow
    dim_t KH, KW, SW, DD1, DH1, DW1, padL, IW, KSZ;
    float init;
    bool nt; // a large f32 dst of aligned 64-byte lines: non-temporal stores (pair kernel)
};

enum class pool_op_t { max, avg };

// Prefetches n columns, step bytes apart, from `ahead` bytes past p. The
// addresses are formed as integers, as they may lie past the row.
inline void prefetch_cols(const char *p, dim_t ahead, dim_t n, dim_t step) {
    for (dim_t m = 0; m < n; ++m)
        _mm_prefetch((const char *)((uintptr_t)p + (uintptr_t)(ahead + m * step)), _MM_HINT_T0);
}

#define KESTREL_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

template <bool BF>
KESTREL_AVX512 inline __m512 chan_ld(const char *p, __mmask16 m) {
    if (BF)
        return _mm512_castsi512_ps(
                _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
    return _mm512_maskz_loadu_ps(m, p);
}

// f32 -> bf16 bits, rounded to nearest even, NaN kept quiet (f32_to_bf16
// in cpu/types.hpp, 16 lanes at a time).
KESTREL_AVX512 inline __m256i chan_to_bf16(__m512 v) {
    const __m512i b = _mm512_castps_si512(v);
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(b, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(b, 16), _mm512_set1_epi32(0x40));
    return _mm512_cvtepi32_epi16(r);
}

// NC columns from ow, channels [c0, c0 + 16) under mask m, kernel taps
// [kw0, kw1) along w (all of them for NC > 1: interior columns only).
template <bool BF, pool_op_t OP, bool WS, int NC>
KESTREL_AVX512 inline void chan_cols_avx512(
        const chan_row_t &r, dim_t ow, dim_t kw0, dim_t kw1, dim_t c0, __mmask16 m) {
    constexpr bool MAX = OP == pool_op_t::max;
    const dim_t esz = BF ? 2 : 4;
    __m512 acc[NC];
    __m512i idx[NC];
#pragma GCC unroll 8
    for (int j = 0; j < NC; ++j) {
        acc[j] = MAX ? _mm512_set1_ps(r.init) : _mm512_setzero_ps();
        idx[j] = _mm512_setzero_si512();
    }
    const char *base = r.src + c0 * esz + (ow * r.SW - r.padL) * r.sw;
    const dim_t col = r.SW * r.sw, tap = r.DW1 * r.sw;
    for (dim_t kd = r.kd0; kd < r.kd1; ++kd)
        for (dim_t kh = r.kh0; kh < r.kh1; ++kh) {
            const char *p = base + (r.id0 + kd * r.DD1) * r.sd + (r.ih0 + kh * r.DH1) * r.sh;
            const int32_t kb = (int32_t)((kd * r.KH + kh) * r.KW);
            // Four blocks of columns ahead (the hardware prefetchers lose
            // track of the KD * KH interleaved row streams), every column
            // the next block reads, not only the first of each window.
            if (NC > 1) prefetch_cols(p, 4 * NC * col, NC * r.SW, r.sw);
            for (dim_t kw = kw0; kw < kw1; ++kw) {
                const char *q = p + kw * tap;
                const __m512i kv = _mm512_set1_epi32(kb + (int32_t)kw);
#pragma GCC unroll 8
                for (int j = 0; j < NC; ++j) {
                    const __m512 v = chan_ld<BF>(q + j * col, m);
                    if (MAX && !WS) {
                        // vmaxps returns its second operand when either is
                        // NaN: acc, never NaN, as the strict > keeps it.
                        acc[j] = _mm512_max_ps(v, acc[j]);
                    } else if (MAX) {
                        const __mmask16 gt = _mm512_cmp_ps_mask(v, acc[j], _CMP_GT_OQ);
                        acc[j] = _mm512_mask_mov_ps(acc[j], gt, v);
                        if (WS) idx[j] = _mm512_mask_mov_epi32(idx[j], gt, kv);
                    } else {
                        acc[j] = _mm512_add_ps(acc[j], v);
                    }
                }
            }
        }
    if (!MAX) {
        const dim_t div = r.excl ? (r.kd1 - r.kd0) * (r.kh1 - r.kh0) * (kw1 - kw0) : r.KSZ;
        const __m512 vd = _mm512_set1_ps((float)div);
#pragma GCC unroll 8
        for (int j = 0; j < NC; ++j) acc[j] = div ? _mm512_div_ps(acc[j], vd) : _mm512_setzero_ps();
    }
#pragma GCC unroll 8
    for (int j = 0; j < NC; ++j) {
        char *d = r.dst + (ow + j) * r.dsw + c0 * esz;
        if (BF && MAX) // truncation is exact: every value came from bf16
            _mm256_mask_storeu_epi16(
                    d, m, _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_castps_si512(acc[j]), 16)));
        else if (BF)
            _mm256_mask_storeu_epi16(d, m, chan_to_bf16(acc[j]));
        else
            _mm512_mask_storeu_ps(d, m, acc[j]);
        if (WS) {
            char *w = r.ws + (ow + j) * r.wsw;
            if (r.ws_s32)
                _mm512_mask_storeu_epi32(w + c0 * 4, m, idx[j]);
            else
                _mm512_mask_cvtepi32_storeu_epi8(w + c0, m, idx[j]);
        }
    }
}

// Columns [ow_b, ow_e) of one row, channels in chunks of 16 (the last one
// masked); [lo, hi) are the interior columns, whose windows need no checks.
// (No lambdas here: they would not inherit the target attribute.)
template <bool BF, pool_op_t OP, bool WS>
KESTREL_AVX512 void chan_row_avx512(const chan_row_t &r, dim_t ow_b, dim_t ow_e, dim_t lo, dim_t hi) {
    lo = std::min(std::max(lo, ow_b), ow_e);
    hi = std::max(lo, std::min(hi, ow_e));
    for (dim_t ow = ow_b; ow < ow_e;) {
        const bool inner = ow >= lo && ow < hi;
        const int nc = inner && ow + 4 <= hi ? 4 : 1;
        dim_t kw0 = 0, kw1 = r.KW;
        if (!inner) tap_range(ow * r.SW - r.padL, r.KW, r.DW1, r.IW, kw0, kw1);
        for (dim_t c0 = 0; c0 < r.C; c0 += 16) {
            const dim_t n = std::min<dim_t>(16, r.C - c0);
            const __mmask16 m = (__mmask16)((1u << n) - 1);
            if (nc == 4)
                chan_cols_avx512<BF, OP, WS, 4>(r, ow, 0, r.KW, c0, m);
            else
                chan_cols_avx512<BF, OP, WS, 1>(r, ow, kw0, kw1, c0, m);
        }
        ow += nc;
    }
}

// 3x3 windows at stride 2 (undilated, 2D), two output rows at once: N
// columns from ow of row r and of the row below it (dst r1), both rows'
// windows wholly inside the src vertically and the columns interior. The
// five src rows are walked once, each of their 2N + 1 vectors loaded once
// and applied to every (row, kw) tap it serves (a stride-2 window shares
// its first column with the previous window and the middle src row with
// the other output row): 5 (2N + 1) loads for 18 N taps. Every output
// still takes its taps in kh then kw order from the same start, so the
// values are chan_cols_avx512's bit for bit. No workspace. FULL: all 16
// channels valid, plain loads and stores (masked ones cost ~10% here).
template <bool BF, pool_op_t OP, int N, bool FULL>
KESTREL_AVX512 void chan_pair_avx512(const chan_row_t &r, char *dst1, dim_t ow, dim_t c0, __mmask16 m) {
    constexpr bool MAX = OP == pool_op_t::max;
    const dim_t esz = BF ? 2 : 4;
    __m512 acc0[N], acc1[N];
    KESTREL_UNROLL(8)
    for (int j = 0; j < N; ++j) acc0[j] = acc1[j] = MAX ? _mm512_set1_ps(r.init) : _mm512_setzero_ps();
    const char *base = r.src + c0 * esz + (ow * 2 - r.padL) * r.sw + r.ih0 * r.sh;
    KESTREL_UNROLL(5)
    for (int s = 0; s < 5; ++s) {
        const char *p = base + s * r.sh;
        // The rows the next pair of output rows adds (src rows 5 to 8 from
        // here), at these columns: a whole pair ahead, the leading columns
        // of each row included (a fixed distance along the row would leave
        // them to wait for memory at each new row).
        if (s >= 1) prefetch_cols(p, 4 * r.sh, 2 * N, r.sw);
        KESTREL_UNROLL(17)
        for (int i = 0; i < 2 * N + 1; ++i) {
            const __m512 v = FULL && !BF ? _mm512_loadu_ps(p + i * r.sw) : chan_ld<BF>(p + i * r.sw, m);
            KESTREL_UNROLL(3)
            for (int kw = 0; kw < 3; ++kw) {
                if ((i - kw) % 2 != 0) continue;
                const int j = (i - kw) / 2;
                if (j < 0 || j >= N) continue;
                if (s < 3) acc0[j] = MAX ? _mm512_max_ps(v, acc0[j]) : _mm512_add_ps(acc0[j], v);
                if (s >= 2) acc1[j] = MAX ? _mm512_max_ps(v, acc1[j]) : _mm512_add_ps(acc1[j], v);
            }
        }
    }
    if (!MAX) {
        // Every window of the pair is whole: 9 taps either way.
        const __m512 vd = _mm512_set1_ps(9.f);
        KESTREL_UNROLL(8)
        for (int j = 0; j < N; ++j) {
            acc0[j] = _mm512_div_ps(acc0[j], vd);
            acc1[j] = _mm512_div_ps(acc1[j], vd);
        }
    }
    KESTREL_UNROLL(8)
    for (int j = 0; j < N; ++j) {
        char *d0 = r.dst + (ow + j) * r.dsw + c0 * esz, *d1 = dst1 + (ow + j) * r.dsw + c0 * esz;
        if (BF && MAX) { // truncation is exact: every value came from bf16
            _mm256_mask_storeu_epi16(d0, m, _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_castps_si512(acc0[j]), 16)));
            _mm256_mask_storeu_epi16(d1, m, _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_castps_si512(acc1[j]), 16)));
        } else if (BF) {
            _mm256_mask_storeu_epi16(d0, m, chan_to_bf16(acc0[j]));
            _mm256_mask_storeu_epi16(d1, m, chan_to_bf16(acc1[j]));
        } else if (FULL && r.nt) {
            _mm512_stream_ps(reinterpret_cast<float *>(d0), acc0[j]);
            _mm512_stream_ps(reinterpret_cast<float *>(d1), acc1[j]);
        } else if (FULL) {
            _mm512_storeu_ps(d0, acc0[j]);
            _mm512_storeu_ps(d1, acc1[j]);
        } else {
            _mm512_mask_storeu_ps(d0, m, acc0[j]);
            _mm512_mask_storeu_ps(d1, m, acc1[j]);
        }
    }
}

// Columns [ow_b, ow_e) of the output rows r and r1 (see chan_pair_avx512):
// the interior in blocks of 8 columns of both rows (a remainder after at
// least one block as the last 8 interior columns again: the overlap is
// rewritten with the same values), the rest row by row.
template <bool BF, pool_op_t OP>
KESTREL_AVX512 void chan_pair_row_avx512(
        const chan_row_t &r, const chan_row_t &r1, dim_t ow_b, dim_t ow_e, dim_t lo, dim_t hi) {
    constexpr int N = 8;
    const dim_t l = std::min(std::max(lo, ow_b), ow_e), h = std::max(l, std::min(hi, ow_e));
    if (h - l < N) {
        chan_row_avx512<BF, OP, false>(r, ow_b, ow_e, lo, hi);
        chan_row_avx512<BF, OP, false>(r1, ow_b, ow_e, lo, hi);
        return;
    }
    // Every channel slice of a block of columns before the next block: a
    // channels-last point's lines are read together (slice by slice over
    // whole rows, each pass read one line of every point, 4 to 16 lines
    // apart).
    auto block = [&](dim_t ow) {
        for (dim_t c0 = 0; c0 < r.C; c0 += 16) {
            const dim_t n = std::min<dim_t>(16, r.C - c0);
            const __mmask16 m = (__mmask16)((1u << n) - 1);
            (n == 16 ? chan_pair_avx512<BF, OP, N, true> : chan_pair_avx512<BF, OP, N, false>)(
                    r, r1.dst, ow, c0, m);
        }
    };
    dim_t ow = l;
    for (; ow + N <= h; ow += N) block(ow);
    if (ow < h) block(h - N);
    // The left edge after the interior: its lines are in cache by then
    // (first, each of its few loads would wait for memory alone).
    chan_row_avx512<BF, OP, false>(r, ow_b, l, lo, hi);
    chan_row_avx512<BF, OP, false>(r1, ow_b, l, lo, hi);
    chan_row_avx512<BF, OP, false>(r, h, ow_e, lo, hi);
    chan_row_avx512<BF, OP, false>(r1, h, ow_e, lo, hi);
    if (r.nt) _mm_sfence(); // the stores visible to other threads when this item is done
}

#undef KESTREL_AVX512

// The same kernels on AVX2, 8 channels per vector: f32 with any channel
// count (masked loads and stores), bf16 only for whole vectors (AVX2 has
// no 16-bit masked loads; init sends bf16 nhwc tails to vec_ops).
#define KESTREL_AVX2 __attribute__((target("avx2,fma")))

template <bool BF>
KESTREL_AVX2 inline __m256 chan_ld_avx2(const char *p, __m256i m) {
    if (BF)
        return _mm256_castsi256_ps(_mm256_slli_epi32(
                _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))), 16));
    return _mm256_maskload_ps(reinterpret_cast<const float *>(p), m);
}

// 8 values below 2^16 in 32-bit lanes -> 8 u16 in the low 128 bits.
KESTREL_AVX2 inline __m128i chan_pack16_avx2(__m256i v) {
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08));
}

// f32 -> bf16 bits, nearest even, NaN kept quiet (as chan_to_bf16).
KESTREL_AVX2 inline __m128i chan_to_bf16_avx2(__m256 v) {
    const __m256i b = _mm256_castps_si256(v);
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(b, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff))), 16);
    const __m256i q = _mm256_or_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(0x40));
    r = _mm256_blendv_epi8(r, q, _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
    return chan_pack16_avx2(r);
}

template <bool BF, pool_op_t OP, bool WS, int NC>
KESTREL_AVX2 inline void chan_cols_avx2(
        const chan_row_t &r, dim_t ow, dim_t kw0, dim_t kw1, dim_t c0, dim_t nl) {
    constexpr bool MAX = OP == pool_op_t::max;
    const dim_t esz = BF ? 2 : 4;
    const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)nl), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 acc[NC];
    __m256i idx[NC];
#pragma GCC unroll 8
    for (int j = 0; j < NC; ++j) {
        acc[j] = MAX ? _mm256_set1_ps(r.init) : _mm256_setzero_ps();
        idx[j] = _mm256_setzero_si256();
    }
    const char *base = r.src + c0 * esz + (ow * r.SW - r.padL) * r.sw;
    const dim_t col = r.SW * r.sw, tap = r.DW1 * r.sw;
    for (dim_t kd = r.kd0; kd < r.kd1; ++kd)
        for (dim_t kh = r.kh0; kh < r.kh1; ++kh) {
            const char *p = base + (r.id0 + kd * r.DD1) * r.sd + (r.ih0 + kh * r.DH1) * r.sh;
            const int32_t kb = (int32_t)((kd * r.KH + kh) * r.KW);
            if (NC > 1) prefetch_cols(p, 4 * NC * col, NC * r.SW, r.sw); // as in chan_cols_avx512
            for (dim_t kw = kw0; kw < kw1; ++kw) {
                const char *q = p + kw * tap;
                const __m256i kv = _mm256_set1_epi32(kb + (int32_t)kw);
#pragma GCC unroll 8
                for (int j = 0; j < NC; ++j) {
                    const __m256 v = chan_ld_avx2<BF>(q + j * col, m);
                    if (MAX) {
                        const __m256 gt = _mm256_cmp_ps(v, acc[j], _CMP_GT_OQ);
                        acc[j] = _mm256_blendv_ps(acc[j], v, gt);
                        if (WS) idx[j] = _mm256_blendv_epi8(idx[j], kv, _mm256_castps_si256(gt));
                    } else {
                        acc[j] = _mm256_add_ps(acc[j], v);
                    }
                }
            }
        }
    if (!MAX) {
        const dim_t div = r.excl ? (r.kd1 - r.kd0) * (r.kh1 - r.kh0) * (kw1 - kw0) : r.KSZ;
        const __m256 vd = _mm256_set1_ps((float)div);
#pragma GCC unroll 8
        for (int j = 0; j < NC; ++j) acc[j] = div ? _mm256_div_ps(acc[j], vd) : _mm256_setzero_ps();
    }
#pragma GCC unroll 8
    for (int j = 0; j < NC; ++j) {
        char *d = r.dst + (ow + j) * r.dsw + c0 * esz;
        if (BF && MAX)
            _mm_storeu_si128(reinterpret_cast<__m128i *>(d),
                    chan_pack16_avx2(_mm256_srli_epi32(_mm256_castps_si256(acc[j]), 16)));
        else if (BF)
            _mm_storeu_si128(reinterpret_cast<__m128i *>(d), chan_to_bf16_avx2(acc[j]));
        else
            _mm256_maskstore_ps(reinterpret_cast<float *>(d), m, acc[j]);
        if (WS) {
            char *w = r.ws + (ow + j) * r.wsw;
            if (r.ws_s32) {
                _mm256_maskstore_epi32(reinterpret_cast<int *>(w + c0 * 4), m, idx[j]);
            } else {
                const __m128i h = chan_pack16_avx2(idx[j]);
                const uint64_t b = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(h, h));
                if (nl == 8)
                    std::memcpy(w + c0, &b, 8);
                else
                    for (dim_t i = 0; i < nl; ++i) w[c0 + i] = (char)(b >> (8 * i));
            }
        }
    }
}

template <bool BF, pool_op_t OP, bool WS>
KESTREL_AVX2 void chan_row_avx2(const chan_row_t &r, dim_t ow_b, dim_t ow_e, dim_t lo, dim_t hi) {
    lo = std::min(std::max(lo, ow_b), ow_e);
    hi = std::max(lo, std::min(hi, ow_e));
    for (dim_t ow = ow_b; ow < ow_e;) {
        const bool inner = ow >= lo && ow < hi;
        const int nc = inner && ow + 4 <= hi ? 4 : 1;
        dim_t kw0 = 0, kw1 = r.KW;
        if (!inner) tap_range(ow * r.SW - r.padL, r.KW, r.DW1, r.IW, kw0, kw1);
        for (dim_t c0 = 0; c0 < r.C; c0 += 8) {
            const dim_t nl = std::min<dim_t>(8, r.C - c0);
            if (nc == 4)
                chan_cols_avx2<BF, OP, WS, 4>(r, ow, 0, r.KW, c0, nl);
            else
                chan_cols_avx2<BF, OP, WS, 1>(r, ow, kw0, kw1, c0, nl);
        }
        ow += nc;
    }
}

#undef KESTREL_AVX2

// The instantiation serving one row (AVX-512 or AVX2, as init chose).
using chan_row_fn_t = void (*)(const chan_row_t &, dim_t, dim_t, dim_t, dim_t);
template <bool BF, pool_op_t OP, bool WS>
chan_row_fn_t chan_row_pick(bool avx512) {
    return avx512 ? chan_row_avx512<BF, OP, WS> : chan_row_avx2<BF, OP, WS>;
}
chan_row_fn_t chan_row_kernel(bool avx512, bool bf, bool max, bool ws) {
    if (max) {
        if (bf) return ws ? chan_row_pick<true, pool_op_t::max, true>(avx512) : chan_row_pick<true, pool_op_t::max, false>(avx512);
        return ws ? chan_row_pick<false, pool_op_t::max, true>(avx512) : chan_row_pick<false, pool_op_t::max, false>(avx512);
    }
    return bf ? chan_row_pick<true, pool_op_t::avg, false>(avx512) : chan_row_pick<false, pool_op_t::avg, false>(avx512);
}



struct ref_pooling_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, pooling_fwd_pd_t, ref_pooling_fwd_t> {
        using desc_t = pooling_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint)
            : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override { return init_common(); }
    };
    using primitive_t::primitive_t;

    // One output point at a time; A is the accumulator type, load(pos) reads
    // the source point at pos.
    template <typename A, typename L>
    static void run(const pooling_conf_t &c, const mdw_t &d, const mdw_t &w, const post_ops::applier_t &ap, void *dst,
            void *ws, L load) {
        const data_type_t ddt = d.data_type(), wdt = w.data_type();
        const int nd = c.ndims;
        parallel_nd(c.MB, c.C, c.OD * c.OH * c.OW, [&](dim_t n, dim_t ch, dim_t osp) {
            const dim_t od = osp / (c.OH * c.OW), oh = osp / c.OW % c.OH, ow = osp % c.OW;
            dim_t pos[max_ndims];
            A acc = c.is_max ? (A)c.max_init : (A)0;
            int32_t idx = 0;
            dim_t count = 0;
            for (dim_t kd = 0; kd < c.KD; ++kd)
            for (dim_t kh = 0; kh < c.KH; ++kh)
            for (dim_t kw = 0; kw < c.KW; ++kw) {
                const dim_t id = od * c.SD - c.padF + kd * (c.DD + 1);
                const dim_t ih = oh * c.SH - c.padT + kh * (c.DH + 1);
                const dim_t iw = ow * c.SW - c.padL + kw * (c.DW + 1);
                if (id < 0 || id >= c.ID || ih < 0 || ih >= c.IH || iw < 0 || iw >= c.IW) continue;
                make_pos(pos, nd, n, ch, id, ih, iw);
                const A v = load(pos);
                if (c.is_max) {
                    if (v > acc) {
                        acc = v;
                        idx = (int32_t)((kd * c.KH + kh) * c.KW + kw);
                    }
                } else {
                    acc += v;
                    ++count;
                }
            }
            if (!c.is_max) {
                const dim_t div = c.exclude_padding ? count : c.KD * c.KH * c.KW;
                acc = div ? acc / (A)div : (A)0;
            }
            make_pos(pos, nd, n, ch, od, oh, ow);
            const dim_t off = d.off_v(pos);
            if (ddt == dnnl_s32 && ap.empty()) {
                const double r = std::nearbyint((double)acc);
                ((int32_t *)dst)[off] = r >= 2147483647.0 ? INT32_MAX : (r <= -2147483648.0 ? INT32_MIN : (int32_t)r);
            } else {
                float v = (float)acc;
                if (!ap.empty()) v = ap.apply(v, 0.f, pos);
                store_f32(ddt, dst, off, v);
            }
            if (ws) store_idx(ws, wdt, w.off_v(pos), idx);
        });
    }

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const pooling_conf_t &c = pd->conf();
        const void *src = ctx.input(DNNL_ARG_SRC);
        void *dst = ctx.output(DNNL_ARG_DST);
        void *ws = c.with_ws ? ctx.output(DNNL_ARG_WORKSPACE) : nullptr;
        const mdw_t s(pd->src_md()), d(pd->dst_md()), w(pd->workspace_md());
        const data_type_t sdt = s.data_type();
        const post_ops::applier_t ap(pd->attr()->post_ops, *pd->dst_md(), ctx);
        // s32 is accumulated in double (exact for every s32 maximum and for
        // sums below 2^53) and rounded to nearest even and saturated once;
        // the other types in f32, the order of accumulation fixed.
        if (sdt == dnnl_s32)
            run<double>(c, d, w, ap, dst, ws, [&](const dim_t *pos) { return (double)((const int32_t *)src)[s.off_v(pos)]; });
        else
            run<float>(c, d, w, ap, dst, ws, [&](const dim_t *pos) { return load_f32(sdt, src, s.off_v(pos)); });
        // A blocked dst's channel tail stays zero, as oneDNN keeps it.
        elt::zero_padding(*pd->dst_md(), dst);
        return status::success;
    }
};

// Channel-innermost layouts: every (n, channel block, output point) is one
// run of L channels contiguous in memory in src, dst and workspace alike.
struct vec_pooling_fwd_t : primitive_t {
    enum key_t : scratchpad::key_t { key_acc = 1, key_idx = 2 };
    struct pd_t : pd_impl_t<pd_t, pooling_fwd_pd_t, vec_pooling_fwd_t> {
        using desc_t = pooling_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint)
            : pd_impl_t(d, a, hint) {}
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_common());
            if (!pool::is_fp(src_md_.data_type) || !pool::is_fp(dst_md_.data_type))
                return decline("vec:pooling", "not f32/bf16");
            const pool::layout_t l = pool::classify(src_md_);
            if (!one_of(l, pool::layout_t::nspc, pool::layout_t::blocked8, pool::layout_t::blocked16))
                return decline("vec:pooling", "src layout is not nhwc or nChw8c/16c");
            if (pool::classify(dst_md_) != l) return decline("vec:pooling", "dst layout differs from src");
            run_ = l == pool::layout_t::nspc ? conf_.C : (l == pool::layout_t::blocked8 ? 8 : 16);
            nblk_ = run_ ? div_up(conf_.C, run_) : 0; // C = 0: nothing to run
            avx512_ = isa::has(isa::avx512);
            fast_ = src_md_.data_type == dst_md_.data_type && attr_.post_ops.entries.empty()
                    && (avx512_
                            || (isa::has(isa::avx2) && (src_md_.data_type == dnnl_f32 || run_ % 8 == 0)));
            static const char *const names[2][3] = {{"vec:nspc", "vec:nspc:avx2", "vec:nspc:avx512"},
                    {"vec:blocked", "vec:blocked:avx2", "vec:blocked:avx512"}};
            name_ = names[l == pool::layout_t::nspc ? 0 : 1][fast_ ? 1 + avx512_ : 0];
            if (fast_) return status::success; // all in registers: no scratchpad
            scratchpad_registry().book_per_thread(key_acc, sizeof(float) * run_);
            if (conf_.is_max) scratchpad_registry().book_per_thread(key_idx, sizeof(int32_t) * run_);
            return status::success;
        }
        dim_t run_ = 0, nblk_ = 0;
        bool fast_ = false; // chan_row_avx512 or chan_row_avx2 serves it
        bool avx512_ = false;
        const char *name_ = "vec";
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const pooling_conf_t &c = pd->conf();
        const auto &ops = pool::vec_ops();
        const char *src = ctx.input<char>(DNNL_ARG_SRC);
        char *dst = ctx.output<char>(DNNL_ARG_DST);
        char *ws = c.with_ws ? ctx.output<char>(DNNL_ARG_WORKSPACE) : nullptr;
        const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md();
        const data_type_t sdt = smd.data_type, ddt = dmd.data_type;
        const data_type_t wdt = pd->workspace_md()->data_type;
        const size_t ssz = data_type_size(sdt), dsz = data_type_size(ddt);
        const size_t wsz = ws ? data_type_size(wdt) : 0;
        dim_t ss[5], ds[5];
        pool_walk_strides(smd, ss);
        pool_walk_strides(dmd, ds);
        const dim_t L = pd->run_, NB = pd->nblk_;
        if (pd->fast_) return execute_fast(ctx, ss, ds);
        const dim_t work = c.MB * NB * c.OD * c.OH * c.OW;
        // No more chunks than per-thread regions were booked for at creation
        // (the caller's arena may be wider now).
        const int nthr_run = std::min(nthr_for(work, 4), ctx.scratchpad().nthr());
        const post_ops::applier_t ap(pd->attr()->post_ops, dmd, ctx);
        parallel(nthr_run, [&](int ithr, int nthr) {
            float *acc = ctx.scratchpad().get<float>(key_acc, ithr);
            int32_t *idx = ctx.scratchpad().get<int32_t>(key_idx, ithr);
            if (!acc || (c.is_max && !idx)) return; // out of memory: reported by the executor
            dim_t start, end;
            balance211(work, nthr, ithr, start, end);
            for (dim_t it = start; it < end; ++it) {
                dim_t r = it;
                const dim_t ow = r % c.OW; r /= c.OW;
                const dim_t oh = r % c.OH; r /= c.OH;
                const dim_t od = r % c.OD; r /= c.OD;
                const dim_t cb = r % NB, n = r / NB;
                const dim_t sbase = smd.offset0 + n * ss[0] + cb * ss[1];
                if (c.is_max) {
                    for (dim_t i = 0; i < L; ++i) {
                        acc[i] = c.max_init;
                        idx[i] = 0;
                    }
                } else {
                    for (dim_t i = 0; i < L; ++i) acc[i] = 0.f;
                }
                dim_t count = 0;
                for_each_window_point(c, od, oh, ow, [&](dim_t kd, dim_t kh, dim_t kw, dim_t id, dim_t ih, dim_t iw) {
                    const char *x = src + (sbase + id * ss[2] + ih * ss[3] + iw * ss[4]) * ssz;
                    if (c.is_max)
                        ops.acc_max_idx(acc, idx, x, sdt, L, (int32_t)((kd * c.KH + kh) * c.KW + kw));
                    else
                        ops.acc_add(acc, x, sdt, L);
                    ++count;
                });
                const dim_t doff = dmd.offset0 + n * ds[0] + cb * ds[1] + od * ds[2] + oh * ds[3] + ow * ds[4];
                float scale = 1.f;
                if (!c.is_max) {
                    // Divided, not scaled by a reciprocal: the reference's
                    // (and the register kernels') bits.
                    const dim_t div = c.exclude_padding ? count : c.KD * c.KH * c.KW;
                    const float fd = (float)div;
                    for (dim_t i = 0; i < L; ++i) acc[i] = div ? acc[i] / fd : 0.f;
                }
                if (!ap.empty()) {
                    // Real channels only: a binary src1 has none past C.
                    dim_t pos[max_ndims];
                    make_pos(pos, c.ndims, n, 0, od, oh, ow);
                    const dim_t c0 = cb * L, nc = std::min(L, c.C - c0);
                    for (dim_t i = 0; i < nc; ++i) {
                        pos[1] = c0 + i;
                        acc[i] = ap.apply(acc[i] * scale, 0.f, pos);
                    }
                    for (dim_t i = nc; i < L; ++i) acc[i] *= scale;
                    scale = 1.f;
                }
                ops.store_scaled(dst + doff * dsz, ddt, acc, scale, L);
                if (ws) {
                    // The workspace has the dst layout, so the same offset.
                    const dim_t woff = doff - dmd.offset0 + pd->workspace_md()->offset0;
                    for (dim_t i = 0; i < L; ++i) store_idx(ws, wdt, woff + i, idx[i]);
                }
                (void)wsz;
            }
        });
        return status::success;
    }

    // Pooling in registers, one output row per work item (a row split into
    // column blocks when there are fewer rows than threads).
    status_t execute_fast(const exec_ctx_t &ctx, const dim_t *ss, const dim_t *ds) const {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const pooling_conf_t &c = pd->conf();
        const char *src = ctx.input<char>(DNNL_ARG_SRC);
        char *dst = ctx.output<char>(DNNL_ARG_DST);
        char *ws = c.with_ws ? ctx.output<char>(DNNL_ARG_WORKSPACE) : nullptr;
        const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md(), &wmd = *pd->workspace_md();
        const bool bf = smd.data_type == dnnl_bf16;
        const dim_t esz = bf ? 2 : 4, wsz = ws ? data_type_size(wmd.data_type) : 0;
        chan_row_t proto = {};
        proto.ws_s32 = ws && wmd.data_type == dnnl_s32;
        proto.excl = c.exclude_padding;
        proto.KSZ = c.KD * c.KH * c.KW;
        proto.C = pd->run_;
        proto.sd = ss[2] * esz, proto.sh = ss[3] * esz, proto.sw = ss[4] * esz;
        proto.dsw = ds[4] * esz, proto.wsw = ds[4] * wsz;
        proto.KH = c.KH, proto.KW = c.KW, proto.SW = c.SW;
        proto.DD1 = c.DD + 1, proto.DH1 = c.DH + 1, proto.DW1 = c.DW + 1;
        proto.padL = c.padL, proto.IW = c.IW;
        proto.init = c.max_init;
        // Interior columns: the whole window inside the row.
        const dim_t lo = div_up(c.padL, c.SW);
        const dim_t last = c.IW - 1 - (c.KW - 1) * (c.DW + 1) + c.padL;
        const dim_t hi = last < 0 ? 0 : std::min(c.OW, last / c.SW + 1);
        const dim_t NB = pd->nblk_, rows = c.MB * NB * c.OD * c.OH;
        const int mt = max_threads();
        const dim_t owb = rows >= mt ? 1 : std::min<dim_t>(div_up(c.OW, (dim_t)4), div_up((dim_t)mt, rows));
        const dim_t owc = div_up(c.OW, owb);
        const chan_row_fn_t row = chan_row_kernel(pd->avx512_, bf, c.is_max, ws != nullptr);
        // 3x3 stride-2 2D windows on AVX-512 without a workspace: output
        // rows in pairs (chan_pair_row_avx512) when there are rows enough.
        if (pd->avx512_ && !ws && c.ndims == 4 && c.KH == 3 && c.KW == 3 && c.SH == 2 && c.SW == 2 && c.DH == 0
                && c.DW == 0 && owb == 1) {
            const dim_t OHP = div_up(c.OH, (dim_t)2);
            // Non-temporal stores for a large f32 dst of whole 64-byte
            // lines (16 channels a point in nChw16c, a multiple of 16 in
            // dense nhwc; every row start aligned): they skip reading each
            // dst line before writing it.
            const size_t dst_bytes = (size_t)(c.MB * NB * c.OD * c.OH * c.OW * pd->run_ * esz);
            proto.nt = !bf && pd->run_ % 16 == 0 && ds[4] == pd->run_ && ds[0] % 16 == 0
                    && (NB == 1 || ds[1] % 16 == 0) && ds[3] % 16 == 0 && dst_bytes >= (size_t(4) << 20)
                    && reinterpret_cast<uintptr_t>(dst + dmd.offset0 * esz) % 64 == 0;
            parallel_nd(c.MB * NB * OHP, [&](dim_t it) {
                const dim_t ohp = it % OHP, cb = it / OHP % NB, n = it / OHP / NB;
                chan_row_t a[2];
                const dim_t nr = std::min<dim_t>(2, c.OH - ohp * 2);
                for (dim_t k = 0; k < nr; ++k) {
                    const dim_t oh = ohp * 2 + k;
                    a[k] = proto;
                    a[k].src = src + (smd.offset0 + n * ss[0] + cb * ss[1]) * esz;
                    a[k].dst = dst + (dmd.offset0 + n * ds[0] + cb * ds[1] + oh * ds[3]) * esz;
                    a[k].ws = nullptr;
                    a[k].id0 = -c.padF, a[k].ih0 = oh * 2 - c.padT;
                    a[k].kd0 = 0, a[k].kd1 = 1;
                    tap_range(a[k].ih0, 3, 1, c.IH, a[k].kh0, a[k].kh1);
                }
                const bool pair = nr == 2 && a[0].kh0 == 0 && a[0].kh1 == 3 && a[1].kh0 == 0 && a[1].kh1 == 3;
                if (pair && c.is_max)
                    (bf ? chan_pair_row_avx512<true, pool_op_t::max> : chan_pair_row_avx512<false, pool_op_t::max>)(
                            a[0], a[1], 0, c.OW, lo, hi);
                else if (pair)
                    (bf ? chan_pair_row_avx512<true, pool_op_t::avg> : chan_pair_row_avx512<false, pool_op_t::avg>)(
                            a[0], a[1], 0, c.OW, lo, hi);
                else
                    for (dim_t k = 0; k < nr; ++k) row(a[k], 0, c.OW, lo, hi);
            });
            return status::success;
        }
        parallel_nd(rows * owb, [&](dim_t it) {
            dim_t r = it;
            const dim_t b = r % owb; r /= owb;
            const dim_t oh = r % c.OH; r /= c.OH;
            const dim_t od = r % c.OD; r /= c.OD;
            const dim_t cb = r % NB, n = r / NB;
            chan_row_t a = proto;
            a.src = src + (smd.offset0 + n * ss[0] + cb * ss[1]) * esz;
            const dim_t drow = n * ds[0] + cb * ds[1] + od * ds[2] + oh * ds[3];
            a.dst = dst + (dmd.offset0 + drow) * esz;
            // The workspace has the dst layout in another type.
            a.ws = ws ? ws + (wmd.offset0 + drow) * wsz : nullptr;
            a.id0 = od * c.SD - c.padF, a.ih0 = oh * c.SH - c.padT;
            tap_range(a.id0, c.KD, c.DD + 1, c.ID, a.kd0, a.kd1);
            tap_range(a.ih0, c.KH, c.DH + 1, c.IH, a.kh0, a.kh1);
            const dim_t ow_b = b * owc, ow_e = std::min(c.OW, ow_b + owc);
            row(a, ow_b, ow_e, lo, hi);
        });
        return status::success;
    }
};

} // namespace

const impl_entry_t pooling_impl_list[] = {
        {"vec", make_pd<vec_pooling_fwd_t::pd_t>},
        {"int8", create_int8_pooling_pd},
        {"vec_ncsp", create_ncsp_pooling_pd},
        {"ref", make_pd<ref_pooling_fwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
