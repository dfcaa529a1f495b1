// GEMM-based convolution: im2col + GEMM, and the 1x1 shortcut without
// im2col. See conv_impls.hpp for the formulation.
#include <algorithm>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

// Scratchpad keys: the GEMM plan's packing buffers, the im2col buffer, the
// f32 copy of bf16 weights and the f32 accumulator of a bf16 dst.
constexpr scratchpad::key_t key_gemm = 0;
constexpr scratchpad::key_t key_col = gemm::key_count;
constexpr scratchpad::key_t key_wei = key_col + 1;
constexpr scratchpad::key_t key_acc = key_col + 2;
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

inline float to_f32(float v) { return v; }
inline float to_f32(uint16_t v) { return bf16_to_f32(v); }

// Builds the column buffer of output points [sp0, sp0 + len) of one image
// and group: col[k][j] (ncx) or col[j][k] (nxc), with
// k = ((ic*KD + kd)*KH + kh)*KW + kw; src elements are read as f32.
template <typename T>
void im2col(const conv_geom_t &g, const T *src_ng, dim_t s_c, dim_t s_d, dim_t s_h, dim_t s_w,
        bool nxc, dim_t K, dim_t sp0, dim_t len, float *buf) {
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
                    const T *srow = src_ng + ic * s_c + id * s_d + ih * s_h;
                    for (dim_t kw = 0; kw < g.KW; ++kw) {
                        const dim_t k = ((ic * g.KD + kd) * g.KH + kh) * g.KW + kw;
                        float *out = buf + k * kstride + j0 * jstride;
                        if (!row_in) {
                            for (dim_t j = 0; j < seg; ++j) out[j * jstride] = 0.f;
                            continue;
                        }
                        for (dim_t j = 0; j < seg; ++j) {
                            const dim_t iw = (ow0 + j) * g.SW - g.PW + kw * (g.DW + 1);
                            out[j * jstride] = iw >= 0 && iw < g.IW ? to_f32(srow[iw * s_w]) : 0.f;
                        }
                    }
                }
            }
        j0 += seg;
    }
}

} // namespace

status_t gemm_conv_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (g.is_deconv) return decline(me, "deconvolution");
    if (!one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto))
        return decline(me, "algorithm");
    bf16 = src_md_.data_type == dnnl_bf16 && weights_md_.data_type == dnnl_bf16
            && one_of(dst_md_.data_type, dnnl_bf16, dnnl_f32)
            && (!g.with_bias || one_of(bias_md_.data_type, dnnl_bf16, dnnl_f32));
    if (!bf16 && (!types_are(dnnl_f32) || (g.with_bias && bias_md_.data_type != dnnl_f32)))
        return decline(me, "data types");
    acc_buf = dst_md_.data_type != dnnl_f32;
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
    if (is_1x1 && !bf16) {
        chunk = OSP;
    } else {
        // bf16 1x1 converts src through the column buffer too; an f32
        // accumulator of a bf16 dst holds chunk x OCg.
        const dim_t per_pt = std::max<dim_t>(1, acc_buf ? std::max(K, g.OCg) : K);
        chunk = std::max<dim_t>(16, col_budget / per_pt / 16 * 16);
        if (chunk > OSP) chunk = OSP;
    }
    const dim_t pts = OSP % std::max<dim_t>(chunk, 1) == 0 ? chunk : DNNL_RUNTIME_DIM_VAL;
    if (nxc)
        KESTREL_CHECK(plan.init(pts, g.OCg, K, false, true));
    else
        KESTREL_CHECK(plan.init(g.OCg, pts, K, false, false));
    plan.book(scratchpad_registry(), key_gemm);
    auto &reg = scratchpad_registry();
    if (!is_1x1 || bf16) reg.book_per_thread(key_col, (size_t)K * chunk * sizeof(float));
    if (bf16) reg.book(key_wei, (size_t)g.G * g.OCg * K * sizeof(float));
    if (acc_buf) reg.book_per_thread(key_acc, (size_t)g.OCg * chunk * sizeof(float));
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;
    return status::success;
}

