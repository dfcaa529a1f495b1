// bf16 x bf16 products on AVX512-BF16 (vdpbf16ps), for the tiles of
// cvt_plan_t: instead of widening both operands to f32 panels and running
// the f32 engine, one tile of C is computed straight from packed bf16 pairs,
// twice the multiply-adds per instruction of f32 FMA.
//
//   Cf[mb x nb] = alpha * op(A) op(B) + beta * Cf      (f32 C, row-major)
//
// where op(A) is the mb x kb block of A at (m0, k0) and op(B) the kb x nb
// block of B at (k0, n0), both bf16 as described by (p, ld, trans).
// Products of two bf16 values are exact in f32; vdpbf16ps adds them to the
// f32 accumulators rounding to nearest even, and treats subnormal inputs
// and results as zero (as oneDNN's bf16 kernels do).
#ifndef KESTREL_CPU_GEMM_GEMM_BF16_HPP
#define KESTREL_CPU_GEMM_GEMM_BF16_HPP

#include <cstdint>

#include "core/common.hpp"

namespace kestrel {
namespace gemm {

struct bf16_block_t {
    const uint16_t *p = nullptr; // element (0, 0) of op(X)
    dim_t ld = 0;
    bool trans = false;
};

// Whether the CPU and the ISA cap allow the kernel (AVX512-BF16).
bool bf16_dot_available();

// Bytes of the packing buffers a tile of at most tm x tn x tk needs.
size_t bf16_pack_a_bytes(dim_t tm, dim_t tk);
size_t bf16_pack_b_bytes(dim_t tk, dim_t tn);

// One tile on the calling thread; pa/pb are 64-byte aligned buffers of the
// sizes above. Only call when bf16_dot_available().
// out (optional, kb > 0 only): the final values go there rounded to bf16
// (to nearest even, leading dim ldo) instead of into C; C then holds only
// partial sums (and is read for beta as usual).
void bf16_dot_tile(dim_t mb, dim_t nb, dim_t kb, float alpha, const bf16_block_t &A, dim_t m0,
        dim_t k0, const bf16_block_t &B, dim_t n0, float beta, float *C, dim_t ldc, uint32_t *pa,
        uint32_t *pb, uint16_t *out = nullptr, dim_t ldo = 0);

struct operand_t; // gemm_cvt.hpp

// The same tile with op(B) compressed (weights decompression, fpmath bf16
// applied to integers): B is s8/u8/s4/u4 with its B.dq tables and B.p at
// element (0, 0) of op(B) (nibble B.nib0 for s4/u4); A is bf16 from k = 0
// over all kb. Each weight is dequantised in f32 as (w - zp) * scale and
// rounded to bf16 once, while the B panel of a K chunk is packed (never a
// dequantised copy of the whole weights). Rounding: to nearest even;
// a subnormal result is flushed to zero, as vdpbf16ps would treat it
// anyway. Column block of op(B) [n0, n0 + nb) of the whole weights.
void bf16_dot_tile_dq(dim_t mb, dim_t nb, dim_t kb, float alpha, const bf16_block_t &A, dim_t m0,
        const operand_t &B, dim_t n0, float beta, float *C, dim_t ldc, uint32_t *pa, uint32_t *pb,
        uint16_t *out = nullptr, dim_t ldo = 0);

} // namespace gemm
} // namespace kestrel

#endif
