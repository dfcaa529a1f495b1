// The shape shared by eltwise, softmax and shuffle: one src in, one dst out,
// a prop kind, and dst format `any` taking src's layout. Each kind's op desc
// derives src_dst_desc_t and its base pd derives src_dst_pd_t; the kind adds
// its own parameters and queries.
#ifndef KESTREL_CPU_ELTWISE_SRC_DST_PD_HPP
#define KESTREL_CPU_ELTWISE_SRC_DST_PD_HPP

#include "core/primitive_desc.hpp"
#include "cpu/eltwise/common.hpp"

namespace kestrel {

template <typename self_t>
struct src_dst_desc_t : op_desc_impl_t<self_t> {
    explicit src_dst_desc_t(dnnl_primitive_kind_t k) : op_desc_impl_t<self_t>(k) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    memory_desc_t src_md = zero_md();
    memory_desc_t dst_md = zero_md();

    // The shared fields for the cache key; each kind's serialize() calls
    // this and then writes its own parameters.
    void serialize_src_dst(key_writer_t &k) const {
        k.put(prop_kind);
        k.put(src_md);
        k.put(dst_md);
    }
};

template <typename desc_t>
struct src_dst_pd_t : pd_t {
    src_dst_pd_t(const desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, d->kind), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const desc_t &desc() const { return desc_; }
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

protected:
    // Layout checks every implementation starts with: src blocked, dst
    // format `any` resolved to src's layout, dst blocked.
    status_t init_layouts(const char *impl) {
        if (!mdw_t(src_md_).is_blocked() || mdw_t(src_md_).has_runtime_dims_or_strides())
            return decline(impl, "src layout");
        KESTREL_CHECK(elt::set_layout_like(dst_md_, src_md_));
        if (!mdw_t(dst_md_).is_blocked() || mdw_t(dst_md_).has_runtime_dims_or_strides())
            return decline(impl, "dst layout");
        return status::success;
    }

    desc_t desc_;
    memory_desc_t src_md_, dst_md_;
};

} // namespace kestrel

#endif
