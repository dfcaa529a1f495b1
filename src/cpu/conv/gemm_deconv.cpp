// Deconvolution forward as GEMM + col2im. See conv_impls.hpp.
#include <algorithm>
#include <atomic>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

constexpr scratchpad::key_t key_gemm = 0;
constexpr scratchpad::key_t key_col = gemm::key_count;
constexpr scratchpad::key_t key_wt = gemm::key_count + 1;
constexpr dim_t col_budget = 256 * 1024; // floats per thread

} // namespace

status_t gemm_deconv_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (!g.is_deconv) return decline(me, "convolution");
    if (desc_.alg_kind != dnnl_deconvolution_direct) return decline(me, "algorithm");
    if (!types_are(dnnl_f32) || (g.with_bias && bias_md_.data_type != dnnl_f32))
        return decline(me, "data types");
    if (status_t st = check_attr(); st != status::success)
        return st == status::unimplemented ? decline(me, "attributes") : st;
    // dst is zeroed before the scatter: its old values are gone.
    if (post_ops::sum_index(attr_.post_ops) >= 0) return decline(me, "sum post-op");
    const format_tag_t dtag = conv_plain_data_tag(g.ndims), wtag = conv_plain_wei_tag(g.ndims, g.with_groups);
    KESTREL_CHECK(set_formats(dtag, wtag));
    if (!mdw_t(src_md_).matches_tag(dtag) || !mdw_t(dst_md_).matches_tag(dtag)
            || !mdw_t(weights_md_).matches_tag(wtag))
        return decline(me, "layouts");

    M = g.OCg * g.KD * g.KH * g.KW;
    const dim_t ISP = g.ID * g.IH * g.IW;
    chunk = std::min<dim_t>(ISP, std::max<dim_t>(16, col_budget / M / 16 * 16));
    const dim_t pts = ISP % chunk == 0 ? chunk : DNNL_RUNTIME_DIM_VAL;
    KESTREL_CHECK(plan.init(M, pts, g.ICg, false, false));
    plan.book(scratchpad_registry(), key_gemm);
    scratchpad_registry().book_per_thread(key_col, (size_t)M * chunk * sizeof(float));
    scratchpad_registry().book(key_wt, (size_t)g.G * M * g.ICg * sizeof(float));
    return status::success;
}

status_t gemm_deconv_fwd_t::init() {
    KESTREL_CHECK(primitive_t::init());
    epi_.init(pd());
    return status::success;
}

