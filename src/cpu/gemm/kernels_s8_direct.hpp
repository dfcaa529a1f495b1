// int8 GEMM microkernels that read A in place (row-major u8 rows, no packed
// A panel): the framework uses them for full MR-row panels of an unsigned,
// untransposed A whose row sums are not needed and whose K is a multiple of
// 4. Packing A there cost as much as 15% of a short-M product at two
// threads (each thread of a 1 x n grid packs all of A).
//
// Contract: fn(k4, a, lda, b, init, acc) computes, for every i < MR, j < NR,
//     acc[i * NR + j] = (init ? init[j] : 0)
//                       + sum_{g < k4, q < 4} a[i * lda + 4g + q] * b[(g*NR+j)*4+q]
// exactly, modulo 2^32, with b and acc as in kernels_s8.hpp; a is read at
// bytes [0, 4 * k4) of each of the MR rows, and nowhere else.
#ifndef KESTREL_CPU_GEMM_KERNELS_S8_DIRECT_HPP
#define KESTREL_CPU_GEMM_KERNELS_S8_DIRECT_HPP

#include <cstdint>

#include "core/common.hpp"

namespace kestrel {
namespace gemm {

using s8_direct_fn_t = void (*)(dim_t k4, const uint8_t *a, dim_t lda, const int8_t *b,
        const int32_t *init, int32_t *acc);

// The direct variant of u8s8s32_gemm_8x48__avx512vnni (same MR, NR and B
// panels), or nullptr when the compiler could not build it.
s8_direct_fn_t u8s8s32_gemm_8x48__avx512vnni_direct();

} // namespace gemm
} // namespace kestrel

#endif
