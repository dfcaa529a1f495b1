// Matmul implementations (defined in matmul.cpp; listed in matmul_list.cpp).
#ifndef KESTREL_CPU_GEMM_MATMUL_HPP
#define KESTREL_CPU_GEMM_MATMUL_HPP

#include "cpu/gemm/gemm.hpp"
#include "cpu/gemm/gemm_cvt.hpp"
#include "cpu/gemm/gemm_util.hpp"
#include "cpu/gemm/matmul_pd.hpp"

namespace kestrel {

// Any layout, every accepted data type and attribute: the test oracle.
struct ref_matmul_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, matmul_pd_t, ref_matmul_t> {
        using desc_t = matmul_desc_t;
        using base = pd_impl_t<pd_t, matmul_pd_t, ref_matmul_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override;
    };
    explicit ref_matmul_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

// Plain operands through the GEMM engine, one GEMM per batch index:
// f32 directly ("gemm:f32"); bf16/f16 operands or dst, and int8 without
// src/weights zero points, through f32 panels ("gemm:cvt").
struct gemm_matmul_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, matmul_pd_t, gemm_matmul_t> {
        using desc_t = matmul_desc_t;
        using base = pd_impl_t<pd_t, matmul_pd_t, gemm_matmul_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return cvt ? "gemm:cvt" : "gemm:f32"; }
        // s4/u4 weights and zero points (weights decompression only).
        bool accepts_sub_byte() const override { return true; }
        status_t init(dnnl_engine *) override;

        // Scratchpad keys: the GEMM plan's from 0, then the f32 bias copy.
        enum : scratchpad::key_t { key_plan = 0, key_bias = gemm::cvt_plan_t::key_total };

        bool cvt = false; // cplan rather than plan
        bool packed_w = false; // weights_md_ is the f32 GEMM's panel layout
        gemm::plan_t plan;
        gemm::cvt_plan_t cplan;
        bool batch_parallel = false;
        int first_po = 0;
        float beta = 0.f;
        gemm::mat_view_t sv, wv, dv; // valid when !has_runtime_dims()
    };
    explicit gemm_matmul_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
