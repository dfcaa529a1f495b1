// GEMM-based convolution: im2col + GEMM, and the 1x1 shortcut without
// im2col. See conv_impls.hpp for the formulation.
#include <algorithm>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Scratchpad keys: the GEMM plan's packing buffers, then the im2col buffer.
constexpr scratchpad::key_t key_gemm = 0;
constexpr scratchpad::key_t key_col = gemm::key_count;
// im2col chunk budget, in floats per thread (1 MiB).
constexpr dim_t col_budget = 256 * 1024;

format_tag_t nxc_tag(int ndims) { return ndims == 3 ? dnnl_nwc : ndims == 4 ? dnnl_nhwc : dnnl_ndhwc; }

// Spatial strides of a plain data layout, widened to d/h/w.
void sp_strides(const mdw_t &m, dim_t &sd, dim_t &sh, dim_t &sw) {
    const int nd = m.ndims();
    const auto &s = m.blk().strides;
    sd = nd == 5 ? s[2] : 0;
    sh = nd >= 4 ? s[nd - 2] : 0;
    sw = s[nd - 1];
}

// Runs the conv epilogue on a finished GEMM tile.
struct tile_epilogue_t : gemm::epilogue_t {
    const conv_epilogue_t *epi;
    const conv_epilogue_t::args_t *ea;
    const post_ops::applier_t *ap;
    const conv_geom_t *g;
    bool nxc, scales_in_gemm;
    int chain_first;
    float shift; // -scale * zero point of a sum done through beta
    dim_t n, oc_base, sp0;

    void point(dim_t sp, dim_t *pos) const {
        const dim_t ow = sp % g->OW, oh = sp / g->OW % g->OH, od = sp / (g->OW * g->OH);
        g->data_pos(pos, n, 0, od, oh, ow);
    }

    void apply(dim_t m0, dim_t n0, dim_t m, dim_t nn, float *c, dim_t ldc) const override {
        const bool chain = ap->size() > chain_first;
        dim_t pos[max_ndims];
        for (dim_t i = 0; i < m; ++i) {
            float *row = c + i * ldc;
            if (!nxc) { // row: one channel, nn consecutive output points
                const dim_t oc = oc_base + m0 + i;
                epi->pre(row, nn, oc, *ea, 0, !scales_in_gemm);
                if (shift != 0.f)
                    for (dim_t j = 0; j < nn; ++j) row[j] += shift;
                if (chain) {
                    // The chain runs along w: cut the row where a w-row ends.
                    for (dim_t j = 0; j < nn;) {
                        const dim_t sp = sp0 + n0 + j;
                        point(sp, pos);
                        pos[1] = oc;
                        const dim_t len = std::min(nn - j, g->OW - sp % g->OW);
                        ap->apply_row(row + j, nullptr, len, pos, chain_first);
                        j += len;
                    }
                }
                epi->post(row, nn, oc, *ea, 0);
            } else { // row: one output point, nn consecutive channels
                const dim_t oc0 = oc_base + n0;
                epi->pre(row, nn, oc0, *ea, 1, !scales_in_gemm);
                if (shift != 0.f)
                    for (dim_t j = 0; j < nn; ++j) row[j] += shift;
                if (chain) {
                    point(sp0 + m0 + i, pos);
                    for (dim_t j = 0; j < nn; ++j) {
                        pos[1] = oc0 + j;
                        row[j] = ap->apply(row[j], 0.f, pos, chain_first);
                    }
                }
                epi->post(row, nn, oc0, *ea, 1);
            }
        }
    }
};

} // namespace

