// AVX-512 12x32 microkernel: 24 zmm accumulators, two B vectors and one
// broadcast of A per k step; column tails through store masks.
// Contract: kernels.hpp.
#include "cpu/gemm/kernels.hpp"

#if defined(__x86_64__)
// GCC 12's avx512fintrin.h builds _mm512_undefined_ps from a self-initialised
// variable, which -Werror=(maybe-)uninitialized rejects once inlined here.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define KESTREL_HAVE_AVX512_KERNEL 1
#endif

namespace kestrel {
namespace gemm {

#ifdef KESTREL_HAVE_AVX512_KERNEL
namespace {

constexpr int MR = 12, NR = 32;

#define KESTREL_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

template <int M>
KESTREL_AVX512 void kernel(dim_t k, float alpha, const float *a, const float *b, float beta,
        float *c, dim_t ldc, dim_t nr) {
    __m512 acc[M][2];
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (dim_t p = 0; p < k; ++p) {
        const __m512 b0 = _mm512_load_ps(b + p * NR);
        const __m512 b1 = _mm512_load_ps(b + p * NR + 16);
#pragma GCC unroll 12
        for (int i = 0; i < M; ++i) {
            const __m512 ai = _mm512_set1_ps(a[p * MR + i]);
            acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
        }
    }
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    const __mmask16 m0 = nr >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nr) - 1);
    const __mmask16 m1 = nr >= 32 ? (__mmask16)0xffff
            : nr > 16            ? (__mmask16)((1u << (nr - 16)) - 1)
                                 : (__mmask16)0;
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i) {
        float *ci = c + i * ldc;
        __m512 r0 = _mm512_mul_ps(va, acc[i][0]), r1 = _mm512_mul_ps(va, acc[i][1]);
        if (beta != 0.f) {
            r0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, ci), r0);
            r1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, ci + 16), r1);
        }
        _mm512_mask_storeu_ps(ci, m0, r0);
        _mm512_mask_storeu_ps(ci + 16, m1, r1);
    }
}

const ukernel_t table = {"f32_gemm_12x32__avx512", MR, NR,
        {nullptr, kernel<1>, kernel<2>, kernel<3>, kernel<4>, kernel<5>, kernel<6>, kernel<7>,
                kernel<8>, kernel<9>, kernel<10>, kernel<11>, kernel<12>}};

} // namespace

const ukernel_t *f32_gemm_12x32__avx512() { return &table; }
#else
const ukernel_t *f32_gemm_12x32__avx512() { return nullptr; }
#endif

} // namespace gemm
} // namespace kestrel
