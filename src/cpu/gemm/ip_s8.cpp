// int8 inner product on the int8 GEMM engine: see inner_product.hpp.
#include "cpu/gemm/inner_product.hpp"
#include "cpu/gemm/s8_out.hpp"

namespace kestrel {

status_t gemm_s8_ip_fwd_t::pd_t::init(dnnl_engine *) {
    if (!int8_types()) return decline(name(), "data types");
    KESTREL_CHECK(gemm::decline_common(name(), init_common(true)));
    if (with_bias() && !mdw_t(bias_md_).is_plain()) return decline(name(), "needs a plain bias");
    const mdw_t s(src_md_), w(weights_md_), d(dst_md_);
    if (!d.matches_tag(dnnl_ab)) return decline(name(), "dst must be ab");
    bool w_ko = false;
    if (!ip_rows_layout(s, w, w_ko)) return decline(name(), "src and weights layouts differ");
    transb = !w_ko;
    if (!gemm::plan_sum(attr_, first_po, beta))
        return decline(name(), "sum post-op other than a leading plain sum");
    const dim_t MB = d.dims()[0], OC = d.dims()[1];
    const dim_t K = s.nelems() / (MB > 0 ? MB : 1);
    lda = K;
    ldb = transb ? K : OC;
    ldc = OC;
    const bool src_zp = attr_.zero_points.get(DNNL_ARG_SRC) != nullptr;
    KESTREL_CHECK(plan.init(MB, OC, K, false, transb, src_md_.data_type == dnnl_s8, false, src_zp));
    plan.book(scratchpad_registry(), key_plan);
    if (with_bias()) scratchpad_registry().book(key_bias, gemm::bias_f32_t::bytes(bias_md_));
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
    const float alpha = stage.init(sc, ap, pd->first_po, 2);
    stage.wei_n = sc.wei_p;
    stage.wei_sn = 1;
    if (sc.dst_zp) stage.dst_zp = &sc;
    if (pd->with_bias()) {
        const memory_desc_t &bmd = *pd->weights_md(1);
        float *buf = ctx.scratchpad().get<float>(pd_t::key_bias);
        if (bmd.data_type != dnnl_f32 && !buf) return status::out_of_memory;
        gemm::bias_f32_t bias;
        bias.init(bmd, ctx.input(DNNL_ARG_BIAS), buf);
        stage.bias = bias.at(bmd.offset0);
        stage.bias_sm = 0;
        stage.bias_sn = bmd.blocking.strides[0];
    }
    gemm::s8_out_t ep;
    ep.stage = stage.trivial() ? nullptr : &stage;
    ep.alpha = alpha;
    ep.beta = pd->beta;
    ep.src_zp = sc.src_zp;
    ep.dst = dst;
    ep.ddt = d.data_type();
    ep.ldc = pd->ldc;
    return pd->plan.execute(src, pd->lda, wei, pd->ldb, ctx.scratchpad(), pd_t::key_plan, ep);
}

} // namespace kestrel
