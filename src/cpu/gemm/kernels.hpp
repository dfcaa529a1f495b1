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
//   column). Packed rows i >= mr and columns j >= nr are read but never
//   reach c (the library's packing leaves zeros there). When beta == 0, c
//   is not read (NaN in C is overwritten, as BLAS does). No element of c
//   outside the mr x nr tile is read or written. k may be 0.
//   Panels are k * MR and k * NR floats; A panels are 64-byte aligned at
//   their start, B panels need not be (weights the user laid out as
//   panels, gemm::panels_b_md, are read in place).
#ifndef KESTREL_CPU_GEMM_KERNELS_HPP
#define KESTREL_CPU_GEMM_KERNELS_HPP

#include "core/common.hpp"

namespace kestrel {
namespace gemm {

constexpr int max_mr = 16;

using ukernel_fn_t = void (*)(dim_t k, float alpha, const float *a, const float *b, float beta,
        float *c, dim_t ldc, dim_t nr);

// Skinny kernels: a product whose C has at most skinny_max_m rows, done
// without packing (GEMV-like; packing would cost as much as the product).
// Every operand is addressed through strides, so one kernel serves
// transposed inputs and the transposed problem (C^T = op(B)^T op(A)^T) that
// maps N <= skinny_max_m onto m <= skinny_max_m:
//   for i < m, j < n:
//     c[i * crs + j * ccs] = alpha * sum_{p < k} a[i * ars + p * acs] * b[p * brs + j * bcs]
//                            + beta * c[i * crs + j * ccs]
// 1 <= m <= skinny_max_m, n >= 1, k >= 0; bcs == 1 (rows of op(B) contiguous)
// or brs == 1 (columns contiguous). beta == 0: c is not read. a and b are
// not read when k == 0. No other element of c is read or written.
constexpr int skinny_max_m = 8;

struct skinny_args_t {
    dim_t m, n, k;
    float alpha, beta;
    const float *a;
    dim_t ars, acs;
    const float *b;
    dim_t brs, bcs;
    float *c;
    dim_t crs, ccs;
};
using skinny_fn_t = void (*)(const skinny_args_t &);

// Direct (unpacked) tiles, for products small enough that packing would
// cost more than it saves: the same tile as fn[mr], but A and B are read in
// place, op(A)(i, p) = a[i * ars + p * acs] and op(B)(p, j) = b[p * ldb + j]
// (rows of op(B) contiguous). Only rows [0, mr) of A and columns [0, nr) of
// B are read; the rest of the contract is fn[mr]'s.
using direct_fn_t = void (*)(dim_t k, float alpha, const float *a, dim_t ars, dim_t acs,
        const float *b, dim_t ldb, float beta, float *c, dim_t ldc, dim_t nr);

// Packing tiles (optional, per ISA): fn[mr]'s tile on a packed A micro-panel
// with op(B) read in place, op(B)(p, j) = b[p * ldb + j] for j < nr, that
// also writes the packed B micro-panel as it goes: pb[p * NR + j] =
// op(B)(p, j) for j < nr, zeros for nr <= j < NR (k * NR floats). The
// first tile of each B micro-panel packs it, the rest read it back: the
// pack's loads and stores run under the tile's FMAs instead of in a pass of
// their own, and the panel is still in L1/L2 when the next tiles use it.
// Only columns [0, nr) of b are read; bnext (nullptr or the next panel's
// columns in B, same rows) is only fetched, never read; the rest of the
// contract is fn[mr]'s.
// The AVX2 and AVX-512 kernels have them; the portable one has none.
using packing_fn_t = void (*)(dim_t k, float alpha, const float *a, const float *b, dim_t ldb,
        float *pb, const float *bnext, float beta, float *c, dim_t ldc, dim_t nr);

// Shared by the ISA files' tile templates. How a tile reads its operands:
// both packed (micro-panels, ars = 1, acs = MR, ldb = NR), both in place
// (direct: through the strides, B's columns beyond nr masked off so nothing
// past them is read), or A packed and B in place, written to the packed
// panel as it is read (packing).
enum class tile_mode_t { packed, direct, packing };

// What a packing tile writes and fetches besides its own tile. It travels
// as a trailing argument only packing tiles take, so the packed and direct
// tiles' code stays as it was without packing (two extra parameters had
// changed the direct tile's register allocation: 0.97x on small products).
struct packing_out_t {
    float *pb;
    const float *bnext;
};

// Rows of B a packing tile fetches ahead of the row it reads: B is read
// once, from L3 or memory, in short runs ldb apart that the prefetchers
// follow poorly. It also fetches the next panel's rows (bnext) into L2, one
// row per step: without that each panel's first rows waited for memory (a
// 1x1 convolution's backward data on nchw, K = 64: 0.90x against a separate
// whole-row pass; 1.07x with it).
constexpr dim_t packing_ahead = 8;

// A transposing pack (optional, per ISA; gemm.cpp has the portable one):
//   dst[p * W + j] = src[j * ld + p] for p < k, j < w; zeros for w <= j < W.
// Reads only those src elements; writes exactly k * W floats.
using pack_fn_t = void (*)(const float *src, dim_t ld, dim_t k, dim_t w, int W, float *dst);

struct ukernel_t {
    const char *name;
    int mr, nr;
    ukernel_fn_t fn[max_mr + 1]; // by number of rows; fn[0] unused
    // nullptr: this ISA has no skinny kernel and skinny shapes go through the
    // packed path.
    skinny_fn_t skinny = nullptr;
    const char *skinny_name = nullptr;
    // nullptr at [1]: no direct tiles, small products are packed too.
    direct_fn_t direct[max_mr + 1] = {};
    // nullptr: the portable transposing pack.
    pack_fn_t pack_transposing = nullptr;
    // nullptr at [1]: B is packed a block at a time before its tiles.
    packing_fn_t packing[max_mr + 1] = {};
};

// One per ISA; the avx2/avx512 ones are nullptr when the compiler could not
// build them. Call only when isa::has() says the CPU runs them.
const ukernel_t *f32_gemm_4x16__portable();
const ukernel_t *f32_gemm_6x16__avx2();
const ukernel_t *f32_gemm_12x32__avx512();

// The kernel plan_t::init picks under the current ISA and testing caps
// (gemm.cpp), for callers that pack panels in its layout themselves.
const ukernel_t *f32_kernel();

} // namespace gemm
} // namespace kestrel

#endif
