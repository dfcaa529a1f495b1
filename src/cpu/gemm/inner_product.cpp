// Inner product forward: dst[mb, oc] = sum over (ic, spatial) of
// src[mb, ic, ...] * weights[oc, ic, ...] + bias[oc], then scales and
// post-ops. Implementations: GEMM-based (src and weights in the same plain
// layout) and the reference (any layout).
#include "cpu/gemm/inner_product_pd.hpp"

#include <algorithm>

#include "cpu/gemm/gemm_util.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

bool float_dt(data_type_t dt) { return one_of(dt, dnnl_f32, dnnl_bf16, dnnl_f16); }

const format_tag_t plain_tags[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde};
const format_tag_t cl_tags[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_acb, dnnl_acdb, dnnl_acdeb};

} // namespace

status_t ip_fwd_pd_t::init_common() {
    for (const memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_})
        if (!float_dt(md->data_type)) return status::unimplemented;
    if (with_bias() && !float_dt(bias_md_.data_type)) return status::unimplemented;
    if (!attr_.has_default_values(attr_t::skip_scales | attr_t::skip_post_ops))
        return status::unimplemented;
    if (!gemm::scales_ok(attr_, 1 << 0)) return status::unimplemented; // per OC
    const int nd = src_md_.ndims;
    if (mdw_t(src_md_).is_any()) KESTREL_CHECK(md_set_tag(src_md_, plain_tags[nd]));
    if (mdw_t(weights_md_).is_any()) {
        // Same layout as src so the GEMM sees both as rows of IC * spatial.
        const format_tag_t t = mdw_t(src_md_).matches_tag(cl_tags[nd]) ? cl_tags[nd] : plain_tags[nd];
        KESTREL_CHECK(md_set_tag(weights_md_, t));
    }
    if (mdw_t(dst_md_).is_any()) KESTREL_CHECK(md_set_tag(dst_md_, dnnl_ab));
    if (with_bias() && mdw_t(bias_md_).is_any()) KESTREL_CHECK(md_set_tag(bias_md_, dnnl_a));
    KESTREL_CHECK(post_ops::resolve_any(attr_.post_ops));
    return post_ops::check(attr_.post_ops, dst_md_);
}

struct ref_ip_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, ip_fwd_pd_t, ref_ip_fwd_t> {
        using desc_t = ip_fwd_desc_t;
        using base = pd_impl_t<pd_t, ip_fwd_pd_t, ref_ip_fwd_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override {
            status_t st = init_common();
            if (st != status::success) return st == status::unimplemented ? decline(name(), "attributes or data types") : st;
            return status::success;
        }
    };
    explicit ref_ip_fwd_t(const pd_t *pd) : primitive_t(pd) {}

    status_t execute(const exec_ctx_t &ctx) const override {
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
        parallel_nd(MB, OC, [&](dim_t mb, dim_t oc) {
            dim_t sp[max_ndims] = {}, wp[max_ndims] = {}, inner[max_ndims] = {};
            float acc = 0.f;
            do {
                sp[0] = mb;
                wp[0] = oc;
                for (int i = 1; i < nd; ++i) sp[i] = wp[i] = inner[i];
                acc += load_f32(s.data_type(), src, s.off_v(sp)) * load_f32(w.data_type(), wei, w.off_v(wp));
            } while (nd > 1 && nd_next(nd - 1, s.dims() + 1, inner + 1));
            float v = acc * sc.src * (sc.wei_n ? sc.wei_n[oc] : sc.wei);
            if (bias) {
                const dim_t bp[1] = {oc};
                v += load_f32(b.data_type(), bias, b.off_v(bp));
            }
            const dim_t pos[2] = {mb, oc};
            const dim_t doff = d.off_v(pos);
            const float old = ap.empty() ? 0.f : load_f32(d.data_type(), dst, doff);
            store_f32(d.data_type(), dst, doff, ap.apply(v, old, pos) * sc.dst_inv);
        });
        return status::success;
    }
};

