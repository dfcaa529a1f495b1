// The AVX-512 table of rnn_int8_rows.hpp; the library itself is built for
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

#define KT_T __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#include "cpu/eltwise/simd/avx512.inc"
#include "cpu/eltwise/simd/math.inc"

static inline KT_T vf deq_vec(const int32_t *a, const double *comp) {
    const __m512i ai = _mm512_loadu_si512(a);
    const __m512d lo = _mm512_sub_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(ai)), _mm512_loadu_pd(comp));
    const __m512d hi = _mm512_sub_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(ai, 1)), _mm512_loadu_pd(comp + 8));
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

static inline KT_T vf deq_vec(const int32_t *a, const int32_t *comp) {
    return _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_loadu_si512(a), _mm512_loadu_si512(comp)));
}

static inline KT_T void st_u8(uint8_t *p, vf v) {
    _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v)));
}

#include "cpu/rnn/rnn_int8_rows.inc"

} // namespace

const rows_t *rows_avx512() { return &table; }

} // namespace rnn_int8
} // namespace kestrel
