// AVX2 packed-weights kernels: up to 6 rows of src against one 16-column
// panel, two ymm accumulators per row. AVX2 has no expand instruction: each
// half of a row's mask (8 bits) picks from a 256-entry table the source
// lane of every set lane, a vpermd moves the stored values there, and the
// lanes whose bit is clear are zeroed. f32 values are read with a masked
// load of exactly popcount lanes; s8 values with one 16-byte load (a short
// copy near the buffer's end, so nothing past it is read). Contract:
// packed_kernels.hpp.
#include "cpu/gemm/packed_kernels.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define KESTREL_HAVE_AVX2_PACKED 1
#endif

namespace kestrel {
namespace gemm {

#ifdef KESTREL_HAVE_AVX2_PACKED
namespace {

constexpr int MR = 6;

#define KESTREL_AVX2 __attribute__((target("avx2,fma,popcnt")))

// For an 8-bit mask: nibble j holds the index, among the stored values, of
// the value that lands in lane j (the count of set bits below bit j).
struct lut_t {
    uint32_t v[256];
    constexpr lut_t() : v() {
        for (unsigned m = 0; m < 256; ++m) {
            uint32_t w = 0, i = 0;
            for (unsigned j = 0; j < 8; ++j)
                if ((m >> j) & 1u) w |= (i++) << (4 * j);
            v[m] = w;
        }
    }
};
constexpr lut_t lut {};

// Moves the first popcount(m8) lanes of x to the set lanes of m8; zeroes
// the others.
KESTREL_AVX2 inline __m256i place8(__m256i x, unsigned m8) {
    const __m256i idx = _mm256_srlv_epi32(
            _mm256_set1_epi32((int)lut.v[m8]), _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28));
    const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i sel = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)m8), bits), bits);
    return _mm256_and_si256(_mm256_permutevar8x32_epi32(x, idx), sel);
}

KESTREL_AVX2 inline __m256 expand8_f32(unsigned m8, const float *val) {
    const __m256i first = _mm256_cmpgt_epi32(
            _mm256_set1_epi32(__builtin_popcount(m8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256i x = _mm256_castps_si256(_mm256_maskload_ps(val, first));
    return _mm256_castsi256_ps(place8(x, m8));
}

template <int R>
KESTREL_AVX2 void f32_rows(const uint16_t *mask, const float *val, dim_t K, const float *src, dim_t lds, float *acc) {
    __m256 c[R][2];
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) c[r][0] = c[r][1] = _mm256_setzero_ps();
    for (dim_t k = 0; k < K; ++k) {
        const unsigned m = mask[k];
        if (!m) continue;
        const unsigned lo = m & 0xffu, hi = m >> 8;
        const __m256 w0 = expand8_f32(lo, val);
        val += __builtin_popcount(lo);
        const __m256 w1 = expand8_f32(hi, val);
        val += __builtin_popcount(hi);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const __m256 s = _mm256_broadcast_ss(src + r * lds + k);
            c[r][0] = _mm256_fmadd_ps(s, w0, c[r][0]);
            c[r][1] = _mm256_fmadd_ps(s, w1, c[r][1]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
        _mm256_storeu_ps(acc + r * 16, c[r][0]);
        _mm256_storeu_ps(acc + r * 16 + 8, c[r][1]);
    }
}

// The next 16 stored bytes (those past `end` read as 0).
KESTREL_AVX2 inline __m128i load16(const int8_t *val, const int8_t *end) {
    if (end - val >= 16) return _mm_loadu_si128(reinterpret_cast<const __m128i *>(val));
    alignas(16) int8_t tmp[16] = {};
    std::memcpy(tmp, val, (size_t)(end - val));
    return _mm_load_si128(reinterpret_cast<const __m128i *>(tmp));
}

// vpmaddwd multiplies, as in the AVX-512 kernel: s8 weight sign-extended
// in an s32 lane, src in the low half of a lane with a zero high half, so
// each lane's pair sum is exactly w * s.
template <int R, typename S>
KESTREL_AVX2 void s32_rows(const uint16_t *mask, const int8_t *val, const int8_t *end, dim_t K, const S *src,
        dim_t lds, int32_t *acc) {
    __m256i c[R][2];
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) c[r][0] = c[r][1] = _mm256_setzero_si256();
    const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (dim_t k = 0; k < K; ++k) {
        const unsigned m = mask[k];
        if (!m) continue;
        const unsigned lo = m & 0xffu, hi = m >> 8;
        const int nlo = __builtin_popcount(lo);
        const __m128i b = load16(val, end);
        const __m128i bhi = _mm_shuffle_epi8(b, _mm_add_epi8(iota, _mm_set1_epi8((char)nlo)));
        const __m256i w0 = place8(_mm256_cvtepi8_epi32(b), lo);
        const __m256i w1 = place8(_mm256_cvtepi8_epi32(bhi), hi);
        val += nlo + __builtin_popcount(hi);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const __m256i s = _mm256_set1_epi32((int32_t)(uint16_t)(int16_t)src[r * lds + k]);
            c[r][0] = _mm256_add_epi32(c[r][0], _mm256_madd_epi16(w0, s));
            c[r][1] = _mm256_add_epi32(c[r][1], _mm256_madd_epi16(w1, s));
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(acc + r * 16), c[r][0]);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(acc + r * 16 + 8), c[r][1]);
    }
}

template <int R = MR>
KESTREL_AVX2 void f32_any(const uint16_t *mask, const float *val, dim_t K, const float *src, dim_t lds, int mr,
        float *acc) {
    if constexpr (R > 1)
        if (mr < R) return f32_any<R - 1>(mask, val, K, src, lds, mr, acc);
    f32_rows<R>(mask, val, K, src, lds, acc);
}

template <typename S, int R = MR>
KESTREL_AVX2 void s32_any(const uint16_t *mask, const int8_t *val, const int8_t *end, dim_t K, const S *src,
        dim_t lds, int mr, int32_t *acc) {
    if constexpr (R > 1)
        if (mr < R) return s32_any<S, R - 1>(mask, val, end, K, src, lds, mr, acc);
    s32_rows<R, S>(mask, val, end, K, src, lds, acc);
}

void f32(const uint16_t *mask, const float *val, const float *, dim_t K, const float *src, dim_t lds, int mr,
        float *acc) {
    f32_any(mask, val, K, src, lds, mr, acc);
}

template <typename S>
void s32(const uint16_t *mask, const int8_t *val, const int8_t *end, dim_t K, const void *src, dim_t lds, int mr,
        int32_t *acc) {
    s32_any<S>(mask, val, end, K, static_cast<const S *>(src), lds, mr, acc);
}

static_assert(MR <= packed_max_mr, "accumulator tile of the driver");
const packed_kernels_t table = {"avx2", MR, f32, s32<uint8_t>, s32<int8_t>};

} // namespace

const packed_kernels_t *packed_kernels_avx2() { return &table; }
#else
const packed_kernels_t *packed_kernels_avx2() { return nullptr; }
#endif

} // namespace gemm
} // namespace kestrel
