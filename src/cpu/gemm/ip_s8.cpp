// int8 inner product on the int8 GEMM engine: see inner_product.hpp.
#include "cpu/gemm/inner_product.hpp"
#include "cpu/gemm/s8_out.hpp"

namespace kestrel {

status_t gemm_s8_ip_fwd_t::pd_t::init(dnnl_engine *) {
    if (!int8_types()) return decline(name(), "data types");
    // Weights `any` or already in the packed layout (a descriptor taken
    // from an earlier query): planned as plain ab, then laid out packed.
    const bool w2d = weights_md_.ndims == 2 && src_md_.ndims == 2 && weights_md_.dims[0] > 0
            && weights_md_.dims[1] > 0;
    const dim_t nr = gemm::s8_kernel_nr();
    gemm::panels_b_t req;
    KESTREL_CHECK(gemm::panels_b_request(weights_md_, w2d, 0, nr, 4, req));
    const bool want_packed = req != gemm::panels_b_t::no;
    KESTREL_CHECK(gemm::decline_common(name(), init_common(true)));
    KESTREL_CHECK(gv.init(name(), *this));
    const bool src_zp = attr_.zero_points.get(DNNL_ARG_SRC) != nullptr;
    KESTREL_CHECK(plan.init(gv.M, gv.N, gv.K, false, gv.transb, src_md_.data_type == dnnl_s8, false, src_zp));
    packed_w = want_packed && gv.transb && gv.M > 0;
    KESTREL_CHECK(gemm::panels_b_settle(name(), req, packed_w, plan.nr(), nr));
    plan.book(scratchpad_registry(), key_plan, !packed_w);
    if (with_bias()) scratchpad_registry().book(key_bias, gemm::bias_f32_t::bytes(bias_md_));
    if (packed_w) {
        weights_md_ = gemm::panels_b_md(weights_md_, 0, nr, 4);
        if (plan.needs_col_sums())
            scratchpad_registry().book(key_csum, (size_t)rnd_up(gv.N, nr) * sizeof(int32_t));
    }
    return status::success;
}

status_t gemm_s8_ip_fwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const mdw_t s(pd->src_md()), w(pd->weights_md(0)), d(pd->dst_md());
    const char *src = ctx.input<char>(DNNL_ARG_SRC) + pd->src_md()->offset0 * s.dt_size();
    const int8_t *wei = ctx.input<int8_t>(DNNL_ARG_WEIGHTS) + pd->weights_md(0)->offset0;
    char *dst = ctx.output<char>(DNNL_ARG_DST) + pd->dst_md()->offset0 * d.dt_size();
    gemm::scales_t sc;
    KESTREL_CHECK(sc.init(*pd->attr(), ctx));
    const post_ops::applier_t ap(pd->attr()->post_ops, *pd->dst_md(), ctx);
    gemm::out_stage_t stage;
    float alpha;
    KESTREL_CHECK(ip_out_stage(*pd, ctx, sc, ap, pd->gv.first_po, pd_t::key_bias, stage, alpha));
    gemm::s8_out_t ep;
    ep.stage = stage.trivial() ? nullptr : &stage;
    ep.alpha = alpha;
    ep.beta = pd->gv.beta;
    ep.src_zp = sc.src_zp;
    ep.dst = dst;
    ep.ddt = d.data_type();
    ep.ldc = pd->gv.ldc;
    if (pd->packed_w) { // weights are the panels; column sums from them when needed
        int32_t *csum = nullptr;
        if (pd->plan.needs_col_sums()) {
            csum = ctx.scratchpad().get<int32_t>(pd_t::key_csum);
            if (!csum) return status::out_of_memory;
            pd->plan.packed_col_sums(wei, csum);
        }
        return pd->plan.execute(src, pd->gv.lda, nullptr, 0, ctx.scratchpad(), pd_t::key_plan, ep, wei, csum);
    }
    return pd->plan.execute(src, pd->gv.lda, wei, pd->gv.ldb, ctx.scratchpad(), pd_t::key_plan, ep);
}

} // namespace kestrel
