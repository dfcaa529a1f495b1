// Inner product forward implementations (defined in inner_product.cpp;
// listed in inner_product_list.cpp).
#ifndef KESTREL_CPU_GEMM_INNER_PRODUCT_HPP
#define KESTREL_CPU_GEMM_INNER_PRODUCT_HPP

#include "cpu/gemm/gemm.hpp"
#include "cpu/gemm/gemm_cvt.hpp"
#include "cpu/gemm/gemm_s8.hpp"
#include "cpu/gemm/gemm_util.hpp"
#include "cpu/gemm/inner_product_pd.hpp"

namespace kestrel {

// Any layout, f32/bf16/f16 storage: the test oracle.
struct ref_ip_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, ip_fwd_pd_t, ref_ip_fwd_t> {
        using desc_t = ip_fwd_desc_t;
        using base = pd_impl_t<pd_t, ip_fwd_pd_t, ref_ip_fwd_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override;
    };
    explicit ref_ip_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

// src and weights in the same plain layout (rows of IC * spatial), dst ab:
// one GEMM dst = src x weights^T. f32 directly ("gemm:f32"), bf16/f16
// storage through f32 panels ("gemm:cvt").
struct gemm_ip_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, ip_fwd_pd_t, gemm_ip_fwd_t> {
        using desc_t = ip_fwd_desc_t;
        using base = pd_impl_t<pd_t, ip_fwd_pd_t, gemm_ip_fwd_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return cvt ? "gemm:cvt" : "gemm:f32"; }
        status_t init(dnnl_engine *) override;

        enum : scratchpad::key_t { key_plan = 0, key_bias = gemm::cvt_plan_t::key_total };

        bool cvt = false;
        gemm::plan_t plan;
        gemm::cvt_plan_t cplan;
        bool transb = true;
        dim_t lda = 0, ldb = 0, ldc = 0;
        int first_po = 0;
        float beta = 0.f;
    };
    explicit gemm_ip_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

// int8 (u8/s8 src, s8 weights) on the int8 GEMM engine, same layouts as
// gemm_ip_fwd_t: dst = src x weights^T exact in s32, the src zero point
// through the weights' column sums, then the shared output stage (scales,
// bias, post-ops, dst scale and zero point) and dst's rounding.
struct gemm_s8_ip_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, ip_fwd_pd_t, gemm_s8_ip_fwd_t> {
        using desc_t = ip_fwd_desc_t;
        using base = pd_impl_t<pd_t, ip_fwd_pd_t, gemm_s8_ip_fwd_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "gemm:s8"; }
        status_t init(dnnl_engine *) override;

        enum : scratchpad::key_t { key_plan = 0, key_bias = gemm::s8_key_count };

        gemm::s8_plan_t plan;
        bool transb = true;
        dim_t lda = 0, ldb = 0, ldc = 0;
        int first_po = 0;
        float beta = 0.f;
    };
    explicit gemm_s8_ip_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
