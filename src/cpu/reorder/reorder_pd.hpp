// Reorder: the op descriptor, the base primitive descriptor and the
// quantization parameters every reorder implementation shares.
//
//   dst = (src_scale * (src - src_zp) + beta * (dst_old - dst_zp)) / dst_scale
//         + dst_zp
// with scales on DNNL_ARG_SRC / DNNL_ARG_DST (f32, any mask), a src zero
// point (s32, any mask), a dst zero point (s32, mask 0) and beta from an
// optional sum post-op; the result is rounded to nearest even and saturated
// to the dst data type.
#ifndef KESTREL_CPU_REORDER_REORDER_PD_HPP
#define KESTREL_CPU_REORDER_REORDER_PD_HPP

#include "core/primitive_desc.hpp"

namespace kestrel {

struct reorder_desc_t : op_desc_impl_t<reorder_desc_t> {
    reorder_desc_t() : op_desc_impl_t(dnnl_reorder) {}
    memory_desc_t src_md = zero_md();
    memory_desc_t dst_md = zero_md();

    bool serialize(key_writer_t &k) const override {
        k.put(src_md);
        k.put(dst_md);
        return true;
    }
};

// The attribute part of a reorder, decoded once at descriptor creation.
struct reorder_quant_t {
    bool src_scale = false, dst_scale = false, src_zp = false, dst_zp = false;
    int src_scale_mask = 0, dst_scale_mask = 0, src_zp_mask = 0;
    bool with_sum = false;
    float beta = 0.f;

    bool trivial() const { return !(src_scale || dst_scale || src_zp || dst_zp || with_sum); }
    // Decodes attr; unimplemented for anything a reorder does not support.
    status_t init(const attr_t &attr, int ndims);
};

// Execution-time values of the quantization parameters.
struct reorder_quant_args_t {
    const float *src_scale = nullptr, *dst_scale = nullptr;
    const int32_t *src_zp = nullptr;
    int32_t dst_zp = 0;
};

class exec_ctx_t;
// Fetches the parameter buffers of one execution.
reorder_quant_args_t reorder_quant_args(const reorder_quant_t &q, const exec_ctx_t &ctx);

struct reorder_base_pd_t : pd_t {
    using base_t = reorder_base_pd_t;
    reorder_base_pd_t(const reorder_desc_t *d, const attr_t *a)
        : pd_t(a, dnnl_reorder), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    arg_usage_t arg_usage(int arg) const override;
    int n_inputs() const override { return 1; }
    int n_outputs() const override { return 1; }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

    const reorder_desc_t &desc() const { return desc_; }
    const reorder_quant_t &quant() const { return quant_; }

protected:
    // Common checks of every implementation: same dims, blocked layouts,
    // no runtime values; decodes the attributes.
    status_t init_common(const char *impl);

    reorder_desc_t desc_;
    memory_desc_t src_md_, dst_md_;
    reorder_quant_t quant_;
};

} // namespace kestrel

#endif
