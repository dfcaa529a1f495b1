// The AVX2 table of rnn_int8_rows.hpp; the library itself is built for
// baseline x86-64, so every function here carries KT_T.
#include <immintrin.h>

#include "cpu/rnn/rnn_int8_rows.hpp"

namespace kestrel {
namespace rnn_int8 {
namespace {

// Round like the scalar code of rnn_int8.cpp / rnn_cell.hpp (built without
// FMA): a*b+c stays two operations.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#else
#pragma GCC optimize("fp-contract=off")
#endif

#define KT_T __attribute__((target("avx2,fma")))
#include "cpu/eltwise/simd/avx2.inc"
#include "cpu/eltwise/simd/math.inc"

static inline KT_T vf deq_vec(const int32_t *a, const double *comp) {
    const __m256i ai = _mm256_loadu_si256((const __m256i *)a);
    const __m256d lo = _mm256_sub_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(ai)), _mm256_loadu_pd(comp));
    const __m256d hi = _mm256_sub_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(ai, 1)), _mm256_loadu_pd(comp + 4));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
}

static inline KT_T vf deq_vec(const int32_t *a, const int32_t *comp) {
    return _mm256_cvtepi32_ps(_mm256_sub_epi32(
            _mm256_loadu_si256((const __m256i *)a), _mm256_loadu_si256((const __m256i *)comp)));
}

static inline KT_T void st_u8(uint8_t *p, vf v) {
    const __m256i i = _mm256_cvtps_epi32(v);
    const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
    _mm_storel_epi64((__m128i *)p, _mm_packus_epi16(w, w));
}

#include "cpu/rnn/rnn_int8_rows.inc"

} // namespace

const rows_t *rows_avx2() { return &table; }

} // namespace rnn_int8
} // namespace kestrel
