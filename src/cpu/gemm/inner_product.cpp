// Inner product forward: dst[mb, oc] = sum over (ic, spatial) of
// src[mb, ic, ...] * weights[oc, ic, ...] + bias[oc], then scales and
// post-ops. Implementations: GEMM-based (src and weights in the same plain
// layout) and the reference (any layout).
#include "cpu/gemm/inner_product.hpp"

#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

const format_tag_t cl_tags[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_acb, dnnl_acdb, dnnl_acdeb};

} // namespace

status_t ip_set_formats(memory_desc_t &src, memory_desc_t &wei, memory_desc_t &dst, memory_desc_t &bias) {
    const int nd = src.ndims;
    if (mdw_t(src).is_any()) KESTREL_CHECK(md_set_tag(src, gemm::plain_tag(nd)));
    if (mdw_t(wei).is_any()) {
        // Same layout as src so the GEMM sees both as rows of IC * spatial.
        const format_tag_t t = mdw_t(src).matches_tag(cl_tags[nd]) ? cl_tags[nd] : gemm::plain_tag(nd);
        KESTREL_CHECK(md_set_tag(wei, t));
    }
    if (mdw_t(dst).is_any()) KESTREL_CHECK(md_set_tag(dst, dnnl_ab));
    if (!mdw_t(bias).is_zero() && mdw_t(bias).is_any()) KESTREL_CHECK(md_set_tag(bias, dnnl_a));
    return status::success;
}

bool ip_rows_layout(const mdw_t &s, const mdw_t &w, bool &w_ko) {
    const int nd = s.ndims();
    const format_tag_t plain = gemm::plain_tag(nd);
    w_ko = false;
    if ((s.matches_tag(plain) && w.matches_tag(plain)) || (s.matches_tag(cl_tags[nd]) && w.matches_tag(cl_tags[nd])))
        return true;
    w_ko = nd == 2 && s.matches_tag(dnnl_ab) && w.matches_tag(dnnl_ba);
    return w_ko;
}

status_t ip_fwd_pd_t::init_common(bool int8) {
    if (int8) {
        if (!int8_types()) return status::unimplemented;
        for (const auto &q : attr_.zero_points.items)
            if (!one_of(q.arg, DNNL_ARG_SRC, DNNL_ARG_DST) || q.e.mask != 0 || q.e.ndims != 0
                    || q.e.dt != dnnl_s32)
                return status::unimplemented;
    } else {
        for (const memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_})
            if (!gemm::float_dt(md->data_type)) return status::unimplemented;
        if (with_bias() && !gemm::float_dt(bias_md_.data_type)) return status::unimplemented;
    }
    const unsigned allowed = attr_t::skip_scales | attr_t::skip_post_ops | (int8 ? (unsigned)attr_t::skip_zero_points : 0u);
    if (!attr_.has_default_values(allowed)) return status::unimplemented;
    if (!gemm::scales_ok(attr_, 1 << 0)) return status::unimplemented; // per OC
    KESTREL_CHECK(ip_set_formats(src_md_, weights_md_, dst_md_, bias_md_));
    KESTREL_CHECK(post_ops::resolve_any(attr_.post_ops));
    return post_ops::check(attr_.post_ops, dst_md_, true);
}

// ---------------------------------------------------------------- reference

status_t ref_ip_fwd_t::pd_t::init(dnnl_engine *) {
    return gemm::decline_common(name(), init_common(int8_types()));
}

