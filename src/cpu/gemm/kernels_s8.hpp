// int8 GEMM microkernels (u8 x s8 -> s32). The framework (gemm_s8.cpp:
// blocking, packing, threads, sums) is portable; each ISA adds one file.
//
// Packed layouts (K in groups of 4 bytes; k4 = ceil(K / 4) groups):
//   A micro-panel: a[(g * MR + i) * 4 + q] = op(A)(i, 4g + q) as u8
//   B micro-panel: b[(g * NR + j) * 4 + q] = op(B)(4g + q, j) as s8
// Rows/columns past the matrix and k past K hold zeros in B (so the A
// bytes there do not matter).
//
// Contract of every microkernel (written once, here):
//   fn(k4, a, b, init, acc) computes, for every i < MR, j < NR:
//       acc[i * NR + j] = (init ? init[j] : 0)
//                         + sum_{g < k4, q < 4} a[(g*MR+i)*4+q] * b[(g*NR+j)*4+q]
//   exactly, modulo 2^32 (s32 accumulation). A kernel may also offer
//   variants for short panels: rows[m] (1 <= m <= MR) computes the same for
//   i < m only (rows past m of acc are left alone; a keeps its MR stride),
//   so a panel of m < MR real rows costs m rows of work. acc is a 64-byte aligned
//   MR x NR tile the framework owns; b may be at any address (packed
//   weights can come straight from a user's buffer: an inner product's
//   weights in the packed layout), though the framework's own panels are
//   64-byte aligned; a may be at any 4-byte boundary (it is read by 4-byte
//   broadcasts). k4 may be 0.
#ifndef KESTREL_CPU_GEMM_KERNELS_S8_HPP
#define KESTREL_CPU_GEMM_KERNELS_S8_HPP

#include <cstdint>

#include "core/common.hpp"

namespace kestrel {
namespace gemm {

using s8_ukernel_fn_t = void (*)(dim_t k4, const uint8_t *a, const int8_t *b,
        const int32_t *init, int32_t *acc);

struct s8_ukernel_t {
    const char *name;
    int mr, nr;
    s8_ukernel_fn_t fn;
    const s8_ukernel_fn_t *rows; // nullptr, or MR + 1 entries (rows[0] unused)
};

constexpr int s8_max_mr = 8, s8_max_nr = 48;

// One per ISA; all but the portable one are nullptr when the compiler could
// not build them. Call only when the CPU runs them (isa::has, has_avx2_vnni,
// has_avx512_vnni).
const s8_ukernel_t *u8s8s32_gemm_4x16__portable();
const s8_ukernel_t *u8s8s32_gemm_4x16__avx2();
const s8_ukernel_t *u8s8s32_gemm_6x16__avxvnni();
const s8_ukernel_t *u8s8s32_gemm_8x48__avx512vnni();

} // namespace gemm
} // namespace kestrel

#endif
