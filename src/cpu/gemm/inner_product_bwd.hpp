// Inner product backward: base pd (data and weights) and the GEMM-based
// implementation (inner_product_bwd.cpp).
#ifndef KESTREL_CPU_GEMM_INNER_PRODUCT_BWD_HPP
#define KESTREL_CPU_GEMM_INNER_PRODUCT_BWD_HPP

#include "cpu/common/bwd_pd.hpp"
#include "cpu/gemm/gemm_cvt.hpp"
#include "cpu/gemm/gemm_util.hpp"
#include "cpu/gemm/inner_product_pd.hpp"

namespace kestrel {

// The op descriptor is the forward one with prop backward_data (src_md =
// diff_src, weights_md = weights, dst_md = diff_dst) or backward_weights
// (src_md = src, weights_md = diff_weights, bias_md = diff_bias, dst_md =
// diff_dst), as oneDNN's; bwd_pd.hpp maps the roles.
struct ip_bwd_pd_t : bwd_pd_t {
    using desc_t = ip_fwd_desc_t;
    ip_bwd_pd_t(const ip_fwd_desc_t *d, const attr_t *a, const pd_t *)
        : bwd_pd_t(a, dnnl_inner_product, d->prop_kind, d->src_md, d->weights_md, d->bias_md, d->dst_md),
          desc_(*d) {}

protected:
    ip_fwd_desc_t desc_;
};

struct gemm_ip_bwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, ip_bwd_pd_t, gemm_ip_bwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return is_bwd_d() ? "gemm:bwd_d" : "gemm:bwd_w"; }
        status_t init(dnnl_engine *) override;

        enum : scratchpad::key_t { key_plan = 0, key_w_plain = gemm::cvt_plan_t::key_total };

        bool w_ko = false; // weights stored IC x OC (2D "ba")
        // (diff) weights in the f32 forward's GEMM panel layout (the
        // forward pd's weights_desc given back): the GEMM runs on a plain
        // copy under key_w_plain, read from or scattered to the panels.
        dim_t panel_nr = 0;
        dim_t MB = 0, OC = 0, K = 0;
        gemm::cvt_plan_t plan;
    };
    explicit gemm_ip_bwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

extern const impl_entry_t ip_bwd_impl_list[];

} // namespace kestrel

#endif
