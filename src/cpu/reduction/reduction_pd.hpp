// Reduction: the op descriptor and the base of every implementation.
#ifndef KESTREL_CPU_POOLING_REDUCTION_PD_HPP
#define KESTREL_CPU_POOLING_REDUCTION_PD_HPP

#include "core/primitive_desc.hpp"
#include "cpu/common/common.hpp"

namespace kestrel {

struct reduction_desc_t : op_desc_impl_t<reduction_desc_t> {
    reduction_desc_t() : op_desc_impl_t(dnnl_reduction) {}
    dnnl_alg_kind_t alg = dnnl_reduction_sum;
    memory_desc_t src_md = zero_md(), dst_md = zero_md();
    float p = 0.f, eps = 0.f;

    // Every field, for the primitive cache key.
    bool serialize(key_writer_t &k) const override {
        k.put(alg);
        k.put(src_md);
        k.put(dst_md);
        k.put(p);
        k.put(eps);
        return true;
    }
};

struct reduction_pd_t : pd_t {
    using desc_t = reduction_desc_t;
    reduction_pd_t(const desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_reduction), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const desc_t *desc() const { return &desc_; }
    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC) return arg_usage_t::input;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return 1; }
    int n_outputs() const override { return 1; }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

    // What each element contributes and how the result is finished.
    pool::red_op_t op() const { return op_; }
    // The final value from the combined terms of `count` elements.
    float finish(float acc, dim_t count) const;

protected:
    // Checks what every implementation needs (types, attributes), resolves
    // dst format `any` to a src-like layout.
    status_t init_common();

    desc_t desc_;
    memory_desc_t src_md_, dst_md_;
    pool::red_op_t op_ = pool::red_op_t::sum;
};

extern const impl_entry_t reduction_impl_list[];

} // namespace kestrel

#endif
