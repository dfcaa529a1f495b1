// f32 GEMM microkernels. The framework (gemm.cpp: blocking, packing,
// threads) is portable; each ISA adds one file with one microkernel.
//
// Contract of every microkernel (written once, here):
//   fn[mr](k, alpha, a, b, beta, c, ldc, nr) with 1 <= mr <= MR, 1 <= nr <= NR
//   computes, for i < mr, j < nr:
//       c[i * ldc + j] = alpha * sum_{p < k} a[p * MR + i] * b[p * NR + j]
//                        + beta * c[i * ldc + j]
//   where a is a packed A micro-panel (k steps of MR values, one per row of
//   the tile) and b a packed B micro-panel (k steps of NR values, one per
//   column). Packed rows i >= mr and columns j >= nr hold zeros. When
//   beta == 0, c is not read (NaN in C is overwritten, as BLAS does). No
//   element of c outside the mr x nr tile is read or written. k may be 0.
//   Panels are 64-byte aligned at their start; k * MR and k * NR floats.
#ifndef KESTREL_CPU_GEMM_KERNELS_HPP
#define KESTREL_CPU_GEMM_KERNELS_HPP

#include "core/common.hpp"

namespace kestrel {
namespace gemm {

constexpr int max_mr = 16;

using ukernel_fn_t = void (*)(dim_t k, float alpha, const float *a, const float *b, float beta,
        float *c, dim_t ldc, dim_t nr);

struct ukernel_t {
    const char *name;
    int mr, nr;
    ukernel_fn_t fn[max_mr + 1]; // by number of rows; fn[0] unused
};

// One per ISA; the avx2/avx512 ones are nullptr when the compiler could not
// build them. Call only when isa::has() says the CPU runs them.
const ukernel_t *f32_gemm_4x16__portable();
const ukernel_t *f32_gemm_6x16__avx2();
const ukernel_t *f32_gemm_12x32__avx512();

} // namespace gemm
} // namespace kestrel

#endif
