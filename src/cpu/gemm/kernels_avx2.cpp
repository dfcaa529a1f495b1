// AVX2+FMA 6x16 microkernel: 12 ymm accumulators, two B vectors and one
// broadcast of A per k step. Contract: kernels.hpp.
#include "cpu/gemm/kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include "cpu/simd.hpp"
#define KESTREL_HAVE_AVX2_KERNEL 1
#endif

namespace kestrel {
namespace gemm {

#ifdef KESTREL_HAVE_AVX2_KERNEL
namespace {

constexpr int MR = 6, NR = 16;

// Lane masks for maskload/maskstore: tail_mask(n) enables lanes [0, n).
__attribute__((target("avx2,fma"))) inline __m256i tail_mask(dim_t n) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lanes);
}

template <int M, tile_mode_t Mode, typename... Out>
__attribute__((target("avx2,fma"))) inline void tile(dim_t k, float alpha, const float *a, dim_t ars,
        dim_t acs, const float *b, dim_t ldb, float beta, float *c, dim_t ldc, dim_t nr, Out... out) {
    constexpr bool D = Mode == tile_mode_t::direct, BD = Mode != tile_mode_t::packed;
    __m256 acc[M][2];
    const __m256i m0 = tail_mask(nr), m1 = tail_mask(nr - 8);
    KESTREL_UNROLL(6)
    for (int i = 0; i < M; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    for (dim_t p = 0; p < k; ++p) {
        const __m256 b0 = BD ? _mm256_maskload_ps(b + p * ldb, m0) : _mm256_loadu_ps(b + p * NR);
        const __m256 b1 = BD ? _mm256_maskload_ps(b + p * ldb + 8, m1) : _mm256_loadu_ps(b + p * NR + 8);
        if constexpr (Mode == tile_mode_t::packing) {
            const packing_out_t o {out...};
            float *pb = o.pb;
            const float *bnext = o.bnext;
            const float *ahead = b + (p + packing_ahead < k ? p + packing_ahead : p) * ldb;
            _mm_prefetch(reinterpret_cast<const char *>(ahead), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char *>(ahead + NR - 1), _MM_HINT_T0);
            if (bnext) {
                _mm_prefetch(reinterpret_cast<const char *>(bnext + p * ldb), _MM_HINT_T1);
                _mm_prefetch(reinterpret_cast<const char *>(bnext + p * ldb + NR - 1), _MM_HINT_T1);
            }
            _mm256_storeu_ps(pb + p * NR, b0); // masked-off lanes loaded as zeros
            _mm256_storeu_ps(pb + p * NR + 8, b1);
        }
        const float *ap = D ? a + p * acs : a + p * MR;
        KESTREL_UNROLL(6)
        for (int i = 0; i < M; ++i) {
            const __m256 ai = _mm256_broadcast_ss(ap + (D ? i * ars : i));
            acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
        }
    }
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    if (nr == NR) {
        KESTREL_UNROLL(6)
        for (int i = 0; i < M; ++i) {
            float *ci = c + i * ldc;
            __m256 r0 = _mm256_mul_ps(va, acc[i][0]), r1 = _mm256_mul_ps(va, acc[i][1]);
            if (beta != 0.f) {
                r0 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(ci), r0);
                r1 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(ci + 8), r1);
            }
            _mm256_storeu_ps(ci, r0);
            _mm256_storeu_ps(ci + 8, r1);
        }
        return;
    }
    KESTREL_UNROLL(6)
    for (int i = 0; i < M; ++i) {
        float *ci = c + i * ldc;
        __m256 r0 = _mm256_mul_ps(va, acc[i][0]), r1 = _mm256_mul_ps(va, acc[i][1]);
        if (beta != 0.f) {
            r0 = _mm256_fmadd_ps(vb, _mm256_maskload_ps(ci, m0), r0);
            r1 = _mm256_fmadd_ps(vb, _mm256_maskload_ps(ci + 8, m1), r1);
        }
        _mm256_maskstore_ps(ci, m0, r0);
        _mm256_maskstore_ps(ci + 8, m1, r1);
    }
}

template <int M>
__attribute__((target("avx2,fma"))) void kernel(dim_t k, float alpha, const float *a,
        const float *b, float beta, float *c, dim_t ldc, dim_t nr) {
    tile<M, tile_mode_t::packed>(k, alpha, a, 1, MR, b, NR, beta, c, ldc, nr);
}

template <int M>
__attribute__((target("avx2,fma"))) void direct(dim_t k, float alpha, const float *a, dim_t ars,
        dim_t acs, const float *b, dim_t ldb, float beta, float *c, dim_t ldc, dim_t nr) {
    tile<M, tile_mode_t::direct>(k, alpha, a, ars, acs, b, ldb, beta, c, ldc, nr);
}

template <int M>
__attribute__((target("avx2,fma"))) void packing(dim_t k, float alpha, const float *a, const float *b,
        dim_t ldb, float *pb, const float *bnext, float beta, float *c, dim_t ldc, dim_t nr) {
    tile<M, tile_mode_t::packing>(
            k, alpha, a, 1, MR, b, ldb, beta, c, ldc, nr, packing_out_t {pb, bnext});
}

const ukernel_t table = {"f32_gemm_6x16__avx2", MR, NR,
        {nullptr, kernel<1>, kernel<2>, kernel<3>, kernel<4>, kernel<5>, kernel<6>}, nullptr, nullptr,
        {nullptr, direct<1>, direct<2>, direct<3>, direct<4>, direct<5>, direct<6>}, nullptr,
        {nullptr, packing<1>, packing<2>, packing<3>, packing<4>, packing<5>, packing<6>}};

} // namespace

const ukernel_t *f32_gemm_6x16__avx2() { return &table; }
#else
const ukernel_t *f32_gemm_6x16__avx2() { return nullptr; }
#endif

} // namespace gemm
} // namespace kestrel
