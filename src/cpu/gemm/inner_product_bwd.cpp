// Inner product backward data and backward weights, as GEMMs on the GEMM
// engine (bf16/f16 storage through f32 panels, gemm_cvt.hpp). With K = IC *
// spatial, src/diff_src rows [MB x K], weights rows [OC x K] (or K x OC,
// "ba"), diff_dst [MB x OC]:
//   diff_src     = diff_dst   x weights
//   diff_weights = diff_dst^T x src          (or src^T x diff_dst for ba)
//   diff_bias    = column sums of diff_dst
#include "cpu/gemm/inner_product_bwd.hpp"

#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

status_t gemm_ip_bwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    if (!attr_.has_default_values()) return decline(me, "attributes");
    for (const memory_desc_t *md : {&src_md_, &wei_md_, &dst_md_})
        if (!gemm::float_dt(md->data_type)) return decline(me, "data types");
    if (with_bias() && !gemm::float_dt(bias_md_.data_type)) return decline(me, "data types");
    const bool f32 = src_md_.data_type == dnnl_f32 && wei_md_.data_type == dnnl_f32 && dst_md_.data_type == dnnl_f32;
    const bool w2d = f32 && wei_md_.ndims == 2 && src_md_.ndims == 2 && wei_md_.dims[0] > 0 && wei_md_.dims[1] > 0;
    const dim_t nr = gemm::f32_kernel_nr();
    gemm::panels_b_t req;
    KESTREL_CHECK(gemm::panels_b_request(wei_md_, w2d, 0, nr, 1, req)); // `any` stays plain here
    KESTREL_CHECK(ip_set_formats(src_md_, wei_md_, dst_md_, bias_md_));
    const mdw_t s(src_md_), w(wei_md_), d(dst_md_);
    if (!d.matches_tag(dnnl_ab)) return decline(me, "diff_dst must be ab");
    if (with_bias() && !mdw_t(bias_md_).is_blocked()) return decline(me, "bias layout");
    if (!ip_rows_layout(s, w, w_ko)) return decline(me, "src and weights layouts differ");
    MB = d.dims()[0];
    OC = d.dims()[1];
    K = MB > 0 ? s.nelems() / MB : mdw_t(wei_md_).nelems() / OC;
    const data_type_t sdt = src_md_.data_type, wdt = wei_md_.data_type, ddt = dst_md_.data_type;
    if (is_bwd_d()) // diff_src[MB x K] = diff_dst[MB x OC] x op(W)[OC x K]
        KESTREL_CHECK(plan.init(MB, K, OC, ddt, false, wdt, w_ko, sdt));
    else if (!w_ko) // diff_W[OC x K] = diff_dst^T x src
        KESTREL_CHECK(plan.init(OC, K, MB, ddt, true, sdt, false, wdt));
    else // diff_W[K x OC] = src^T x diff_dst
        KESTREL_CHECK(plan.init(K, OC, MB, sdt, true, ddt, false, wdt));
    plan.book(scratchpad_registry(), key_plan);
    if (req == gemm::panels_b_t::given) {
        panel_nr = nr;
        scratchpad_registry().book(key_w_plain, (size_t)OC * K * sizeof(float));
        wei_md_ = gemm::panels_b_md(wei_md_, 0, nr, 1);
    }
    return status::success;
}

namespace {

// Weights (OC x K) between plain rows and the GEMM panel layout
// (gemm::panels_b_md with kg 1): element (oc, k) of the panels at
// (oc / nr) * K * nr + k * nr + oc % nr; OC padded to nr with zeros.
void panels_to_plain(const float *wp, float *w, dim_t OC, dim_t K, dim_t nr) {
    parallel_nd(div_up(OC, nr), [&](dim_t p) {
        const float *src = wp + p * K * nr;
        const dim_t o1 = OC - p * nr < nr ? OC - p * nr : nr;
        for (dim_t o = 0; o < o1; ++o) {
            float *row = w + (p * nr + o) * K;
            for (dim_t k = 0; k < K; ++k) row[k] = src[k * nr + o];
        }
    });
}

void plain_to_panels(const float *w, float *wp, dim_t OC, dim_t K, dim_t nr) {
    parallel_nd(div_up(OC, nr), [&](dim_t p) {
        float *dst = wp + p * K * nr;
        const dim_t o1 = OC - p * nr < nr ? OC - p * nr : nr;
        for (dim_t k = 0; k < K; ++k) {
            for (dim_t o = 0; o < o1; ++o) dst[k * nr + o] = w[(p * nr + o) * K + k];
            for (dim_t o = o1; o < nr; ++o) dst[k * nr + o] = 0.f;
        }
    });
}

} // namespace

