// int8 matmul on the int8 GEMM engine (gemm_s8.hpp): u8/s8 src x s8
// weights, plain layouts with known dims, one GEMM per batch index; src
// zero point (per tensor) through the column sums of the weights, then
// the shared output stage (scales, bias, post-ops, dst scale and zero
// point) and dst's rounding and saturation. 2D weights `any` take the
// GEMM's packed B panel layout (see matmul_s8.cpp), read in place. Weights
// zero points, runtime dims and other layouts are left to the next
// implementations.
#ifndef KESTREL_CPU_GEMM_MATMUL_S8_HPP
#define KESTREL_CPU_GEMM_MATMUL_S8_HPP

#include "cpu/gemm/gemm_s8.hpp"
#include "cpu/gemm/gemm_util.hpp"
#include "cpu/gemm/matmul_pd.hpp"

namespace kestrel {

struct s8_matmul_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, matmul_pd_t, s8_matmul_t> {
        using desc_t = matmul_desc_t;
        using base = pd_impl_t<pd_t, matmul_pd_t, s8_matmul_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "gemm:s8"; }
        status_t init(dnnl_engine *) override;

        // Scratchpad keys: the plan's from 0, then the f32 bias copy and
        // the column sums of packed weights.
        enum : scratchpad::key_t { key_plan = 0, key_bias = gemm::s8_key_count, key_csum };

        gemm::s8_plan_t plan;
        int first_po = 0;
        float beta = 0.f;
        gemm::mat_view_t sv, wv, dv;
        bool packed_w = false; // weights in the GEMM's packed B layout (2D `any`)
    };
    explicit s8_matmul_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