status_t gemm_conv_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (g.is_deconv) return decline(me, "deconvolution");
    if (!one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto))
        return decline(me, "algorithm");
    if (!types_are(dnnl_f32) || (g.with_bias && bias_md_.data_type != dnnl_f32))
        return decline(me, "data types");
    if (is_1x1 && !g.is_1x1_unit()) return decline(me, "not a unit-stride unpadded 1x1");
    if (status_t st = check_attr(); st != status::success)
        return st == status::unimplemented ? decline(me, "attributes") : st;
    // A sum can go through the GEMM's beta only as the first post-op and
    // with scales that are one number.
    const auto &po = attr_.post_ops;
    const int si = post_ops::sum_index(po);
    if (si > 0 || po.find(dnnl_sum, si + 1) > 0) return decline(me, "sum not first");
    const quant_entry_t *ws = attr_.scales.get(DNNL_ARG_WEIGHTS);
    if (si == 0 && ws && ws->mask != 0) return decline(me, "sum with per-channel weights scales");
    sum_in_gemm = si == 0;

    // Layout family from whichever data tensor the user fixed.
    const int nd = g.ndims;
    const format_tag_t ncx = conv_plain_data_tag(nd), nxc_t = nxc_tag(nd);
    nxc = false;
    for (const memory_desc_t *m : {&src_md_, &dst_md_})
        if (!mdw_t(*m).is_any()) {
            nxc = mdw_t(*m).matches_tag(nxc_t) && !mdw_t(*m).matches_tag(ncx);
            break;
        }
    const format_tag_t wtag = conv_plain_wei_tag(nd, g.with_groups);
    KESTREL_CHECK(set_formats(nxc ? nxc_t : ncx, wtag));
    const format_tag_t dtag = nxc ? nxc_t : ncx;
    if (!mdw_t(src_md_).matches_tag(dtag) || !mdw_t(dst_md_).matches_tag(dtag)
            || !mdw_t(weights_md_).matches_tag(wtag))
        return decline(me, "layouts");

    K = g.ICg * g.KD * g.KH * g.KW;
    const dim_t OSP = g.OD * g.OH * g.OW;
    if (is_1x1) {
        chunk = OSP;
    } else {
        chunk = std::max<dim_t>(16, col_budget / K / 16 * 16);
        if (chunk > OSP) chunk = OSP;
    }
    const dim_t pts = OSP % std::max<dim_t>(chunk, 1) == 0 ? chunk : DNNL_RUNTIME_DIM_VAL;
    if (nxc)
        KESTREL_CHECK(plan.init(pts, g.OCg, K, false, true));
    else
        KESTREL_CHECK(plan.init(g.OCg, pts, K, false, false));
    plan.book(scratchpad_registry(), key_gemm);
    if (!is_1x1) scratchpad_registry().book_per_thread(key_col, (size_t)K * chunk * sizeof(float));
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;
    return status::success;
}

