// Deconvolution forward as GEMM + col2im. See conv_impls.hpp.
//
// ncx: col[(oc * KS + k)][point] = W^T[(oc, k)][ic] * src[ic][point]; each
//      col row is scattered along a dst plane.
// nxc: col[point][k * OCg + oc] = src[point][ic] * W'[ic][(k, oc)]; each
//      (point, tap) adds OCg consecutive channels to one dst point.
#include <algorithm>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

constexpr scratchpad::key_t key_gemm = 0;
constexpr scratchpad::key_t key_col = gemm::key_count;
constexpr scratchpad::key_t key_wt = gemm::key_count + 1;
constexpr dim_t col_budget = 256 * 1024; // floats per thread

format_tag_t nxc_tag(int ndims) { return ndims == 3 ? dnnl_nwc : ndims == 4 ? dnnl_nhwc : dnnl_ndhwc; }

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
    // The scatter accumulates into dst, so a sum post-op must be folded into
    // dst's starting value: possible when it comes first and nothing scales
    // the accumulator before it.
    const auto &po = attr_.post_ops;
    const int si = post_ops::sum_index(po);
    if (si > 0 || (si == 0 && po.find(dnnl_sum, 1) > 0)) return decline(me, "sum not first");
    if (si == 0 && (attr_.scales.get(DNNL_ARG_SRC) || attr_.scales.get(DNNL_ARG_WEIGHTS)))
        return decline(me, "sum with src/weights scales");
    sum_seed = si == 0;

    const int nd = g.ndims;
    const format_tag_t ncx = conv_plain_data_tag(nd), nxc_t = nxc_tag(nd);
    nxc = false;
    for (const memory_desc_t *m : {&src_md_, &dst_md_})
        if (!mdw_t(*m).is_any()) {
            nxc = mdw_t(*m).matches_tag(nxc_t) && !mdw_t(*m).matches_tag(ncx);
            break;
        }
    const format_tag_t dtag = nxc ? nxc_t : ncx, wtag = conv_plain_wei_tag(nd, g.with_groups);
    KESTREL_CHECK(set_formats(dtag, wtag));
    if (!mdw_t(src_md_).matches_tag(dtag) || !mdw_t(dst_md_).matches_tag(dtag)
            || !mdw_t(weights_md_).matches_tag(wtag))
        return decline(me, "layouts");

    M = g.OCg * g.KD * g.KH * g.KW;
    const dim_t ISP = g.ID * g.IH * g.IW;
    chunk = std::min<dim_t>(ISP, std::max<dim_t>(16, col_budget / M / 16 * 16));
    const dim_t pts = ISP % chunk == 0 ? chunk : DNNL_RUNTIME_DIM_VAL;
    if (nxc)
        KESTREL_CHECK(plan.init(pts, M, g.ICg, false, false));
    else
        KESTREL_CHECK(plan.init(M, pts, g.ICg, false, false));
    plan.book(scratchpad_registry(), key_gemm);
    scratchpad_registry().book_per_thread(key_col, (size_t)M * chunk * sizeof(float));
    scratchpad_registry().book(key_wt, (size_t)g.G * M * g.ICg * sizeof(float));
    return status::success;
}

