// Microkernels of the matmul with packed sparse weights (sparse:packed;
// layout in core/packed_layout.hpp). They compute from the packed format
// directly: nothing is expanded into a dense tile anywhere.
//
// Contract, the same for every ISA and type:
//   mask  the K masks of one panel (bit j: column j of that row is stored)
//   val   the panel's first stored value; the kernel reads the values in
//         order, popcount(mask[k]) of them for row k
//   end   one past the last value the buffer holds: reads stay below it
//         (the driver has checked that the panel's values end before it)
//   src   row-major, `mr` rows (1 <= mr <= the table's mr) of K elements,
//         leading dimension lds
//   acc   out: mr x 16 sums (row stride 16); column j of row r is
//         sum over k of src[r][k] * w[k][j], zero where no value is stored
// A row whose mask is 0 costs one load and one branch: its values are
// neither read nor multiplied. f32 sums in order of k with FMA per lane;
// integer sums are exact in s32 (wrapping on overflow, as the int8 GEMM).
#ifndef KESTREL_CPU_GEMM_PACKED_KERNELS_HPP
#define KESTREL_CPU_GEMM_PACKED_KERNELS_HPP

#include <cstdint>

#include "core/common.hpp"

namespace kestrel {
namespace gemm {

using packed_f32_fn_t = void (*)(const uint16_t *mask, const float *val, const float *end, dim_t K,
        const float *src, dim_t lds, int mr, float *acc);
using packed_s32_fn_t = void (*)(const uint16_t *mask, const int8_t *val, const int8_t *end, dim_t K,
        const void *src, dim_t lds, int mr, int32_t *acc);

struct packed_kernels_t {
    const char *isa; // in the implementation's name: sparse:packed:<isa>
    int mr; // rows of src per call, at most
    packed_f32_fn_t f32; // f32 src and weights
    packed_s32_fn_t u8s8; // u8 src, s8 weights
    packed_s32_fn_t s8s8; // s8 src, s8 weights
};

constexpr int packed_max_mr = 8;

// One table per ISA; the avx2/avx512 ones are nullptr when the compiler
// could not build them. Call only when isa::has() says the CPU runs them.
const packed_kernels_t *packed_kernels_portable();
const packed_kernels_t *packed_kernels_avx2();
const packed_kernels_t *packed_kernels_avx512();

} // namespace gemm
} // namespace kestrel

#endif