status_t gemm_conv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const mdw_t src_d(p->src_md()), wei_d(p->weights_md()), dst_d(p->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const conv_exec_args_t ex(ctx, p, epi_);
    const auto &sg = ctx.scratchpad();
    const bool bf16 = p->bf16, acc_buf = p->acc_buf;
    const size_t dst_sz = data_type_size(dst_d.data_type());
    // bf16 weights: one f32 copy per execution (the user may change them
    // between runs), dense in the same plain layout, so offsets carry over
    // less offset0.
    const float *wei = static_cast<const float *>(ex.wei);
    dim_t wei_off0 = 0;
    if (bf16) {
        float *wbuf = sg.get<float>(key_wei);
        if (!wbuf) return status::out_of_memory;
        const uint16_t *w16 = static_cast<const uint16_t *>(ex.wei) + p->weights_md()->offset0;
        const dim_t nw = g.G * g.OCg * p->K;
        parallel(std::max(1, std::min(max_threads(), sg.nthr())), [&](int ithr, int nthr) {
            dim_t s, e;
            balance211(nw, nthr, ithr, s, e);
            for (dim_t i = s; i < e; ++i) wbuf[i] = bf16_to_f32(w16[i]);
        });
        wei = wbuf;
        wei_off0 = p->weights_md()->offset0;
    }

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
        const dim_t src_off = src_d.off_v(pos);
        g.wei_pos(pos, gr, 0, 0, 0, 0, 0);
        const float *w = wei + (wei_d.off_v(pos) - wei_off0);
        g.data_pos(pos, n, gr * g.OCg, 0, 0, 0);
        char *dst_ng = static_cast<char *>(ex.dst) + dst_d.off_v(pos) * dst_sz;

        const float *col = nullptr;
        dim_t ldcol = 0;
        if (p->is_1x1 && !bf16) {
            const float *src_ng = static_cast<const float *>(ex.src) + src_off;
            col = nxc ? src_ng + sp0 * s_w : src_ng + sp0;
            ldcol = nxc ? s_w : s_c;
        } else {
            float *buf = sg.get<float>(key_col, ithr);
            if (!buf) return status::out_of_memory;
            if (bf16)
                im2col(g, static_cast<const uint16_t *>(ex.src) + src_off, s_c, s_d, s_h, s_w, nxc, K,
                        sp0, len, buf);
            else
                im2col(g, static_cast<const float *>(ex.src) + src_off, s_c, s_d, s_h, s_w, nxc, K,
                        sp0, len, buf);
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
        // The GEMM writes dst in place (f32), or an f32 accumulator that is
        // rounded into a bf16 dst afterwards (rows x cols, row stride ldd).
        const dim_t rows = nxc ? len : g.OCg, cols = nxc ? g.OCg : len;
        char *dst_c = dst_ng + (nxc ? sp0 * ldd : sp0) * dst_sz;
        float *C = reinterpret_cast<float *>(dst_c);
        dim_t ldc = ldd;
        uint16_t *d16 = reinterpret_cast<uint16_t *>(dst_c);
        if (acc_buf) {
            C = sg.get<float>(key_acc, ithr);
            if (!C) return status::out_of_memory;
            ldc = cols;
            if (beta != 0.f)
                for (dim_t i = 0; i < rows; ++i)
                    for (dim_t j = 0; j < cols; ++j) C[i * ldc + j] = bf16_to_f32(d16[i * ldd + j]);
        }
        status_t st;
        if (nxc)
            st = parallel_gemm
                    ? p->plan.execute(len, g.OCg, K, alpha, col, ldcol, w, K, beta, C, ldc, sg, key_gemm, epp)
                    : p->plan.execute_st(len, g.OCg, K, alpha, col, ldcol, w, K, beta, C, ldc, sg, key_gemm, ithr, epp);
        else
            st = parallel_gemm
                    ? p->plan.execute(g.OCg, len, K, alpha, w, K, col, ldcol, beta, C, ldc, sg, key_gemm, epp)
                    : p->plan.execute_st(g.OCg, len, K, alpha, w, K, col, ldcol, beta, C, ldc, sg, key_gemm, ithr, epp);
        if (st != status::success || !acc_buf) return st;
        for (dim_t i = 0; i < rows; ++i)
            for (dim_t j = 0; j < cols; ++j) d16[i * ldd + j] = f32_to_bf16(C[i * ldc + j]);
        return status::success;
    };

    return conv_for_items(work, sg, run);
}

} // namespace kestrel