status_t gemm_deconv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const mdw_t src_d(p->src_md()), wei_d(p->weights_md()), dst_d(p->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const conv_exec_args_t ex(ctx, p, epi_);
    const float *src = static_cast<const float *>(ex.src);
    const float *wei = static_cast<const float *>(ex.wei);
    float *dst = static_cast<float *>(ex.dst);
    const auto &sg = ctx.scratchpad();
    float *wt = sg.get<float>(key_wt);
    if (!wt) return status::out_of_memory;

    const bool nxc = p->nxc;
    const dim_t KS = g.KD * g.KH * g.KW, M = p->M, ICg = g.ICg, OCg = g.OCg;
    // ncx: wt[g][oc * KS + k][ic]; nxc: wt[g][ic][k * OCg + oc]; from w[g][oc][ic][k].
    parallel_nd(g.G, OCg, [&](dim_t gr, dim_t oc) {
        dim_t pos[max_ndims];
        g.wei_pos(pos, gr, oc, 0, 0, 0, 0);
        const float *w = wei + wei_d.off_v(pos); // [ic][k], dense
        float *t = wt + gr * M * ICg;
        for (dim_t ic = 0; ic < ICg; ++ic)
            for (dim_t k = 0; k < KS; ++k) {
                if (nxc)
                    t[ic * M + k * OCg + oc] = w[ic * KS + k];
                else
                    t[(oc * KS + k) * ICg + ic] = w[ic * KS + k];
            }
    });

    const int nd = g.ndims;
    const auto &ds = dst_d.blk().strides, &ss = src_d.blk().strides;
    const dim_t d_c = ds[1], d_d = nd == 5 ? ds[2] : 0, d_h = nd >= 4 ? ds[nd - 2] : 0, d_w = ds[nd - 1];
    const dim_t s_c = ss[1], s_w = ss[nd - 1];
    const dim_t ISP = g.ID * g.IH * g.IW;
    const dim_t chunk = p->chunk, nchunks = div_up(ISP, chunk);
    // dst starts at zero, or at the sum's term when it is folded in (the
    // same formula as the post-op: scale * (old - zero point)).
    float sum_scale = 0.f, sum_zp = 0.f;
    if (p->sum_seed) {
        const auto &s = p->attr()->post_ops.entries[0].sum;
        sum_scale = s.scale;
        sum_zp = (float)s.zero_point;
    }
    const int chain_first = p->sum_seed ? 1 : 0;
    const bool chain = ex.ap.size() > chain_first;
    auto dst_at = [&](float *base, dim_t od, dim_t oh, dim_t ow) { return base + od * d_d + oh * d_h + ow * d_w; };

    auto run = [&](dim_t item, int ithr, bool parallel_gemm) -> status_t {
        const dim_t gr = item % g.G, n = item / g.G;
        dim_t pos[max_ndims];
        g.data_pos(pos, n, gr * ICg, 0, 0, 0);
        const float *src_ng = src + src_d.off_v(pos);
        g.data_pos(pos, n, gr * OCg, 0, 0, 0);
        float *dst_ng = dst + dst_d.off_v(pos);
        float *col = sg.get<float>(key_col, ithr);
        if (!col) return status::out_of_memory;
        auto start = [&](float &v) { v = p->sum_seed ? sum_scale * (v - sum_zp) : 0.f; };
        for (dim_t od = 0; od < g.OD; ++od)
            for (dim_t oh = 0; oh < g.OH; ++oh) {
                if (nxc) {
                    for (dim_t ow = 0; ow < g.OW; ++ow)
                        for (dim_t oc = 0; oc < OCg; ++oc) start(dst_at(dst_ng, od, oh, ow)[oc]);
                } else {
                    for (dim_t oc = 0; oc < OCg; ++oc)
                        for (dim_t ow = 0; ow < g.OW; ++ow) start(dst_at(dst_ng, od, oh, ow)[oc * d_c]);
                }
            }

        const float *A = wt + gr * M * ICg;
        for (dim_t c = 0; c < nchunks; ++c) {
            const dim_t sp0 = c * chunk, len = std::min(chunk, ISP - sp0);
            if (nxc) {
                KESTREL_CHECK(parallel_gemm
                                ? p->plan.execute(len, M, ICg, 1.f, src_ng + sp0 * s_w, s_w, A, M, 0.f, col, M, sg, key_gemm)
                                : p->plan.execute_st(len, M, ICg, 1.f, src_ng + sp0 * s_w, s_w, A, M, 0.f, col, M, sg,
                                        key_gemm, ithr));
            } else {
                KESTREL_CHECK(parallel_gemm
                                ? p->plan.execute(M, len, ICg, 1.f, A, ICg, src_ng + sp0, s_c, 0.f, col, len, sg, key_gemm)
                                : p->plan.execute_st(M, len, ICg, 1.f, A, ICg, src_ng + sp0, s_c, 0.f, col, len, sg,
                                        key_gemm, ithr));
            }
            // col2im: src point (id, ih, iw) with tap (kd, kh, kw) lands on
            // od = id * SD - PD + kd * (DD + 1), and so on.
            for (dim_t j = 0; j < len;) {
                const dim_t sp = sp0 + j;
                const dim_t iw0 = sp % g.IW, ih = sp / g.IW % g.IH, id = sp / (g.IW * g.IH);
                const dim_t seg = std::min(len - j, g.IW - iw0);
                for (dim_t kd = 0; kd < g.KD; ++kd) {
                    const dim_t od = id * g.SD - g.PD + kd * (g.DD + 1);
                    if (od < 0 || od >= g.OD) continue;
                    for (dim_t kh = 0; kh < g.KH; ++kh) {
                        const dim_t oh = ih * g.SH - g.PH + kh * (g.DH + 1);
                        if (oh < 0 || oh >= g.OH) continue;
                        for (dim_t kw = 0; kw < g.KW; ++kw) {
                            const dim_t k = (kd * g.KH + kh) * g.KW + kw;
                            for (dim_t x = 0; x < seg; ++x) {
                                const dim_t ow = (iw0 + x) * g.SW - g.PW + kw * (g.DW + 1);
                                if (ow < 0 || ow >= g.OW) continue;
                                float *d = dst_at(dst_ng, od, oh, ow);
                                if (nxc) {
                                    const float *cr = col + (j + x) * M + k * OCg;
                                    for (dim_t oc = 0; oc < OCg; ++oc) d[oc] += cr[oc];
                                } else {
                                    for (dim_t oc = 0; oc < OCg; ++oc) d[oc * d_c] += col[(oc * KS + k) * len + j + x];
                                }
                            }
                        }
                    }
                }
                j += seg;
            }
        }
        if (epi_.trivial()) return status::success;
        for (dim_t od = 0; od < g.OD; ++od)
            for (dim_t oh = 0; oh < g.OH; ++oh) {
                if (nxc) { // one point: OCg consecutive channels
                    for (dim_t ow = 0; ow < g.OW; ++ow) {
                        float *v = dst_at(dst_ng, od, oh, ow);
                        const dim_t c0 = gr * OCg;
                        epi_.pre(v, OCg, c0, ex.ea, 1);
                        if (chain) {
                            g.data_pos(pos, n, c0, od, oh, ow);
                            for (dim_t oc = 0; oc < OCg; ++oc) {
                                pos[1] = c0 + oc;
                                v[oc] = ex.ap.apply(v[oc], 0.f, pos, chain_first);
                            }
                        }
                        epi_.post(v, OCg, c0, ex.ea, 1);
                    }
                } else { // one channel: a row along w
                    for (dim_t oc = 0; oc < OCg; ++oc) {
                        const dim_t c = gr * OCg + oc;
                        float *row = dst_at(dst_ng, od, oh, 0) + oc * d_c;
                        epi_.pre(row, g.OW, c, ex.ea, 0);
                        if (chain) {
                            g.data_pos(pos, n, c, od, oh, 0);
                            ex.ap.apply_row(row, nullptr, g.OW, pos, chain_first);
                        }
                        epi_.post(row, g.OW, c, ex.ea, 0);
                    }
                }
            }
        return status::success;
    };
    return conv_for_items(g.MB * g.G, sg, run);
}

} // namespace kestrel
