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

const ukernel_t table = {"f32_gemm_4x16__portable", MR, NR,
        {nullptr, kernel<1>, kernel<2>, kernel<3>, kernel<4>}};

} // namespace

const ukernel_t *f32_gemm_4x16__portable() { return &table; }

} // namespace gemm
} // namespace kestrel
