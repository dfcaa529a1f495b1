// Pieces shared by the GEMM-based primitives (matmul, inner product): the
// view of a 2D operand as a GEMM matrix, attribute checks and the output
// stage (scales, bias, post-ops) applied through the GEMM epilogue.
#ifndef KESTREL_CPU_GEMM_GEMM_UTIL_HPP
#define KESTREL_CPU_GEMM_GEMM_UTIL_HPP

#include "core/primitive.hpp"
#include "cpu/gemm/gemm.hpp"
#include "cpu/post_ops.hpp"

namespace kestrel {
namespace gemm {

// The memory md an argument really has at execution: the pd's unless it
// carries runtime dims, then the memory object's.
inline const memory_desc_t &exec_md(const exec_ctx_t &ctx, int arg, const memory_desc_t *pd_md) {
    if (!mdw_t(pd_md).has_runtime_dims_or_strides()) return *pd_md;
    dnnl_memory *m = ctx.memory(arg);
    return m ? m->md : *pd_md;
}

// The last two dims of a plain md (rows x cols) as a GEMM operand: row-major
// with leading dim ld, or transposed (column-major) with leading dim ld.
struct mat_view_t {
    bool ok = false, trans = false;
    dim_t ld = 0;
};
// want: -1 either orientation (row-major preferred), 0 row-major only,
// 1 transposed only.
mat_view_t view_2d(const memory_desc_t &md, int want = -1);

// Accepts scales on src (mask 0), weights (mask 0 or per_n_mask) and dst
// (mask 0), f32 values, no groups.
bool scales_ok(const attr_t &attr, int per_n_mask);

// Scale values of one execution.
struct scales_t {
    float src = 1.f, wei = 1.f, dst_inv = 1.f;
    const float *wei_n = nullptr; // per-N weight scales, or nullptr
    status_t init(const attr_t &attr, const exec_ctx_t &ctx);
};

// The output stage as a GEMM epilogue. The GEMM has produced
//   C = alpha * acc + beta * C_old
// with alpha = src * wei scales (when per-tensor) and beta = the sum scale
// when the chain starts with a plain sum (`first_po` then skips it). Per
// tile this applies the per-N weight scales, the bias, the post-ops from
// `first_po`, and 1 / dst scale.
struct out_stage_t : epilogue_t {
    const float *wei_n = nullptr;
    float dst_inv = 1.f;
    const float *bias = nullptr; // f32, at the batch's origin
    dim_t bias_sm = 0, bias_sn = 0; // strides along M and N, 0 if broadcast
    const post_ops::applier_t *ap = nullptr;
    int first_po = 0;
    int ndims = 2; // of dst; positions are (batch..., m, n)
    dim_t pos[max_ndims] = {};

    bool trivial() const {
        return !wei_n && dst_inv == 1.f && !bias && (!ap || ap->size() <= first_po);
    }
    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, float *c, dim_t ldc) const override;
};

// Whether the post-op chain's leading sum can ride on the GEMM's beta.
inline bool sum_as_beta(const post_ops_t &po) {
    return !po.entries.empty() && po.entries[0].kind == dnnl_sum && po.entries[0].sum.zero_point == 0;
}

} // namespace gemm
} // namespace kestrel

#endif
