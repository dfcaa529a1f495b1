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

// How a GEMM-based inner product sees its problem: dst (M x N) = src
// (M x K) x weights^T, with src and weights rows of the same IC * spatial
// order (weights stored K x N when 2D `ba`: transb false), dst ab, a plain
// bias, and a leading plain sum on the GEMM's beta. init declines (verbose,
// unimplemented) problems outside that.
struct ip_gemm_view_t {
    bool transb = true;
    dim_t M = 0, N = 0, K = 0, lda = 0, ldb = 0, ldc = 0;
    int first_po = 0;
    float beta = 0.f;
    status_t init(const char *me, const ip_fwd_pd_t &pd);
};

// The output stage of a GEMM-based inner product (dst mb x oc): per-tensor
// scales into the GEMM's `alpha`, per-OC weights scales, the bias (an f32
// copy in the scratchpad under key_bias unless it is f32), post-ops from
// first_po, dst scale and zero point.
status_t ip_out_stage(const ip_fwd_pd_t &pd, const exec_ctx_t &ctx, const gemm::scales_t &sc,
        const post_ops::applier_t &ap, int first_po, scratchpad::key_t key_bias, gemm::out_stage_t &st,
        float &alpha);

// src and weights in the same plain layout (rows of IC * spatial), dst ab:
// one GEMM dst = src x weights^T. f32 directly ("gemm:f32"), bf16/f16
// storage through f32 panels ("gemm:cvt").
// f32 2D weights in format `any` take the layout of the GEMM's packed B
// panels (OC blocks of the kernel's NR, all of IC in each) when the GEMM
// would pack them anyway, so the user reorders them once and no execution
// packs them; weights given in that layout are read as panels at any size.
struct gemm_ip_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, ip_fwd_pd_t, gemm_ip_fwd_t> {
        using desc_t = ip_fwd_desc_t;
        using base = pd_impl_t<pd_t, ip_fwd_pd_t, gemm_ip_fwd_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return cvt ? "gemm:cvt" : "gemm:f32"; }
        status_t init(dnnl_engine *) override;

        enum : scratchpad::key_t { key_plan = 0, key_bias = gemm::cvt_plan_t::key_total };

        bool cvt = false;
        bool packed_w = false; // weights_md_ is the f32 GEMM's panel layout
        gemm::plan_t plan;
        gemm::cvt_plan_t cplan;
        ip_gemm_view_t gv;
    };
    explicit gemm_ip_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

// int8 (u8/s8 src, s8 weights) on the int8 GEMM engine, same layouts as
// gemm_ip_fwd_t: dst = src x weights^T exact in s32, the src zero point
// through the weights' column sums, then the shared output stage (scales,
// bias, post-ops, dst scale and zero point) and dst's rounding.
// 2D weights in format `any` take the blocked layout of the GEMM's packed
// B panels (ip_s8.cpp: OC blocks of the kernel's NR, IC in groups of 4),
// so the user reorders them once and no execution packs them.
struct gemm_s8_ip_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, ip_fwd_pd_t, gemm_s8_ip_fwd_t> {
        using desc_t = ip_fwd_desc_t;
        using base = pd_impl_t<pd_t, ip_fwd_pd_t, gemm_s8_ip_fwd_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "gemm:s8"; }
        status_t init(dnnl_engine *) override;

        enum : scratchpad::key_t { key_plan = 0, key_bias = gemm::s8_key_count, key_csum };

        gemm::s8_plan_t plan;
        ip_gemm_view_t gv;
        bool packed_w = false; // weights_md_ is the packed panel layout
    };
    explicit gemm_s8_ip_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