status_t ref_ip_fwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const mdw_t s(pd->src_md()), w(pd->weights_md(0)), d(pd->dst_md()), b(pd->weights_md(1));
    const void *src = ctx.input(DNNL_ARG_SRC), *wei = ctx.input(DNNL_ARG_WEIGHTS);
    const void *bias = pd->with_bias() ? ctx.input(DNNL_ARG_BIAS) : nullptr;
    void *dst = ctx.output(DNNL_ARG_DST);
    gemm::scales_t sc;
    KESTREL_CHECK(sc.init(*pd->attr(), ctx));
    const post_ops::applier_t ap(pd->attr()->post_ops, *pd->dst_md(), ctx);
    const int nd = s.ndims();
    const dim_t MB = d.dims()[0], OC = d.dims()[1];
    // int8: exact s32 sum of (src - zero point) * weights, wrapping modulo
    // 2^32 like the int8 GEMM.
    const bool int8 = gemm::int8_dt(s.data_type());
    const uint32_t zp = (uint32_t)sc.src_zp;
    parallel_nd(MB, OC, [&](dim_t mb, dim_t oc) {
        dim_t sp[max_ndims] = {}, wp[max_ndims] = {}, inner[max_ndims] = {};
        float acc = 0.f;
        uint32_t iacc = 0;
        do {
            sp[0] = mb;
            wp[0] = oc;
            for (int i = 1; i < nd; ++i) sp[i] = wp[i] = inner[i];
            const dim_t so = s.off_v(sp), wo = w.off_v(wp);
            if (int8)
                iacc += ((uint32_t)(int32_t)load_f32(s.data_type(), src, so) - zp)
                        * (uint32_t) static_cast<const int8_t *>(wei)[wo];
            else
                acc += load_f32(s.data_type(), src, so) * load_f32(w.data_type(), wei, wo);
        } while (nd > 1 && nd_next(nd - 1, s.dims() + 1, inner + 1));
        if (int8) acc = (float)(int32_t)iacc;
        float v = acc * sc.src * (sc.wei_p ? sc.wei_p[oc] : sc.wei);
        if (bias) {
            const dim_t bp[1] = {oc};
            v += load_f32(b.data_type(), bias, b.off_v(bp));
        }
        const dim_t pos[2] = {mb, oc};
        gemm::ref_store(v, dst, d, pos, ap, sc);
    });
    return status::success;
}

// --------------------------------------------------------------- GEMM-based

status_t ip_out_stage(const ip_fwd_pd_t &pd, const exec_ctx_t &ctx, const gemm::scales_t &sc,
        const post_ops::applier_t &ap, int first_po, scratchpad::key_t key_bias, gemm::out_stage_t &st,
        float &alpha) {
    alpha = st.init(sc, ap, first_po, 2);
    st.wei_n = sc.wei_p;
    st.wei_sn = 1;
    if (sc.dst_zp) st.dst_zp = &sc;
    if (pd.with_bias()) {
        const memory_desc_t &bmd = *pd.weights_md(1);
        float *buf = ctx.scratchpad().get<float>(key_bias);
        if (bmd.data_type != dnnl_f32 && !buf) return status::out_of_memory;
        gemm::bias_f32_t bias;
        bias.init(bmd, ctx.input(DNNL_ARG_BIAS), buf);
        st.bias = bias.at(bmd.offset0);
        st.bias_sm = 0;
        st.bias_sn = bmd.blocking.strides[0];
    }
    return status::success;
}

status_t ip_gemm_view_t::init(const char *me, const ip_fwd_pd_t &pd) {
    if (pd.with_bias() && !mdw_t(pd.weights_md(1)).is_plain()) return decline(me, "needs a plain bias");
    const mdw_t s(pd.src_md()), w(pd.weights_md(0)), d(pd.dst_md());
    if (!d.matches_tag(dnnl_ab)) return decline(me, "dst must be ab");
    bool w_ko = false;
    if (!ip_rows_layout(s, w, w_ko)) return decline(me, "src and weights layouts differ");
    transb = !w_ko; // weights stored IC x OC: B = weights^T read directly
    if (!gemm::plan_sum(*pd.attr(), first_po, beta))
        return decline(me, "sum post-op other than a leading plain sum");
    M = d.dims()[0];
    N = d.dims()[1];
    K = s.nelems() / (M > 0 ? M : 1);
    lda = K;
    ldb = transb ? K : N;
    ldc = N;
    return status::success;
}