status_t gemm_ip_bwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = static_cast<const pd_t *>(pd_.get());
    const dim_t MB = p->MB, OC = p->OC, K = p->K;
    const auto &sg = ctx.scratchpad();
    auto origin = [&](int arg, const memory_desc_t *md) {
        return ctx.input<char>(arg) + md->offset0 * (dim_t)data_type_size(md->data_type);
    };
    gemm::operand_t dd, x;
    dd.dt = p->diff_dst_md()->data_type;
    dd.p = origin(DNNL_ARG_DIFF_DST, p->diff_dst_md());
    dd.ld = OC;
    if (p->is_bwd_d()) {
        const memory_desc_t *smd = p->diff_src_md(), *wmd = p->weights_md();
        x.dt = wmd->data_type;
        x.p = origin(DNNL_ARG_WEIGHTS, wmd);
        x.trans = p->w_ko;
        x.ld = p->w_ko ? OC : K;
        if (p->panel_nr) {
            float *w = sg.get<float>(pd_t::key_w_plain);
            if (!w) return status::out_of_memory;
            panels_to_plain(reinterpret_cast<const float *>(x.p), w, OC, K, p->panel_nr);
            x.p = w;
        }
        char *ds = ctx.output<char>(DNNL_ARG_DIFF_SRC) + smd->offset0 * (dim_t)data_type_size(smd->data_type);
        return p->plan.execute(MB, K, OC, 1.f, dd, x, 0.f, ds, K, sg, pd_t::key_plan);
    }
    const memory_desc_t *smd = p->src_md(), *wmd = p->diff_weights_md(0);
    x.dt = smd->data_type;
    x.p = origin(DNNL_ARG_SRC, smd);
    x.ld = K;
    char *const dw_user = ctx.output<char>(DNNL_ARG_DIFF_WEIGHTS) + wmd->offset0 * (dim_t)data_type_size(wmd->data_type);
    char *dw = dw_user;
    if (p->panel_nr) { // plain gradient first, then into the panels
        dw = sg.get<char>(pd_t::key_w_plain);
        if (!dw) return status::out_of_memory;
    }
    if (MB == 0) { // nothing to sum: the gradient is zero
        const mdw_t w(wmd);
        for (dim_t i = 0; i < OC * K; ++i) store_f32(w.data_type(), dw, i, 0.f);
    } else if (!p->w_ko) {
        dd.trans = true;
        KESTREL_CHECK(p->plan.execute(OC, K, MB, 1.f, dd, x, 0.f, dw, K, sg, pd_t::key_plan));
    } else {
        x.trans = true;
        KESTREL_CHECK(p->plan.execute(K, OC, MB, 1.f, x, dd, 0.f, dw, OC, sg, pd_t::key_plan));
    }
    if (p->panel_nr)
        plain_to_panels(reinterpret_cast<const float *>(dw), reinterpret_cast<float *>(dw_user), OC, K, p->panel_nr);
    if (!p->with_bias()) return status::success;
    const mdw_t b(p->diff_weights_md(1));
    void *db = ctx.output(DNNL_ARG_DIFF_BIAS);
    const void *ddp = dd.p;
    parallel_nd(OC, [&](dim_t oc) {
        float v = 0.f;
        for (dim_t mb = 0; mb < MB; ++mb) v += load_f32(dd.dt, ddp, mb * OC + oc);
        const dim_t pos[1] = {oc};
        store_f32(b.data_type(), db, b.off_v(pos), v);
    });
    return status::success;
}

const impl_entry_t ip_bwd_impl_list[] = {
        {"gemm:bwd", make_pd<gemm_ip_bwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