status_t gemm_deconv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const mdw_t src_d(p->src_md()), wei_d(p->weights_md()), dst_d(p->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const float *src = ctx.input<float>(DNNL_ARG_SRC);
    const float *wei = ctx.input<float>(DNNL_ARG_WEIGHTS);
    float *dst = ctx.output<float>(DNNL_ARG_DST);
    conv_epilogue_t::args_t ea;
    epi_.get_args(ctx, ea);
    const post_ops::applier_t ap(p->attr()->post_ops, *p->dst_md(), ctx);
    const auto &sg = ctx.scratchpad();
    float *wt = sg.get<float>(key_wt);
    if (!wt) return status::out_of_memory;

    const dim_t KS = g.KD * g.KH * g.KW, M = p->M, ICg = g.ICg;
    // wt[g][oc * KS + k][ic] = w[g][oc][ic][k].
    parallel_nd(g.G, g.OCg, [&](dim_t gr, dim_t oc) {
        dim_t pos[max_ndims];
        g.wei_pos(pos, gr, oc, 0, 0, 0, 0);
        const float *w = wei + wei_d.off_v(pos); // [ic][k], dense
        float *t = wt + (gr * M + oc * KS) * ICg;
        for (dim_t ic = 0; ic < ICg; ++ic)
            for (dim_t k = 0; k < KS; ++k) t[k * ICg + ic] = w[ic * KS + k];
    });

    const dim_t ISP = g.ID * g.IH * g.IW, OSP = g.OD * g.OH * g.OW;
    const dim_t chunk = p->chunk, nchunks = div_up(ISP, chunk);
    const dim_t d_c = dst_d.blk().strides[1];
    const dim_t s_c = src_d.blk().strides[1];
    const dim_t work = g.MB * g.G;

    auto run = [&](dim_t item, int ithr, bool parallel_gemm) -> status_t {
        const dim_t gr = item % g.G, n = item / g.G;
        dim_t pos[max_ndims];
        g.data_pos(pos, n, gr * ICg, 0, 0, 0);
        const float *src_ng = src + src_d.off_v(pos);
        g.data_pos(pos, n, gr * g.OCg, 0, 0, 0);
        float *dst_ng = dst + dst_d.off_v(pos);
        float *col = sg.get<float>(key_col, ithr);
        if (!col) return status::out_of_memory;
        for (dim_t oc = 0; oc < g.OCg; ++oc) std::fill(dst_ng + oc * d_c, dst_ng + oc * d_c + OSP, 0.f);

        for (dim_t c = 0; c < nchunks; ++c) {
            const dim_t sp0 = c * chunk, len = std::min(chunk, ISP - sp0);
            const float *A = wt + gr * M * ICg;
            status_t st = parallel_gemm
                    ? p->plan.execute(M, len, ICg, 1.f, A, ICg, src_ng + sp0, s_c, 0.f, col, len, sg, key_gemm)
                    : p->plan.execute_st(M, len, ICg, 1.f, A, ICg, src_ng + sp0, s_c, 0.f, col, len, sg, key_gemm, ithr);
            KESTREL_CHECK(st);
            // col2im: src point (id, ih, iw) with tap (kd, kh, kw) lands on
            // od = id * SD - PD + kd * (DD + 1), and so on.
            for (dim_t oc = 0; oc < g.OCg; ++oc)
                for (dim_t kd = 0; kd < g.KD; ++kd)
                    for (dim_t kh = 0; kh < g.KH; ++kh)
                        for (dim_t kw = 0; kw < g.KW; ++kw) {
                            const float *crow = col + (((oc * g.KD + kd) * g.KH + kh) * g.KW + kw) * len;
                            float *dplane = dst_ng + oc * d_c;
                            for (dim_t j = 0; j < len;) {
                                const dim_t sp = sp0 + j;
                                const dim_t iw0 = sp % g.IW, ih = sp / g.IW % g.IH, id = sp / (g.IW * g.IH);
                                const dim_t seg = std::min(len - j, g.IW - iw0);
                                const dim_t od = id * g.SD - g.PD + kd * (g.DD + 1);
                                const dim_t oh = ih * g.SH - g.PH + kh * (g.DH + 1);
                                if (od >= 0 && od < g.OD && oh >= 0 && oh < g.OH) {
                                    float *drow = dplane + (od * g.OH + oh) * g.OW;
                                    for (dim_t x = 0; x < seg; ++x) {
                                        const dim_t ow = (iw0 + x) * g.SW - g.PW + kw * (g.DW + 1);
                                        if (ow >= 0 && ow < g.OW) drow[ow] += crow[j + x];
                                    }
                                }
                                j += seg;
                            }
                        }
        }
        if (!epi_.trivial()) {
            for (dim_t oc = 0; oc < g.OCg; ++oc) {
                const dim_t c = gr * g.OCg + oc;
                for (dim_t od = 0; od < g.OD; ++od)
                    for (dim_t oh = 0; oh < g.OH; ++oh) {
                        float *row = dst_ng + oc * d_c + (od * g.OH + oh) * g.OW;
                        epi_.pre(row, g.OW, c, ea, 0);
                        if (epi_.has_chain()) {
                            g.data_pos(pos, n, c, od, oh, 0);
                            ap.apply_row(row, nullptr, g.OW, pos);
                        }
                        epi_.post(row, g.OW, c, ea, 0);
                    }
            }
        }
        return status::success;
    };

    const int nthr = std::max(1, std::min(max_threads(), sg.nthr()));
    if (work >= nthr || nthr == 1) {
        std::atomic<bool> oom {false};
        parallel((int)std::min<dim_t>(nthr, work), [&](int ithr, int nt) {
            dim_t s, e;
            balance211(work, nt, ithr, s, e);
            for (dim_t it = s; it < e; ++it)
                if (run(it, ithr, false) != status::success) oom = true;
        });
        return oom ? status::out_of_memory : status::success;
    }
    for (dim_t it = 0; it < work; ++it) KESTREL_CHECK(run(it, 0, true));
    return status::success;
}

} // namespace kestrel
