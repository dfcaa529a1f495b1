// Softmax forward: the op desc and the base pd every implementation derives.
#ifndef KESTREL_CPU_ELTWISE_SOFTMAX_PD_HPP
#define KESTREL_CPU_ELTWISE_SOFTMAX_PD_HPP

#include "core/primitive_desc.hpp"

namespace kestrel {

struct softmax_desc_t : op_desc_impl_t<softmax_desc_t> {
    softmax_desc_t() : op_desc_impl_t(dnnl_softmax) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    dnnl_alg_kind_t alg = dnnl_softmax_accurate;
    memory_desc_t src_md = zero_md();
    memory_desc_t dst_md = zero_md();
    int axis = 0;
};

struct softmax_fwd_pd_t : pd_t {
    softmax_fwd_pd_t(const softmax_desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_softmax), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const softmax_desc_t &desc() const { return desc_; }
    bool is_log() const { return desc_.alg == dnnl_softmax_log; }
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
            case dnnl_query_axis_s32: *(int *)result = desc_.axis; return status::success;
            default: return pd_t::query(what, idx, result);
        }
    }

protected:
    softmax_desc_t desc_;
    memory_desc_t src_md_, dst_md_;
};

extern const impl_entry_t softmax_impl_list[];

} // namespace kestrel

#endif
