// Eltwise forward: the op desc and the base pd every implementation derives.
#ifndef KESTREL_CPU_ELTWISE_ELTWISE_PD_HPP
#define KESTREL_CPU_ELTWISE_ELTWISE_PD_HPP

#include "core/primitive_desc.hpp"

namespace kestrel {

struct eltwise_desc_t : op_desc_impl_t<eltwise_desc_t> {
    eltwise_desc_t() : op_desc_impl_t(dnnl_eltwise) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    memory_desc_t src_md = zero_md();
    memory_desc_t dst_md = zero_md();
    float alpha = 0.f, beta = 0.f;
};

struct eltwise_fwd_pd_t : pd_t {
    eltwise_fwd_pd_t(const eltwise_desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_eltwise), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const eltwise_desc_t &desc() const { return desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    int n_inputs() const override { return 1; }
    int n_outputs() const override { return 1; }

    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC) return arg_usage_t::input;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }

    status_t query(dnnl_query_t what, int idx, void *result) const override {
        switch (what) {
            case dnnl_query_alg_kind: *(dnnl_alg_kind_t *)result = desc_.alg; return status::success;
            case dnnl_query_alpha_f32: *(float *)result = desc_.alpha; return status::success;
            case dnnl_query_beta_f32: *(float *)result = desc_.beta; return status::success;
            default: return pd_t::query(what, idx, result);
        }
    }

protected:
    eltwise_desc_t desc_;
    memory_desc_t src_md_, dst_md_;
};

extern const impl_entry_t eltwise_impl_list[];

} // namespace kestrel

#endif
