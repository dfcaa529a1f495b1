// Base of the backward primitive descriptors whose op descriptor stores
// four tensors in the forward roles, as oneDNN's do (convolution,
// deconvolution, inner product):
//   backward data:    src = diff_src, weights,                dst = diff_dst
//   backward weights: src, weights = diff_weights, bias = diff_bias, dst = diff_dst
// It answers the md queries and argument usage of both propagation kinds.
#ifndef KESTREL_CPU_COMMON_BWD_PD_HPP
#define KESTREL_CPU_COMMON_BWD_PD_HPP

#include "core/primitive_desc.hpp"

namespace kestrel {

struct bwd_pd_t : pd_t {
    bwd_pd_t(const attr_t *a, dnnl_primitive_kind_t kind, dnnl_prop_kind_t prop, const memory_desc_t &src,
            const memory_desc_t &wei, const memory_desc_t &bias, const memory_desc_t &dst)
        : pd_t(a, kind), prop_(prop), src_md_(src), wei_md_(wei), bias_md_(bias), dst_md_(dst) {}

    dnnl_prop_kind_t prop_kind() const override { return prop_; }
    bool is_bwd_d() const { return prop_ == dnnl_backward_data; }
    bool with_bias() const { return !is_bwd_d() && bias_md_.ndims != 0; }

    const memory_desc_t *src_md(int idx = 0) const override {
        return idx == 0 && !is_bwd_d() ? &src_md_ : &zero_md_;
    }
    const memory_desc_t *diff_src_md(int idx = 0) const override {
        return idx == 0 && is_bwd_d() ? &src_md_ : &zero_md_;
    }
    const memory_desc_t *weights_md(int idx = 0) const override {
        return idx == 0 && is_bwd_d() ? &wei_md_ : &zero_md_;
    }
    const memory_desc_t *diff_weights_md(int idx = 0) const override {
        if (is_bwd_d()) return &zero_md_;
        return idx == 0 ? &wei_md_ : idx == 1 ? &bias_md_ : &zero_md_;
    }
    const memory_desc_t *diff_dst_md(int idx = 0) const override {
        return idx == 0 ? &dst_md_ : &zero_md_;
    }

    arg_usage_t arg_usage(int arg) const override {
        if (is_bwd_d()) {
            if (arg == DNNL_ARG_DIFF_DST || arg == DNNL_ARG_WEIGHTS) return arg_usage_t::input;
            if (arg == DNNL_ARG_DIFF_SRC) return arg_usage_t::output;
            return pd_t::arg_usage(arg);
        }
        if (arg == DNNL_ARG_SRC || arg == DNNL_ARG_DIFF_DST) return arg_usage_t::input;
        if (arg == DNNL_ARG_DIFF_WEIGHTS) return arg_usage_t::output;
        if (arg == DNNL_ARG_DIFF_BIAS) return with_bias() ? arg_usage_t::output : arg_usage_t::unused;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return 2; }
    int n_outputs() const override { return 1 + (with_bias() ? 1 : 0); }

protected:
    dnnl_prop_kind_t prop_;
    memory_desc_t src_md_, wei_md_, bias_md_, dst_md_;
};

} // namespace kestrel

#endif
