// AVX-512 packed-weights kernels: up to 8 rows of src against one 16-column
// panel, one zmm accumulator per row. For each row k of the panel with a
// nonzero mask, the stored values are expanded into their lanes by the
// mask (vexpandps from memory for f32; for s8 a masked byte load of
// popcount bytes, widened and expanded with vpexpandd) and multiplied into
// every accumulator with the broadcast src[r][k]. Contract: packed_kernels.hpp.
#include "cpu/gemm/packed_kernels.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#define KESTREL_HAVE_AVX512_PACKED 1
#endif

namespace kestrel {
namespace gemm {

#ifdef KESTREL_HAVE_AVX512_PACKED
namespace {

constexpr int MR = 8;

#define KESTREL_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,popcnt")))

template <int R>
KESTREL_AVX512 void f32_rows(const uint16_t *mask, const float *val, dim_t K, const float *src, dim_t lds, float *acc) {
    __m512 c[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) c[r] = _mm512_setzero_ps();
    for (dim_t k = 0; k < K; ++k) {
        const unsigned m = mask[k];
        if (!m) continue;
        // Reads exactly popcount(m) floats (masked-off lanes do not fault).
        const __m512 w = _mm512_maskz_expandloadu_ps((__mmask16)m, val);
        val += __builtin_popcount(m);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) c[r] = _mm512_fmadd_ps(_mm512_set1_ps(src[r * lds + k]), w, c[r]);
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) _mm512_storeu_ps(acc + r * 16, c[r]);
}

// Products of an s8 weight and a u8 or s8 src fit in s16, so vpmaddwd does
// the multiply: the weight sits sign-extended in an s32 lane (low half the
// value, high half its sign) and src in the low half of a lane whose high
// half is 0, so each lane's pair sum is exactly w * s.
template <int R, typename S>
KESTREL_AVX512 void s32_rows(const uint16_t *mask, const int8_t *val, dim_t K, const S *src, dim_t lds, int32_t *acc) {
    __m512i c[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) c[r] = _mm512_setzero_si512();
    for (dim_t k = 0; k < K; ++k) {
        const unsigned m = mask[k];
        if (!m) continue;
        const int n = __builtin_popcount(m);
        const __m128i b = _mm_maskz_loadu_epi8((__mmask16)((1u << n) - 1), val);
        const __m512i w = _mm512_maskz_expand_epi32((__mmask16)m, _mm512_cvtepi8_epi32(b));
        val += n;
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m512i s = _mm512_set1_epi32((int32_t)(uint16_t)(int16_t)src[r * lds + k]);
            c[r] = _mm512_add_epi32(c[r], _mm512_madd_epi16(w, s));
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) _mm512_storeu_si512(acc + r * 16, c[r]);
}

template <int R = MR>
KESTREL_AVX512 void f32_any(const uint16_t *mask, const float *val, dim_t K, const float *src, dim_t lds, int mr,
        float *acc) {
    if constexpr (R > 1)
        if (mr < R) return f32_any<R - 1>(mask, val, K, src, lds, mr, acc);
    f32_rows<R>(mask, val, K, src, lds, acc);
}

template <typename S, int R = MR>
KESTREL_AVX512 void s32_any(const uint16_t *mask, const int8_t *val, dim_t K, const S *src, dim_t lds, int mr,
        int32_t *acc) {
    if constexpr (R > 1)
        if (mr < R) return s32_any<S, R - 1>(mask, val, K, src, lds, mr, acc);
    s32_rows<R, S>(mask, val, K, src, lds, acc);
}

void f32(const uint16_t *mask, const float *val, const float *, dim_t K, const float *src, dim_t lds, int mr,
        float *acc) {
    f32_any(mask, val, K, src, lds, mr, acc);
}

template <typename S>
void s32(const uint16_t *mask, const int8_t *val, const int8_t *, dim_t K, const void *src, dim_t lds, int mr,
        int32_t *acc) {
    s32_any<S>(mask, val, K, static_cast<const S *>(src), lds, mr, acc);
}

static_assert(MR <= packed_max_mr, "accumulator tile of the driver");
const packed_kernels_t table = {"avx512", MR, f32, s32<uint8_t>, s32<int8_t>};

} // namespace

const packed_kernels_t *packed_kernels_avx512() { return &table; }
#else
const packed_kernels_t *packed_kernels_avx512() { return nullptr; }
#endif

} // namespace gemm
} // namespace kestrel
