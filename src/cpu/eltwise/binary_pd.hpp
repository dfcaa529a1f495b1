// Binary: the op desc and the base pd every implementation derives.
#ifndef KESTREL_CPU_ELTWISE_BINARY_PD_HPP
#define KESTREL_CPU_ELTWISE_BINARY_PD_HPP

#include "core/primitive_desc.hpp"

namespace kestrel {

struct binary_desc_t : op_desc_impl_t<binary_desc_t> {
    binary_desc_t() : op_desc_impl_t(dnnl_binary) {}
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    memory_desc_t src_md[3] = {zero_md(), zero_md(), zero_md()}; // src2: select only
    memory_desc_t dst_md = zero_md();

    // All three sources, src2 included (the zero md unless alg is select).
    bool serialize(key_writer_t &k) const override {
        // x86-64 size of the fields above: a new field fails the build here
        // until it is written into the key.
        static_assert(sizeof(binary_desc_t) == 2480, "binary_desc_t changed: update serialize");
        k.put(alg);
        for (const memory_desc_t &md : src_md) k.put(md);
        k.put(dst_md);
        return true;
    }
};

struct binary_pd_t : pd_t {
    binary_pd_t(const binary_desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_binary), desc_(*d), dst_md_(d->dst_md) {
        for (int i = 0; i < 3; ++i) src_md_[i] = d->src_md[i];
    }

    const binary_desc_t &desc() const { return desc_; }
    bool is_select() const { return desc_.alg == dnnl_binary_select; }
    const memory_desc_t *src_md(int idx = 0) const override {
        return idx >= 0 && idx < n_inputs() ? &src_md_[idx] : &zero_md_;
    }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    int n_inputs() const override { return is_select() ? 3 : 2; }
    int n_outputs() const override { return 1; }

    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC_0 || arg == DNNL_ARG_SRC_1) return arg_usage_t::input;
        if (arg == DNNL_ARG_SRC_2 && is_select()) return arg_usage_t::input;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }

    status_t query(dnnl_query_t what, int idx, void *result) const override {
        if (what == dnnl_query_alg_kind) {
            *(dnnl_alg_kind_t *)result = desc_.alg;
            return status::success;
        }
        return pd_t::query(what, idx, result);
    }

protected:
    binary_desc_t desc_;
    memory_desc_t src_md_[3];
    memory_desc_t dst_md_;
};

extern const impl_entry_t binary_impl_list[];

} // namespace kestrel

#endif