status_t gemm_conv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const mdw_t src_d(p->src_md()), wei_d(p->weights_md()), dst_d(p->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const conv_exec_args_t ex(ctx, p, epi_);
    const float *src = static_cast<const float *>(ex.src);
    const float *wei = static_cast<const float *>(ex.wei);
    float *dst = static_cast<float *>(ex.dst);
    const auto &sg = ctx.scratchpad();

    float alpha = 1.f, beta = 0.f, shift = 0.f;
    if (p->sum_in_gemm) {
        const auto &s = p->attr()->post_ops.entries[0].sum;
        alpha = epi_.common_scale(ex.ea);
        beta = s.scale;
        shift = -s.scale * (float)s.zero_point;
    }
    const bool nxc = p->nxc;
    const dim_t K = p->K, chunk = p->chunk;
    const dim_t OSP = g.OD * g.OH * g.OW;
    const dim_t nchunks = div_up(OSP, chunk);
    const dim_t work = g.MB * g.G * nchunks;
    dim_t s_d, s_h, s_w;
    sp_strides(src_d, s_d, s_h, s_w);
    const dim_t s_c = src_d.blk().strides[1];
    const dim_t ldd = nxc ? dst_d.blk().strides[g.ndims - 1] : dst_d.blk().strides[1];

    // One (image, group, chunk of output points); ithr picks the buffers.
    auto run = [&](dim_t item, int ithr, bool parallel_gemm) -> status_t {
        const dim_t c = item % nchunks, gr = item / nchunks % g.G, n = item / nchunks / g.G;
        const dim_t sp0 = c * chunk, len = std::min(chunk, OSP - sp0);
        dim_t pos[max_ndims];
        g.data_pos(pos, n, gr * g.ICg, 0, 0, 0);
        const float *src_ng = src + src_d.off_v(pos);
        g.wei_pos(pos, gr, 0, 0, 0, 0, 0);
        const float *w = wei + wei_d.off_v(pos);
        g.data_pos(pos, n, gr * g.OCg, 0, 0, 0);
        float *dst_ng = dst + dst_d.off_v(pos);

        const float *col = nullptr;
        dim_t ldcol = 0;
        if (p->is_1x1) {
            col = nxc ? src_ng + sp0 * s_w : src_ng + sp0;
            ldcol = nxc ? s_w : s_c;
        } else {
            float *buf = sg.get<float>(key_col, ithr);
            if (!buf) return status::out_of_memory;
            // col[k][j] (ncx) or col[j][k] (nxc), k = ((ic*KD + kd)*KH + kh)*KW + kw.
            const dim_t kstride = nxc ? 1 : len, jstride = nxc ? K : 1;
            for (dim_t j0 = 0; j0 < len;) {
                const dim_t sp = sp0 + j0;
                const dim_t ow0 = sp % g.OW, oh = sp / g.OW % g.OH, od = sp / (g.OW * g.OH);
                const dim_t seg = std::min(len - j0, g.OW - ow0);
                for (dim_t ic = 0; ic < g.ICg; ++ic)
                    for (dim_t kd = 0; kd < g.KD; ++kd) {
                        const dim_t id = od * g.SD - g.PD + kd * (g.DD + 1);
                        for (dim_t kh = 0; kh < g.KH; ++kh) {
                            const dim_t ih = oh * g.SH - g.PH + kh * (g.DH + 1);
                            const bool row_in = id >= 0 && id < g.ID && ih >= 0 && ih < g.IH;
                            const float *srow = src_ng + ic * s_c + id * s_d + ih * s_h;
                            for (dim_t kw = 0; kw < g.KW; ++kw) {
                                const dim_t k = ((ic * g.KD + kd) * g.KH + kh) * g.KW + kw;
                                float *out = buf + k * kstride + j0 * jstride;
                                for (dim_t j = 0; j < seg; ++j) {
                                    const dim_t iw = (ow0 + j) * g.SW - g.PW + kw * (g.DW + 1);
                                    out[j * jstride] = row_in && iw >= 0 && iw < g.IW ? srow[iw * s_w] : 0.f;
                                }
                            }
                        }
                    }
                j0 += seg;
            }
            col = buf;
            ldcol = nxc ? K : len;
        }

        tile_epilogue_t ep;
        ep.epi = &epi_, ep.ea = &ex.ea, ep.ap = &ex.ap, ep.g = &g;
        ep.nxc = nxc, ep.scales_in_gemm = p->sum_in_gemm;
        ep.chain_first = p->sum_in_gemm ? 1 : 0;
        ep.shift = shift;
        ep.n = n, ep.oc_base = gr * g.OCg, ep.sp0 = sp0;
        const bool need_ep = !epi_.trivial() || shift != 0.f;
        const gemm::epilogue_t *epp = need_ep ? &ep : nullptr;
        if (nxc) {
            float *C = dst_ng + sp0 * ldd;
            return parallel_gemm
                    ? p->plan.execute(len, g.OCg, K, alpha, col, ldcol, w, K, beta, C, ldd, sg, key_gemm, epp)
                    : p->plan.execute_st(len, g.OCg, K, alpha, col, ldcol, w, K, beta, C, ldd, sg, key_gemm, ithr, epp);
        }
        float *C = dst_ng + sp0;
        return parallel_gemm
                ? p->plan.execute(g.OCg, len, K, alpha, w, K, col, ldcol, beta, C, ldd, sg, key_gemm, epp)
                : p->plan.execute_st(g.OCg, len, K, alpha, w, K, col, ldcol, beta, C, ldd, sg, key_gemm, ithr, epp);
    };

    return conv_for_items(work, sg, run);
}

} // namespace kestrel
