// Portable 4x16 microkernel (plain C++; the compiler vectorises it with the
// baseline ISA). Contract: kernels.hpp.
#include "cpu/gemm/kernels.hpp"

namespace kestrel {
namespace gemm {

namespace {

constexpr int MR = 4, NR = 16;

template <int M>
void kernel(dim_t k, float alpha, const float *a, const float *b, float beta, float *c,
        dim_t ldc, dim_t nr) {
    float acc[M][NR] = {};
    for (dim_t p = 0; p < k; ++p) {
        const float *bp = b + p * NR;
        for (int i = 0; i < M; ++i) {
            const float ai = a[p * MR + i];
            for (int j = 0; j < NR; ++j) acc[i][j] += ai * bp[j];
        }
    }
    for (int i = 0; i < M; ++i) {
        float *ci = c + i * ldc;
        if (beta == 0.f) {
            for (dim_t j = 0; j < nr; ++j) ci[j] = alpha * acc[i][j];
        } else {
            for (dim_t j = 0; j < nr; ++j) ci[j] = alpha * acc[i][j] + beta * ci[j];
        }
    }
}

// Skinny product in plain C++: columns in chunks of 64 accumulated in a
// local tile (vectorisable over j when b's rows are contiguous).
void skinny(const skinny_args_t &s) {
    constexpr dim_t JB = 64;
    float acc[skinny_max_m][JB];
    for (dim_t j0 = 0; j0 < s.n; j0 += JB) {
        const dim_t nb = s.n - j0 < JB ? s.n - j0 : JB;
        for (dim_t i = 0; i < s.m; ++i)
            for (dim_t j = 0; j < nb; ++j) acc[i][j] = 0.f;
        for (dim_t p = 0; p < s.k; ++p) {
            const float *bp = s.b + p * s.brs + j0 * s.bcs;
            for (dim_t i = 0; i < s.m; ++i) {
                const float ai = s.a[i * s.ars + p * s.acs];
                for (dim_t j = 0; j < nb; ++j) acc[i][j] += ai * bp[j * s.bcs];
            }
        }
        for (dim_t i = 0; i < s.m; ++i)
            for (dim_t j = 0; j < nb; ++j) {
                float *c = s.c + i * s.crs + (j0 + j) * s.ccs;
                *c = s.beta == 0.f ? s.alpha * acc[i][j] : s.alpha * acc[i][j] + s.beta * *c;
            }
    }
}

const ukernel_t table = {"f32_gemm_4x16__portable", MR, NR,
        {nullptr, kernel<1>, kernel<2>, kernel<3>, kernel<4>}, skinny,
        "f32_gemm_skinny__portable"};

} // namespace

const ukernel_t *f32_gemm_4x16__portable() { return &table; }

} // namespace gemm
} // namespace kestrel