status_t gemm_ip_fwd_t::pd_t::init(dnnl_engine *) {
    const data_type_t sdt = src_md_.data_type, wdt = weights_md_.data_type, ddt = dst_md_.data_type;
    cvt = !(sdt == dnnl_f32 && wdt == dnnl_f32 && ddt == dnnl_f32);
    // f32 2D weights `any` or already in the panel layout: planned as
    // plain ab first.
    const bool w2d = !cvt && weights_md_.ndims == 2 && src_md_.ndims == 2 && weights_md_.dims[0] > 0
            && weights_md_.dims[1] > 0;
    const dim_t nr = gemm::f32_kernel_nr();
    gemm::panels_b_t req;
    KESTREL_CHECK(gemm::panels_b_request(weights_md_, w2d, 0, nr, 1, req));
    KESTREL_CHECK(gemm::decline_common(name(), init_common()));
    KESTREL_CHECK(gv.init(name(), *this));
    if (cvt) {
        KESTREL_CHECK(cplan.init(gv.M, gv.N, gv.K, sdt, false, wdt, gv.transb, ddt));
        cplan.book(scratchpad_registry(), key_plan);
    } else {
        KESTREL_CHECK(plan.init(gv.M, gv.N, gv.K, false, gv.transb));
        // `any`: panels only where the GEMM packs B anyway (not for the
        // few rows a skinny product reads in place); given panels are
        // read as such whatever the sizes.
        packed_w = gv.transb && gv.M > 0
                && (req == gemm::panels_b_t::given || (req == gemm::panels_b_t::any && plan.packs_b()));
        if (packed_w && !plan.packs_b()) KESTREL_CHECK(plan.init_prepacked_b(gv.M, gv.N, gv.K, false, true));
        KESTREL_CHECK(gemm::panels_b_settle(name(), req, packed_w, plan.nr(), nr));
        plan.book(scratchpad_registry(), key_plan, packed_w);
        if (packed_w) weights_md_ = gemm::panels_b_md(weights_md_, 0, nr, 1);
    }
    if (with_bias()) scratchpad_registry().book(key_bias, gemm::bias_f32_t::bytes(bias_md_));
    return status::success;
}

status_t gemm_ip_fwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const mdw_t s(pd->src_md()), w(pd->weights_md(0)), d(pd->dst_md());
    const ip_gemm_view_t &gv = pd->gv;
    const dim_t MB = gv.M, OC = gv.N, K = gv.K;
    const char *src = ctx.input<char>(DNNL_ARG_SRC) + pd->src_md()->offset0 * s.dt_size();
    const char *wei = ctx.input<char>(DNNL_ARG_WEIGHTS) + pd->weights_md(0)->offset0 * w.dt_size();
    char *dst = ctx.output<char>(DNNL_ARG_DST) + pd->dst_md()->offset0 * d.dt_size();
    gemm::scales_t sc;
    KESTREL_CHECK(sc.init(*pd->attr(), ctx));
    const post_ops::applier_t ap(pd->attr()->post_ops, *pd->dst_md(), ctx);
    gemm::out_stage_t ep;
    float alpha;
    KESTREL_CHECK(ip_out_stage(*pd, ctx, sc, ap, gv.first_po, pd_t::key_bias, ep, alpha));
    const gemm::epilogue_t *e = ep.trivial() ? nullptr : &ep;
    const auto &g = ctx.scratchpad();
    if (pd->cvt) {
        gemm::operand_t A, B;
        A.p = src;
        A.dt = s.data_type();
        A.ld = gv.lda;
        B.p = wei;
        B.dt = w.data_type();
        B.ld = gv.ldb;
        B.trans = gv.transb;
        return pd->cplan.execute(MB, OC, K, alpha, A, B, gv.beta, dst, gv.ldc, g, pd_t::key_plan, e);
    }
    const float *wf = reinterpret_cast<const float *>(wei);
    if (pd->packed_w) // the weights are the GEMM's B panels; B itself is never read
        return pd->plan.execute(MB, OC, K, alpha, reinterpret_cast<const float *>(src), gv.lda, nullptr, 0,
                gv.beta, reinterpret_cast<float *>(dst), gv.ldc, g, pd_t::key_plan, e, wf);
    return pd->plan.execute(MB, OC, K, alpha, reinterpret_cast<const float *>(src), gv.lda, wf, gv.ldb,
            gv.beta, reinterpret_cast<float *>(dst), gv.ldc, g, pd_t::key_plan, e);
}

} // namespace kestrel
