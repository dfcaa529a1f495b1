// GEMM over operands the f32 engine cannot read directly: A and/or B stored
// as bf16, f16, f8 (e5m2, e4m3), s8 or u8 (minus zero points, or B in
// s8/u8/s4/u4 decompressed with grouped scales and zero points), C stored as
// bf16, f16 or f8.
//
//   C[M x N] = alpha * op(A) * op(B) + beta * C     (as plan_t)
//
// C is cut into tiles (at most tile_m x tile_n) and K into chunks of at most
// tile_k. Per tile and chunk, a thread converts the pieces of A and B it
// needs into f32 panels in its own scratchpad regions (booked at pd
// creation, so execution never allocates) and runs the f32 GEMM on them;
// a C stored in a narrow type is accumulated in an f32 tile and rounded
// once at the end. Every product and sum is done in f32, so this also
// serves fpmath_mode strict. Operands already in f32 (without a zero
// point) are read in place.
//
// Plain f16 / bf16 / f32 operands (no zero points) skip the f32 panels and
// the inner plan: they are converted straight into the f32 kernel's packed
// micro-panels and multiplied by that kernel ("converting packs" in
// gemm_cvt.cpp; tiles up to 1024 x 1024, A blocks of 480 rows), except for
// tiles of at most 8 rows or columns (f32 panels and the skinny kernel).
// Weights decompression, and plain row-major f16 weights, with at most 4
// rows of C (on AVX-512) skip the panels: a GEMV reads each weight once,
// decompresses or widens it in registers and accumulates in f32 (see
// gemm_cvt.cpp).
// Weights decompression with a bf16 A, when the caller allows bf16 weights
// (init's bf16_weights: fpmath bf16 or any applied to integers) and the CPU
// has AVX512-BF16, otherwise runs the bf16 tiles of gemm_bf16.hpp: each K
// chunk of B is decompressed straight into the packed bf16 pair panels
// ((w - zp) * scale in f32, rounded once to bf16) and multiplied by
// vdpbf16ps. The GEMV above stays first for at most 4 rows (measured 3x
// faster at 1 x 4096 x 4096 than the tiles) and keeps f32 weights.
#ifndef KESTREL_CPU_GEMM_GEMM_CVT_HPP
#define KESTREL_CPU_GEMM_GEMM_CVT_HPP

#include "cpu/gemm/gemm.hpp"

namespace kestrel {
namespace gemm {

// One operand as stored. `p` points at its origin (element (0, 0) of op(X));
// ld and trans as in plan_t. Zero points are subtracted from every element
// before the product: `zp` for all, plus zp_v[i] (type zp_dt) along the
// non-K dim (rows of op(A), columns of op(B)) when zp_v is set.
// Weights decompression (B only, s8/u8/s4/u4): element (k, n) of op(B) becomes
//   (b - zp[zp_off + k / zp_group * zp_ldk + n * zp_ldn])
//       * sc[sc_off + k / sc_group * sc_ldk + n * sc_ldn]
// (offsets in elements: s4/u4 zero points pack two per byte); a null table
// is zero or one.
struct dequant_t {
    const void *sc = nullptr, *zp = nullptr;
    data_type_t sc_dt = dnnl_f32, zp_dt = dnnl_s32;
    dim_t sc_off = 0, zp_off = 0;
    dim_t sc_group = 1, sc_ldk = 0, sc_ldn = 0;
    dim_t zp_group = 1, zp_ldk = 0, zp_ldn = 0;
};

struct operand_t {
    const void *p = nullptr;
    data_type_t dt = dnnl_f32;
    dim_t ld = 0;
    bool trans = false;
    float zp = 0.f;
    const void *zp_v = nullptr;
    data_type_t zp_dt = dnnl_s32;
    const dequant_t *dq = nullptr; // B only; then zp and zp_v are unused
    // s4/u4 (with dq only): element i of the operand is nibble nib0 + i
    // counted from the byte at p.
    dim_t nib0 = 0;
};

class cvt_plan_t {
public:
    // Keys booked relative to the caller's base.
    enum : scratchpad::key_t { key_inner = 0, key_a = key_count, key_b, key_c, key_total };

