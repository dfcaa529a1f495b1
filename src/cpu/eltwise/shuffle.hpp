// Shuffle forward: op desc, base pd and the implementation.
#ifndef KESTREL_CPU_ELTWISE_SHUFFLE_HPP
#define KESTREL_CPU_ELTWISE_SHUFFLE_HPP

#include "core/primitive.hpp"

namespace kestrel {

struct shuffle_desc_t : op_desc_impl_t<shuffle_desc_t> {
    shuffle_desc_t() : op_desc_impl_t(dnnl_shuffle) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    memory_desc_t src_md = zero_md();
    memory_desc_t dst_md = zero_md();
    int axis = 1;
    dim_t group_size = 1;
};

struct shuffle_fwd_pd_t : pd_t {
    shuffle_fwd_pd_t(const shuffle_desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_shuffle), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const shuffle_desc_t &desc() const { return desc_; }
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
            case dnnl_query_axis_s32: *(int *)result = desc_.axis; return status::success;
            case dnnl_query_group_size_s64: *(dim_t *)result = desc_.group_size; return status::success;
            default: return pd_t::query(what, idx, result);
        }
    }

protected:
    shuffle_desc_t desc_;
    memory_desc_t src_md_, dst_md_;
};

struct shuffle_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, shuffle_fwd_pd_t, shuffle_ref_t> {
        using desc_t = shuffle_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override;
    };
    explicit shuffle_ref_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

extern const impl_entry_t shuffle_impl_list[];

} // namespace kestrel

#endif
