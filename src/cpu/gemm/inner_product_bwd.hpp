// Inner product backward: base pd (data and weights) and the GEMM-based
// implementation (inner_product_bwd.cpp).
#ifndef KESTREL_CPU_GEMM_INNER_PRODUCT_BWD_HPP
#define KESTREL_CPU_GEMM_INNER_PRODUCT_BWD_HPP

#include "cpu/gemm/gemm_cvt.hpp"
#include "cpu/gemm/gemm_util.hpp"
#include "cpu/gemm/inner_product_pd.hpp"

namespace kestrel {

// The op descriptor is the forward one with prop backward_data (src_md =
// diff_src, weights_md = weights, dst_md = diff_dst) or backward_weights
// (src_md = src, weights_md = diff_weights, bias_md = diff_bias, dst_md =
// diff_dst), as oneDNN's.
struct ip_bwd_pd_t : pd_t {
    using desc_t = ip_fwd_desc_t;
    ip_bwd_pd_t(const ip_fwd_desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_inner_product), desc_(*d), src_md_(d->src_md), wei_md_(d->weights_md),
          bias_md_(d->bias_md), dst_md_(d->dst_md) {}

    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    bool is_bwd_d() const { return desc_.prop_kind == dnnl_backward_data; }
    bool with_bias() const { return !mdw_t(bias_md_).is_zero(); }

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
    arg_usage_t arg_usage(int arg) const override;
    int n_inputs() const override { return 2; }
    int n_outputs() const override { return 1 + (with_bias() ? 1 : 0); }

protected:
    ip_fwd_desc_t desc_;
    memory_desc_t src_md_, wei_md_, bias_md_, dst_md_;
};

struct gemm_ip_bwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, ip_bwd_pd_t, gemm_ip_bwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return is_bwd_d() ? "gemm:bwd_d" : "gemm:bwd_w"; }
        status_t init(dnnl_engine *) override;

        bool w_ko = false; // weights stored IC x OC (2D "ba")
        dim_t MB = 0, OC = 0, K = 0;
        gemm::cvt_plan_t plan;
    };
    explicit gemm_ip_bwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

extern const impl_entry_t ip_bwd_impl_list[];

} // namespace kestrel

#endif