    // M, N, K may be DNNL_RUNTIME_DIM_VAL. with_zp: operands will carry zero
    // points (they are then always converted). nthr 0 means max_threads().
    // bf16_weights: compressed weights (s8/u8/s4/u4 B with dequant_t) may be
    // rounded to bf16 after dequantisation (fpmath bf16 or any applied to
    // integers); with a bf16 A and AVX512-BF16 the tiles then run
    // vdpbf16ps on B panels decompressed while packing.
    status_t init(dim_t M, dim_t N, dim_t K, data_type_t a_dt, bool transa, data_type_t b_dt,
            bool transb, data_type_t c_dt, bool with_zp = false, int nthr = 0, bool bf16_weights = false);
    void book(scratchpad::registry_t &reg, scratchpad::key_t base) const;

    // Parallel over C tiles. C points at element (0, 0); ldc in elements.
    status_t execute(dim_t M, dim_t N, dim_t K, float alpha, const operand_t &A,
            const operand_t &B, float beta, void *C, dim_t ldc, const scratchpad::grantor_t &g,
            scratchpad::key_t base, const epilogue_t *ep = nullptr) const;
    // Every tile on the calling thread with slot ithr's regions.
    status_t execute_st(dim_t M, dim_t N, dim_t K, float alpha, const operand_t &A,
            const operand_t &B, float beta, void *C, dim_t ldc, const scratchpad::grantor_t &g,
            scratchpad::key_t base, int ithr, const epilogue_t *ep = nullptr) const;

    // Whether an operand of this plan is converted (else read in place).
    bool cvt_a() const { return cvt_a_; }
    bool cvt_b() const { return cvt_b_; }
    // Whether bf16 x bf16 products run on AVX512-BF16 (see gemm_bf16.hpp).
    bool bf16_dot() const { return bf16_dot_; }
    // Whether compressed weights are decompressed into bf16 panels for it.
    bool wdec_dot() const { return wdec_dot_; }

private:
    status_t run_tiles(dim_t M, dim_t N, dim_t K, float alpha, const operand_t &A,
            const operand_t &B, float beta, void *C, dim_t ldc, const scratchpad::grantor_t &g,
            scratchpad::key_t base, int ithr, dim_t t0, dim_t t1, dim_t tm, dim_t tn,
            const epilogue_t *ep) const;

    plan_t inner_;
    data_type_t c_dt_ = dnnl_f32;
    bool cvt_a_ = false, cvt_b_ = false;
    // bf16 x bf16 tiles run vdpbf16ps on packed pairs (gemm_bf16.hpp)
    // instead of f32 panels, when the CPU has AVX512-BF16.
    bool bf16_dot_ = false;
    // bf16 A with compressed B (bf16_weights at init) on AVX512-BF16:
    // bf16_dot_tile_dq.
    bool wdec_dot_ = false;
    dim_t tm_ = 0, tn_ = 0, tk_ = 0; // largest tile and chunk
    dim_t kfull_ = 0;                  // K, or the largest dim_t when it is a runtime dim
    // Weights decompression with at most 4 rows of C runs a GEMV that
    // decompresses in registers (gemm_cvt.cpp); gemv_a_ is how many f32
    // elements of op(A) its per-thread region holds (0: no such path).
    dim_t gemv_a_ = 0;
    bool use_gemv(dim_t M, dim_t K, const operand_t &B) const;
    status_t run_gemv(dim_t M, dim_t N, dim_t K, float alpha, const operand_t &A, const operand_t &B,
            float beta, void *C, dim_t ldc, const scratchpad::grantor_t &g, scratchpad::key_t base, int ithr,
            dim_t j0, dim_t j1, const epilogue_t *ep) const;
    int nthr_ = 1;
    // Plain f16 / bf16 / f32 operands are converted straight into the
    // packed micro-panels of uk_ (the f32 engine's kernel) and multiplied
    // by it, skipping inner_ (gemm_cvt.cpp, "converting packs").
    const ukernel_t *uk_ = nullptr;
    bool pk_ = false;
};

} // namespace gemm
} // namespace kestrel

#endif