struct gemm_ip_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, ip_fwd_pd_t, gemm_ip_fwd_t> {
        using desc_t = ip_fwd_desc_t;
        using base = pd_impl_t<pd_t, ip_fwd_pd_t, gemm_ip_fwd_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "gemm:f32"; }

        gemm::plan_t plan;
        dim_t lda = 0, ldb = 0, ldc = 0;
        int first_po = 0;
        float beta = 0.f;

        status_t init(dnnl_engine *) override {
            status_t st = init_common();
            if (st != status::success) return st == status::unimplemented ? decline(name(), "attributes or data types") : st;
            for (const memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_})
                if (md->data_type != dnnl_f32) return decline(name(), "needs f32");
            if (with_bias() && (bias_md_.data_type != dnnl_f32 || !mdw_t(bias_md_).is_plain()))
                return decline(name(), "needs f32 bias");
            const int nd = src_md_.ndims;
            const mdw_t s(src_md_), w(weights_md_), d(dst_md_);
            if (!d.matches_tag(dnnl_ab)) return decline(name(), "dst must be ab");
            bool transb = true;
            bool same = (s.matches_tag(plain_tags[nd]) && w.matches_tag(plain_tags[nd]))
                    || (s.matches_tag(cl_tags[nd]) && w.matches_tag(cl_tags[nd]));
            if (!same && nd == 2 && s.matches_tag(dnnl_ab) && w.matches_tag(dnnl_ba)) {
                same = true;
                transb = false; // weights stored IC x OC: B = weights^T read directly
            }
            if (!same) return decline(name(), "src and weights layouts differ");
            const auto &po = attr_.post_ops;
            const int nsum = (int)std::count_if(po.entries.begin(), po.entries.end(),
                    [](const post_op_t &e) { return e.kind == dnnl_sum; });
            const auto *ws = attr_.scales.get(DNNL_ARG_WEIGHTS);
            if (nsum > 1 || (nsum == 1 && (!gemm::sum_as_beta(po) || (ws && ws->mask != 0))))
                return decline(name(), "sum post-op other than a leading plain sum");
            if (gemm::sum_as_beta(po)) {
                first_po = 1;
                beta = po.entries[0].sum.scale;
            }
            const dim_t MB = d.dims()[0], OC = d.dims()[1];
            const dim_t K = s.nelems() / (MB > 0 ? MB : 1);
            lda = K;
            ldb = transb ? K : OC;
            ldc = OC;
            KESTREL_CHECK(plan.init(MB, OC, K, false, transb));
            plan.book(scratchpad_registry(), 0);
            return status::success;
        }
    };
    explicit gemm_ip_fwd_t(const pd_t *pd) : primitive_t(pd) {}

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const mdw_t s(pd->src_md()), w(pd->weights_md(0)), d(pd->dst_md());
        const dim_t MB = d.dims()[0], OC = d.dims()[1];
        const dim_t K = pd->lda;
        const float *src = ctx.input<float>(DNNL_ARG_SRC) + pd->src_md()->offset0;
        const float *wei = ctx.input<float>(DNNL_ARG_WEIGHTS) + pd->weights_md(0)->offset0;
        float *dst = ctx.output<float>(DNNL_ARG_DST) + pd->dst_md()->offset0;
        gemm::scales_t sc;
        KESTREL_CHECK(sc.init(*pd->attr(), ctx));
        const post_ops::applier_t ap(pd->attr()->post_ops, *pd->dst_md(), ctx);
        gemm::out_stage_t ep;
        ep.wei_n = sc.wei_n;
        ep.dst_inv = sc.dst_inv;
        ep.ap = &ap;
        ep.first_po = pd->first_po;
        ep.ndims = 2;
        if (pd->with_bias()) {
            ep.bias = ctx.input<float>(DNNL_ARG_BIAS) + pd->weights_md(1)->offset0;
            ep.bias_sm = 0;
            ep.bias_sn = pd->weights_md(1)->blocking.strides[0];
        }
        const float alpha = sc.src * (sc.wei_n ? 1.f : sc.wei);
        return pd->plan.execute(MB, OC, K, alpha, src, pd->lda, wei, pd->ldb, pd->beta, dst, pd->ldc,
                ctx.scratchpad(), 0, ep.trivial() ? nullptr : &ep);
    }
};

const impl_entry_t ip_fwd_impl_list[] = {
        {"gemm:f32", make_pd<gemm_ip_fwd_t::pd_t>},
        {"ref:any", make_pd<ref_ip_fwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
